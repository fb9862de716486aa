package breaker_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

// TestBadIteration: impossible measurements are an error naming the fault;
// nothing panics and the state does not change.
func TestBadIteration(t *testing.T) {
	t.Parallel()
	last := t0.Add(time.Hour)
	tests := []struct {
		name string
		it   breaker.Iteration
		want string
	}{
		{"no time", breaker.Iteration{}, "iteration has no time"},
		{"time going backwards", breaker.Iteration{At: last.Add(-time.Second)}, "earlier than the last recorded event"},
		{"negative files", breaker.Iteration{At: last, Change: &breaker.Change{MeaningfulFiles: -1}}, "files changed is negative (-1)"},
		{"negative lines", breaker.Iteration{At: last, Change: &breaker.Change{MeaningfulLines: -5}}, "lines changed is negative (-5)"},
		{"negative test lines", breaker.Iteration{At: last, Change: &breaker.Change{TestLines: -1}}, "test lines is negative"},
		{"negative doc files", breaker.Iteration{At: last, Change: &breaker.Change{DocFiles: -1}}, "doc files is negative"},
		{"test lines above lines", breaker.Iteration{At: last, Change: &breaker.Change{MeaningfulLines: 3, TestLines: 4}}, "test lines (4) exceed lines changed (3)"},
		{"negative passing", breaker.Iteration{At: last, Tests: &breaker.Tests{Passed: -1}}, "tests passing is negative"},
		{"negative failing", breaker.Iteration{At: last, Tests: &breaker.Tests{Failed: -2}}, "tests failing is negative"},
		{"negative skipped", breaker.Iteration{At: last, Tests: &breaker.Tests{Skipped: -3}}, "tests skipped is negative"},
		{"huge count", breaker.Iteration{At: last, Tests: &breaker.Tests{Passed: math.MaxInt}}, "tests passing is"},
		{"negative output lines", breaker.Iteration{At: last, Output: &breaker.Output{Lines: -1}}, "output lines is negative"},
		{"negative output bytes", breaker.Iteration{At: last, Output: &breaker.Output{Bytes: -1}}, "output bytes is negative"},
		{"negative denials", breaker.Iteration{At: last, PermissionDenials: -1}, "permission denials is negative"},
		{"negative claimed files", breaker.Iteration{At: last, ClaimedFiles: ptr(-1)}, "files modified is negative"},
		{"negative tasks", breaker.Iteration{At: last, Tasks: &breaker.Tasks{Done: -1, Total: 3}}, "tasks done is negative"},
		{"tasks done above total", breaker.Iteration{At: last, Tasks: &breaker.Tasks{Done: 4, Total: 3}}, "tasks done (4) exceed tasks total (3)"},
		{"negative tasks before", breaker.Iteration{At: last, TasksBefore: ptr(-1)}, "tasks before is negative"},
		{"NaN percent", breaker.Iteration{At: last, ProgressPercent: ptr(math.NaN())}, "progress percent NaN is out of range"},
		{"infinite percent", breaker.Iteration{At: last, ProgressPercent: ptr(math.Inf(1))}, "progress percent +Inf is out of range"},
		{"negative percent", breaker.Iteration{At: last, ProgressPercent: ptr(-0.5)}, "out of range"},
		{"percent above 100", breaker.Iteration{At: last, ProgressPercent: ptr(100.5)}, "out of range"},
		{"NaN dollars", breaker.Iteration{At: last, Cost: &breaker.Cost{USD: ptr(math.NaN())}}, "cost of NaN dollars is out of range"},
		{"negative dollars", breaker.Iteration{At: last, Cost: &breaker.Cost{USD: ptr(-0.01)}}, "cost of -0.01 dollars is out of range"},
		{"negative tokens", breaker.Iteration{At: last, Cost: &breaker.Cost{Tokens: ptr(int64(-1))}}, "cost of -1 tokens is out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBreaker(t, pol(t, "default"), breaker.Options{})
			observe(t, b, progressIt(t0, "A"))
			observe(t, b, stallIt(last))
			before := b.Snapshot()
			_, err := b.Observe(tc.it)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			if diff := cmp.Diff(before, b.Snapshot()); diff != "" {
				t.Errorf("a rejected iteration changed the state (-before +after):\n%s", diff)
			}
		})
	}
	// Several faults are all named.
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	_, err := b.Observe(breaker.Iteration{At: t0, PermissionDenials: -1, Output: &breaker.Output{Lines: -2}})
	if err == nil || !strings.Contains(err.Error(), "permission denials") || !strings.Contains(err.Error(), "output lines") {
		t.Errorf("got %v, want both faults named", err)
	}
}

