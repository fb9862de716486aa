package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Policy is the complete, effective set of thresholds and rules the breaker
// folds iterations with. A Policy loaded through Load or Builtin has been
// validated; the zero value is not a usable policy. Each field's tags are
// its TOML key and what Validate allows: a range "min,max" or "paths" (a
// list of path patterns); docs/policies.md says what each key means.
type Policy struct {
	// Extends names a built-in policy this one starts from; it is resolved
	// at load time and empty in an effective policy.
	Extends     string     `toml:"extends,omitempty"`
	Name        string     `toml:"name"`
	Description string     `toml:"description"`
	OnShallow   OnShallow  `toml:"on_shallow"`
	OnOpen      OnOpen     `toml:"on_open"`
	Advice      string     `toml:"advice"`
	PhaseOrder  []string   `toml:"phase_order"`
	Breaker     Breaker    `toml:"breaker"`
	Progress    Progress   `toml:"progress"`
	Rules       Rules      `toml:"rules"`
	Trends      Trends     `toml:"trends"`
	Escalation  Escalation `toml:"escalation"`
	Alert       Alert      `toml:"alert"`

	// Phases are overrides applied when an iteration carries that phase;
	// Profiles are overrides chosen once per run (project types).
	Phases   map[string]Override `toml:"phases,omitempty"`
	Profiles map[string]Override `toml:"profiles,omitempty"`
}

// Override is a partial policy: the same tables and keys as a Policy, only
// the ones it changes. It is validated when the policy is loaded.
type Override map[string]any

// Breaker holds the state-machine controls borrowed from mature breakers.
type Breaker struct {
	Cooldown           Duration `toml:"cooldown"` // unset: OPEN until a person resets it
	CooldownMultiplier float64  `toml:"cooldown_multiplier" valid:"1,100"`
	CooldownMax        Duration `toml:"cooldown_max"`
	ProbeIterations    int      `toml:"probe_iterations" valid:"1,100"`
	WatchIterations    int      `toml:"watch_iterations" valid:"0,1000"`
	PhaseIterations    int      `toml:"phase_iterations" valid:"1,1000"`
}

// Progress says what counts as progress.
type Progress struct {
	Signals               []Signal `toml:"signals"` // any one holding is progress
	StagnationPercent     float64  `toml:"stagnation_percent" valid:"0,100"`
	QuestionsHold         bool     `toml:"questions_hold"`
	MaxHeld               int      `toml:"max_held" valid:"0,1000"`
	IgnorePaths           []string `toml:"ignore_paths" valid:"paths"`
	NotesPaths            []string `toml:"notes_paths" valid:"paths"`
	BusyworkIsProgress    bool     `toml:"busywork_is_progress"`
	Journal               bool     `toml:"journal"`
	Admissions            bool     `toml:"admissions"`
	TicksNeedWork         bool     `toml:"ticks_need_work"`
	Churn                 bool     `toml:"churn"`
	Retune                bool     `toml:"retune"`
	Written               bool     `toml:"written"`
	BookkeepingIterations int      `toml:"bookkeeping_iterations" valid:"0,1000"`
	TestPaths             []string `toml:"test_paths" valid:"paths"`
	TestDataPaths         []string `toml:"test_data_paths" valid:"paths"`
	DocPaths              []string `toml:"doc_paths" valid:"paths"`
	TaskFiles             []string `toml:"task_files" valid:"paths"`
	IgnoreTests           []string `toml:"ignore_tests"`
}

// Rules holds every trip rule, each switchable and tunable.
type Rules struct {
	NoProgress       NoProgress       `toml:"no_progress"`
	TaskStuck        TaskStuck        `toml:"task_stuck"`
	SameError        SameError        `toml:"same_error"`
	OutputDecline    OutputDecline    `toml:"output_decline"`
	MaxIterations    MaxIterations    `toml:"max_iterations"`
	Score            Score            `toml:"score"`
	PermissionDenied PermissionDenied `toml:"permission_denied"`
	TestOnly         TestOnly         `toml:"test_only"`
	Circular         Circular         `toml:"circular"`
	ProtectedPath    ProtectedPath    `toml:"protected_path"`
	CompletionClaim  CompletionClaim  `toml:"completion_claim"`
	Rate             Rate             `toml:"rate"`
	Spend            Spend            `toml:"spend"`
}

