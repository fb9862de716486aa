package breaker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// startState builds a breaker in one starting state by feeding iterations
// (and, for the probing and forced states, a Status or ForceOpen call).
type startState struct {
	name     string
	cooldown bool // built under a policy with a 30m cooldown
	// build feeds the breaker and returns when the outcome iteration runs.
	build func(t *testing.T, b *breaker.Breaker) time.Time
	want  breaker.State // the state build must reach
	probe bool          // the outcome iteration is a probe
	// ignored: the outcome iteration runs while OPEN and must change
	// nothing but ignored_open; the trigger stays this one.
	ignored string
}

// seed is the common start: two iterations with progress, trees A and B,
// scores +1 and +6 (one file; one file and one task).
func seed(t *testing.T, b *breaker.Breaker) {
	t.Helper()
	observe(t, b, progressIt(t0, "A"))
	it := progressIt(t0.Add(2*time.Hour), "B")
	it.Tasks, it.TasksBefore = &breaker.Tasks{Done: 1, Total: 5}, ptr(0)
	observe(t, b, it)
}

// tripOpen opens the breaker at t0+4h by deleting a protected path.
func tripOpen(t *testing.T, b *breaker.Breaker) time.Time {
	t.Helper()
	at := t0.Add(4 * time.Hour)
	it := progressIt(at, "C")
	it.Change.ProtectedDeleted = []string{"AGENTS.md"}
	if d := observe(t, b, it); d.State != breaker.Open {
		t.Fatalf("builder: protected path deletion gave %s, want OPEN", d.State)
	}
	return at
}

var startStates = []startState{
	{name: "closed", want: breaker.Closed, build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		return t0.Add(2*time.Hour + time.Minute)
	}},
	{name: "half_open", want: breaker.HalfOpen, build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		observe(t, b, stallIt(t0.Add(4*time.Hour)))
		observe(t, b, stallIt(t0.Add(6*time.Hour)))
		return t0.Add(6*time.Hour + time.Minute)
	}},
	{name: "half_open_probing", cooldown: true, want: breaker.HalfOpen, probe: true, build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		opened := tripOpen(t, b)
		d, err := b.Status(opened.Add(30 * time.Minute))
		if err != nil || d.State != breaker.HalfOpen {
			t.Fatalf("builder: Status after the cooldown gave %s, %v; want HALF_OPEN", d.State, err)
		}
		return opened.Add(31 * time.Minute)
	}},
	{name: "open_no_cooldown", want: breaker.Open, ignored: policy.RuleProtectedPath, build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		return tripOpen(t, b).Add(time.Minute)
	}},
	{name: "open_cooldown_elapsed", cooldown: true, want: breaker.Open, probe: true, build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		return tripOpen(t, b).Add(30 * time.Minute)
	}},
	{name: "open_cooldown_not_elapsed", cooldown: true, want: breaker.Open, ignored: policy.RuleProtectedPath, build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		return tripOpen(t, b).Add(30*time.Minute - time.Second)
	}},
	{name: "forced_open", cooldown: true, want: breaker.Open, ignored: "force_open", build: func(t *testing.T, b *breaker.Breaker) time.Time {
		seed(t, b)
		if err := b.ForceOpen(t0.Add(3*time.Hour), "abort from a PR comment"); err != nil {
			t.Fatal(err)
		}
		return t0.Add(5 * time.Hour)
	}},
}

// want is the expected result of one outcome iteration.
type want struct {
	state   breaker.State
	trigger string // the new event's trigger, or the decision's when no transition
	reason  string // substring of that reason
	event   bool   // the outcome made a transition
	warn    string // substring of a warning
}

// outcome is one kind of iteration, with the policy change that makes it
// fire on its own, and its expected result from the CLOSED, HALF_OPEN and
// probing starts (the OPEN starts ignore it).
type outcome struct {
	name   string
	tweak  func(p *policy.Policy, n int) // n: iterations since reset before the outcome
	it     func(at time.Time) breaker.Iteration
	closed want
	half   want
	probe  want
}

func noTweak(*policy.Policy, int) {}

