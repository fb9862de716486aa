package loop

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

func parsePolicy(t *testing.T, text string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte("extends = \"default\"\n"+text), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stalls are n iterations without progress, ten minutes apart.
func stalls(n int) []breaker.Iteration {
	its := make([]breaker.Iteration, n)
	for i := range its {
		its[i] = stall(10 * (i + 1))
	}
	return its
}

// TestSettleOnOpen: what each on_open action makes of the decision at
// which three stalls open the default breaker.
func TestSettleOnOpen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		onOpen     string
		dryRun     bool
		wantAction policy.OnOpen
		allow      bool
		signal     string
		exit       int
	}{
		{"abort", false, policy.OnOpenAbort, false, breaker.SignalCircuitOpen, breaker.ExitOpen},
		{"abort", true, policy.OnOpenAbort, false, "", breaker.ExitContinue},
		{"pause", false, policy.OnOpenPause, false, breaker.SignalCircuitOpen, breaker.ExitContinue},
		{"alert", false, policy.OnOpenAlert, true, "", breaker.ExitContinue},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s dry=%v", tt.onOpen, tt.dryRun), func(t *testing.T) {
			t.Parallel()
			f := mustFold(t, FoldInput{Policy: parsePolicy(t, "on_open = \""+tt.onOpen+"\"\n"), Iterations: stalls(4), DryRun: tt.dryRun})
			d := f.Decisions[2]
			if d.State != breaker.Open || d.OpenAction != tt.wantAction || d.AllowContinue != tt.allow || d.Signal != tt.signal || d.ExitCode() != tt.exit {
				t.Errorf("got state %s action %q allow %v signal %q exit %d; want OPEN %q %v %q %d",
					d.State, d.OpenAction, d.AllowContinue, d.Signal, d.ExitCode(), tt.wantAction, tt.allow, tt.signal, tt.exit)
			}
			if !OpenedNow(&d) || OpenedNow(&f.Decisions[3]) || OpenedNow(&f.Decisions[1]) {
				t.Errorf("OpenedNow: got %v at the opening, %v after it, %v before it", OpenedNow(&d), OpenedNow(&f.Decisions[3]), OpenedNow(&f.Decisions[1]))
			}
			if f.Decisions[1].OpenAction != "" || f.Decisions[1].Signal != "" {
				t.Errorf("HALF_OPEN: got action %q signal %q, want none", f.Decisions[1].OpenAction, f.Decisions[1].Signal)
			}
		})
	}

	// A person's hold always aborts, whatever on_open says.
	f := mustFold(t, FoldInput{Policy: parsePolicy(t, "on_open = \"alert\"\n"), Iterations: stalls(1), Now: t0.Add(time.Hour),
		Controls: []Control{{At: t0.Add(30 * time.Minute), Kind: ControlForceOpen, Reason: "held"}}})
	if d := f.Decisions[len(f.Decisions)-1]; d.OpenAction != policy.OnOpenAbort || d.ExitCode() != breaker.ExitOpen || d.AllowContinue {
		t.Errorf("held open under alert: got action %q exit %d allow %v, want abort", d.OpenAction, d.ExitCode(), d.AllowContinue)
	}
}