// NoProgress watches and opens on consecutive iterations without progress.
type NoProgress struct {
	Enabled             bool `toml:"enabled"`
	HalfOpenAfter       int  `toml:"half_open_after" valid:"1,1000"`
	NoProgressThreshold int  `toml:"no_progress_threshold" valid:"1,1000"`
}

// TaskStuck watches or opens when the current task stays current for
// TaskTimeoutIterations iterations in which no task is completed.
type TaskStuck struct {
	Enabled               bool        `toml:"enabled"`
	TaskTimeoutIterations int         `toml:"task_timeout_iterations" valid:"1,1000"`
	TaskStuckAction       StuckAction `toml:"task_stuck_action"`
}

// SameError opens when one error signature keeps coming back.
type SameError struct {
	Enabled            bool          `toml:"enabled"`
	SameErrorThreshold int           `toml:"same_error_threshold" valid:"1,1000"`
	SameErrorMode      SameErrorMode `toml:"same_error_mode"`
}

// OutputDecline opens when the agent's output volume collapses.
type OutputDecline struct {
	Enabled              bool    `toml:"enabled"`
	OutputDeclinePercent float64 `toml:"output_decline_percent" valid:"1,100"`
	OutputWindow         int     `toml:"output_window" valid:"1,100"`
}

// MaxIterations caps the iterations since the last reset.
type MaxIterations struct {
	Enabled            bool `toml:"enabled"`
	MaxIterations      int  `toml:"max_iterations" valid:"1,100000"`
	WarningIterations  int  `toml:"warning_iterations" valid:"0,100000"`
	CriticalIterations int  `toml:"critical_iterations" valid:"0,100000"`
}

// Score is the progress score summed over a window of iterations.
type Score struct {
	Enabled     bool        `toml:"enabled"`
	ScoreWindow int         `toml:"score_window" valid:"1,1000"`
	ScoreAction ScoreAction `toml:"score_action"`
	Weights     Weights     `toml:"weights"`
}

// Weights are the score items; positive items count per item, penalties
// once per iteration.
type Weights struct {
	TestFixed      int `toml:"test_fixed" valid:"0,100"`
	TaskCompleted  int `toml:"task_completed" valid:"0,100"`
	FileChanged    int `toml:"file_changed" valid:"0,100"`
	ErrorResolved  int `toml:"error_resolved" valid:"0,100"`
	SameError      int `toml:"same_error" valid:"-100,0"`
	NoChange       int `toml:"no_change" valid:"-100,0"`
	Revert         int `toml:"revert" valid:"-100,0"`
	TestRegression int `toml:"test_regression" valid:"-100,0"` // once, and the iteration's positive items are not counted
}

// PermissionDenied opens on consecutive iterations with tool denials.
type PermissionDenied struct {
	Enabled                   bool `toml:"enabled"`
	PermissionDeniedThreshold int  `toml:"permission_denied_threshold" valid:"1,1000"`
}

// TestOnly opens when the agent rewrites tests instead of code.
type TestOnly struct {
	Enabled         bool    `toml:"enabled"`
	TestOnlyPercent float64 `toml:"test_only_percent" valid:"1,100"`
	TestOnlyWindow  int     `toml:"test_only_window" valid:"1,100"`
}

// Circular opens when the tree keeps returning to earlier trees.
type Circular struct {
	Enabled           bool `toml:"enabled"`
	CircularThreshold int  `toml:"circular_threshold" valid:"1,1000"`
	CircularWindow    int  `toml:"circular_window" valid:"1,1000"`
}

// ProtectedPath guards the loop's own configuration and plans.
type ProtectedPath struct {
	Enabled        bool          `toml:"enabled"`
	ProtectedPaths []string      `toml:"protected_paths" valid:"paths"`
	ProtectedMode  ProtectedMode `toml:"protected_mode"`
}

