package loop

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// ControlKind is what a trusted person did to the breaker.
type ControlKind int

// The control kinds. The zero value is no kind: Fold refuses it.
const (
	ControlReset     ControlKind = iota + 1 // close the circuit and start a new fold
	ControlForceOpen                        // hold it OPEN until a reset
	// ControlSkipPhase resets the breaker and moves the loop to the next
	// phase of the policy's phase_order: later iterations that name the
	// skipped phase, an earlier one or none are taken in the new one.
	ControlSkipPhase
	// ControlGuide resets the breaker and carries the person's text to the
	// agent, on the decisions up to the first iteration after it.
	ControlGuide
)

var controlKindNames = map[ControlKind]string{ControlReset: "reset", ControlForceOpen: "force_open",
	ControlSkipPhase: "skip_phase", ControlGuide: "guide"}

// String returns reset, force_open, skip_phase or guide.
func (k ControlKind) String() string {
	if n, ok := controlKindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("ControlKind(%d)", int(k))
}

// Control is a person's action at a point in time.
type Control struct {
	At     time.Time
	Kind   ControlKind
	Reason string
	// By is the person's login, Text their guidance (ControlGuide).
	By, Text string
}

// FoldInput is everything one fold of the breaker needs.
type FoldInput struct {
	// Policy is the loaded policy (without the profile applied); Profile
	// and Phase select its overrides.
	Policy         *policy.Policy
	Profile, Phase string
	// BaseTree is the tree the loop started from ("" when unknown).
	BaseTree string
	// Iterations are the loop's iterations, oldest first. Their times are
	// the agent's to write and are normalised in place: Fold leaves in
	// each At the time it was folded at.
	Iterations []breaker.Iteration
	// Controls are resets and holds made by people, in any order.
	Controls []Control
	// Now is the run's time; no iteration is taken later than it (zero:
	// no cap).
	Now time.Time
	// DryRun marks the decisions "would open".
	DryRun bool
	// Status makes the final decision the breaker's status at Now (a due
	// cooldown applied), not the last iteration's.
	Status bool
	// Progress, when set, is told how far the fold has come.
	Progress func(done, total int)
}

// Folded is what a fold decided.
type Folded struct {
	// Decisions has one decision per iteration, the last replaced by the
	// status after a control that followed it, or a single status when
	// there was no iteration: never empty.
	Decisions []breaker.Decision
	// Notes say which iteration times were not taken at face value
	// (dates_clamped).
	Notes []note.Note
}

// Fold runs the breaker over the iterations with the controls interleaved
// by time: a control applies before the first iteration at or after it.
// It is the one fold of check, replay, the Action and the audit, and owns
// the normalisation of commit dates, which an agent can choose: an
// iteration dated before the one it follows is taken at that one's time,
// and one dated after the run at the run's time (so that a future date
// cannot make a cooldown look over), each with a note. After a control
// that follows the last iteration, or with no iteration, the final
// decision is the breaker's status at the run's time. Every decision is
// settled (Settle: the advice, the on_open action, the signal). After a
// skip-phase, iterations are folded in the phase skipped to (their own
// phase when later in phase_order); the iterations keep theirs.
func Fold(in FoldInput) (Folded, error) {
	opts := breaker.Options{Profile: in.Profile, Phase: in.Phase, BaseTree: in.BaseTree}
	b, err := breaker.New(in.Policy, opts)
	if err != nil {
		return Folded{}, err
	}
	f := &folder{b: b, in: in, now: in.Now.UTC(), controls: sortedControls(in.Controls)}
	f.out.Decisions = make([]breaker.Decision, 0, len(in.Iterations)+1)
	for i := range in.Iterations {
		if err := f.observe(i); err != nil {
			return Folded{}, err
		}
	}
	f.summariseDates()
	if err := f.finish(); err != nil {
		return Folded{}, err
	}
	return f.out, nil
}

// sortedControls copies controls, oldest first (a stable sort: controls
// made at the same time keep their order).
func sortedControls(in []Control) []Control {
	controls := append([]Control(nil), in...)
	sort.SliceStable(controls, func(i, j int) bool { return controls[i].At.Before(controls[j].At) })
	return controls
}

// folder is one fold in progress.
type folder struct {
	b        *breaker.Breaker
	in       FoldInput
	now      time.Time
	controls []Control // not yet applied, oldest first
	last     time.Time // the previous iteration's time
	// skipTo is the phase a skip-phase moved the loop to ("" for none);
	// guide is a person's guidance waiting for the next iteration.
	skipTo string
	guide  *breaker.Guidance
	// backdated and future count the iterations whose time was changed.
	backdated, future int
	out               Folded
}

// iterationError is an iteration the breaker refused.
type iterationError struct{ err error }

func (e *iterationError) Error() string { return e.err.Error() }
func (e *iterationError) Unwrap() error { return e.err }

