package breaker_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// minutes returns t0 plus n minutes.
func minutes(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// onTask is a progress iteration (a new tree each time) with the task the
// loop is on after it.
func onTask(n int, task *breaker.CurrentTask) breaker.Iteration {
	it := progressIt(minutes(n), fmt.Sprintf("tree-%d", n))
	it.CurrentTask = task
	return it
}

// ticked is onTask that also completes a task.
func ticked(n int, task *breaker.CurrentTask, done string) breaker.Iteration {
	it := onTask(n, task)
	it.TaskChange = &breaker.TaskChange{Checked: []string{done}}
	return it
}

var (
	parser = &breaker.CurrentTask{ID: "plan#parser", Text: "Write the parser"}
	lexer  = &breaker.CurrentTask{ID: "plan#lexer", Text: "Write the lexer"}
)

// TestTaskStuck: under default the current task staying current for
// task_timeout_iterations iterations with no task completed half-opens and
// holds HALF_OPEN against changed files; a completed task closes; under
// strict it opens. The reason names the task, quoted.
func TestTaskStuck(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	observe(t, b, ticked(0, parser, "plan#setup")) // the plan is in use
	for i := 1; i <= 4; i++ {
		if d := observe(t, b, onTask(i, parser)); d.State != breaker.Closed {
			t.Fatalf("iteration %d: got %s (%q), want CLOSED before the timeout", d.Iteration, d.State, str(d.Reason))
		}
	}
	d := observe(t, b, onTask(5, parser))
	want := `task "Write the parser" has been the current task for 5 iterations with no task completed`
	if d.State != breaker.HalfOpen || str(d.Trigger) != policy.RuleTaskStuck || str(d.Reason) != want || !d.Progress {
		t.Fatalf("got %s %q (%q) progress %v, want HALF_OPEN task_stuck (%q) on an iteration with progress", d.State, str(d.Trigger), str(d.Reason), d.Progress, want)
	}
	if d = observe(t, b, onTask(6, parser)); d.State != breaker.HalfOpen || !strings.Contains(str(d.Reason), "6 iterations") {
		t.Errorf("changed files while the task does not move: got %s (%q), want HALF_OPEN held", d.State, str(d.Reason))
	}
	if d = observe(t, b, ticked(7, lexer, "plan#parser")); d.State != breaker.Closed {
		t.Errorf("the task was completed: got %s (%q), want CLOSED", d.State, str(d.Reason))
	}

	// strict opens at the timeout.
	b = newBreaker(t, pol(t, "strict"), breaker.Options{})
	observe(t, b, ticked(0, parser, "plan#setup"))
	for i := 1; i <= 4; i++ {
		observe(t, b, onTask(i, parser))
	}
	if d = observe(t, b, onTask(5, parser)); d.State != breaker.Open || str(d.Trigger) != policy.RuleTaskStuck {
		t.Errorf("strict: got %s %q (%q), want OPEN task_stuck", d.State, str(d.Trigger), str(d.Reason))
	}
}

// TestTaskStuckCounting: another task becoming current starts the count
// at 1, an iteration without a current task ends it, and until the loop
// has completed a task the first unchecked one may be a plan it does not
// follow — only a task its status block names counts then.
func TestTaskStuckCounting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		its   func() []breaker.Iteration
		fires bool
	}{
		{"a plan never ticked is not followed", func() []breaker.Iteration {
			var its []breaker.Iteration
			for i := range 8 {
				its = append(its, onTask(i, parser))
			}
			return its
		}, false},
		{"a status block's task counts from the start", func() []breaker.Iteration {
			var its []breaker.Iteration
			for i := range 5 {
				its = append(its, onTask(i, breaker.StatusTask("  Fix the  flaky test ")))
			}
			return its
		}, true},
		{"another task becoming current starts again", func() []breaker.Iteration {
			its := []breaker.Iteration{ticked(0, parser, "plan#setup")}
			for i := 1; i <= 4; i++ {
				its = append(its, onTask(i, parser))
			}
			for i := 5; i <= 8; i++ {
				its = append(its, onTask(i, lexer))
			}
			return its
		}, false},
		{"a tick not credited as progress still moves the count", func() []breaker.Iteration {
			// The loop works off its list and ticks a chore with no work
			// since its last tick: no progress, but it moved along.
			chore := stallIt(minutes(1))
			chore.CurrentTask = parser
			chore.TaskChange = &breaker.TaskChange{Checked: []string{"plan#lint"}}
			its := []breaker.Iteration{ticked(0, parser, "plan#setup"), chore}
			for i := 2; i <= 5; i++ {
				its = append(its, onTask(i, parser))
			}
			return its
		}, false},
		{"no current task ends the count", func() []breaker.Iteration {
			its := []breaker.Iteration{ticked(0, parser, "plan#setup")}
			for i := 1; i <= 8; i++ {
				task := parser
				if i == 4 {
					task = nil
				}
				its = append(its, onTask(i, task))
			}
			return its
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, pol(t, "default"), breaker.Options{})
			fired := false
			for _, it := range c.its() {
				if d := observe(t, b, it); str(d.Trigger) == policy.RuleTaskStuck {
					fired = true
				}
			}
			if fired != c.fires {
				t.Errorf("task_stuck fired %v, want %v", fired, c.fires)
			}
		})
	}
	if a, b := breaker.StatusTask("Fix the flaky TEST"), breaker.StatusTask(" fix  the flaky test"); a.ID != b.ID || !a.FromStatus() {
		t.Errorf("status tasks: got %q and %q, want one identity marked as from a status block", a.ID, b.ID)
	}
	if breaker.StatusTask(" \t") != nil {
		t.Error("an empty status task: got a task, want none")
	}
	if long := breaker.StatusTask(strings.Repeat("é", 200)); len(long.Text) > 123 || !strings.HasSuffix(long.Text, "…") {
		t.Errorf("a long status task is not bounded: %d bytes", len(long.Text))
	}
}

