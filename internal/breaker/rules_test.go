package breaker_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// everythingFires is a policy under which one iteration fires every rule,
// with the rules before `from` in trigger priority switched off.
func everythingFires(t *testing.T, from int) *policy.Policy {
	t.Helper()
	return pol(t, "default", func(p *policy.Policy) {
		r := &p.Rules
		r.PermissionDenied.PermissionDeniedThreshold = 1
		r.SameError.SameErrorThreshold = 1
		r.Circular.CircularThreshold, r.Circular.CircularWindow = 1, 1
		r.TestOnly.TestOnlyWindow = 1
		r.OutputDecline.OutputWindow = 1
		r.CompletionClaim.CompletionClaim = "trip"
		r.NoProgress.HalfOpenAfter, r.NoProgress.NoProgressThreshold = 1, 1
		r.TaskStuck.TaskTimeoutIterations, r.TaskStuck.TaskStuckAction = 1, "open"
		r.Score.ScoreAction, r.Score.ScoreWindow = "open", 1
		r.Rate.MaxIterationsPerHour = 1
		r.MaxIterations.MaxIterations, r.MaxIterations.WarningIterations, r.MaxIterations.CriticalIterations = 3, 0, 0
		r.Spend.MaxUSD = 1
		for _, rule := range policy.RuleOrder[:from] {
			switch rule {
			case policy.RuleProtectedPath:
				r.ProtectedPath.Enabled = false
			case policy.RulePermissionDenied:
				r.PermissionDenied.Enabled = false
			case policy.RuleSameError:
				r.SameError.Enabled = false
			case policy.RuleCircular:
				r.Circular.Enabled = false
			case policy.RuleTestOnly:
				r.TestOnly.Enabled = false
			case policy.RuleOutputDecline:
				r.OutputDecline.Enabled = false
			case policy.RuleCompletionClaim:
				r.CompletionClaim.CompletionClaim = "off"
			case policy.RuleNoProgress:
				r.NoProgress.Enabled = false
			case policy.RuleTaskStuck:
				r.TaskStuck.Enabled = false
			case policy.RuleSpend:
				r.Spend = policy.Spend{}
			case policy.RuleScore:
				r.Score.Enabled = false
			case policy.RuleRate:
				r.Rate.Enabled = false
			case policy.RuleMaxIterations:
				r.MaxIterations.Enabled = false
			}
		}
	})
}

// TestTriggerPrecedence: when several rules fire in one iteration, the
// first in trigger priority is reported. Switching the rules off one by
// one in that order must walk down the whole list.
func TestTriggerPrecedence(t *testing.T) {
	t.Parallel()
	for i, want := range policy.RuleOrder {
		t.Run(want, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, everythingFires(t, i), breaker.Options{})
			observe(t, b, progressIt(t0.Add(-3*time.Hour), "A"))
			observe(t, b, progressIt(t0.Add(-30*time.Minute), "B"))
			d := observe(t, b, breaker.Iteration{
				At:                t0,
				Change:            &breaker.Change{MeaningfulFiles: 2, MeaningfulLines: 10, TestLines: 9, Tree: "A", ProtectedDeleted: []string{"AGENTS.md"}},
				Tests:             &breaker.Tests{Passed: 1, Failed: 4},
				ErrorsKnown:       true,
				Errors:            []breaker.Signature{sig("panic: nil map")},
				Output:            &breaker.Output{Lines: 1},
				PermissionDenials: 1,
				CompletionClaimed: true,
				CurrentTask:       breaker.StatusTask("write the parser"),
				Cost:              &breaker.Cost{USD: ptr(1.0)},
			})
			if d.State != breaker.Open || str(d.Trigger) != want {
				t.Errorf("got %s %q (%q), want OPEN %q", d.State, str(d.Trigger), str(d.Reason), want)
			}
		})
	}
	t.Run("none", func(t *testing.T) {
		t.Parallel()
		b := newBreaker(t, everythingFires(t, len(policy.RuleOrder)), breaker.Options{})
		d := observe(t, b, stallIt(t0))
		if d.State != breaker.Closed {
			t.Errorf("every rule off: got %s %q, want CLOSED", d.State, str(d.Reason))
		}
	})
}