// CompletionClaim handles "done" claimed while tests fail or tasks remain.
type CompletionClaim struct {
	CompletionClaim ClaimMode `toml:"completion_claim"`
}

// Rate caps iterations in any rolling hour.
type Rate struct {
	Enabled              bool    `toml:"enabled"`
	MaxIterationsPerHour int     `toml:"max_iterations_per_hour" valid:"1,100000"`
	RateWarningPercent   float64 `toml:"rate_warning_percent" valid:"0,100"` // 0: no warning
}

// Spend stops a loop on the money, or the tokens, its agent reported:
// spent since the last reset (a cap) or since the last progress
// (stagnation). A limit of 0 is off; the rule is on when any limit is set.
type Spend struct {
	MaxUSD                   float64 `toml:"max_usd" valid:"0,1e+06"`
	MaxUSDWithoutProgress    float64 `toml:"max_usd_without_progress" valid:"0,1e+06"`
	MaxTokens                int64   `toml:"max_tokens" valid:"0,1000000000000"`
	MaxTokensWithoutProgress int64   `toml:"max_tokens_without_progress" valid:"0,1000000000000"`
	SpendWarningPercent      float64 `toml:"spend_warning_percent" valid:"0,100"` // 0: no warning and no watch
}

// On reports whether any spend limit is set.
func (s *Spend) On() bool {
	return s.MaxUSD > 0 || s.MaxUSDWithoutProgress > 0 || s.MaxTokens > 0 || s.MaxTokensWithoutProgress > 0
}

// Trends warn when the passing tests fall, or the distinct errors rise,
// in TrendIterations iterations in a row. They only warn.
type Trends struct {
	Enabled         bool `toml:"enabled"`
	TrendIterations int  `toml:"trend_iterations" valid:"1,100"`
}

// Escalation is the escalate action's list of models: on OPEN the
// decision names the next one.
type Escalation struct {
	ModelProgression []string `toml:"model_progression"`
}

// Duration is a Go duration string in TOML; the zero value means unset.
type Duration struct {
	D   time.Duration
	Set bool
}

// UnmarshalText parses a Go duration; "" leaves it unset.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" {
		*d = Duration{}
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (use Go syntax such as \"30m\" or \"1h30m\")", s)
	}
	if v < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*d = Duration{D: v, Set: true}
	return nil
}

// MarshalText prints the duration, or "" when unset.
func (d Duration) MarshalText() ([]byte, error) {
	if !d.Set {
		return []byte(""), nil
	}
	return []byte(d.D.String()), nil
}

// String is the TOML text of the duration.
func (d Duration) String() string {
	b, _ := d.MarshalText()
	return string(b)
}

// HasSignal reports whether the policy counts the named progress signal.
func (p *Policy) HasSignal(name Signal) bool { return slices.Contains(p.Progress.Signals, name) }

// Rule names, in trigger priority: the order a decision reports them in
// when several fire.
const (
	RuleProtectedPath    = "protected_path"
	RulePermissionDenied = "permission_denied"
	RuleSameError        = "same_error"
	RuleCircular         = "circular"
	RuleTestOnly         = "test_only"
	RuleOutputDecline    = "output_decline"
	RuleCompletionClaim  = "completion_claim"
	RuleNoProgress       = "no_progress"
	RuleTaskStuck        = "task_stuck"
	RuleSpend            = "spend"
	RuleScore            = "score"
	RuleRate             = "rate"
	RuleMaxIterations    = "max_iterations"
)

// RuleOrder is the precedence of triggers: specific causes before caps.
var RuleOrder = []string{RuleProtectedPath, RulePermissionDenied, RuleSameError, RuleCircular,
	RuleTestOnly, RuleOutputDecline, RuleCompletionClaim, RuleNoProgress, RuleTaskStuck, RuleSpend, RuleScore, RuleRate,
	RuleMaxIterations}