// TestSettleEscalates: each opening goes on with the next model on a
// fresh breaker; once the last model is stuck, the loop is paused. The
// escalation's reset starts the watch after recovery: one stall half-opens
// and the next escalates at once.
func TestSettleEscalates(t *testing.T) {
	t.Parallel()
	p := parsePolicy(t, "on_open = \"escalate\"\n[escalation]\nmodel_progression = [\"haiku\", \"sonnet\", \"opus\"]\n")
	f := mustFold(t, FoldInput{Policy: p, Iterations: stalls(10)})
	var got []string
	for _, d := range f.Decisions {
		s := fmt.Sprintf("%d:%s", d.Iteration, d.State)
		if d.State == breaker.Open {
			model := "-"
			if d.NextModel != nil {
				model = *d.NextModel
			}
			s += fmt.Sprintf("/%s/%s/allow=%v", d.OpenAction, model, d.AllowContinue)
		}
		got = append(got, s)
	}
	want := "1:CLOSED 2:HALF_OPEN 3:OPEN/escalate/sonnet/allow=true 4:HALF_OPEN 5:OPEN/escalate/opus/allow=true " +
		"6:HALF_OPEN 7:OPEN/pause/opus/allow=false 8:OPEN/pause/opus/allow=false 9:OPEN/pause/opus/allow=false 10:OPEN/pause/opus/allow=false"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	d := f.Decisions[6]
	if d.Signal != breaker.SignalCircuitOpen || d.ExitCode() != breaker.ExitContinue || !strings.Contains(strings.Join(d.Warnings, "\n"), "model_progression is used up (opus is the last model)") {
		t.Errorf("used up: got signal %q exit %d warnings %q", d.Signal, d.ExitCode(), d.Warnings)
	}
	last := f.Decisions[9].History
	var resets []string
	for _, e := range last {
		if e.Trigger == "reset" {
			resets = append(resets, fmt.Sprintf("%d:%s", e.Iteration, e.Reason))
		}
	}
	if got, want := strings.Join(resets, "|"), "3:escalated to the next model, sonnet|5:escalated to the next model, opus"; got != want {
		t.Errorf("got resets %q, want %q", got, want)
	}
}

// phased is an iteration without progress in phase ph, minutes after t0.
func phased(minutes int, ph string) breaker.Iteration {
	it := stall(minutes)
	it.Phase = ph
	return it
}

// TestSkipPhase: a person's skip-phase resets the breaker and moves the
// loop to the next phase of phase_order: iterations that still name the
// skipped phase are folded in the next one, with its thresholds.
func TestSkipPhase(t *testing.T) {
	t.Parallel()
	p, err := policy.Builtin("tdd")
	if err != nil {
		t.Fatal(err)
	}
	// The thresholds of the phase skipped to, without the watch after
	// recovery that the skip's reset starts (TestSkipPhaseWatch).
	p.Breaker.WatchIterations = 0
	its := []breaker.Iteration{phased(10, "GREEN"), phased(20, "GREEN"), phased(30, "GREEN"), phased(40, "GREEN"), phased(50, "GREEN"), phased(60, "GREEN")}
	skip := Control{At: t0.Add(25 * time.Minute), Kind: ControlSkipPhase, Reason: "phase skipped by alice", By: "alice"}
	f := mustFold(t, FoldInput{Policy: p, Iterations: its, Controls: []Control{skip}})
	// GREEN opens at 2; REFACTOR (after the skip) at 5 iterations without
	// progress, HALF_OPEN from 2. Without the skip, GREEN would stay OPEN.
	if got, want := states(f.Decisions), "CLOSED OPEN CLOSED HALF_OPEN HALF_OPEN HALF_OPEN"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	for i, d := range f.Decisions {
		want := "GREEN"
		if i >= 2 {
			want = "REFACTOR"
		}
		if d.Phase != want {
			t.Errorf("decision %d: phase %q, want %q", i+1, d.Phase, want)
		}
	}
	h := f.Decisions[5].History
	if e := h[len(h)-2]; e.Trigger != "reset" || e.Reason != "phase skipped by alice: GREEN skipped, REFACTOR next" {
		t.Errorf("got event %+v, want the skip's reset", e)
	}
	// The iterations themselves are not changed.
	if its[4].Phase != "GREEN" {
		t.Errorf("the fold changed an iteration's phase to %q", its[4].Phase)
	}

	// A skip after the last iteration: the status is in the next phase.
	f = mustFold(t, FoldInput{Policy: p, Iterations: its[:2], Now: t0.Add(time.Hour), Controls: []Control{{At: t0.Add(45 * time.Minute), Kind: ControlSkipPhase, Reason: "skip"}}})
	if d := f.Decisions[1]; d.State != breaker.Closed || d.Phase != "REFACTOR" {
		t.Errorf("skip after the last iteration: got %s in %q, want CLOSED in REFACTOR", d.State, d.Phase)
	}

	// Nothing after DOCUMENT; no phase at all: reset, the phase kept, a note.
	for _, ph := range []string{"DOCUMENT", ""} {
		its := []breaker.Iteration{phased(10, ph), phased(20, ph), phased(30, ph), phased(40, ph)}
		f = mustFold(t, FoldInput{Policy: p, Iterations: its, Controls: []Control{{At: t0.Add(35 * time.Minute), Kind: ControlSkipPhase, Reason: "skip"}}})
		if d := f.Decisions[3]; d.Phase != ph || d.State == breaker.Open {
			t.Errorf("%q: got %s in %q, want the breaker reset in %q", ph, d.State, d.Phase, ph)
		}
		if n, ok := note.Find(f.Notes, note.PhaseNotSkipped); !ok || !strings.Contains(n.Text, "the breaker was reset, the phase kept") {
			t.Errorf("%q: got notes %q, want %s", ph, f.Notes, note.PhaseNotSkipped)
		}
	}
}