// TestTripBeatsWatchAndProgress: a trip opens even when the iteration made
// progress or a watch rule fired; progress beats a watch.
func TestTripBeatsWatchAndProgress(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Rules.Rate.MaxIterationsPerHour = 3 }), breaker.Options{})
	observe(t, b, stallIt(t0))
	d := observe(t, b, stallIt(t0.Add(time.Minute)))
	if d.State != breaker.HalfOpen {
		t.Fatalf("got %s, want HALF_OPEN after 2 stalls", d.State)
	}
	observe(t, b, progressIt(t0.Add(2*time.Minute), "A"))
	d = observe(t, b, progressIt(t0.Add(3*time.Minute), "B"))
	if d.State != breaker.Open || str(d.Trigger) != policy.RuleRate || !d.Progress {
		t.Errorf("got %s %q progress %v, want OPEN by rate despite progress", d.State, str(d.Trigger), d.Progress)
	}

	// Progress with a negative window closes HALF_OPEN: progress wins over
	// the score's watch.
	b = newBreaker(t, pol(t, "default"), breaker.Options{})
	observe(t, b, stallIt(t0))
	observe(t, b, stallIt(t0.Add(time.Minute)))
	d = observe(t, b, progressIt(t0.Add(2*time.Minute), "A"))
	if d.State != breaker.Closed || d.WindowScore == nil || *d.WindowScore != -5 {
		t.Errorf("got %s window %v, want CLOSED with window score -5", d.State, d.WindowScore)
	}
}

// step is one iteration of a rule scenario.
type step struct {
	it      func(at time.Time) breaker.Iteration
	state   breaker.State
	trigger string
}

func runSteps(t *testing.T, p *policy.Policy, steps []step) {
	t.Helper()
	b := newBreaker(t, p, breaker.Options{})
	for i, s := range steps {
		d := observe(t, b, s.it(t0.Add(time.Duration(i)*10*time.Minute)))
		if d.State != s.state || str(d.Trigger) != s.trigger {
			t.Fatalf("iteration %d: got %s %q (%q), want %s %q", i+1, d.State, str(d.Trigger), str(d.Reason), s.state, s.trigger)
		}
	}
}

func withErr(files int, samples ...string) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		it := breaker.Iteration{At: at, Change: change(files, ""), ErrorsKnown: true}
		for _, s := range samples {
			it.Errors = append(it.Errors, sig(s))
		}
		return it
	}
}

