package loop

import (
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Settle completes a decision the breaker b has just made at time at (an
// iteration's or a status's) with what the policy says for the decision's
// phase: the advice when the breaker is not CLOSED, and when it is OPEN
// the on_open action —
//
//   - abort: the loop stops (exit 1);
//   - pause: the loop stops without failing (allow_continue false, exit 0)
//     until a person resumes it;
//   - alert: the loop goes on (allow_continue true); people are notified;
//   - escalate: when the breaker opened at this iteration and
//     escalation.model_progression has a model the loop has not used yet,
//     the loop goes on with it (allow_continue true, next_model) on a
//     breaker reset at at; once the last model is stuck too, pause.
//
// A breaker a person holds OPEN always aborts. The signal is
// "circuit_open" when the decision stops the loop and is not a dry run.
// The fold settles every decision it makes; the state file's commands
// settle theirs. Settle a decision once: an escalation resets b.
func Settle(b *breaker.Breaker, d *breaker.Decision, at time.Time) error {
	if d.State == breaker.Closed {
		return nil
	}
	pol := b.Policy().WithPhase(d.Phase)
	d.Advice = pol.Advice
	if d.State != breaker.Open {
		return nil
	}
	action := pol.OnOpen
	if d.ForcedOpen || action == "" {
		action = policy.OnOpenAbort
	}
	switch action {
	case policy.OnOpenAlert:
		d.AllowContinue = true
	case policy.OnOpenEscalate:
		models := b.Policy().Escalation.ModelProgression
		switch {
		case openedAt(d) && d.NextModel != nil && b.Snapshot().Opens < len(models):
			d.AllowContinue = true
			if err := b.Reset(at, "escalated to the next model, "+*d.NextModel); err != nil {
				return err
			}
		default:
			action = policy.OnOpenPause
			last := "no model"
			if len(models) > 0 {
				last = models[len(models)-1]
			}
			d.Warnings = append(d.Warnings, fmt.Sprintf("escalation.model_progression is used up (%s is the last model): the loop is paused until a person resumes it", last))
		}
	}
	d.OpenAction = action
	if !d.AllowContinue && !d.DryRun {
		d.Signal = breaker.SignalCircuitOpen
	}
	return nil
}

// openedAt reports whether the breaker opened at the decision's own
// iteration (not by a person's hold).
func openedAt(d *breaker.Decision) bool {
	if len(d.History) == 0 || d.Iteration == 0 {
		return false
	}
	e := d.History[len(d.History)-1]
	return e.To == breaker.Open && e.Iteration == d.Iteration && e.Trigger != "force_open"
}

// OpenedNow reports whether the decision is the one at which the breaker
// opened: an alert's webhook is posted once per opening.
func OpenedNow(d *breaker.Decision) bool {
	return d.State == breaker.Open && openedAt(d)
}

// AlertDue reports whether the decision calls for the alert of on_open =
// "alert": the breaker opened at it, and it is not a dry run.
func AlertDue(d *breaker.Decision) bool {
	return d.OpenAction == policy.OnOpenAlert && OpenedNow(d) && !d.DryRun
}

// phaseOf is the phase an iteration naming phase is folded in: after a
// skip-phase, the phase skipped to when it names none, the skipped one or
// one before it in phase_order.
func (f *folder) phaseOf(phase string) string {
	if f.skipTo == "" {
		return phase
	}
	pol := f.b.Policy()
	if i := pol.PhaseIndex(phase); phase == "" || i >= 0 && i < pol.PhaseIndex(f.skipTo) {
		return f.skipTo
	}
	return phase
}

// skipPhase applies a person's skip-phase at time at: the breaker is reset
// and the loop moves to the phase after the current one (the newest
// iteration's, else the run's --phase), with a note when there is none.
func (f *folder) skipPhase(at time.Time, c Control) error {
	cur := f.skipTo
	if last := f.b.Snapshot().LastPhase; last != "" {
		cur = f.phaseOf(last)
	}
	if cur == "" {
		cur = f.phaseOf(f.in.Phase)
	}
	next, ok := f.b.Policy().NextPhase(cur)
	if !ok {
		why := fmt.Sprintf("the loop's phase %q is not followed by another in the policy's phase_order", cur)
		if cur == "" {
			why = "the loop has no phase"
		}
		f.out.Notes = append(f.out.Notes, note.New(note.PhaseNotSkipped, "%s: %s; the breaker was reset, the phase kept", c.Reason, why))
		return f.b.Reset(at, c.Reason+": no next phase")
	}
	f.skipTo = next
	return f.b.Reset(at, fmt.Sprintf("%s: %s skipped, %s next", c.Reason, cur, next))
}