// TestWatchAfterRecovery: for watch_iterations after a reset or a
// HALF_OPEN to CLOSED recovery, one iteration without progress
// half-opens, a second opens with "stagnation recurred after recovery",
// and a trip says so too; after the watch the usual thresholds apply.
func TestWatchAfterRecovery(t *testing.T) {
	t.Parallel()
	recovered := func(t *testing.T) *breaker.Breaker {
		b := newBreaker(t, pol(t, "default"), breaker.Options{})
		observe(t, b, stallIt(minutes(0)))
		if d := observe(t, b, stallIt(minutes(1))); d.State != breaker.HalfOpen {
			t.Fatalf("got %s after two stalls, want HALF_OPEN", d.State)
		}
		if d := observe(t, b, progressIt(minutes(2), "A")); d.State != breaker.Closed {
			t.Fatalf("got %s after progress, want CLOSED", d.State)
		}
		return b
	}
	t.Run("one stall half-opens, a second opens", func(t *testing.T) {
		t.Parallel()
		b := recovered(t)
		// The score's watch fires too here, and names the cause.
		d := observe(t, b, stallIt(minutes(3)))
		if d.State != breaker.HalfOpen || str(d.Trigger) != policy.RuleScore {
			t.Fatalf("first stall in the watch: got %s %q (%q), want HALF_OPEN score", d.State, str(d.Trigger), str(d.Reason))
		}
		d = observe(t, b, stallIt(minutes(4)))
		if d.State != breaker.Open || !strings.HasPrefix(str(d.Reason), "stagnation recurred after recovery: ") {
			t.Errorf("second stall in the watch: got %s (%q), want OPEN, stagnation recurred", d.State, str(d.Reason))
		}
	})
	t.Run("a trip in the watch says stagnation recurred", func(t *testing.T) {
		t.Parallel()
		b := recovered(t)
		it := progressIt(minutes(3), "B")
		it.Change.ProtectedDeleted = []string{"AGENTS.md"}
		d := observe(t, b, it)
		if d.State != breaker.Open || str(d.Trigger) != policy.RuleProtectedPath || !strings.HasPrefix(str(d.Reason), "stagnation recurred after recovery: deleted protected path") {
			t.Errorf("got %s %q (%q), want OPEN protected_path, stagnation recurred", d.State, str(d.Trigger), str(d.Reason))
		}
	})
	t.Run("the watch ends", func(t *testing.T) {
		t.Parallel()
		b := recovered(t)
		for i := 3; i < 6; i++ {
			it := progressIt(minutes(i), fmt.Sprintf("t%d", i))
			it.Change = change(3, fmt.Sprintf("t%d", i)) // a window score that stays positive
			observe(t, b, it)
		}
		if d := observe(t, b, stallIt(minutes(6))); d.State != breaker.Closed {
			t.Errorf("a stall after the watch: got %s (%q), want CLOSED", d.State, str(d.Reason))
		}
	})
	t.Run("after a reset", func(t *testing.T) {
		t.Parallel()
		b := newBreaker(t, pol(t, "default"), breaker.Options{})
		for i := range 3 {
			observe(t, b, stallIt(minutes(i)))
		}
		if err := b.Reset(minutes(10), "try again"); err != nil {
			t.Fatal(err)
		}
		d := observe(t, b, stallIt(minutes(11)))
		if d.State != breaker.HalfOpen || str(d.Reason) != "no progress in iteration 4, in the watch after recovery" {
			t.Errorf("a stall after a reset: got %s (%q), want HALF_OPEN in the watch", d.State, str(d.Reason))
		}
		d = observe(t, b, stallIt(minutes(12)))
		if d.State != breaker.Open || str(d.Reason) != "stagnation recurred after recovery: no progress in 2 consecutive iterations" {
			t.Errorf("a second stall after a reset: got %s (%q), want OPEN, stagnation recurred", d.State, str(d.Reason))
		}
	})
	t.Run("off", func(t *testing.T) {
		t.Parallel()
		b := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Breaker.WatchIterations = 0 }), breaker.Options{})
		if err := b.Reset(minutes(0), "go"); err != nil {
			t.Fatal(err)
		}
		if d := observe(t, b, stallIt(minutes(1))); d.State != breaker.Closed {
			t.Errorf("watch_iterations 0: got %s, want CLOSED", d.State)
		}
	})
}