// TestRuleCounting checks how each counting rule counts,
// with the other rules quiet.
func TestRuleCounting(t *testing.T) {
	t.Parallel()
	quiet := func(p *policy.Policy) {
		p.Rules.NoProgress.Enabled = false
		p.Rules.Score.Enabled = false
	}
	const C, H, O = breaker.Closed, breaker.HalfOpen, breaker.Open
	se := policy.RuleSameError
	tests := []struct {
		name   string
		policy *policy.Policy
		steps  []step
	}{
		{
			name:   "same_error consecutive: 5 in a row",
			policy: pol(t, "default", quiet),
			steps: []step{{withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""},
				{withErr(1, "E"), C, ""}, {withErr(1, "E"), O, se}},
		},
		{
			name:   "same_error consecutive: a different primary error restarts the count",
			policy: pol(t, "default", quiet),
			steps: []step{{withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""},
				{withErr(1, "E"), C, ""}, {withErr(1, "F", "E"), C, ""}, {withErr(1, "E"), C, ""}},
		},
		{
			name:   "same_error consecutive: an iteration without errors restarts the count",
			policy: pol(t, "default", quiet),
			steps: []step{{withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""},
				{withErr(1, "E"), C, ""}, {withErr(1), C, ""}, {withErr(1, "E"), C, ""}},
		},
		{
			name: "same_error total: 5 since the last progress, not in a row",
			policy: pol(t, "default", quiet, func(p *policy.Policy) {
				p.Rules.SameError.SameErrorMode = "total"
				p.Progress.Signals = []policy.Signal{policy.SignalTests}
			}),
			steps: []step{{withErr(1, "E"), C, ""}, {withErr(1, "F"), C, ""}, {withErr(1, "E"), C, ""},
				{withErr(1), C, ""}, {withErr(1, "E"), C, ""}, {withErr(1, "F"), C, ""}, {withErr(1, "E"), C, ""},
				{withErr(1, "E"), O, se}},
		},
		{
			name: "same_error total: counted since the last reset, progress or not: never weaker than consecutive",
			policy: pol(t, "default", quiet, func(p *policy.Policy) {
				p.Rules.SameError.SameErrorMode = "total"
			}),
			// files changed is progress under default, every iteration.
			steps: []step{{withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""}, {withErr(1, "E"), C, ""},
				{withErr(1, "E"), C, ""}, {withErr(1, "E"), O, se}},
		},
		{
			name:   "same_error consecutive: an alternation of two errors is one row",
			policy: pol(t, "default", quiet),
			steps: []step{{withErr(1, "A"), C, ""}, {withErr(1, "B"), C, ""}, {withErr(1, "A"), C, ""},
				{withErr(1, "B"), C, ""}, {withErr(1, "A"), C, ""}, {withErr(1, "B"), O, se}},
		},
		{
			name:   "same_error any (ralph): any error in 5 iterations in a row",
			policy: pol(t, "ralph"),
			steps: []step{{withErr(1, "A"), C, ""}, {withErr(1, "B"), C, ""}, {withErr(1, "C"), C, ""},
				{withErr(1, "D"), C, ""}, {withErr(1, "E"), O, se}},
		},
		{
			name: "same_error ignores known failing tests",
			policy: pol(t, "default", quiet, func(p *policy.Policy) {
				p.Rules.SameError.SameErrorThreshold = 2
				p.Progress.IgnoreTests = []string{"TestFlaky"}
			}),
			steps: []step{
				{func(at time.Time) breaker.Iteration {
					it := withErr(1)(at)
					it.Errors = []breaker.Signature{{Hash: "x", Sample: "flaky", Test: "TestFlaky"}}
					return it
				}, C, ""},
				{func(at time.Time) breaker.Iteration {
					it := withErr(1)(at)
					it.Errors = []breaker.Signature{{Hash: "x", Sample: "flaky", Test: "TestFlaky"}}
					return it
				}, C, ""},
			},
		},
		{
			name:   "permission_denied: default opens at 3 in a row",
			policy: pol(t, "default", quiet),
			steps:  []step{{denied(1), C, ""}, {denied(2), C, ""}, {denied(0), C, ""}, {denied(1), C, ""}, {denied(1), C, ""}, {denied(4), O, policy.RulePermissionDenied}},
		},
		{
			name:   "permission_denied: ralph opens at 2",
			policy: pol(t, "ralph"),
			steps:  []step{{denied(1), C, ""}, {denied(1), O, policy.RulePermissionDenied}},
		},
		{
			name:   "circular: ABAB opens at the second return",
			policy: pol(t, "default", quiet),
			steps:  []step{{tree("A"), C, ""}, {tree("B"), C, ""}, {tree("A"), C, ""}, {tree("B"), O, policy.RuleCircular}},
		},
		{
			name:   "circular: the same tree again is no change, not a return",
			policy: pol(t, "default", quiet),
			steps:  []step{{tree("A"), C, ""}, {tree("A"), C, ""}, {tree("A"), C, ""}, {tree("B"), C, ""}, {tree("B"), C, ""}},
		},
		{
			name:   "circular: returns further apart than the window do not count",
			policy: pol(t, "default", quiet),
			steps: []step{{tree("A"), C, ""}, {tree("B"), C, ""}, {tree("A"), C, ""}, {tree("C"), C, ""}, {tree("D"), C, ""},
				{tree("E"), C, ""}, {tree("F"), C, ""}, {tree("G"), C, ""}, {tree("B"), C, ""}},
		},
		{
			name:   "test_only: more than 80% test lines over 3 iterations (80% is not more)",
			policy: pol(t, "default", quiet),
			steps:  []step{{testLines(10, 8), C, ""}, {testLines(10, 8), C, ""}, {testLines(10, 8), C, ""}, {testLines(10, 9), O, policy.RuleTestOnly}},
		},
		{
			name:   "test_only: a failing test turned green while only existing tests changed is tests rewritten",
			policy: pol(t, "default", quiet),
			steps:  []step{{testsRun(testLines(10, 10), 5, 5), C, ""}, {testsRun(testLines(10, 10), 6, 4), O, policy.RuleTestOnly}},
		},
		{
			name:   "test_only: a failing test fixed beside code is a fix",
			policy: pol(t, "default", quiet),
			steps:  []step{{testsRun(testLines(10, 10), 5, 5), C, ""}, {testsRun(codeAndTests(20, 10), 6, 4), C, ""}},
		},
		{
			name:   "output_decline: the last 3 at 70% below the baseline",
			policy: pol(t, "default", quiet),
			steps:  []step{{output(100), C, ""}, {output(100), C, ""}, {output(30), C, ""}, {output(30), C, ""}, {output(30), O, policy.RuleOutputDecline}},
		},
		{
			name:   "output_decline: 69.7% is not enough, and the baseline takes in what leaves the window",
			policy: pol(t, "default", quiet),
			// 5: (30+30+31)/3 against 100; 6: (30+31+30)/3 against (100+100+30)/3.
			steps: []step{{output(100), C, ""}, {output(100), C, ""}, {output(30), C, ""}, {output(30), C, ""}, {output(31), C, ""}, {output(30), C, ""}},
		},
		{
			name:   "output_decline: needs 2 earlier iterations with output",
			policy: pol(t, "default", quiet),
			steps:  []step{{output(100), C, ""}, {output(1), C, ""}, {output(1), C, ""}, {output(1), C, ""}, {output(1), O, policy.RuleOutputDecline}},
		},
		{
			name:   "output_decline: iterations without measured output are left out",
			policy: pol(t, "default", quiet),
			steps:  []step{{output(100), C, ""}, {tree("A"), C, ""}, {output(100), C, ""}, {tree("B"), C, ""}, {output(10), C, ""}, {output(10), C, ""}, {output(10), O, policy.RuleOutputDecline}},
		},
		{
			name:   "rate: the 101st iteration within an hour",
			policy: pol(t, "default", quiet, func(p *policy.Policy) { p.Rules.MaxIterations.Enabled = false }),
			steps:  nil, // built below
		},
		{
			name:   "max_iterations: progress or not",
			policy: pol(t, "default", quiet, func(p *policy.Policy) { p.Rules.MaxIterations.MaxIterations = 3 }),
			steps:  []step{{tree("A"), C, ""}, {tree("B"), C, ""}, {tree("C"), O, policy.RuleMaxIterations}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.steps == nil {
				b := newBreaker(t, tc.policy, breaker.Options{})
				for i := range 101 {
					// 101 iterations 35s apart: the 101st is 58m20s after the first.
					d := observe(t, b, progressIt(t0.Add(time.Duration(i)*35*time.Second), fmt.Sprint(i)))
					want := breaker.Closed
					if i == 100 {
						want = breaker.Open
					}
					if d.State != want {
						t.Fatalf("iteration %d: got %s %q, want %s", i+1, d.State, str(d.Reason), want)
					}
				}
				return
			}
			runSteps(t, tc.policy, tc.steps)
		})
	}
}