func withProgress(at time.Time) breaker.Iteration {
	return breaker.Iteration{At: at, Change: change(2, "P"), ErrorsKnown: true, Output: &breaker.Output{Lines: 100}}
}

// failedProbe is a probe that re-opened with the cooldown doubled.
func failedProbe(trigger, reason string) want {
	return want{state: breaker.Open, trigger: trigger, reason: reason, event: true}
}

var outcomes = []outcome{
	{
		name: "progress", tweak: noTweak, it: withProgress,
		closed: want{state: breaker.Closed},
		half:   want{state: breaker.Closed, trigger: "progress", reason: "progress resumed (files)", event: true},
		probe:  want{state: breaker.Closed, trigger: "probe", reason: "made progress (files)", event: true},
	},
	{
		name: "no_progress_below_half_open_after", tweak: noTweak, it: stallIt,
		closed: want{state: breaker.Closed},
		half:   want{state: breaker.Open, trigger: policy.RuleNoProgress, reason: "no progress in 3 consecutive iterations", event: true},
		probe:  failedProbe(policy.RuleNoProgress, "made no progress; cooldown now 1h0m0s"),
	},
	{
		name: "watch_by_no_progress",
		tweak: func(p *policy.Policy, _ int) {
			p.Rules.NoProgress.HalfOpenAfter, p.Rules.NoProgress.NoProgressThreshold = 1, 5
		},
		it:     stallIt,
		closed: want{state: breaker.HalfOpen, trigger: policy.RuleNoProgress, reason: "no progress in 1 consecutive iterations", event: true},
		half:   want{state: breaker.HalfOpen, trigger: policy.RuleNoProgress, reason: "no progress in 3 consecutive iterations"},
		probe:  failedProbe(policy.RuleNoProgress, "made no progress; cooldown now 1h0m0s"),
	},
	{
		name: "watch_by_negative_score",
		tweak: func(p *policy.Policy, _ int) {
			p.Rules.Score.ScoreWindow = 1
			p.Rules.NoProgress.HalfOpenAfter, p.Rules.NoProgress.NoProgressThreshold = 10, 20
		},
		it:     stallIt,
		closed: want{state: breaker.HalfOpen, trigger: policy.RuleScore, reason: "progress score -3 over the last 1 iterations", event: true},
		half:   want{state: breaker.HalfOpen, trigger: policy.RuleScore, reason: "progress score -3 over the last 1 iterations"},
		probe:  failedProbe(policy.RuleNoProgress, "made no progress"),
	},
	{
		name: "protected_path_deleted", tweak: noTweak,
		it: func(at time.Time) breaker.Iteration {
			it := withProgress(at)
			it.Change.ProtectedDeleted = []string{"specs/api.md"}
			return it
		},
		closed: want{state: breaker.Open, trigger: policy.RuleProtectedPath, reason: `deleted protected path "specs/api.md"`, event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleProtectedPath, reason: `deleted protected path "specs/api.md"`, event: true},
		probe:  failedProbe(policy.RuleProtectedPath, `probe failed: deleted protected path "specs/api.md"; cooldown now 1h0m0s`),
	},
	{
		name: "protected_path_modified_warns", tweak: noTweak,
		it: func(at time.Time) breaker.Iteration {
			it := withProgress(at)
			it.Change.ProtectedModified = []string{"CLAUDE.md"}
			return it
		},
		closed: want{state: breaker.Closed, warn: `modified protected path "CLAUDE.md"`},
		half:   want{state: breaker.Closed, trigger: "progress", reason: "progress resumed", event: true, warn: `modified protected path "CLAUDE.md"`},
		probe:  want{state: breaker.Closed, trigger: "probe", reason: "made progress", event: true, warn: `modified protected path "CLAUDE.md"`},
	},
	{
		name:  "permission_denied",
		tweak: func(p *policy.Policy, _ int) { p.Rules.PermissionDenied.PermissionDeniedThreshold = 1 },
		it: func(at time.Time) breaker.Iteration {
			it := withProgress(at)
			it.PermissionDenials = 2
			return it
		},
		closed: want{state: breaker.Open, trigger: policy.RulePermissionDenied, reason: "tool permission denials in 1 consecutive iterations", event: true},
		half:   want{state: breaker.Open, trigger: policy.RulePermissionDenied, reason: "tool permission denials in 1 consecutive iterations", event: true},
		probe:  failedProbe(policy.RulePermissionDenied, "probe failed: tool permission denials"),
	},
	sameErrorOutcome("consecutive", "same error in 1 consecutive iterations: undefined: Foo"),
	sameErrorOutcome("total", "same error 1 times since the last reset: undefined: Foo"),
	sameErrorOutcome("any", "errors in 1 consecutive iterations, the last: undefined: Foo"),
	{
		name: "circular",
		tweak: func(p *policy.Policy, _ int) {
			p.Rules.Circular.CircularThreshold, p.Rules.Circular.CircularWindow = 1, 1
		},
		// Back to tree A, the first iteration's: a return, not progress.
		it: func(at time.Time) breaker.Iteration {
			return breaker.Iteration{At: at, Change: change(2, "A"), ErrorsKnown: true, Output: &breaker.Output{Lines: 100}}
		},
		closed: want{state: breaker.Open, trigger: policy.RuleCircular, reason: "returned to an earlier state 1 times in the last 1 iterations", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleCircular, reason: "returned to an earlier state 1 times", event: true},
		probe:  failedProbe(policy.RuleCircular, "probe failed: the tree returned to an earlier state"),
	},
	{
		name:  "test_only",
		tweak: func(p *policy.Policy, _ int) { p.Rules.TestOnly.TestOnlyWindow = 1 },
		it: func(at time.Time) breaker.Iteration {
			it := withProgress(at)
			it.Change.TestLines = 18 // of 20
			return it
		},
		closed: want{state: breaker.Open, trigger: policy.RuleTestOnly, reason: "90% of the lines changed in the last 1 iterations are in test files", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleTestOnly, reason: "90% of the lines changed", event: true},
		probe:  failedProbe(policy.RuleTestOnly, "probe failed: 90% of the lines changed"),
	},
	{
		name:  "output_decline",
		tweak: func(p *policy.Policy, _ int) { p.Rules.OutputDecline.OutputWindow = 1 },
		it: func(at time.Time) breaker.Iteration {
			it := withProgress(at)
			it.Output.Lines = 10
			return it
		},
		closed: want{state: breaker.Open, trigger: policy.RuleOutputDecline, reason: "agent output fell 90% (10 lines per iteration against a baseline of 100)", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleOutputDecline, reason: "agent output fell 90%", event: true},
		// A probe is judged on its own evidence: the baseline starts
		// afresh after the cooldown, so there is no decline to see.
		probe: want{state: breaker.Closed, trigger: "probe", reason: "made progress", event: true},
	},
	{
		name:   "completion_claim_trip",
		tweak:  func(p *policy.Policy, _ int) { p.Rules.CompletionClaim.CompletionClaim = "trip" },
		it:     claimWhileFailing,
		closed: want{state: breaker.Open, trigger: policy.RuleCompletionClaim, reason: "the agent claims completion while 2 tests fail", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleCompletionClaim, reason: "claims completion while 2 tests fail", event: true},
		probe:  failedProbe(policy.RuleCompletionClaim, "probe failed: the agent claims completion"),
	},
	{
		name: "completion_claim_warn", tweak: noTweak, it: claimWhileFailing,
		closed: want{state: breaker.Closed, warn: "the agent claims completion while 2 tests fail"},
		half:   want{state: breaker.Closed, trigger: "progress", reason: "progress resumed", event: true, warn: "claims completion while 2 tests fail"},
		probe:  want{state: breaker.Closed, trigger: "probe", reason: "made progress", event: true, warn: "claims completion"},
	},
	{
		name: "no_progress_trip_from_closed",
		// half_open_after >= no_progress_threshold: no progress opens
		// straight from CLOSED.
		tweak: func(p *policy.Policy, _ int) {
			p.Rules.NoProgress.HalfOpenAfter, p.Rules.NoProgress.NoProgressThreshold = 1, 1
		},
		it:     stallIt,
		closed: want{state: breaker.Open, trigger: policy.RuleNoProgress, reason: "no progress in 1 consecutive iterations", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleNoProgress, reason: "no progress in 3 consecutive iterations", event: true},
		probe:  failedProbe(policy.RuleNoProgress, "probe failed: no progress in 1 consecutive iterations; cooldown now 1h0m0s"),
	},
	{
		name: "score_under_strict",
		tweak: func(p *policy.Policy, _ int) {
			p.Rules.Score.ScoreAction, p.Rules.Score.ScoreWindow = "open", 1
			p.Rules.NoProgress.HalfOpenAfter, p.Rules.NoProgress.NoProgressThreshold = 10, 20
		},
		it:     stallIt,
		closed: want{state: breaker.Open, trigger: policy.RuleScore, reason: "progress score -3 over the last 1 iterations", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleScore, reason: "progress score -3 over the last 1 iterations", event: true},
		probe:  failedProbe(policy.RuleScore, "probe failed: progress score -3"),
	},
	{
		name:   "rate",
		tweak:  func(p *policy.Policy, _ int) { p.Rules.Rate.MaxIterationsPerHour = 1 },
		it:     withProgress,
		closed: want{state: breaker.Open, trigger: policy.RuleRate, reason: "2 iterations within one hour (at most 1)", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleRate, reason: "2 iterations within one hour (at most 1)", event: true},
		probe:  failedProbe(policy.RuleRate, "probe failed: 2 iterations within one hour"),
	},
	{
		name: "max_iterations",
		tweak: func(p *policy.Policy, n int) {
			p.Rules.MaxIterations.MaxIterations = n + 1
			p.Rules.MaxIterations.WarningIterations, p.Rules.MaxIterations.CriticalIterations = 0, 0
		},
		it:     withProgress,
		closed: want{state: breaker.Open, trigger: policy.RuleMaxIterations, reason: "iteration 3 reached max_iterations (3) since the last reset", event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleMaxIterations, reason: "iteration 5 reached max_iterations (5)", event: true},
		probe:  failedProbe(policy.RuleMaxIterations, "probe failed: iteration 4 reached max_iterations (4)"),
	},
}

