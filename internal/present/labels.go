package present

import (
	"slices"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Names of the labels loopbreaker reads and manages.
const (
	// LabelOpen announces an OPEN breaker; a trusted person removing it
	// resets the breaker.
	LabelOpen = "loopbreaker:open"
	// LabelHalfOpen announces a HALF_OPEN breaker.
	LabelHalfOpen = "loopbreaker:half-open"
	// LabelForceOpen, put on by a person, holds the breaker open.
	LabelForceOpen = "loopbreaker:force-open"
	// LabelDisabled, put on by a person, turns the breaker off for the pull
	// request.
	LabelDisabled = "loopbreaker:disabled"
	// LabelPaused announces an OPEN breaker whose on_open is "pause": the
	// loop waits for a person's /loopbreaker resume.
	LabelPaused = "loopbreaker:paused"
	// LabelComplete announces a loop whose work is done: every task
	// checked, the tests green and the agent's claim (a complete decision).
	LabelComplete = "loopbreaker:complete"
)

// Label is a label loopbreaker puts on and takes off a pull request to
// announce a state: its name, colour (six hex digits) and description, as
// they are created in the repository.
type Label struct {
	Name, Color, Description string
	// State is the breaker state the label announces.
	State breaker.State
}

// Labels returns the labels loopbreaker manages, one for each state that
// is not CLOSED.
func Labels() []Label {
	return []Label{
		{Name: LabelOpen, Color: "b60205", Description: "loopbreaker: the agent loop is stuck; see the audit report or the sticky comment", State: breaker.Open},
		{Name: LabelHalfOpen, Color: "fbca04", Description: "loopbreaker: stagnation suspected; the loop is watched", State: breaker.HalfOpen},
	}
}

// Posts says what to post on a pull request in each state that is not
// CLOSED: "label" and "comment" (the on-open and on-half-open settings).
type Posts struct {
	Open, HalfOpen []string
}

// Wants reports whether a pull request in state gets what ("label" or
// "comment").
func (p Posts) Wants(state breaker.State, what string) bool {
	switch state {
	case breaker.Open:
		return slices.Contains(p.Open, what)
	case breaker.HalfOpen:
		return slices.Contains(p.HalfOpen, what)
	}
	return false
}

// Managed returns every label loopbreaker puts on and takes off a pull
// request, for the check run and the audit alike: the states' labels, the
// paused loop's and the complete loop's.
func Managed() []Label {
	return append(Labels(),
		Label{Name: LabelPaused, Color: "5319e7", Description: "loopbreaker: the agent loop is paused; a person comments /loopbreaker resume to go on", State: breaker.Open},
		Label{Name: LabelComplete, Color: "0e8a16", Description: "loopbreaker: the agent loop's work is done (tasks checked, tests green); stop the loop", State: breaker.Closed})
}

// WantsLabel reports whether a pull request decided d carries l: its
// state's label when posts ask, the paused label while OPEN with on_open
// "pause", the complete label while the work is done.
func (p Posts) WantsLabel(l Label, d *breaker.Decision) bool {
	switch l.Name {
	case LabelPaused:
		return d.State == breaker.Open && d.OpenAction == policy.OnOpenPause
	case LabelComplete:
		return d.Complete
	}
	return l.State == d.State && p.Wants(l.State, "label")
}

// LabelMoves returns the managed labels to add to and to remove from a
// pull request that has the labels has says it has, for decision d.
func (p Posts) LabelMoves(d *breaker.Decision, has func(name string) bool) (add, remove []Label) {
	for _, l := range Managed() {
		switch want, on := p.WantsLabel(l, d), has(l.Name); {
		case want && !on:
			add = append(add, l)
		case !want && on:
			remove = append(remove, l)
		}
	}
	return add, remove
}
