package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Policy is the complete, effective set of thresholds and rules the breaker
// folds iterations with. A Policy loaded through Load or Builtin has been
// validated; the zero value is not a usable policy.
type Policy struct {
	// Extends names a built-in policy this one starts from. It is resolved
	// at load time and is empty in an effective policy.
	Extends string `toml:"extends,omitempty"`
	// Name identifies the policy in decisions and reports.
	Name string `toml:"name"`
	// Description says in one line what the policy is for.
	Description string `toml:"description"`
	// OnShallow says what to do when git history is cut by a shallow clone:
	// decide on what is visible, or fail.
	OnShallow OnShallow `toml:"on_shallow"`
	// OnOpen is what an OPEN breaker does to the loop: abort it, pause it
	// until a person resumes it, alert people and let it go on, or
	// escalate it to the next model. Phases and profiles may override it.
	OnOpen OnOpen `toml:"on_open"`
	// Advice is what the agent-facing block tells the agent to try when
	// the breaker opens; each phase may give its own.
	Advice string `toml:"advice"`
	// PhaseOrder is the order the loop goes through its phases: a person's
	// /loopbreaker skip-phase moves the loop to the next one.
	PhaseOrder []string `toml:"phase_order"`

	Breaker    Breaker    `toml:"breaker"`
	Progress   Progress   `toml:"progress"`
	Rules      Rules      `toml:"rules"`
	Trends     Trends     `toml:"trends"`
	Escalation Escalation `toml:"escalation"`
	Alert      Alert      `toml:"alert"`

	// Phases are named overrides applied when an iteration carries that
	// phase (the test-driven RED, GREEN, REFACTOR, DOCUMENT, or any name).
	Phases map[string]Override `toml:"phases,omitempty"`
	// Profiles are named overrides chosen once per run (project types), by
	// flag, input, LOOPBREAKER_PROFILE or PROJECT_TYPE.
	Profiles map[string]Override `toml:"profiles,omitempty"`
}

// Override is a partial policy: the same tables and keys as a Policy, only
// the ones it changes. It is validated when the policy is loaded.
type Override map[string]any

// Breaker holds the state-machine controls borrowed from mature breakers.
type Breaker struct {
	// Cooldown is how long OPEN lasts before a probe; zero (unset) means
	// OPEN until a person resets it.
	Cooldown Duration `toml:"cooldown"`
	// CooldownMultiplier multiplies the cooldown after a failed probe.
	CooldownMultiplier float64 `toml:"cooldown_multiplier"`
	// CooldownMax caps the multiplied cooldown; unset means no cap.
	CooldownMax Duration `toml:"cooldown_max"`
	// ProbeIterations is how many probing iterations must each make
	// progress before a cooled-down breaker closes.
	ProbeIterations int `toml:"probe_iterations"`
	// WatchIterations is how many iterations after a reset or a recovery
	// (HALF_OPEN to CLOSED) are watched closely: one without
	// progress moves CLOSED to HALF_OPEN, and stagnation that recurs in
	// them opens at once. 0 turns the watch off.
	WatchIterations int `toml:"watch_iterations"`
	// PhaseIterations bounds a phase the agent chose (a Loop-Phase trailer
	// or a status block): it may only move along the phase order, and
	// after this many iterations in a row in one phase the phase's
	// overrides no longer apply. A phase a person set (--phase, the
	// Action's input) is not bounded.
	PhaseIterations int `toml:"phase_iterations"`
}

