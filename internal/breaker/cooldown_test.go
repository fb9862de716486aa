package breaker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// openAt returns a breaker under p that opened at t0+10m (a protected
// path deleted after one iteration with progress).
func openAt(t *testing.T, p *policy.Policy) (*breaker.Breaker, time.Time) {
	t.Helper()
	b := newBreaker(t, p, breaker.Options{})
	observe(t, b, progressIt(t0, "A"))
	opened := t0.Add(10 * time.Minute)
	it := progressIt(opened, "B")
	it.Change.ProtectedDeleted = []string{".ralph/"}
	if d := observe(t, b, it); d.State != breaker.Open {
		t.Fatalf("got %s, want OPEN", d.State)
	}
	return b, opened
}

// TestCooldownElapsedIsExact: elapsed means at >= opened_at + cooldown, to
// the nanosecond (30:00 has elapsed, 29:59 has not).
func TestCooldownElapsedIsExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		after time.Duration
		want  breaker.State
	}{
		{29*time.Minute + 59*time.Second, breaker.Open},
		{30*time.Minute - time.Nanosecond, breaker.Open},
		{30 * time.Minute, breaker.Closed}, // the probe, with progress
		{31 * time.Minute, breaker.Closed},
	}
	for _, tc := range tests {
		t.Run(tc.after.String(), func(t *testing.T) {
			t.Parallel()
			b, opened := openAt(t, pol(t, "default", withCooldown("30m")))
			d := observe(t, b, progressIt(opened.Add(tc.after), "C"))
			if d.State != tc.want {
				t.Errorf("got %s, want %s", d.State, tc.want)
			}
			if d.CooldownUntil != nil && !d.CooldownUntil.Equal(opened.Add(30*time.Minute)) {
				t.Errorf("got cooldown_until %s, want opened_at + 30m", d.CooldownUntil)
			}
		})
	}
}

// TestStatusAppliesDueCooldown: status --at T moves a cooled-down OPEN
// breaker to HALF_OPEN (probing) and records the event; before the time
// it changes nothing.
func TestStatusAppliesDueCooldown(t *testing.T) {
	t.Parallel()
	b, opened := openAt(t, pol(t, "default", withCooldown("30m")))
	before := b.Snapshot()
	d, err := b.Status(opened.Add(29*time.Minute + 59*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if d.State != breaker.Open {
		t.Errorf("got %s at 29:59, want OPEN", d.State)
	}
	if diff := cmp.Diff(before, b.Snapshot()); diff != "" {
		t.Errorf("Status before the cooldown changed the state (-before +after):\n%s", diff)
	}
	due := opened.Add(30 * time.Minute)
	d, err = b.Status(due)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != breaker.HalfOpen || str(d.Trigger) != "cooldown" {
		t.Fatalf("got %s %q at 30:00, want HALF_OPEN cooldown", d.State, str(d.Trigger))
	}
	ev := d.History[len(d.History)-1]
	if ev.From != breaker.Open || ev.To != breaker.HalfOpen || !ev.At.Equal(due) || !strings.Contains(ev.Reason, "cooldown of 30m0s elapsed") {
		t.Errorf("got event %+v, want OPEN->HALF_OPEN at %s", ev, due)
	}
	if d.Iteration != 2 {
		t.Errorf("got iteration %d, want 2: status records no iteration", d.Iteration)
	}
	// The next iteration is the probe.
	d = observe(t, b, stallIt(due.Add(time.Minute)))
	if d.State != breaker.Open || !strings.Contains(str(d.Reason), "probe iteration 3 made no progress; cooldown now 1h0m0s") {
		t.Errorf("got %s %q, want OPEN after the failed probe", d.State, str(d.Reason))
	}
}

// TestZeroCooldownProbesNext: "0s" means the next evaluation probes, even
// at the same instant.
func TestZeroCooldownProbesNext(t *testing.T) {
	t.Parallel()
	p := pol(t, "default", withCooldown("0s"))
	b, opened := openAt(t, p)
	d, err := b.Status(opened)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != breaker.HalfOpen {
		t.Errorf("Status at the opening time: got %s, want HALF_OPEN", d.State)
	}

	b, opened = openAt(t, p)
	d = observe(t, b, stallIt(opened))
	if d.State != breaker.Open || !strings.Contains(str(d.Reason), "made no progress; cooldown now 0s") {
		t.Fatalf("got %s %q, want a failed probe re-opening with cooldown 0s", d.State, str(d.Reason))
	}
	d = observe(t, b, progressIt(opened, "C"))
	if d.State != breaker.Closed {
		t.Errorf("got %s, want CLOSED after the second probe made progress", d.State)
	}
}

// TestCooldownDoubling: each failed probe multiplies the cooldown by
// cooldown_multiplier, up to cooldown_max; a successful probe restores the
// policy's cooldown for the next opening.
func TestCooldownDoubling(t *testing.T) {
	t.Parallel()
	p := pol(t, "strict") // 30m, x2, at most 8h
	b, opened := openAt(t, p)
	at := opened
	wantCooldowns := []time.Duration{time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 8 * time.Hour, 8 * time.Hour}
	cooldown := 30 * time.Minute
	for i, want := range wantCooldowns {
		at = at.Add(cooldown)
		d := observe(t, b, stallIt(at))
		if d.State != breaker.Open {
			t.Fatalf("probe %d: got %s, want OPEN", i+1, d.State)
		}
		if !strings.Contains(str(d.Reason), "cooldown now "+want.String()) {
			t.Errorf("probe %d: reason %q, want cooldown now %s", i+1, str(d.Reason), want)
		}
		if got := d.CooldownUntil.Sub(at); got != want {
			t.Errorf("probe %d: cooldown_until is %s after the probe, want %s", i+1, got, want)
		}
		if !d.OpenedAt.Equal(at) {
			t.Errorf("probe %d: opened_at %s, want the failed probe's time %s", i+1, d.OpenedAt, at)
		}
		cooldown = want
	}
	// A probe with progress closes; the next opening is back to 30m.
	at = at.Add(cooldown)
	if d := observe(t, b, progressIt(at, "C")); d.State != breaker.Closed {
		t.Fatalf("got %s, want CLOSED after a probe with progress", d.State)
	}
	at = at.Add(time.Minute)
	it := progressIt(at, "D")
	it.Change.ProtectedDeleted = []string{"specs/"}
	d := observe(t, b, it)
	if d.State != breaker.Open || d.CooldownUntil.Sub(at) != 30*time.Minute {
		t.Errorf("got %s with cooldown %s, want OPEN with the policy's 30m", d.State, d.CooldownUntil.Sub(at))
	}
}

// TestRalphCooldownDoesNotGrow: ralph's multiplier is 1.
func TestRalphCooldownDoesNotGrow(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "ralph"), breaker.Options{})
	at := t0
	for range 3 {
		observe(t, b, stallIt(at))
		at = at.Add(time.Minute)
	}
	for i := range 3 {
		at = at.Add(30 * time.Minute)
		d := observe(t, b, stallIt(at))
		if d.State != breaker.Open || d.CooldownUntil.Sub(at) != 30*time.Minute {
			t.Errorf("probe %d: got %s cooldown %v, want OPEN with 30m", i+1, d.State, d.CooldownUntil.Sub(at))
		}
	}
}