// TestTimeGoingBackwards: Status and ForceOpen before the newest recorded
// event are errors, a Reset is taken at that event's time, and an
// iteration before a reset or a status transition is an error.
func TestTimeGoingBackwards(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default", withCooldown("30m")), breaker.Options{})
	observe(t, b, progressIt(t0, "A"))
	early := t0.Add(-time.Second)
	if _, err := b.Status(early); err == nil || !strings.Contains(err.Error(), "status time") {
		t.Errorf("Status: got %v, want an error", err)
	}
	// A person can always reset: at the newest event's time.
	if err := b.Reset(early, "x"); err != nil {
		t.Errorf("Reset before the newest event: got %v, want it taken at that event", err)
	} else if h := b.Snapshot().History; len(h) == 0 || !h[len(h)-1].At.Equal(t0) {
		t.Errorf("Reset before the newest event: got history %v, want a reset at %s", h, t0)
	}
	if err := b.ForceOpen(early, "x"); err == nil || !strings.Contains(err.Error(), "force-open time") {
		t.Errorf("ForceOpen: got %v, want an error", err)
	}
	if err := b.Reset(time.Time{}, "x"); err == nil {
		t.Error("Reset without a time: got no error")
	}
	if err := b.Reset(t0.Add(time.Hour), "new plan"); err != nil {
		t.Fatal(err)
	}
	before := b.Snapshot()
	if _, err := b.Observe(progressIt(t0.Add(30*time.Minute), "B")); err == nil {
		t.Error("an iteration before the reset: got no error")
	}
	if diff := cmp.Diff(before, b.Snapshot()); diff != "" {
		t.Errorf("rejected iteration changed the state (-before +after):\n%s", diff)
	}
	// Equal times are fine.
	observe(t, b, progressIt(t0.Add(time.Hour), "B"))
}

