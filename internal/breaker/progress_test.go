package breaker_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// ticks is an iteration that changed nothing but the task lists: it
// checked the tasks named and unchecked n.
func ticks(unchecked int, checked ...string) breaker.Iteration {
	return breaker.Iteration{Change: &breaker.Change{}, TaskChange: &breaker.TaskChange{Checked: checked, Unchecked: unchecked}}
}

// TestTaskIdentity: a task counts once, the first time it is checked since
// the last reset; an iteration that unticks as many tasks as it ticks
// completed none; tasks done before the loop never count.
func TestTaskIdentity(t *testing.T) {
	t.Parallel()
	first := ticks(0, "a")
	first.TasksCheckedBefore = []string{"done-before"}
	steps := []struct {
		name string
		it   breaker.Iteration
		want int // tasks completed
	}{
		{"tick a", first, 1},
		{"untick a", ticks(1), 0},
		{"re-tick a", ticks(0, "a"), 0},
		{"tick b and c", ticks(0, "b", "c"), 2},
		{"tick d, untick b", ticks(1, "d"), 0},
		{"re-tick a task done before the loop", ticks(0, "done-before"), 0},
		{"the same task twice in one list", ticks(0, "e", "e"), 1},
		{"tick f, untick two", ticks(2, "f"), 0},
	}
	// The stalls between the ticks would open the breaker in the watch
	// after the recovery at "tick b and c"; this test is about the tasks.
	// Ticks here are credited on their own (TestTicksNeedWork has the rule
	// that a tick needs work).
	b := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Breaker.WatchIterations = 0; p.Progress.TicksNeedWork = false }), breaker.Options{})
	for i, s := range steps {
		it := s.it
		it.At = t0.Add(time.Duration(i) * time.Minute)
		d := observe(t, b, it)
		if got := d.Recent[len(d.Recent)-1].TasksCompleted; got != s.want {
			t.Errorf("%s: got %d tasks completed, want %d", s.name, got, s.want)
		}
		if d.Progress != (s.want > 0) {
			t.Errorf("%s: got progress %v, want %v", s.name, d.Progress, s.want > 0)
		}
	}
	// After a reset every task counts once more.
	if err := b.Reset(t0.Add(time.Hour), "new plan"); err != nil {
		t.Fatal(err)
	}
	if d := observe(t, b, withAt(ticks(0, "a"), t0.Add(61*time.Minute))); !d.Progress {
		t.Errorf("after a reset, a task completed before it: got no progress, want progress")
	}
}

func withAt(it breaker.Iteration, at time.Time) breaker.Iteration {
	it.At = at
	return it
}

// TestCompletedTasksBounded: the completed tasks the snapshot remembers are
// bounded; the oldest are forgotten.
func TestCompletedTasksBounded(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Rules.Rate.Enabled = false; p.Progress.TicksNeedWork = false }), breaker.Options{})
	var ids []string
	for i := 0; i < breaker.MaxCompleted+100; i++ {
		ids = append(ids, fmt.Sprintf("task-%05d", i))
	}
	for i := 0; i < len(ids); i += 500 {
		observe(t, b, withAt(ticks(0, ids[i:min(i+500, len(ids))]...), t0.Add(time.Duration(i)*time.Second)))
	}
	s := b.Snapshot()
	if len(s.Completed) != breaker.MaxCompleted || s.Completed[len(s.Completed)-1] != ids[len(ids)-1] {
		t.Errorf("got %d completed tasks ending %q, want the newest %d", len(s.Completed), s.Completed[len(s.Completed)-1], breaker.MaxCompleted)
	}
}