// Progress says what counts as progress.
type Progress struct {
	// Signals lists the progress signals that count (any one holding is
	// progress). The names are the Signal constants.
	Signals []Signal `toml:"signals"`
	// StagnationPercent is the smallest rise of a reported progress
	// percentage that counts as progress.
	StagnationPercent float64 `toml:"stagnation_percent"`
	// QuestionsHold lets an iteration that only asked the user questions
	// hold the no-progress counter instead of raising it.
	QuestionsHold bool `toml:"questions_hold"`
	// MaxHeld bounds how many iterations in a row may hold the counter; 0
	// means without bound (ralph's behaviour).
	MaxHeld int `toml:"max_held"`
	// IgnorePaths are paths whose changes are not meaningful: lock files,
	// vendored code and the loop's own ephemeral state.
	IgnorePaths []string `toml:"ignore_paths"`
	// NotesPaths are notes and scratch files (TODO lists, notes, progress
	// and status logs, *.log): a change confined to them, or to digits
	// only, is busywork.
	NotesPaths []string `toml:"notes_paths"`
	// BusyworkIsProgress makes busywork count as a meaningful change (the
	// DOCUMENT phase); otherwise it counts only in an iteration that
	// completes a task.
	BusyworkIsProgress bool `toml:"busywork_is_progress"`
	// Journal learns the loop's journal from its history: a file, or a
	// folder growing one note at a time, that the loop changed in nearly
	// every recent iteration with prose, counters or timestamps is loop
	// state, not progress.
	Journal bool `toml:"journal"`
	// Admissions makes the agent's own admission of no progress (idle,
	// no-op, nothing to do, still blocked, ...) in a commit message, a
	// status block or its log count as no progress, and a blocker reported
	// again count as a repeated error. It can only make the breaker
	// stricter.
	Admissions bool `toml:"admissions"`
	// TicksNeedWork credits a task checked for the first time only when
	// the iteration, or those since the last credited tick, changed the
	// work product (code, tests, documentation, assets).
	TicksNeedWork bool `toml:"ticks_need_work"`
	// Churn makes a change of only digits, hex strings and timestamps
	// outside code and documentation no progress in any phase and with any
	// tick. Without it (ralph) such a change reads as it always did: hex
	// strings and timestamps as a change, digits as busywork.
	Churn bool `toml:"churn"`
	// Retune makes an iteration that re-tunes the same few files a few
	// lines at a time, for the third iteration in a row with nothing else
	// changed, no progress.
	Retune bool `toml:"retune"`
	// TestPaths classify test files (for test_only).
	TestPaths []string `toml:"test_paths"`
	// TestDataPaths classify test data (fixtures, snapshots, testdata):
	// neither test code nor code for test_only.
	TestDataPaths []string `toml:"test_data_paths"`
	// DocPaths classify documentation files (for the docs signal).
	DocPaths []string `toml:"doc_paths"`
	// TaskFiles are markdown task lists whose checkboxes are counted.
	TaskFiles []string `toml:"task_files"`
	// IgnoreTests are known failures left out of error signatures.
	IgnoreTests []string `toml:"ignore_tests"`
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
	HalfOpenAfter       int  `toml:"half_open_after"`
	NoProgressThreshold int  `toml:"no_progress_threshold"`
}

// TaskStuck watches or opens when the current task (the first unchecked
// task in plan order, or the status block's current task) stays current
// for TaskTimeoutIterations iterations in which no task is completed.
type TaskStuck struct {
	Enabled               bool        `toml:"enabled"`
	TaskTimeoutIterations int         `toml:"task_timeout_iterations"`
	TaskStuckAction       StuckAction `toml:"task_stuck_action"`
}

// SameError opens when one error signature keeps coming back.
type SameError struct {
	Enabled            bool          `toml:"enabled"`
	SameErrorThreshold int           `toml:"same_error_threshold"`
	SameErrorMode      SameErrorMode `toml:"same_error_mode"`
}

// OutputDecline opens when the agent's output volume collapses.
type OutputDecline struct {
	Enabled              bool    `toml:"enabled"`
	OutputDeclinePercent float64 `toml:"output_decline_percent"`
	OutputWindow         int     `toml:"output_window"`
}