// TestRateIsRolling: iterations an hour or more old leave the window.
func TestRateIsRolling(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default", func(p *policy.Policy) {
		p.Rules.Rate.MaxIterationsPerHour = 2
		p.Rules.MaxIterations.Enabled = false
	}), breaker.Options{})
	for i, at := range []time.Duration{0, 30 * time.Minute, time.Hour, 90 * time.Minute, 2 * time.Hour} {
		if d := observe(t, b, progressIt(t0.Add(at), fmt.Sprint(i))); d.State != breaker.Closed {
			t.Fatalf("iteration %d at +%s: got %s %q, want CLOSED (never more than 2 in an open hour)", i+1, at, d.State, str(d.Reason))
		}
	}
	if d := observe(t, b, progressIt(t0.Add(2*time.Hour+time.Minute), "x")); d.State != breaker.Open {
		t.Errorf("got %s, want OPEN: 3 iterations within the hour before +2h01m", d.State)
	}
}

func denied(n int) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		return breaker.Iteration{At: at, Change: change(1, ""), PermissionDenials: n}
	}
}

func tree(name string) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		return breaker.Iteration{At: at, Change: change(1, name)}
	}
}

func testLines(lines, test int) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		return breaker.Iteration{At: at, Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: lines, TestLines: test}}
	}
}

