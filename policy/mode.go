package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Choice is a setting that takes one of a few names, spelled as in the
// TOML; K names the setting's key and its names. Only those names decode,
// so an unknown one is refused while the policy loads, naming the key, the
// value and the choices; the loader adds the line.
type Choice[K setting] string

// setting is the key of one named setting and its names, in documentation
// order.
type setting interface {
	spec() (key string, names []string)
}

func names[K setting](vs ...Choice[K]) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func choices[K setting]() string {
	var k K
	_, allowed := k.spec()
	return strings.Join(allowed, ", ")
}

// String returns the TOML spelling.
func (c Choice[K]) String() string { return string(c) }

// MarshalText refuses to print a value that would not load back.
func (c Choice[K]) MarshalText() ([]byte, error) {
	if err := new(Choice[K]).UnmarshalText([]byte(c)); err != nil {
		return nil, err
	}
	return []byte(c), nil
}

// UnmarshalText accepts only the setting's names.
func (c *Choice[K]) UnmarshalText(b []byte) error {
	var k K
	key, allowed := k.spec()
	if !slices.Contains(allowed, string(b)) {
		return &fieldError{key: key, msg: fmt.Sprintf("%s = %q is not allowed: want one of %s", key, b, strings.Join(allowed, ", "))}
	}
	*c = Choice[K](b)
	return nil
}

// check reports a value no load could produce (a policy built or changed
// in code) as the loader would.
func (c Choice[K]) check(v *validator) {
	if err := new(Choice[K]).UnmarshalText([]byte(c)); err != nil {
		v.failWith(err)
	}
}

// OnShallow says what to do when a shallow clone hides part of the loop's
// history (key on_shallow).
type OnShallow = Choice[onShallow]

type onShallow struct{}

func (onShallow) spec() (string, []string) {
	return "on_shallow", names(OnShallowDecide, OnShallowFail)
}

// The values of on_shallow.
const (
	OnShallowDecide OnShallow = "decide" // decide on the visible iterations and say how many
	OnShallowFail   OnShallow = "fail"   // refuse to decide (exit 2)
)

// OnOpen is what an OPEN breaker does to the loop on stagnation (key
// on_open).
type OnOpen = Choice[onOpen]

type onOpen struct{}

func (onOpen) spec() (string, []string) {
	return "on_open", names(OnOpenAbort, OnOpenPause, OnOpenAlert, OnOpenEscalate)
}

// The values of on_open.
const (
	// OnOpenAbort stops the loop: exit 1, the Action's step fails.
	OnOpenAbort OnOpen = "abort"
	// OnOpenPause holds the loop without failing anything (allow_continue
	// false, exit 0) until a person resumes it.
	OnOpenPause OnOpen = "pause"
	// OnOpenAlert lets the loop go on and notifies people: the mentions in
	// the sticky comment and the webhook.
	OnOpenAlert OnOpen = "alert"
	// OnOpenEscalate lets the loop go on with the next model of
	// escalation.model_progression, on a fresh breaker; once the last model
	// is stuck too, the loop is paused.
	OnOpenEscalate OnOpen = "escalate"
)

// ParseOnOpen parses a value of on_open.
func ParseOnOpen(s string) (OnOpen, error) {
	var v OnOpen
	err := v.UnmarshalText([]byte(s))
	return v, err
}

// OnOpenNames lists the values of on_open, in documentation order.
func OnOpenNames() string { return choices[onOpen]() }

// Signal is a progress signal: one kind of evidence that an iteration made
// progress (key progress.signals).
type Signal = Choice[signal]

type signal struct{}

func (signal) spec() (string, []string) {
	return "progress.signals", names(SignalFiles, SignalTests, SignalTestsAdded, SignalTasks, SignalErrors,
		SignalPercent, SignalRefactor, SignalDocs, SignalClaims)
}

// The progress signals.
const (
	SignalFiles      Signal = "files"       // meaningful files changed (not a return to an earlier tree)
	SignalTests      Signal = "tests"       // more tests pass, or fewer fail with the same total
	SignalTestsAdded Signal = "tests_added" // more tests exist than before (RED phase)
	SignalTasks      Signal = "tasks"       // a task was checked for the first time since the last reset
	SignalErrors     Signal = "errors"      // an error signature present before is gone
	SignalPercent    Signal = "percent"     // reported percentage rose stagnation_percent above its highest
	SignalRefactor   Signal = "refactor"    // meaningful change without new failures
	SignalDocs       Signal = "docs"        // documentation files changed
	SignalClaims     Signal = "claims"      // the agent claimed completion or files modified (ralph)
)

// SameErrorMode says how the same_error rule counts an error signature
// (key rules.same_error.same_error_mode).
type SameErrorMode = Choice[sameErrorMode]

type sameErrorMode struct{}

func (sameErrorMode) spec() (string, []string) {
	return "rules.same_error.same_error_mode", names(SameErrorConsecutive, SameErrorTotal, SameErrorAny)
}

// The values of same_error_mode.
const (
	SameErrorConsecutive SameErrorMode = "consecutive" // the same primary error in that many iterations in a row (an error that recurs within the window continues the row)
	SameErrorTotal       SameErrorMode = "total"       // the same primary error that many times since the last reset
	SameErrorAny         SameErrorMode = "any"         // any error in that many iterations in a row (ralph)
)

// ScoreAction is what a negative score window does (key
// rules.score.score_action).
type ScoreAction = Choice[scoreAction]

type scoreAction struct{}

func (scoreAction) spec() (string, []string) {
	return "rules.score.score_action", names(ScoreWatch, ScoreOpen)
}

// The values of score_action.
const (
	ScoreWatch ScoreAction = "watch" // move CLOSED to HALF_OPEN; never opens by itself
	ScoreOpen  ScoreAction = "open"  // open the breaker (strict)
)

// StuckAction is what a task that does not move does (key
// rules.task_stuck.task_stuck_action).
type StuckAction = Choice[stuckAction]

type stuckAction struct{}

func (stuckAction) spec() (string, []string) {
	return "rules.task_stuck.task_stuck_action", names(StuckWatch, StuckOpen)
}

// The values of task_stuck_action.
const (
	StuckWatch StuckAction = "watch" // HALF_OPEN, held while the task does not move; never opens by itself
	StuckOpen  StuckAction = "open"  // open the breaker (strict)
)

// ProtectedMode says which touches of a protected path trip the breaker
// (key rules.protected_path.protected_mode).
type ProtectedMode = Choice[protectedMode]

type protectedMode struct{}

func (protectedMode) spec() (string, []string) {
	return "rules.protected_path.protected_mode", names(ProtectedDelete, ProtectedDeny, ProtectedWarn)
}

// The values of protected_mode.
const (
	ProtectedDelete ProtectedMode = "delete" // deleting trips, modifying warns
	ProtectedDeny   ProtectedMode = "deny"   // deleting or modifying trips
	ProtectedWarn   ProtectedMode = "warn"   // both only warn
)

// ClaimMode is what a completion claim made while tests fail or tasks
// remain does (key rules.completion_claim.completion_claim).
type ClaimMode = Choice[claimMode]

type claimMode struct{}

func (claimMode) spec() (string, []string) {
	return "rules.completion_claim.completion_claim", names(ClaimOff, ClaimWarn, ClaimTrip)
}

// The values of completion_claim.
const (
	ClaimOff  ClaimMode = "off"  // nothing
	ClaimWarn ClaimMode = "warn" // a warning in the decision
	ClaimTrip ClaimMode = "trip" // open the breaker
)