// TestProbeIterations: with probe_iterations K, K probes must each make
// progress before the breaker closes; any failure re-opens.
func TestProbeIterations(t *testing.T) {
	t.Parallel()
	p := pol(t, "default", withCooldown("30m"), func(p *policy.Policy) { p.Breaker.ProbeIterations = 3 })

	b, opened := openAt(t, p)
	at := opened.Add(30 * time.Minute)
	for i, want := range []breaker.State{breaker.HalfOpen, breaker.HalfOpen, breaker.Closed} {
		d := observe(t, b, progressIt(at, string(rune('P'+i))))
		if d.State != want {
			t.Errorf("probe %d: got %s, want %s", i+1, d.State, want)
		}
		if want == breaker.HalfOpen && str(d.Trigger) != "cooldown" {
			t.Errorf("probe %d: got trigger %q, want cooldown while probing", i+1, str(d.Trigger))
		}
		at = at.Add(time.Minute)
	}

	b, opened = openAt(t, p)
	at = opened.Add(30 * time.Minute)
	observe(t, b, progressIt(at, "P"))
	d := observe(t, b, stallIt(at.Add(time.Minute)))
	if d.State != breaker.Open || !strings.Contains(str(d.Reason), "cooldown now 1h0m0s") {
		t.Errorf("second probe without progress: got %s %q, want OPEN with the cooldown doubled", d.State, str(d.Reason))
	}
}