// TestRestoreRejectsCorruptSnapshots: a snapshot no breaker could write is
// an error, not a panic.
func TestRestoreRejectsCorruptSnapshots(t *testing.T) {
	t.Parallel()
	p := pol(t, "default")
	tests := []struct {
		name string
		s    breaker.Snapshot
		want string
	}{
		{"bad state", breaker.Snapshot{State: 7}, "not a breaker state"},
		{"negative iteration", breaker.Snapshot{Iteration: -1}, "iteration is negative"},
		{"negative counter", breaker.Snapshot{Iteration: 3, ConsecutiveNoProgress: -2}, "consecutive_no_progress is negative"},
		{"since reset above iteration", breaker.Snapshot{Iteration: 1, SinceReset: 2}, "since_reset (2) is above iteration (1)"},
		{"negative cooldown", breaker.Snapshot{Cooldown: -time.Second}, "cooldown is negative"},
		{"history too long", breaker.Snapshot{History: make([]breaker.Event, breaker.MaxHistory+1)}, "longer than its bound"},
	}
	for _, tc := range tests {
		if _, err := breaker.Restore(p, breaker.Options{}, tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	var s breaker.Snapshot
	if err := json.Unmarshal([]byte(`{"state":"SHUT"}`), &s); err == nil || !strings.Contains(err.Error(), `unknown state "SHUT"`) {
		t.Errorf("unmarshal of a bad state: got %v", err)
	}
	if _, err := breaker.New(nil, breaker.Options{}); err == nil {
		t.Error("New(nil): got no error")
	}
	if _, err := breaker.New(p, breaker.Options{Profile: "nope"}); err == nil || !strings.Contains(err.Error(), "research_task") {
		t.Errorf("unknown profile: got %v, want an error listing the known", err)
	}
	if _, err := breaker.New(p, breaker.Options{Phase: "BLUE"}); err == nil || !strings.Contains(err.Error(), "GREEN") {
		t.Errorf("unknown phase option: got %v, want an error listing the known", err)
	}
}

// TestSnapshotIsACopy: a snapshot shares no memory with the breaker, so
// neither continuing the fold nor restoring it twice changes it.
func TestSnapshotIsACopy(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	feed := func(b *breaker.Breaker, from, n int) {
		for i := from; i < from+n; i++ {
			it := progressIt(t0.Add(time.Duration(i)*time.Minute), string(rune('A'+i%3)))
			it.Errors = []breaker.Signature{sig("boom")}
			it.Tests = &breaker.Tests{Passed: i, Failed: 1, Failing: []string{"TestX"}}
			observe(t, b, it)
		}
	}
	feed(b, 0, 4)
	snap := b.Snapshot()
	frozen, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	feed(b, 4, 2)
	b2, err := breaker.Restore(pol(t, "default"), breaker.Options{}, snap)
	if err != nil {
		t.Fatal(err)
	}
	feed(b2, 4, 3)
	if err := b2.Reset(t0.Add(time.Hour), "x"); err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(snap)
	if string(after) != string(frozen) {
		t.Errorf("the snapshot changed after the breakers moved on:\nbefore %s\nafter  %s", frozen, after)
	}
	// The caller's iteration is not kept either.
	b3 := newBreaker(t, pol(t, "default"), breaker.Options{})
	tests := &breaker.Tests{Passed: 1, Failing: []string{"TestA"}}
	observe(t, b3, breaker.Iteration{At: t0, Tests: tests})
	tests.Passed, tests.Failing[0] = 99, "changed"
	if got := b3.Snapshot().Prev.Tests; got.Passed != 1 || got.Failing[0] != "TestA" {
		t.Errorf("changing the caller's Tests changed the breaker: %+v", got)
	}
}

// TestBoundedEvidence: huge lists in one iteration are kept bounded.
func TestBoundedEvidence(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{})
	failing := make([]string, 5000)
	for i := range failing {
		failing[i] = "TestSomething"
	}
	files := make([]string, 5000)
	for i := range files {
		files[i] = "a/b.go"
	}
	long := strings.Repeat("é", 10000)
	d := observe(t, b, breaker.Iteration{At: t0, Tests: &breaker.Tests{Failed: 5000, Failing: failing},
		Change: &breaker.Change{MeaningfulFiles: 5000, Files: files}, ErrorsKnown: true, Errors: []breaker.Signature{sig(long)}})
	step := d.Recent[len(d.Recent)-1]
	if len(step.Tests.Failing) > 20 || len(step.Files) > 21 {
		t.Errorf("got %d failing names and %d files in the status log, want at most 20 and 21", len(step.Tests.Failing), len(step.Files))
	}
	for sample := range d.ErrorCounts {
		if len(sample) > 400 || !strings.HasSuffix(sample, "…") {
			t.Errorf("got an error sample of %d bytes, want it truncated", len(sample))
		}
		if !strings.HasPrefix(sample, "éé") || strings.ContainsRune(sample, '\uFFFD') {
			t.Errorf("sample cut inside a rune")
		}
	}
}

// TestPolicyPhaseOption: the phase option sets the phase of iterations
// that carry none; an iteration's own unknown phase falls back to the base.
func TestPolicyPhaseOption(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "tdd"), breaker.Options{Phase: "GREEN"})
	observe(t, b, stallIt(t0))
	d := observe(t, b, stallIt(t0.Add(time.Minute)))
	if d.State != breaker.Open || d.Phase != "GREEN" {
		t.Errorf("GREEN: got %s phase %q, want OPEN at 2", d.State, d.Phase)
	}
	b = newBreaker(t, pol(t, "tdd"), breaker.Options{})
	it := stallIt(t0)
	it.Phase = "PURPLE"
	observe(t, b, it)
	it.At = t0.Add(time.Minute)
	if d := observe(t, b, it); d.State != breaker.HalfOpen {
		t.Errorf("unknown phase: got %s, want HALF_OPEN (the base policy's 2 and 3)", d.State)
	}
	if p := b.Policy(); p.Name != "tdd" {
		t.Errorf("Policy(): got %q", p.Name)
	}
}