func codeAndTests(lines, test int) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		return breaker.Iteration{At: at, Change: &breaker.Change{MeaningfulFiles: 2, CodeFiles: 1, MeaningfulLines: lines, TestLines: test}}
	}
}

func testsRun(f func(time.Time) breaker.Iteration, passed, failed int) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		it := f(at)
		it.Tests = &breaker.Tests{Passed: passed, Failed: failed}
		return it
	}
}

func output(lines int) func(time.Time) breaker.Iteration {
	return func(at time.Time) breaker.Iteration {
		return breaker.Iteration{At: at, Change: change(1, ""), Output: &breaker.Output{Lines: lines}}
	}
}

// TestProgressSignals checks what counts as progress.
func TestProgressSignals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		policy string
		prev   *breaker.Iteration
		it     breaker.Iteration
		want   bool
		score  int
	}{
		{name: "meaningful file", policy: "default", it: breaker.Iteration{Change: change(2, "")}, want: true, score: 2},
		{name: "nothing changed", policy: "default", it: breaker.Iteration{Change: &breaker.Change{}}, want: false, score: -3},
		{name: "no evidence at all", policy: "default", it: breaker.Iteration{}, want: false, score: -3},
		{name: "more tests pass", policy: "default",
			prev: &breaker.Iteration{Tests: &breaker.Tests{Passed: 5, Failed: 3}},
			it:   breaker.Iteration{Tests: &breaker.Tests{Passed: 7, Failed: 1}}, want: true, score: 3*2 - 3},
		{name: "a failing test turned skipped is a regression", policy: "default",
			prev: &breaker.Iteration{Tests: &breaker.Tests{Passed: 5, Failed: 3, Skipped: 2}},
			it:   breaker.Iteration{Tests: &breaker.Tests{Passed: 5, Failed: 2, Skipped: 3}}, want: false, score: -3 - 3},
		{name: "fewer passing is a regression whatever else changed", policy: "default",
			prev: &breaker.Iteration{Tests: &breaker.Tests{Passed: 10}},
			it:   breaker.Iteration{Tests: &breaker.Tests{Passed: 6, Failed: 4}, Change: change(2, "")}, want: false, score: -3},
		{name: "fewer fail because tests were deleted", policy: "default",
			prev: &breaker.Iteration{Tests: &breaker.Tests{Passed: 5, Failed: 3}},
			it:   breaker.Iteration{Tests: &breaker.Tests{Passed: 5, Failed: 1}}, want: false, score: -3},
		{name: "error resolved", policy: "default",
			prev: &breaker.Iteration{ErrorsKnown: true, Errors: []breaker.Signature{sig("a"), sig("b")}},
			it:   breaker.Iteration{ErrorsKnown: true, Errors: []breaker.Signature{sig("b")}}, want: true, score: 2 - 3},
		{name: "errors not looked for are not resolved", policy: "default",
			prev: &breaker.Iteration{ErrorsKnown: true, Errors: []breaker.Signature{sig("a")}},
			it:   breaker.Iteration{}, want: false, score: -3},
		{name: "same error as the previous iteration", policy: "default",
			prev: &breaker.Iteration{ErrorsKnown: true, Errors: []breaker.Signature{sig("a")}},
			it:   breaker.Iteration{ErrorsKnown: true, Errors: []breaker.Signature{sig("a")}, Change: change(1, "")}, want: true, score: 1 - 2},
		{name: "task ticked above the mark", policy: "default",
			it: breaker.Iteration{Tasks: &breaker.Tasks{Done: 3, Total: 9}, TasksBefore: ptr(1)}, want: true, score: 10 - 3},
		{name: "first task count without a before is no progress", policy: "default",
			it: breaker.Iteration{Tasks: &breaker.Tasks{Done: 3, Total: 9}}, want: false, score: -3},
		{name: "percentage up by the stagnation percent with work", policy: "profiles",
			prev: &breaker.Iteration{ProgressPercent: ptr(40.0)},
			it:   breaker.Iteration{ProgressPercent: ptr(43.0), Change: change(1, "")}, want: true, score: 1},
		{name: "percentage up with no work is a claim", policy: "profiles",
			prev: &breaker.Iteration{ProgressPercent: ptr(40.0)},
			it:   breaker.Iteration{ProgressPercent: ptr(43.0), Change: &breaker.Change{}}, want: false, score: -3},
		{name: "percentage up by less vetoes changed files", policy: "profiles",
			prev: &breaker.Iteration{ProgressPercent: ptr(40.0)},
			it:   breaker.Iteration{ProgressPercent: ptr(42.5), Change: change(3, "")}, want: false, score: 3},
		{name: "claims are not progress under ralph", policy: "ralph",
			it: breaker.Iteration{CompletionClaimed: true}, want: false},
		{name: "a claimed file count is not progress under ralph", policy: "ralph",
			it: breaker.Iteration{ClaimedFiles: ptr(3)}, want: false},
		{name: "claims are not progress under default", policy: "default",
			it: breaker.Iteration{CompletionClaimed: true, ClaimedFiles: ptr(3)}, want: false, score: -3},
		{name: "revert", policy: "default",
			it: breaker.Iteration{Change: &breaker.Change{MeaningfulFiles: 2, MeaningfulLines: 4, Reverted: true}}, want: true, score: 2 - 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, pol(t, tc.policy), breaker.Options{})
			at := t0
			if tc.prev != nil {
				prev := *tc.prev
				prev.At = at
				observe(t, b, prev)
				at = at.Add(time.Minute)
			}
			it := tc.it
			it.At = at
			d := observe(t, b, it)
			if d.Progress != tc.want {
				t.Errorf("got progress %v, want %v", d.Progress, tc.want)
			}
			if tc.policy != "ralph" && d.ProgressScore != tc.score {
				t.Errorf("got score %d, want %d", d.ProgressScore, tc.score)
			}
		})
	}
}