// observe folds iteration i after the controls made up to its time.
func (f *folder) observe(i int) error {
	it := &f.in.Iterations[i]
	f.normalise(i, it)
	if _, err := f.applyControls(it.At, false); err != nil {
		return err
	}
	obs := *it
	obs.Phase = f.phaseOf(it.Phase)
	d, err := f.b.Observe(obs)
	if err != nil {
		return &iterationError{fmt.Errorf("iteration %d (commit %s): %w", i+1, ShortHash(it.Commit), err)}
	}
	d.DryRun = f.in.DryRun
	if err := Settle(f.b, &d, it.At); err != nil {
		return err
	}
	d.Guidance, f.guide = f.guide, nil
	f.out.Decisions = append(f.out.Decisions, d)
	if f.in.Progress != nil {
		f.in.Progress(i+1, len(f.in.Iterations))
	}
	return nil
}

// normalise takes an iteration's time at face value only between the
// previous iteration and the run; the first of each kind of departure is
// noted. An iteration without a time (a commit date that does not parse)
// is taken at the previous iteration's time, or the run's for the first.
func (f *folder) normalise(i int, it *breaker.Iteration) {
	if it.At.IsZero() {
		at := f.last
		if at.IsZero() {
			at = f.now
		}
		if !at.IsZero() {
			f.note("iteration %d (commit %s) has no readable date; its time was taken as %s", i+1, ShortHash(it.Commit), at.UTC().Format(time.RFC3339))
			it.At = at
			if it.CommitAt.IsZero() {
				it.CommitAt = at
			}
		}
	}
	if !f.now.IsZero() && it.At.After(f.now) {
		if f.future++; f.future == 1 {
			f.note("iteration %d (commit %s) is dated %s, after this run; its time was taken as %s",
				i+1, ShortHash(it.Commit), it.At.UTC().Format(time.RFC3339), f.now.Format(time.RFC3339))
		}
		it.At = f.now
	}
	if it.At.Before(f.last) {
		if f.backdated++; f.backdated == 1 {
			f.note("iteration %d (commit %s) is dated %s, before the iteration it follows; its time was taken as %s",
				i+1, ShortHash(it.Commit), it.At.UTC().Format(time.RFC3339), f.last.UTC().Format(time.RFC3339))
		}
		it.At = f.last
	}
	f.last = it.At
}

// summariseDates notes how many iteration times were changed in all.
func (f *folder) summariseDates() {
	if f.backdated > 1 {
		f.note("%d iterations in all were dated before the iteration they follow", f.backdated)
	}
	if f.future > 1 {
		f.note("%d iterations in all were dated after this run", f.future)
	}
}

func (f *folder) note(format string, args ...any) {
	f.out.Notes = append(f.out.Notes, note.New(note.DatesClamped, format, args...))
}

// applyControls applies the controls made at or before upTo (all of them
// when all is set) and reports whether there was any. A control dated
// before the breaker's newest event applies at that event's time.
func (f *folder) applyControls(upTo time.Time, all bool) (bool, error) {
	applied := false
	for len(f.controls) > 0 && (all || !f.controls[0].At.After(upTo)) {
		c := f.controls[0]
		f.controls = f.controls[1:]
		at := c.At
		if last := f.b.Snapshot().LastAt; at.Before(last) {
			at = last
		}
		var err error
		switch c.Kind {
		case ControlReset:
			err = f.b.Reset(at, c.Reason)
		case ControlForceOpen:
			err = f.b.ForceOpen(at, c.Reason)
		case ControlSkipPhase:
			err = f.skipPhase(at, c)
		case ControlGuide:
			err = f.b.Reset(at, c.Reason)
			f.guide = &breaker.Guidance{At: c.At.UTC(), By: c.By, Text: c.Text}
		default:
			err = fmt.Errorf("unknown control %s", c.Kind)
		}
		if err != nil {
			return applied, err
		}
		applied = true
	}
	return applied, nil
}

// finish applies the controls after the last iteration; after any, or
// with no iteration, the final decision is the status at the run's time.
func (f *folder) finish() error {
	applied, err := f.applyControls(time.Time{}, true)
	if err != nil {
		return err
	}
	if !applied && !f.in.Status && len(f.out.Decisions) > 0 {
		return nil
	}
	at := f.now
	if last := f.b.Snapshot().LastAt; at.Before(last) {
		at = last
	}
	d, err := f.b.Status(at)
	if err != nil {
		return err
	}
	d.DryRun = f.in.DryRun
	d.Phase = f.phaseOf(d.Phase)
	if err := Settle(f.b, &d, at); err != nil {
		return err
	}
	d.Guidance = f.guide
	if n := len(f.out.Decisions); (applied || f.in.Status) && n > 0 {
		f.out.Decisions[n-1] = d
	} else {
		f.out.Decisions = append(f.out.Decisions, d)
	}
	return nil
}

// isIterationError reports an error Fold returned for an iteration the
// breaker refused (rather than for its input).
func isIterationError(err error) bool {
	var ie *iterationError
	return errors.As(err, &ie)
}

// ShortHash is a commit hash as people read it: 12 digits, "(root)" for
// none.
func ShortHash(h string) string {
	if h == "" {
		return "(root)"
	}
	return textcut.Hash(h)
}