func sameErrorOutcome(mode policy.SameErrorMode, reason string) outcome {
	return outcome{
		name: "same_error_" + mode.String(),
		tweak: func(p *policy.Policy, _ int) {
			p.Rules.SameError.SameErrorMode, p.Rules.SameError.SameErrorThreshold = mode, 1
		},
		it: func(at time.Time) breaker.Iteration {
			it := withProgress(at)
			it.Errors = []breaker.Signature{sig("undefined: Foo")}
			return it
		},
		closed: want{state: breaker.Open, trigger: policy.RuleSameError, reason: reason, event: true},
		half:   want{state: breaker.Open, trigger: policy.RuleSameError, reason: reason, event: true},
		probe:  failedProbe(policy.RuleSameError, "probe failed: "+reason),
	}
}

func claimWhileFailing(at time.Time) breaker.Iteration {
	it := withProgress(at)
	it.CompletionClaimed = true
	it.Tests = &breaker.Tests{Passed: 5, Failed: 2}
	return it
}

// TestTransitions folds every outcome from every starting state and checks
// the next state, the trigger and the reason.
func TestTransitions(t *testing.T) {
	t.Parallel()
	for _, st := range startStates {
		for _, oc := range outcomes {
			t.Run(st.name+"/"+oc.name, func(t *testing.T) {
				t.Parallel()
				var builderMods []func(*policy.Policy)
				if st.cooldown {
					builderMods = append(builderMods, withCooldown("30m"))
				}
				b := newBreaker(t, pol(t, "default", builderMods...), breaker.Options{})
				at := st.build(t, b)
				before := b.Snapshot()
				if before.State != st.want {
					t.Fatalf("builder reached %s, want %s", before.State, st.want)
				}
				if st.want == breaker.HalfOpen && before.Probing != st.probe {
					t.Fatalf("builder: probing %v, want %v", before.Probing, st.probe)
				}
				n := before.SinceReset
				p := pol(t, "default", append(builderMods, func(p *policy.Policy) { oc.tweak(p, n) })...)
				b, err := breaker.Restore(p, breaker.Options{}, before)
				if err != nil {
					t.Fatalf("Restore under the outcome's policy: %v", err)
				}
				d := observe(t, b, oc.it(at))

				if st.ignored != "" {
					checkIgnored(t, d, before, st.ignored)
					return
				}
				w := oc.closed
				switch {
				case st.probe:
					w = oc.probe
				case st.want == breaker.HalfOpen:
					w = oc.half
				}
				checkWant(t, d, before, w)
				if st.probe && w.state == breaker.Open {
					// A failed probe doubles the 30m cooldown, from the probe's time.
					if d.CooldownUntil == nil || !d.CooldownUntil.Equal(at.Add(time.Hour)) {
						t.Errorf("got cooldown_until %v, want %s (1h after the failed probe)", d.CooldownUntil, at.Add(time.Hour).Format(time.RFC3339))
					}
				}
			})
		}
	}
}