// TestTaskHighWaterMark: unticking and re-ticking a box is not progress;
// the mark counts from the last reset.
func TestTaskHighWaterMark(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	tasks := func(at time.Duration, done int) breaker.Iteration {
		return breaker.Iteration{At: t0.Add(at), Tasks: &breaker.Tasks{Done: done, Total: 10}, TasksBefore: ptr(2)}
	}
	steps := []struct {
		done int
		want bool
	}{{4, true}, {3, false}, {4, false}, {5, true}}
	for i, s := range steps {
		if d := observe(t, b, tasks(time.Duration(i)*time.Minute, s.done)); d.Progress != s.want {
			t.Errorf("step %d (%d done): got progress %v, want %v", i+1, s.done, d.Progress, s.want)
		}
	}
	// Untick to 3, reset, tick to 4: above the count at the reset.
	observe(t, b, tasks(10*time.Minute, 3))
	if err := b.Reset(t0.Add(11*time.Minute), "new plan"); err != nil {
		t.Fatal(err)
	}
	if d := observe(t, b, tasks(12*time.Minute, 4)); !d.Progress {
		t.Errorf("after a reset at 3 done, 4 done: got no progress, want progress")
	}
}

// TestQuestionsHold: question-only iterations hold the no-progress counter
// at most max_held times in a row under default, without bound under ralph.
func TestQuestionsHold(t *testing.T) {
	t.Parallel()
	q := func(at time.Time) breaker.Iteration {
		return breaker.Iteration{At: at, Change: &breaker.Change{}, QuestionsAsked: true}
	}
	s := func(at time.Time) breaker.Iteration { return stallIt(at) }
	const C, H, O = breaker.Closed, breaker.HalfOpen, breaker.Open
	np := policy.RuleNoProgress
	quiet := func(p *policy.Policy) { p.Rules.Score.Enabled = false; p.Rules.MaxIterations.Enabled = false }
	t.Run("default", func(t *testing.T) {
		t.Parallel()
		runSteps(t, pol(t, "default", quiet), []step{
			{s, C, ""}, {q, C, ""}, {q, C, ""}, {q, C, ""}, // held 3 times: counter stays 1
			{q, H, np}, // the 4th question in a row counts: 2
			{q, O, np}, // 3
		})
	})
	t.Run("default: a stall breaks the row", func(t *testing.T) {
		t.Parallel()
		runSteps(t, pol(t, "default", quiet, func(p *policy.Policy) { p.Rules.NoProgress.NoProgressThreshold = 5 }), []step{
			{q, C, ""}, {q, C, ""}, {q, C, ""}, {s, C, ""}, {q, C, ""}, {q, C, ""}, {q, C, ""}, {q, H, np},
		})
	})
	t.Run("ralph", func(t *testing.T) {
		t.Parallel()
		steps := []step{{s, C, ""}}
		for range 30 {
			steps = append(steps, step{q, C, ""})
		}
		steps = append(steps, step{s, H, np}, step{q, H, np}, step{s, O, np})
		runSteps(t, pol(t, "ralph"), steps)
	})
}