// MaxIterations caps the iterations since the last reset.
type MaxIterations struct {
	Enabled            bool `toml:"enabled"`
	MaxIterations      int  `toml:"max_iterations"`
	WarningIterations  int  `toml:"warning_iterations"`
	CriticalIterations int  `toml:"critical_iterations"`
}

// Score is the progress score summed over a window of iterations.
type Score struct {
	Enabled     bool        `toml:"enabled"`
	ScoreWindow int         `toml:"score_window"`
	ScoreAction ScoreAction `toml:"score_action"`
	Weights     Weights     `toml:"weights"`
}

// Weights are the score items; positive items count per item, penalties
// once per iteration.
type Weights struct {
	TestFixed     int `toml:"test_fixed"`
	TaskCompleted int `toml:"task_completed"`
	FileChanged   int `toml:"file_changed"`
	ErrorResolved int `toml:"error_resolved"`
	SameError     int `toml:"same_error"`
	NoChange      int `toml:"no_change"`
	Revert        int `toml:"revert"`
	// TestRegression applies once to an iteration with fewer passing
	// tests, or failing tests turned skipped; its positive items are not
	// counted.
	TestRegression int `toml:"test_regression"`
}

// PermissionDenied opens on consecutive iterations with tool denials.
type PermissionDenied struct {
	Enabled                   bool `toml:"enabled"`
	PermissionDeniedThreshold int  `toml:"permission_denied_threshold"`
}

// TestOnly opens when the agent rewrites tests instead of code.
type TestOnly struct {
	Enabled         bool    `toml:"enabled"`
	TestOnlyPercent float64 `toml:"test_only_percent"`
	TestOnlyWindow  int     `toml:"test_only_window"`
}

// Circular opens when the tree keeps returning to earlier trees.
type Circular struct {
	Enabled           bool `toml:"enabled"`
	CircularThreshold int  `toml:"circular_threshold"`
	CircularWindow    int  `toml:"circular_window"`
}

// ProtectedPath guards the loop's own configuration and plans.
type ProtectedPath struct {
	Enabled        bool          `toml:"enabled"`
	ProtectedPaths []string      `toml:"protected_paths"`
	ProtectedMode  ProtectedMode `toml:"protected_mode"`
}

// CompletionClaim handles "done" claimed while tests fail or tasks remain.
type CompletionClaim struct {
	CompletionClaim ClaimMode `toml:"completion_claim"`
}

// Rate caps iterations in any rolling hour.
type Rate struct {
	Enabled              bool `toml:"enabled"`
	MaxIterationsPerHour int  `toml:"max_iterations_per_hour"`
	// RateWarningPercent warns when the iterations in the last hour reach
	// this share of MaxIterationsPerHour; 0 turns it off.
	RateWarningPercent float64 `toml:"rate_warning_percent"`
}

// Spend stops a loop on the money, or the tokens, its agent reported:
// spent since the last reset (a cap, like max_iterations) or since the
// last progress (stagnation). A limit of 0 is off; the rule is on when any
// limit is set.
type Spend struct {
	MaxUSD                   float64 `toml:"max_usd"`
	MaxUSDWithoutProgress    float64 `toml:"max_usd_without_progress"`
	MaxTokens                int64   `toml:"max_tokens"`
	MaxTokensWithoutProgress int64   `toml:"max_tokens_without_progress"`
	// SpendWarningPercent is the share of a limit from which a cap warns
	// and spending without progress watches (HALF_OPEN); 0 turns both off.
	SpendWarningPercent float64 `toml:"spend_warning_percent"`
}

// On reports whether any spend limit is set.
func (s *Spend) On() bool {
	return s.MaxUSD > 0 || s.MaxUSDWithoutProgress > 0 || s.MaxTokens > 0 || s.MaxTokensWithoutProgress > 0
}

// Trends warn when the passing tests fall, or the distinct errors rise,
// in TrendIterations iterations in a row. They only warn.
type Trends struct {
	Enabled         bool `toml:"enabled"`
	TrendIterations int  `toml:"trend_iterations"`
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