// TestRerunIsNotAProbe: a run for a commit older than the last transition
// (a re-run of an old job) does not count as a probe.
func TestRerunIsNotAProbe(t *testing.T) {
	t.Parallel()
	p := pol(t, "default", withCooldown("30m"))
	tests := []struct {
		name     string
		commitAt time.Duration // relative to the opening
		want     breaker.State
		ignored  int
	}{
		{"old commit", -5 * time.Minute, breaker.Open, 1},
		{"commit a nanosecond before the opening", -time.Nanosecond, breaker.Open, 1},
		{"commit at the opening", 0, breaker.Closed, 0},
		{"new commit", 20 * time.Minute, breaker.Closed, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, opened := openAt(t, p)
			it := progressIt(opened.Add(45*time.Minute), "C")
			it.CommitAt = opened.Add(tc.commitAt)
			d := observe(t, b, it)
			if d.State != tc.want || d.IgnoredOpen != tc.ignored {
				t.Errorf("got %s ignored_open %d, want %s %d", d.State, d.IgnoredOpen, tc.want, tc.ignored)
			}
		})
	}

	// While probing (K = 2), a re-run neither passes nor fails the probe.
	p2 := pol(t, "default", withCooldown("30m"), func(p *policy.Policy) { p.Breaker.ProbeIterations = 2 })
	b, opened := openAt(t, p2)
	probeAt := opened.Add(30 * time.Minute)
	observe(t, b, progressIt(probeAt, "C"))
	rerun := stallIt(probeAt.Add(5 * time.Minute))
	rerun.CommitAt = opened.Add(-time.Hour)
	d := observe(t, b, rerun)
	if d.State != breaker.HalfOpen || !containsAny(d.Warnings, "not counted as a probe") {
		t.Errorf("re-run while probing: got %s warnings %q, want HALF_OPEN and a warning", d.State, d.Warnings)
	}
	if d = observe(t, b, progressIt(probeAt.Add(10*time.Minute), "D")); d.State != breaker.Closed {
		t.Errorf("second real probe: got %s, want CLOSED", d.State)
	}
}

// TestIterationsWhileOpenOnlyCountIgnored: an iteration while OPEN changes
// nothing but ignored_open, whatever it carries.
func TestIterationsWhileOpenOnlyCountIgnored(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"no cooldown", "cooldown not due", "forced"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := pol(t, "default")
			if name != "no cooldown" {
				p = pol(t, "default", withCooldown("30m"))
			}
			b, opened := openAt(t, p)
			if name == "forced" {
				if err := b.ForceOpen(opened.Add(time.Minute), "held by a person"); err != nil {
					t.Fatal(err)
				}
			}
			before := b.Snapshot()
			at := opened.Add(2 * time.Minute)
			if name == "forced" {
				at = opened.Add(48 * time.Hour)
			}
			for i := range 3 {
				it := breaker.Iteration{
					At: at.Add(time.Duration(i) * time.Minute), Commit: strings.Repeat("ab", 20),
					Change: change(5, "Z"), Tests: &breaker.Tests{Passed: 9, Failed: 1}, ErrorsKnown: true,
					Errors: []breaker.Signature{sig("boom")}, Output: &breaker.Output{Lines: 1}, PermissionDenials: 3,
					Tasks: &breaker.Tasks{Done: 9, Total: 9},
				}
				d := observe(t, b, it)
				if d.State != breaker.Open || d.IgnoredOpen != i+1 {
					t.Fatalf("iteration %d: got %s ignored_open %d, want OPEN %d", d.Iteration, d.State, d.IgnoredOpen, i+1)
				}
			}
			after := b.Snapshot()
			// Numbering, time and the status log move on; nothing else does.
			ignore := cmpopts.IgnoreFields(breaker.Snapshot{}, "Iteration", "LastAt", "LastCommit", "LastPhase",
				"IgnoredOpen", "LastWarnings", "Recent", "LastScore", "LastProgressFlag")
			if diff := cmp.Diff(before, after, ignore); diff != "" {
				t.Errorf("iterations while OPEN changed the state (-before +after):\n%s", diff)
			}
			if after.IgnoredOpen != before.IgnoredOpen+3 || after.Iteration != before.Iteration+3 {
				t.Errorf("got ignored_open %d iteration %d, want +3 each", after.IgnoredOpen, after.Iteration)
			}
		})
	}
}

// TestForceOpen: held OPEN by a person, no automatic transition until a
// reset; Status does not probe it either.
func TestForceOpen(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default", withCooldown("1m")), breaker.Options{})
	observe(t, b, progressIt(t0, "A"))
	if err := b.ForceOpen(t0.Add(time.Minute), ""); err != nil {
		t.Fatal(err)
	}
	d, err := b.Status(t0.Add(24 * time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d.State != breaker.Open || !d.ForcedOpen || str(d.Trigger) != "force_open" || str(d.Reason) != "held open by a person" || d.CooldownUntil != nil {
		t.Errorf("got %s forced %v %q %q cooldown_until %v, want a forced OPEN without cooldown", d.State, d.ForcedOpen, str(d.Trigger), str(d.Reason), d.CooldownUntil)
	}
	if d.ExitCode() != breaker.ExitOpen {
		t.Errorf("got exit code %d, want %d", d.ExitCode(), breaker.ExitOpen)
	}
	if err := b.Reset(t0.Add(25*time.Hour), "looked at it"); err != nil {
		t.Fatal(err)
	}
	d = observe(t, b, progressIt(t0.Add(26*time.Hour), "B"))
	if d.State != breaker.Closed || d.ForcedOpen {
		t.Errorf("after a reset: got %s forced %v, want CLOSED", d.State, d.ForcedOpen)
	}
}