func checkWant(t *testing.T, d breaker.Decision, before breaker.Snapshot, w want) {
	t.Helper()
	if d.State != w.state {
		t.Errorf("got state %s, want %s (reason %q)", d.State, w.state, str(d.Reason))
	}
	newEvents := d.History[min(len(before.History), len(d.History)):]
	if w.event {
		if len(newEvents) == 0 {
			t.Fatalf("got no transition event, want one to %s", w.state)
		}
		ev := newEvents[len(newEvents)-1]
		if ev.To != w.state || ev.Trigger != w.trigger || !strings.Contains(ev.Reason, w.reason) {
			t.Errorf("got event %s->%s %s %q, want ->%s %s containing %q", ev.From, ev.To, ev.Trigger, ev.Reason, w.state, w.trigger, w.reason)
		}
		if !ev.At.Equal(*d.At) || ev.Iteration != d.Iteration {
			t.Errorf("event at %s iteration %d, want the iteration's %s and %d", ev.At, ev.Iteration, d.At, d.Iteration)
		}
		if w.state != breaker.Closed && (str(d.Trigger) != ev.Trigger || str(d.Reason) != ev.Reason) {
			t.Errorf("decision trigger %q reason %q differ from the event's %q %q", str(d.Trigger), str(d.Reason), ev.Trigger, ev.Reason)
		}
	} else {
		if len(newEvents) != 0 {
			t.Errorf("got events %+v, want no transition", newEvents)
		}
		if str(d.Trigger) != w.trigger || !strings.Contains(str(d.Reason), w.reason) {
			t.Errorf("got trigger %q reason %q, want %q containing %q", str(d.Trigger), str(d.Reason), w.trigger, w.reason)
		}
	}
	if w.warn != "" && !containsAny(d.Warnings, w.warn) {
		t.Errorf("got warnings %q, want one containing %q", d.Warnings, w.warn)
	}
	if w.warn == "" && len(d.Warnings) != 0 {
		t.Errorf("got warnings %q, want none", d.Warnings)
	}
	if d.IgnoredOpen != 0 {
		t.Errorf("got ignored_open %d, want 0", d.IgnoredOpen)
	}
}

// checkIgnored checks an iteration that ran while OPEN: nothing changes
// but ignored_open.
func checkIgnored(t *testing.T, d breaker.Decision, before breaker.Snapshot, trigger string) {
	t.Helper()
	if d.State != breaker.Open || str(d.Trigger) != trigger {
		t.Errorf("got %s %q, want OPEN %q", d.State, str(d.Trigger), trigger)
	}
	if len(d.History) != len(before.History) {
		t.Errorf("got %d events, want %d (no transition)", len(d.History), len(before.History))
	}
	if d.IgnoredOpen != before.IgnoredOpen+1 {
		t.Errorf("got ignored_open %d, want %d", d.IgnoredOpen, before.IgnoredOpen+1)
	}
	if d.Progress || d.ProgressScore != 0 {
		t.Errorf("got progress %v score %d for an ignored iteration, want false and 0", d.Progress, d.ProgressScore)
	}
	if !d.Escalate {
		t.Error("got escalate false, want true: an ignored OPEN is a reason to escalate")
	}
	if !containsAny(d.Warnings, "ran while the breaker was OPEN") {
		t.Errorf("got warnings %q, want the ignored-open warning", d.Warnings)
	}
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