// TestCompletedTasksOnce: each task is remembered once, in the order it
// was first seen, whether an iteration brings a few identities or many
// (a long plan checked before the loop).
func TestCompletedTasksOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 40} {
		b := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Rules.Rate.Enabled = false }), breaker.Options{})
		var before, want []string
		for i := range n {
			id := fmt.Sprintf("task-%03d", i)
			before = append(before, id, id) // repeated
			want = append(want, id)
		}
		first := ticks(0, before[0], "new-1", "new-1")
		first.TasksCheckedBefore = before
		observe(t, b, withAt(first, t0))
		observe(t, b, withAt(ticks(0, "new-1", before[2], "new-2"), t0.Add(time.Minute)))
		want = append(want, "new-1", "new-2")
		if got := b.Snapshot().Completed; !slices.Equal(got, want) {
			t.Errorf("%d before the loop: got completed %q, want %q", n, got, want)
		}
	}
}

// TestBusywork: changes confined to notes are not progress unless a task is
// completed (which, by default, needs work) or the policy counts busywork
// (the DOCUMENT phase).
func TestBusywork(t *testing.T) {
	t.Parallel()
	busy := &breaker.Change{BusyFiles: 1, BusyLines: 3, BusyDocFiles: 1, TestFiles: []breaker.FileLines{}}
	tests := []struct {
		name   string
		policy *policy.Policy
		it     breaker.Iteration
		want   bool
		score  int
	}{
		{"busywork alone", pol(t, "default"), breaker.Iteration{Change: busy}, false, -3},
		{"busywork alone under ralph", pol(t, "ralph"), breaker.Iteration{Change: busy}, false, 0},
		{"busywork with a tick and no work is bookkeeping", pol(t, "default"), breaker.Iteration{Change: busy, TaskChange: &breaker.TaskChange{Checked: []string{"a"}}}, false, -3},
		{"busywork with a completed task", pol(t, "default", func(p *policy.Policy) { p.Progress.TicksNeedWork = false }), breaker.Iteration{Change: busy, TaskChange: &breaker.TaskChange{Checked: []string{"a"}}}, true, 5 + 1},
		{"busywork with a completed task under ralph", pol(t, "ralph"), breaker.Iteration{Change: busy, TaskChange: &breaker.TaskChange{Checked: []string{"a"}}}, true, 0},
		{"busywork counted by the policy", pol(t, "default", func(p *policy.Policy) { p.Progress.BusyworkIsProgress = true }), breaker.Iteration{Change: busy}, true, 1},
		{"busywork beside a real change", pol(t, "default"), breaker.Iteration{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 4, CodeFiles: 1, BusyFiles: 2}}, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, tc.policy, breaker.Options{})
			d := observe(t, b, withAt(tc.it, t0))
			if d.Progress != tc.want {
				t.Errorf("got progress %v, want %v", d.Progress, tc.want)
			}
			if tc.policy.Rules.Score.Enabled && d.ProgressScore != tc.score {
				t.Errorf("got score %d, want %d", d.ProgressScore, tc.score)
			}
		})
	}
	// The DOCUMENT phase of default counts notes as documentation.
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	if d := observe(t, b, breaker.Iteration{At: t0, Phase: "DOCUMENT", Change: busy}); !d.Progress {
		t.Errorf("DOCUMENT phase, notes changed: got no progress, want progress")
	}
}

// errs is an iteration that changed a file and saw the errors named.
func errs(samples ...string) breaker.Iteration {
	it := breaker.Iteration{Change: change(1, ""), ErrorsKnown: true}
	for _, s := range samples {
		it.Errors = append(it.Errors, sig(s))
	}
	return it
}

