package breaker

import (
	"time"

	"github.com/loopbreaker/loopbreaker/policy"
)

// Event is one transition in a decision's history.
type Event struct {
	At        time.Time `json:"at"`
	Iteration int       `json:"iteration"`
	From      State     `json:"from"`
	To        State     `json:"to"`
	Trigger   string    `json:"trigger"`
	Reason    string    `json:"reason"`
}

// Step is one line of the per-iteration status log.
type Step struct {
	Iteration      int       `json:"iteration"`
	At             time.Time `json:"at"`
	Commit         string    `json:"commit,omitempty"`
	Phase          string    `json:"phase,omitempty"`
	State          State     `json:"state"`
	Progress       bool      `json:"progress"`
	Signals        []string  `json:"signals,omitempty"`
	Score          int       `json:"score"`
	TasksCompleted int       `json:"tasks_completed"`
	FilesChanged   int       `json:"files_changed"`
	Files          []string  `json:"files,omitempty"`
	Tests          *Tests    `json:"tests,omitempty"`
	Errors         []string  `json:"errors,omitempty"`
	Risk           string    `json:"risk"`
	IgnoredOpen    bool      `json:"ignored_open,omitempty"`
	// Trend is set when the iteration gave a trend warning.
	Trend bool `json:"trend,omitempty"`
	// Cost is what the agent reported the iteration cost.
	Cost *Cost `json:"cost,omitempty"`
}

// Completion is the evidence that the loop's work is done.
type Completion struct {
	// Tasks are the checked and all tasks (equal, and at least one).
	Tasks Tasks `json:"tasks"`
	// Tests is the newest test report's totals; nil without a report.
	Tests *TestTotals `json:"tests"`
	// Claimed is true when the agent said it is done.
	Claimed bool `json:"claimed"`
	// Percent is the reported percentage, when the iteration gave one.
	Percent *float64 `json:"percent"`
}

// TestTotals are a test report's totals.
type TestTotals struct {
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
}

// Decision is the breaker's verdict after one iteration (or a status query).
// Its JSON form is the `--format json` object and the action's output.
type Decision struct {
	State                 State          `json:"state"`
	AllowContinue         bool           `json:"allow_continue"`
	Reason                *string        `json:"reason"`
	Trigger               *string        `json:"trigger"`
	Iteration             int            `json:"iteration"`
	Commit                string         `json:"commit"`
	At                    *time.Time     `json:"at"`
	Phase                 string         `json:"phase,omitempty"`
	Policy                string         `json:"policy"`
	Progress              bool           `json:"progress"`
	ConsecutiveNoProgress int            `json:"consecutive_no_progress"`
	ErrorCounts           map[string]int `json:"error_counts"`
	OutputTrend           []int          `json:"output_trend"`
	ProgressScore         int            `json:"progress_score"`
	WindowScore           *int           `json:"window_score"`
	LastProgress          *time.Time     `json:"last_progress"`
	OpenedAt              *time.Time     `json:"opened_at"`
	CooldownUntil         *time.Time     `json:"cooldown_until"`
	IgnoredOpen           int            `json:"ignored_open"`
	// SpentUSD and SpentTokens are what the agent reported spending since
	// the reset, the SinceProgress ones the part since the last progress;
	// absent when nothing was reported.
	SpentUSD                 *float64 `json:"spent_usd,omitempty"`
	SpentSinceProgressUSD    *float64 `json:"spent_since_progress_usd,omitempty"`
	SpentTokens              *int64   `json:"spent_tokens,omitempty"`
	SpentSinceProgressTokens *int64   `json:"spent_since_progress_tokens,omitempty"`
	// RateFreesAt is when the rolling hour has room again after a rate trip.
	RateFreesAt *time.Time `json:"rate_frees_at,omitempty"`
	// Complete says the loop's work is done (not a trip): stop the loop,
	// exit 0. Completion is its evidence.
	Complete   bool        `json:"complete,omitempty"`
	Completion *Completion `json:"completion,omitempty"`
	Warnings   []string    `json:"warnings"`
	Escalate   bool        `json:"escalate"`
	NextModel  *string     `json:"next_model"`
	ForcedOpen bool        `json:"forced_open,omitempty"`
	DryRun     bool        `json:"dry_run,omitempty"`
	// OpenAction is the policy's on_open, settled by the fold; empty when
	// not OPEN.
	OpenAction policy.OnOpen `json:"open_action,omitempty"`
	// Signal is SignalCircuitOpen when the decision stops the loop on an
	// OPEN breaker (abort or pause, not a dry run), for scripts.
	Signal string `json:"signal,omitempty"`
	// Advice is the policy's advice for the phase, when not CLOSED.
	Advice string `json:"advice,omitempty"`
	// Guidance is a person's text for the agent (/loopbreaker guide), up
	// to the first iteration after it.
	Guidance *Guidance `json:"guidance,omitempty"`
	History  []Event   `json:"history"`
	Recent   []Step    `json:"recent"`
}

// SignalCircuitOpen is the decision's signal when it stops the loop.
const SignalCircuitOpen = "circuit_open"

// Guidance is what a person told the agent to try.
type Guidance struct {
	At   time.Time `json:"at"`
	By   string    `json:"by"`
	Text string    `json:"text"`
}

// Exit codes chosen by the domain.
const (
	ExitContinue = 0 // the loop may continue (CLOSED or HALF_OPEN, or dry run)
	ExitOpen     = 1 // OPEN: stop the loop
	ExitError    = 2 // bad usage, bad input or an internal error
)

// ExitCode is the process exit code the decision asks for: 1 when OPEN
// aborts the loop (on_open "abort", the default), else 0.
func (d *Decision) ExitCode() int {
	if d.State == Open && !d.DryRun && (d.OpenAction == "" || d.OpenAction == policy.OnOpenAbort) {
		return ExitOpen
	}
	return ExitContinue
}
