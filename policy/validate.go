package policy

import (
	"fmt"
	"math"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

// Validate checks every value against its allowed range and names the
// first bad key, its value and the range.
func (p *Policy) Validate() error {
	v := &validator{}
	if strings.TrimSpace(p.Name) == "" {
		v.fail("name", "name is empty: give the policy a name")
	}
	p.OnShallow.check(v)

	b := p.Breaker
	inRange(v, "breaker.cooldown_multiplier", b.CooldownMultiplier, 1, 100)
	inRange(v, "breaker.probe_iterations", b.ProbeIterations, 1, 100)
	inRange(v, "breaker.watch_iterations", b.WatchIterations, 0, 1000)
	if b.CooldownMax.Set && b.Cooldown.Set && b.CooldownMax.D < b.Cooldown.D {
		v.fail("breaker.cooldown_max", fmt.Sprintf("breaker.cooldown_max = %q is shorter than breaker.cooldown = %q", b.CooldownMax, b.Cooldown))
	}

	pr := p.Progress
	if len(pr.Signals) == 0 {
		v.fail("progress.signals", "progress.signals is empty: name at least one of "+choices[signal]())
	}
	for _, s := range pr.Signals {
		s.check(v)
	}
	inRange(v, "progress.stagnation_percent", pr.StagnationPercent, 0, 100)
	inRange(v, "progress.max_held", pr.MaxHeld, 0, 1000)
	inRange(v, "breaker.phase_iterations", p.Breaker.PhaseIterations, 1, 1000)
	v.patterns("progress.ignore_paths", pr.IgnorePaths)
	v.patterns("progress.notes_paths", pr.NotesPaths)
	v.patterns("progress.test_paths", pr.TestPaths)
	v.patterns("progress.test_data_paths", pr.TestDataPaths)
	v.patterns("progress.doc_paths", pr.DocPaths)
	v.patterns("progress.task_files", pr.TaskFiles)

	r := p.Rules
	inRange(v, "rules.no_progress.half_open_after", r.NoProgress.HalfOpenAfter, 1, 1000)
	inRange(v, "rules.no_progress.no_progress_threshold", r.NoProgress.NoProgressThreshold, 1, 1000)
	inRange(v, "rules.task_stuck.task_timeout_iterations", r.TaskStuck.TaskTimeoutIterations, 1, 1000)
	r.TaskStuck.TaskStuckAction.check(v)
	inRange(v, "rules.same_error.same_error_threshold", r.SameError.SameErrorThreshold, 1, 1000)
	r.SameError.SameErrorMode.check(v)
	inRange(v, "rules.output_decline.output_decline_percent", r.OutputDecline.OutputDeclinePercent, 1, 100)
	inRange(v, "rules.output_decline.output_window", r.OutputDecline.OutputWindow, 1, 100)
	inRange(v, "rules.max_iterations.max_iterations", r.MaxIterations.MaxIterations, 1, 100000)
	inRange(v, "rules.max_iterations.warning_iterations", r.MaxIterations.WarningIterations, 0, 100000)
	inRange(v, "rules.max_iterations.critical_iterations", r.MaxIterations.CriticalIterations, 0, 100000)
	if w, c := r.MaxIterations.WarningIterations, r.MaxIterations.CriticalIterations; w > 0 && c > 0 && w > c {
		v.fail("rules.max_iterations.warning_iterations", fmt.Sprintf("rules.max_iterations.warning_iterations = %d is above critical_iterations = %d", w, c))
	}
	inRange(v, "rules.score.score_window", r.Score.ScoreWindow, 1, 1000)
	r.Score.ScoreAction.check(v)
	w := r.Score.Weights
	for _, it := range []struct {
		key      string
		val      int
		min, max int
	}{
		{"test_fixed", w.TestFixed, 0, 100}, {"task_completed", w.TaskCompleted, 0, 100},
		{"file_changed", w.FileChanged, 0, 100}, {"error_resolved", w.ErrorResolved, 0, 100},
		{"same_error", w.SameError, -100, 0}, {"no_change", w.NoChange, -100, 0}, {"revert", w.Revert, -100, 0},
		{"test_regression", w.TestRegression, -100, 0},
	} {
		inRange(v, "rules.score.weights."+it.key, it.val, it.min, it.max)
	}
	inRange(v, "rules.permission_denied.permission_denied_threshold", r.PermissionDenied.PermissionDeniedThreshold, 1, 1000)
	inRange(v, "rules.test_only.test_only_percent", r.TestOnly.TestOnlyPercent, 1, 100)
	inRange(v, "rules.test_only.test_only_window", r.TestOnly.TestOnlyWindow, 1, 100)
	inRange(v, "rules.circular.circular_threshold", r.Circular.CircularThreshold, 1, 1000)
	inRange(v, "rules.circular.circular_window", r.Circular.CircularWindow, 1, 1000)
	v.patterns("rules.protected_path.protected_paths", r.ProtectedPath.ProtectedPaths)
	r.ProtectedPath.ProtectedMode.check(v)
	r.CompletionClaim.CompletionClaim.check(v)
	inRange(v, "rules.rate.max_iterations_per_hour", r.Rate.MaxIterationsPerHour, 1, 100000)
	inRange(v, "rules.rate.rate_warning_percent", r.Rate.RateWarningPercent, 0, 100)
	sp := r.Spend
	inRange(v, "rules.spend.max_usd", sp.MaxUSD, 0, 1_000_000)
	inRange(v, "rules.spend.max_usd_without_progress", sp.MaxUSDWithoutProgress, 0, 1_000_000)
	inRange(v, "rules.spend.max_tokens", sp.MaxTokens, 0, 1_000_000_000_000)
	inRange(v, "rules.spend.max_tokens_without_progress", sp.MaxTokensWithoutProgress, 0, 1_000_000_000_000)
	inRange(v, "rules.spend.spend_warning_percent", sp.SpendWarningPercent, 0, 100)
	inRange(v, "trends.trend_iterations", p.Trends.TrendIterations, 1, 100)
	for _, m := range p.Escalation.ModelProgression {
		if strings.TrimSpace(m) == "" {
			v.fail("escalation.model_progression", "escalation.model_progression has an empty entry")
		}
	}
	p.validateActions(v)
	return v.err
}

// fieldError is a fault at one key; the loader adds the key's line.
type fieldError struct {
	key string // dotted key, relative to the policy or override
	msg string
}

func (e *fieldError) Error() string { return e.msg }

type validator struct{ err error }

func (v *validator) fail(key, msg string) { v.failWith(&fieldError{key: key, msg: msg}) }

// inRange checks that val is from min to max (never NaN).
func inRange[T int | int64 | float64](v *validator, key string, val, min, max T) {
	if math.IsNaN(float64(val)) || val < min || val > max {
		v.fail(key, fmt.Sprintf("%s = %v is out of range: want %v to %v", key, val, min, max))
	}
}

// failWith keeps the first fault.
func (v *validator) failWith(err error) {
	if v.err == nil {
		v.err = err
	}
}

// patterns checks a path list with the matcher that will use it.
func (v *validator) patterns(key string, list []string) {
	if _, err := pathmatch.Compile(list); err != nil {
		v.fail(key, fmt.Sprintf("%s: %v", key, err))
	}
}