// TestSkipPhaseWatch: the skip's reset starts the watch after recovery:
// in the phase skipped to, one stall half-opens and the next opens.
func TestSkipPhaseWatch(t *testing.T) {
	t.Parallel()
	p, err := policy.Builtin("tdd")
	if err != nil {
		t.Fatal(err)
	}
	its := []breaker.Iteration{phased(10, "GREEN"), phased(20, "GREEN"), phased(30, "GREEN"), phased(40, "GREEN")}
	skip := Control{At: t0.Add(25 * time.Minute), Kind: ControlSkipPhase, Reason: "phase skipped by alice", By: "alice"}
	f := mustFold(t, FoldInput{Policy: p, Iterations: its, Controls: []Control{skip}})
	if got, want := states(f.Decisions), "CLOSED OPEN HALF_OPEN OPEN"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if d := f.Decisions[3]; d.Phase != "REFACTOR" || d.Reason == nil || !strings.HasPrefix(*d.Reason, "stagnation recurred after recovery: ") {
		t.Errorf("got %s in %q (%v), want OPEN in REFACTOR, stagnation recurred", d.State, d.Phase, d.Reason)
	}
}

// TestGuide: a person's guidance resets the breaker and rides on the
// decisions up to and including the first iteration after it, a stall in
// the watch after that reset.
func TestGuide(t *testing.T) {
	t.Parallel()
	g := Control{At: t0.Add(35 * time.Minute), Kind: ControlGuide, Reason: "guidance from alice: try the parser", By: "alice", Text: "try the parser"}
	f := mustFold(t, FoldInput{Iterations: stalls(5), Controls: []Control{g}})
	for i, d := range f.Decisions {
		has := d.Guidance != nil
		if has != (i == 3) {
			t.Errorf("decision %d: guidance %+v", i+1, d.Guidance)
		}
	}
	if d := f.Decisions[3]; d.Guidance.By != "alice" || d.Guidance.Text != "try the parser" || !d.Guidance.At.Equal(g.At) || d.State != breaker.HalfOpen {
		t.Errorf("got %+v in %s", d.Guidance, d.State)
	}
	// Given after the last iteration, it is on the status.
	f = mustFold(t, FoldInput{Iterations: stalls(3), Now: t0.Add(time.Hour), Controls: []Control{g}})
	if d := f.Decisions[len(f.Decisions)-1]; d.Guidance == nil || d.State != breaker.Closed {
		t.Errorf("guide after the last iteration: got %+v in %s", d.Guidance, d.State)
	}
}

// TestSettleAdvice: the phase's advice is on every decision that is not
// CLOSED.
func TestSettleAdvice(t *testing.T) {
	t.Parallel()
	f := mustFold(t, FoldInput{Iterations: stalls(3), Phase: "GREEN"})
	if f.Decisions[0].Advice != "" || !strings.Contains(f.Decisions[2].Advice, "split the feature") {
		t.Errorf("got advice %q and %q", f.Decisions[0].Advice, f.Decisions[2].Advice)
	}
}