// TestCompletion: complete needs every task checked, the newest test
// report green (when the loop has one) and a claim or 100 %; it is not a
// trip, stops the loop without OPEN, and an OPEN decision is never
// complete.
func TestCompletion(t *testing.T) {
	t.Parallel()
	all := &breaker.Tasks{Done: 4, Total: 4}
	green := &breaker.Tests{Passed: 12}
	red := &breaker.Tests{Passed: 11, Failed: 1}
	cases := []struct {
		name     string
		prior    *breaker.Tests // an earlier iteration's report
		tasks    *breaker.Tasks
		tests    *breaker.Tests
		claimed  bool
		percent  *float64
		complete bool
	}{
		{"claim with the evidence", nil, all, green, true, nil, true},
		{"100 % with the evidence", nil, all, green, false, ptr(100.0), true},
		{"no test report at all", nil, all, nil, true, nil, true},
		{"a claim alone", nil, nil, nil, true, nil, false},
		{"tasks remain", nil, &breaker.Tasks{Done: 3, Total: 4}, green, true, nil, false},
		{"an empty task list", nil, &breaker.Tasks{}, green, true, nil, false},
		{"tests fail", nil, all, red, true, nil, false},
		{"the last report failed", red, all, nil, true, nil, false},
		{"the build fails", nil, all, &breaker.Tests{Passed: 12, BuildFailed: true}, true, nil, false},
		{"no claim", nil, all, green, false, ptr(99.0), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, pol(t, "default"), breaker.Options{})
			first := progressIt(minutes(0), "A")
			first.Tests = c.prior
			observe(t, b, first)
			it := progressIt(minutes(1), "B")
			it.Tasks, it.Tests, it.CompletionClaimed, it.ProgressPercent = c.tasks, c.tests, c.claimed, c.percent
			d := observe(t, b, it)
			if d.Complete != c.complete || d.AllowContinue == c.complete || d.ExitCode() != breaker.ExitContinue {
				t.Fatalf("got complete %v allow_continue %v exit %d, want complete %v", d.Complete, d.AllowContinue, d.ExitCode(), c.complete)
			}
			if c.complete && (d.Completion.Tasks != *c.tasks || d.Completion.Claimed != c.claimed) {
				t.Errorf("got evidence %+v", d.Completion)
			}
			if c.name == "claim with the evidence" {
				data, _ := json.Marshal(d)
				if !strings.Contains(string(data), `"complete":true,"completion":{"tasks":{"done":4,"total":4},"tests":{"passed":12,"failed":0,"skipped":0},"claimed":true,"percent":null}`) {
					t.Errorf("JSON lacks the evidence: %s", data)
				}
			}
		})
	}

	// A trip wins: OPEN is never complete.
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	it := progressIt(minutes(0), "A")
	it.Tasks, it.Tests, it.CompletionClaimed = all, green, true
	it.Change.ProtectedDeleted = []string{"CLAUDE.md"}
	if d := observe(t, b, it); d.State != breaker.Open || d.Complete {
		t.Errorf("a trip with the evidence: got %s complete %v, want OPEN, not complete", d.State, d.Complete)
	}
}