// TestCompletionClaimTasksRemain: a claim while tasks remain warns.
func TestCompletionClaimTasksRemain(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	d := observe(t, b, breaker.Iteration{At: t0, Change: change(1, ""), CompletionClaimed: true, Tasks: &breaker.Tasks{Done: 7, Total: 9}})
	if !containsAny(d.Warnings, "claims completion while 2 of 9 tasks remain") {
		t.Errorf("got warnings %q, want the claim warning", d.Warnings)
	}
	d = observe(t, b, breaker.Iteration{At: t0.Add(time.Minute), Change: change(1, ""), CompletionClaimed: true,
		Tests: &breaker.Tests{Passed: 3, BuildFailed: true}})
	if !containsAny(d.Warnings, "claims completion while the build fails") {
		t.Errorf("got warnings %q, want the build warning", d.Warnings)
	}
	d = observe(t, b, breaker.Iteration{At: t0.Add(2 * time.Minute), Change: change(1, ""), CompletionClaimed: true,
		Tests: &breaker.Tests{Passed: 3}, Tasks: &breaker.Tasks{Done: 9, Total: 9}})
	if len(d.Warnings) != 0 {
		t.Errorf("an honest claim: got warnings %q, want none", d.Warnings)
	}
}

// TestMaxIterationsWarnings: warnings from iteration 8, critical from 15,
// OPEN at 20.
func TestMaxIterationsWarnings(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	for i := 1; i <= 20; i++ {
		d := observe(t, b, progressIt(t0.Add(time.Duration(i)*time.Minute), fmt.Sprint(i)))
		var want string
		switch {
		case i >= 15 && i < 20:
			want = fmt.Sprintf("critical: iteration %d of at most 20", i)
		case i >= 8 && i < 20:
			want = fmt.Sprintf("warning: iteration %d of at most 20", i)
		}
		got := strings.Join(d.Warnings, "; ")
		if got != want {
			t.Errorf("iteration %d: got warnings %q, want %q", i, got, want)
		}
		if wantOpen := i == 20; (d.State == breaker.Open) != wantOpen {
			t.Errorf("iteration %d: got %s", i, d.State)
		}
	}
}