// TestErrorAlternation: an error is resolved only when the iteration brings
// back no error seen within the same_error window; the alternation is one
// same_error row.
func TestErrorAlternation(t *testing.T) {
	t.Parallel()
	filesOff := func(p *policy.Policy) { p.Progress.Signals = []policy.Signal{policy.SignalErrors} }
	b := newBreaker(t, pol(t, "default", filesOff, func(p *policy.Policy) {
		p.Rules.NoProgress.Enabled, p.Rules.Score.Enabled = false, false
	}), breaker.Options{})
	seq := []struct {
		errs     []string
		progress bool
		state    breaker.State
	}{
		{[]string{"A"}, false, breaker.Closed},
		{[]string{"B"}, true, breaker.Closed},  // A resolved, B is new
		{[]string{"A"}, false, breaker.Closed}, // A comes back: nothing resolved
		{[]string{"B"}, false, breaker.Closed},
		{[]string{"A"}, false, breaker.Closed},
		{[]string{"B"}, false, breaker.Open}, // five in a row of errors seen within the window
	}
	for i, s := range seq {
		d := observe(t, b, withAt(errs(s.errs...), t0.Add(time.Duration(i)*time.Minute)))
		if d.Progress != s.progress || d.State != s.state {
			t.Errorf("iteration %d (%v): got progress %v %s, want %v %s", i+1, s.errs, d.Progress, d.State, s.progress, s.state)
		}
		if s.state == breaker.Open && (str(d.Trigger) != policy.RuleSameError || !strings.Contains(str(d.Reason), "keep coming back")) {
			t.Errorf("iteration %d: got %q (%q), want same_error for errors that keep coming back", i+1, str(d.Trigger), str(d.Reason))
		}
	}
	// A fix that leaves a persistent error alone still resolves the others.
	b = newBreaker(t, pol(t, "default", filesOff), breaker.Options{})
	observe(t, b, withAt(errs("P", "X", "Y"), t0))
	if d := observe(t, b, withAt(errs("P"), t0.Add(time.Minute))); !d.Progress || d.ProgressScore != 2*2+1-2 {
		t.Errorf("two errors fixed, the primary left: got progress %v score %d, want progress with score 3", d.Progress, d.ProgressScore)
	}
}

// TestPercentHighWater: a reported percentage counts only above its
// highest value since the last reset, and only with work behind it.
func TestPercentHighWater(t *testing.T) {
	t.Parallel()
	quiet := func(p *policy.Policy) {
		p.Rules.NoProgress.Enabled, p.Rules.Score.Enabled = false, false
		p.Progress.Signals = []policy.Signal{policy.SignalPercent}
	}
	work := &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 3, CodeFiles: 1}
	b := newBreaker(t, pol(t, "default", quiet), breaker.Options{})
	at := t0
	for i, s := range []struct {
		p    float64
		want bool
	}{{10, true}, {50, true}, {10, false}, {50, false}, {52, false}, {53, false}, {56, true}} {
		at = at.Add(time.Minute)
		if d := observe(t, b, breaker.Iteration{At: at, Change: work, ProgressPercent: ptr(s.p)}); d.Progress != s.want {
			t.Errorf("step %d (%v%%): got progress %v, want %v", i+1, s.p, d.Progress, s.want)
		}
	}
	// A reset starts the mark afresh.
	if err := b.Reset(at.Add(time.Second), "new plan"); err != nil {
		t.Fatal(err)
	}
	if d := observe(t, b, breaker.Iteration{At: at.Add(time.Minute), Change: work, ProgressPercent: ptr(10.0)}); !d.Progress {
		t.Errorf("10%% after a reset: got no progress, want progress")
	}
	// A percentage that rises on an iteration that changed nothing is a
	// claim, not progress.
	if d := observe(t, b, breaker.Iteration{At: at.Add(2 * time.Minute), Change: &breaker.Change{}, ProgressPercent: ptr(60.0)}); d.Progress {
		t.Errorf("60%% on an empty iteration: got progress, want none")
	}
}

