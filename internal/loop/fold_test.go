package loop

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

// stall is an iteration without progress at t0 plus minutes.
func stall(minutes int) breaker.Iteration {
	at := t0.Add(time.Duration(minutes) * time.Minute)
	return breaker.Iteration{At: at, CommitAt: at, Commit: strings.Repeat("a", 39) + string(rune('a'+minutes%26)), Change: &breaker.Change{}}
}

func defaultPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustFold(t *testing.T, in FoldInput) Folded {
	t.Helper()
	if in.Policy == nil {
		in.Policy = defaultPolicy(t)
	}
	f, err := Fold(in)
	if err != nil {
		t.Fatalf("Fold: %v", err)
	}
	return f
}

func times(ds []breaker.Decision) []time.Time {
	var out []time.Time
	for _, d := range ds {
		if d.At != nil {
			out = append(out, *d.At)
		}
	}
	return out
}

// TestFoldNormalisesDates: a date before the previous iteration is taken
// at that iteration's time, a date after the run at the run's time; the
// first of each is noted and the count of several is summed up. The
// iterations carry the times they were folded at.
func TestFoldNormalisesDates(t *testing.T) {
	t.Parallel()
	its := []breaker.Iteration{stall(10), stall(5), stall(1), stall(20), stall(600), stall(700)}
	now := t0.Add(time.Hour)
	f := mustFold(t, FoldInput{Iterations: its, Now: now})
	want := []time.Time{t0.Add(10 * time.Minute), t0.Add(10 * time.Minute), t0.Add(10 * time.Minute), t0.Add(20 * time.Minute), now, now}
	if got := times(f.Decisions); !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("got decision times %v, want %v", got, want)
	}
	for i := range its {
		if !its[i].At.Equal(want[i]) {
			t.Errorf("iteration %d: left at %v, want %v", i+1, its[i].At, want[i])
		}
	}
	for _, n := range f.Notes {
		if n.Code != note.DatesClamped {
			t.Errorf("note %q has code %q, want %q", n.Text, n.Code, note.DatesClamped)
		}
	}
	notes := strings.Join(note.Texts(f.Notes), "\n")
	for _, w := range []string{
		"iteration 2 (commit aaaaaaaaaaaa) is dated 2026-06-01T08:05:00Z, before the iteration it follows; its time was taken as 2026-06-01T08:10:00Z",
		"2 iterations in all were dated before the iteration they follow",
		"iteration 5 (commit aaaaaaaaaaaa) is dated 2026-06-01T18:00:00Z, after this run; its time was taken as 2026-06-01T09:00:00Z",
		"2 iterations in all were dated after this run",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q lack %q", f.Notes, w)
		}
	}
	if len(f.Notes) != 4 {
		t.Errorf("got %d notes, want 4: %q", len(f.Notes), f.Notes)
	}

	// Without the run's time, future dates are not capped.
	its = []breaker.Iteration{stall(10), stall(600)}
	if f := mustFold(t, FoldInput{Iterations: its}); len(f.Notes) != 0 || !f.Decisions[1].At.Equal(t0.Add(10*time.Hour)) {
		t.Errorf("no run time: got notes %q and times %v", f.Notes, times(f.Decisions))
	}
}

// TestFoldControls: a control applies before the first iteration at or
// after its time (a control dated before the breaker's newest event at
// that event's time); after a control that follows the last iteration,
// or with no iteration, the final decision is the status at the run's
// time.
func TestFoldControls(t *testing.T) {
	t.Parallel()
	its := func() []breaker.Iteration { return []breaker.Iteration{stall(10), stall(20), stall(30), stall(40)} }
	now := t0.Add(time.Hour)

	// In the watch after the reset one stall half-opens and the next opens.
	f := mustFold(t, FoldInput{Iterations: its(), Now: now, Controls: []Control{{At: t0.Add(30 * time.Minute), Kind: ControlReset, Reason: "go on"}}})
	if got, want := states(f.Decisions), "CLOSED HALF_OPEN HALF_OPEN OPEN"; got != want {
		t.Errorf("reset at the third iteration's time: got %s, want %s", got, want)
	}

	f = mustFold(t, FoldInput{Iterations: its(), Now: now, Controls: []Control{{At: t0.Add(50 * time.Minute), Kind: ControlForceOpen, Reason: "held"}}})
	if got, want := states(f.Decisions), "CLOSED HALF_OPEN OPEN OPEN"; got != want || len(f.Decisions) != 4 {
		t.Errorf("hold after the last iteration: got %s, want %s", got, want)
	}
	if d := f.Decisions[3]; !d.ForcedOpen || d.Trigger == nil || *d.Trigger != "force_open" {
		t.Errorf("the final decision is not the hold: %+v", d)
	}

	// Controls come in any order; one dated before the newest event
	// applies at it.
	f = mustFold(t, FoldInput{Iterations: its(), Now: now, Controls: []Control{
		{At: t0.Add(55 * time.Minute), Kind: ControlReset, Reason: "second"},
		{At: t0.Add(50 * time.Minute), Kind: ControlForceOpen, Reason: "first"},
	}})
	if d := f.Decisions[len(f.Decisions)-1]; d.State != breaker.Closed || d.History[len(d.History)-1].Reason != "second" {
		t.Errorf("hold then reset: got %s, last event %+v", d.State, d.History[len(d.History)-1])
	}

	f = mustFold(t, FoldInput{Now: now, DryRun: true})
	if len(f.Decisions) != 1 || f.Decisions[0].Iteration != 0 || !f.Decisions[0].DryRun || f.Decisions[0].State != breaker.Closed {
		t.Errorf("no iteration: got %+v, want one CLOSED status marked dry run", f.Decisions)
	}
	f = mustFold(t, FoldInput{Now: now, Controls: []Control{{At: t0, Kind: ControlForceOpen}}})
	if len(f.Decisions) != 1 || f.Decisions[0].State != breaker.Open {
		t.Errorf("no iteration, held: got %+v, want one OPEN status", f.Decisions)
	}

	if _, err := Fold(FoldInput{Policy: defaultPolicy(t), Controls: []Control{{At: t0}}}); err == nil || !strings.Contains(err.Error(), "unknown control ControlKind(0)") {
		t.Errorf("a control without a kind: got %v", err)
	}
}

// TestFoldIterationError: an iteration the breaker refuses is named by
// number and commit.
func TestFoldIterationError(t *testing.T) {
	t.Parallel()
	bad := stall(10)
	bad.PermissionDenials = -1
	_, err := Fold(FoldInput{Policy: defaultPolicy(t), Iterations: []breaker.Iteration{stall(5), bad}})
	if err == nil || !isIterationError(err) || !strings.Contains(err.Error(), "iteration 2 (commit aaaaaaaaaaaa): permission denials is negative") {
		t.Errorf("got %v, want the second iteration named", err)
	}
}

func TestControlKindNames(t *testing.T) {
	t.Parallel()
	if ControlReset.String() != "reset" || ControlForceOpen.String() != "force_open" || ControlSkipPhase.String() != "skip_phase" || ControlGuide.String() != "guide" {
		t.Errorf("got names %s, %s, %s and %s", ControlReset, ControlForceOpen, ControlSkipPhase, ControlGuide)
	}
	if got := ControlKind(0).String(); got != "ControlKind(0)" {
		t.Errorf("got %s for the zero kind, want ControlKind(0)", got)
	}
}