// TestTrends: passing tests falling, or distinct errors rising, in
// trend_iterations iterations in a row warn and mark the step;
// iterations without a report are left out of the row.
func TestTrends(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	passing := []int{40, 38, 36, -1, 30}
	var d breaker.Decision
	for i, p := range passing {
		it := progressIt(minutes(i), fmt.Sprintf("t%d", i))
		if p >= 0 {
			it.Tests = &breaker.Tests{Passed: p}
		}
		d = observe(t, b, it)
		if i < len(passing)-1 && d.Recent[len(d.Recent)-1].Trend {
			t.Fatalf("iteration %d: a trend before three falls", i+1)
		}
	}
	want := "trend: passing tests fell in 3 iterations in a row (40 → 38 → 36 → 30)"
	if !contains(d.Warnings, want) || !d.Recent[len(d.Recent)-1].Trend {
		t.Errorf("got warnings %q, trend mark %v; want %q", d.Warnings, d.Recent[len(d.Recent)-1].Trend, want)
	}

	b = newBreaker(t, pol(t, "default"), breaker.Options{})
	for i, n := range []int{0, 1, 2, 2, 3, 4, 5} {
		it := progressIt(minutes(i), fmt.Sprintf("t%d", i))
		for k := range n {
			e := sig(fmt.Sprintf("error %d.%d", i, k)) // new errors, each twice
			it.Errors = append(it.Errors, e, e)
		}
		d = observe(t, b, it)
		if rising := i == 6; rising != contains(d.Warnings, "trend: distinct errors rose in 3 iterations in a row (2 → 3 → 4 → 5)") {
			t.Errorf("iteration %d: got warnings %q", i+1, d.Warnings)
		}
	}

	b = newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Trends.Enabled = false }), breaker.Options{})
	for i, p := range []int{9, 8, 7, 6} {
		it := progressIt(minutes(i), fmt.Sprintf("t%d", i))
		it.Tests = &breaker.Tests{Passed: p}
		if d = observe(t, b, it); len(d.Warnings) > 0 && strings.HasPrefix(d.Warnings[len(d.Warnings)-1], "trend:") {
			t.Errorf("trends off: got %q", d.Warnings)
		}
	}
}

// TestRateWarningAndWindow: a warning from rate_warning_percent of
// max_iterations_per_hour; on a rate trip the decision says when the
// hour frees up, which under a policy with a cooldown is the probe time.
func TestRateWarningAndWindow(t *testing.T) {
	t.Parallel()
	rate5 := func(p *policy.Policy) { p.Rules.Rate.MaxIterationsPerHour = 5 }
	b := newBreaker(t, pol(t, "default", rate5), breaker.Options{})
	var d breaker.Decision
	for i := range 6 {
		d = observe(t, b, progressIt(minutes(10*i), fmt.Sprintf("t%d", i)))
		warned := contains(d.Warnings, fmt.Sprintf("rate: %d of at most 5 iterations in the last hour", i+1))
		if want := i == 3 || i == 4; warned != want {
			t.Errorf("iteration %d: got warnings %q, want a rate warning %v", i+1, d.Warnings, want)
		}
	}
	frees := t0.Add(70 * time.Minute) // the second iteration (10:10) leaves the hour
	if d.State != breaker.Open || d.RateFreesAt == nil || !d.RateFreesAt.Equal(frees) || d.CooldownUntil != nil ||
		!strings.HasSuffix(str(d.Reason), "the window frees up at 2025-03-01T11:10:00Z") {
		t.Fatalf("got %s frees %v cooldown %v (%q), want OPEN, frees at %s, no cooldown", d.State, d.RateFreesAt, d.CooldownUntil, str(d.Reason), frees)
	}

	b = newBreaker(t, pol(t, "default", rate5, withCooldown("5m")), breaker.Options{})
	for i := range 6 {
		d = observe(t, b, progressIt(minutes(10*i), fmt.Sprintf("t%d", i)))
	}
	if d.CooldownUntil == nil || !d.CooldownUntil.Equal(frees) {
		t.Fatalf("with a cooldown: got cooldown_until %v, want the window's %s", d.CooldownUntil, frees)
	}
	if d = observe(t, b, progressIt(frees, "t6")); d.State != breaker.Closed || d.RateFreesAt != nil {
		t.Errorf("the probe when the window frees: got %s frees %v (%q), want CLOSED", d.State, d.RateFreesAt, str(d.Reason))
	}
}

// TestOldSnapshotLoads: a state written before these fields existed
// restores and folds on.
func TestOldSnapshotLoads(t *testing.T) {
	t.Parallel()
	old := `{"state":"HALF_OPEN","iteration":2,"last_at":"2025-03-01T10:01:00Z","since_reset":2,"consecutive_no_progress":2,
"held":0,"ignored_open":0,"trigger":"no_progress","reason":"no progress in 2 consecutive iterations","last_transition_at":"2025-03-01T10:01:00Z",
"opens":0,"primary_streak":0,"error_streak":0,"denial_streak":0,"output_base":{"sum":0,"count":0},"window":[{"at":"2025-03-01T10:00:00Z","score":-3,"fixed":0,"lines":0,"test_lines":0,"output":0}],
"last_score":-3,"last_progress_flag":false}`
	var s breaker.Snapshot
	if err := json.Unmarshal([]byte(old), &s); err != nil {
		t.Fatal(err)
	}
	b, err := breaker.Restore(pol(t, "default"), breaker.Options{}, s)
	if err != nil {
		t.Fatal(err)
	}
	if d := observe(t, b, stallIt(minutes(2))); d.State != breaker.Open || d.Complete {
		t.Errorf("got %s, want OPEN after a third stall", d.State)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