// TestTestRegression: fewer passing tests, or failing tests turned
// skipped, vetoes progress, scores negative and warns naming the tests.
func TestTestRegression(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	observe(t, b, breaker.Iteration{At: t0, Change: change(1, "a"), Tests: &breaker.Tests{Passed: 10, Failed: 1, Failing: []string{"TestOld"}}})
	d := observe(t, b, breaker.Iteration{At: t0.Add(time.Minute), Change: change(3, "b"),
		Tests: &breaker.Tests{Passed: 7, Failed: 4, Failing: []string{"TestOld", "TestA", "Test\x1b[31mB", "TestC"}}})
	if d.Progress || d.ProgressScore >= 0 {
		t.Errorf("passing 10 to 7: got progress %v score %d, want no progress and a negative score", d.Progress, d.ProgressScore)
	}
	want := `tests regressed: 7 passing, 10 before; failing now: "TestA", "Test\x1b[31mB", "TestC"`
	if strings.Join(d.Warnings, "\n") != want {
		t.Errorf("got warnings %q, want %q", d.Warnings, want)
	}
	d = observe(t, b, breaker.Iteration{At: t0.Add(2 * time.Minute), Change: change(1, "c"),
		Tests: &breaker.Tests{Passed: 7, Failed: 2, Skipped: 2, Failing: []string{"TestOld", "TestA"}}})
	if d.Progress || !strings.Contains(strings.Join(d.Warnings, "\n"), `2 failing tests turned skipped: "Test\x1b[31mB", "TestC"`) {
		t.Errorf("failing turned skipped: got progress %v warnings %q, want no progress and a warning naming them", d.Progress, d.Warnings)
	}
	// Fixed tests are not a regression, nor are deleted failing ones.
	d = observe(t, b, breaker.Iteration{At: t0.Add(3 * time.Minute), Change: change(1, "d"),
		Tests: &breaker.Tests{Passed: 8, Failed: 0, Skipped: 2}})
	if !d.Progress || len(d.Warnings) != 0 {
		t.Errorf("a test fixed, a failing one deleted: got progress %v warnings %q, want progress and no warning", d.Progress, d.Warnings)
	}
}