// TestProtectedModes: delete (default) trips on deletion and warns on a
// change; deny trips on both; warn only warns.
func TestProtectedModes(t *testing.T) {
	t.Parallel()
	del := func(at time.Time) breaker.Iteration {
		it := progressIt(at, "")
		it.Change.ProtectedDeleted = []string{"specs/a.md"}
		return it
	}
	mod := func(at time.Time) breaker.Iteration {
		it := progressIt(at, "")
		it.Change.ProtectedModified = []string{".github/workflows/loop.yml"}
		return it
	}
	tests := []struct {
		mode    policy.ProtectedMode
		it      func(time.Time) breaker.Iteration
		state   breaker.State
		warning string
	}{
		{"delete", del, breaker.Open, ""},
		{"delete", mod, breaker.Closed, `modified protected path ".github/workflows/loop.yml"`},
		{"deny", del, breaker.Open, ""},
		{"deny", mod, breaker.Open, ""},
		{"warn", del, breaker.Closed, `touched protected path "specs/a.md"`},
		{"warn", mod, breaker.Closed, "touched protected path"},
	}
	for _, tc := range tests {
		p := pol(t, "default", func(p *policy.Policy) { p.Rules.ProtectedPath.ProtectedMode = tc.mode })
		d := observe(t, newBreaker(t, p, breaker.Options{}), tc.it(t0))
		if d.State != tc.state {
			t.Errorf("%s: got %s, want %s", tc.mode, d.State, tc.state)
		}
		if tc.state == breaker.Open && str(d.Trigger) != policy.RuleProtectedPath {
			t.Errorf("%s: got trigger %q, want protected_path", tc.mode, str(d.Trigger))
		}
		if tc.warning != "" && !containsAny(d.Warnings, tc.warning) {
			t.Errorf("%s: got warnings %q, want %q", tc.mode, d.Warnings, tc.warning)
		}
	}
	// strict denies modification.
	d := observe(t, newBreaker(t, pol(t, "strict"), breaker.Options{}), mod(t0))
	if d.State != breaker.Open {
		t.Errorf("strict: modifying a protected path gave %s, want OPEN", d.State)
	}
}

// TestEscalation: OPEN names the next model of model_progression, one
// further for each opening, and stays on the last.
func TestEscalation(t *testing.T) {
	t.Parallel()
	p := pol(t, "default", withCooldown("10m"), func(p *policy.Policy) {
		p.Escalation.ModelProgression = []string{"haiku", "sonnet", "opus"}
	})
	b := newBreaker(t, p, breaker.Options{})
	d := observe(t, b, progressIt(t0, "A"))
	if d.Escalate || d.NextModel != nil {
		t.Errorf("CLOSED: got escalate %v next %v, want none", d.Escalate, d.NextModel)
	}
	at := t0.Add(time.Minute)
	it := progressIt(at, "B")
	it.Change.ProtectedDeleted = []string{"AGENTS.md"}
	for i, want := range []string{"sonnet", "opus", "opus"} {
		if i > 0 {
			at = at.Add(10 * time.Minute << (i - 1))
			it = stallIt(at)
		}
		d = observe(t, b, it)
		if d.State != breaker.Open || !d.Escalate || str(d.NextModel) != want {
			t.Errorf("opening %d: got %s escalate %v next %q, want OPEN and %q", i+1, d.State, d.Escalate, str(d.NextModel), want)
		}
	}
}