// TestTestOnly: an iteration counts toward test_only only when it changed
// existing tests while nothing else moved; iterations without changed
// lines take no place in the window; new test files and tests appended to
// a suite are new tests and never count; without reports only test files
// the window changed before count.
func TestTestOnly(t *testing.T) {
	t.Parallel()
	files := func(code int, tests ...breaker.FileLines) *breaker.Change {
		c := &breaker.Change{CodeFiles: code, MeaningfulFiles: code + len(tests), MeaningfulLines: 10 * code, TestFiles: tests}
		for _, f := range tests {
			c.MeaningfulLines += f.Lines
			c.TestLines += f.Lines
		}
		return c
	}
	tf := func(path string, lines int) breaker.FileLines { return breaker.FileLines{Path: path, Lines: lines} }
	grew := func(path string, lines int) breaker.FileLines {
		return breaker.FileLines{Path: path, Lines: lines, Grew: true}
	}
	const C, O = breaker.Closed, breaker.Open
	tests := []struct {
		name  string
		steps []breaker.Iteration
		want  []breaker.State
	}{
		{"the same test file rewritten opens",
			[]breaker.Iteration{{Change: files(1, tf("a_test.go", 10))}, {Change: files(0, tf("a_test.go", 20))}, {Change: files(0, tf("a_test.go", 20))}, {Change: files(0, tf("a_test.go", 20))}},
			[]breaker.State{C, C, C, O}},
		{"a new test file each time does not",
			[]breaker.Iteration{{Change: files(1, tf("a_test.go", 10))}, {Change: files(0, tf("b_test.go", 20))}, {Change: files(0, tf("c_test.go", 20))}, {Change: files(0, tf("d_test.go", 20))}},
			[]breaker.State{C, C, C, C}},
		{"tests appended to another existing suite each time are new tests, no trip",
			[]breaker.Iteration{{Change: files(1, tf("a_test.go", 10))}, {Change: files(0, grew("b_test.go", 20))}, {Change: files(0, grew("c_test.go", 20))}, {Change: files(0, grew("d_test.go", 20))}},
			[]breaker.State{C, C, C, C}},
		{"grown test files beside code do not",
			[]breaker.Iteration{{Change: files(1, tf("a_test.go", 10))}, {Change: files(1, grew("b_test.go", 20))}, {Change: files(1, grew("c_test.go", 20))}, {Change: files(1, grew("d_test.go", 20))}},
			[]breaker.State{C, C, C, C}},
		{"a completed task is another signal",
			[]breaker.Iteration{{Change: files(1, tf("a_test.go", 10))},
				{Change: files(0, tf("a_test.go", 20)), TaskChange: &breaker.TaskChange{Checked: []string{"t1"}}},
				{Change: files(0, tf("a_test.go", 20)), TaskChange: &breaker.TaskChange{Checked: []string{"t2"}}},
				{Change: files(0, tf("a_test.go", 20)), TaskChange: &breaker.TaskChange{Checked: []string{"t3"}}}},
			[]breaker.State{C, C, C, C}},
		{"iterations without changed lines take no place",
			[]breaker.Iteration{{Change: files(1, tf("a_test.go", 10))}, {Change: files(3)}, {Change: &breaker.Change{}}, {Change: &breaker.Change{}},
				{Change: files(0, tf("a_test.go", 20))}},
			[]breaker.State{C, C, C, breaker.HalfOpen, C}},
		{"with reports every test line of a test-only iteration counts",
			[]breaker.Iteration{
				{Change: files(1, tf("a_test.go", 10)), Tests: &breaker.Tests{Passed: 5, Failed: 1}},
				{Change: files(0, tf("b_test.go", 20)), Tests: &breaker.Tests{Passed: 5, Failed: 1}},
				{Change: files(0, tf("c_test.go", 20)), Tests: &breaker.Tests{Passed: 5, Failed: 1}},
				{Change: files(0, tf("d_test.go", 20)), Tests: &breaker.Tests{Passed: 5, Failed: 1}}},
			[]breaker.State{C, C, C, O}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, pol(t, "default"), breaker.Options{})
			for i, it := range tc.steps {
				d := observe(t, b, withAt(it, t0.Add(time.Duration(i)*time.Minute)))
				if d.State != tc.want[i] {
					t.Errorf("iteration %d: got %s %q (%q), want %s", i+1, d.State, str(d.Trigger), str(d.Reason), tc.want[i])
				}
			}
		})
	}
	// Off in tdd's RED phase.
	b := newBreaker(t, pol(t, "tdd"), breaker.Options{})
	for i := 0; i < 4; i++ {
		d := observe(t, b, breaker.Iteration{At: t0.Add(time.Duration(i) * time.Minute), Phase: "RED", Change: files(0, tf("a_test.go", 20))})
		if str(d.Trigger) == policy.RuleTestOnly {
			t.Errorf("RED iteration %d: test_only fired", i+1)
		}
	}
}

// TestClaimAgain: a claim of done work made again with no new work since
// is going round (the circular rule counts it); with work between, the
// same words are a new claim.
func TestClaimAgain(t *testing.T) {
	t.Parallel()
	claim := &breaker.Signature{Hash: "c1", Sample: "epic 16 complete"}
	prose := &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 4, CodeFiles: 1, Text: []breaker.TextFile{{Path: "docs/epic.md", Lines: 4, Counted: true}}}
	code := &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 9, CodeFiles: 1}
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	at := t0
	step := func(c *breaker.Change, want bool, state breaker.State) {
		t.Helper()
		at = at.Add(time.Minute)
		d := observe(t, b, breaker.Iteration{At: at, Change: c, Claim: claim})
		if d.Progress != want || d.State != state {
			t.Errorf("iteration %d: got progress %v %s (%s), want %v %s", d.Iteration, d.Progress, d.State, str(d.Reason), want, state)
		}
	}
	step(code, true, breaker.Closed)   // the claim, with work
	step(code, true, breaker.Closed)   // made again after new work: a new claim
	step(prose, false, breaker.Closed) // again with only prose since: going round
	step(code, true, breaker.Closed)   // new work
	step(prose, false, breaker.Open)   // two returns in the window of six: circular
	if d := b.Snapshot(); d.Trigger != policy.RuleCircular {
		t.Errorf("got trigger %q, want circular", d.Trigger)
	}
}
