package policy

import (
	"fmt"
	"strings"
)

// The policy's named settings are typed values spelled as in the TOML.
// Each type decodes only its allowed names (encoding.TextUnmarshaler), so
// an unknown name is refused while the policy loads, naming the key and
// the allowed values; the loader adds the line.

// OnShallow says what to do when a shallow clone hides part of the loop's
// history (key on_shallow).
type OnShallow string

// The values of on_shallow.
const (
	OnShallowDecide OnShallow = "decide" // decide on the visible iterations and say how many
	OnShallowFail   OnShallow = "fail"   // refuse to decide (exit 2)
)

var onShallowNames = enum[OnShallow]{key: "on_shallow", names: []OnShallow{OnShallowDecide, OnShallowFail}}

// ParseOnShallow parses a value of on_shallow.
func ParseOnShallow(s string) (OnShallow, error) { return onShallowNames.parse(s) }

// String returns the TOML spelling.
func (v OnShallow) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v OnShallow) MarshalText() ([]byte, error) { return onShallowNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *OnShallow) UnmarshalText(b []byte) error {
	x, err := ParseOnShallow(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// Signal is a progress signal: one kind of evidence that an iteration made
// progress (key progress.signals).
type Signal string

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

// SignalNames lists every progress signal, in documentation order.
var SignalNames = []Signal{SignalFiles, SignalTests, SignalTestsAdded, SignalTasks, SignalErrors,
	SignalPercent, SignalRefactor, SignalDocs, SignalClaims}

var signalNames = enum[Signal]{key: "progress.signals", names: SignalNames}

// ParseSignal parses a progress signal name.
func ParseSignal(s string) (Signal, error) { return signalNames.parse(s) }

// String returns the TOML spelling.
func (v Signal) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v Signal) MarshalText() ([]byte, error) { return signalNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Signal) UnmarshalText(b []byte) error {
	x, err := ParseSignal(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// SameErrorMode says how the same_error rule counts an error signature
// (key rules.same_error.same_error_mode).
type SameErrorMode string

// The values of same_error_mode.
const (
	SameErrorConsecutive SameErrorMode = "consecutive" // the same primary error in that many iterations in a row (an error that recurs within the window continues the row)
	SameErrorTotal       SameErrorMode = "total"       // the same primary error that many times since the last reset
	SameErrorAny         SameErrorMode = "any"         // any error in that many iterations in a row (ralph)
)

var sameErrorModeNames = enum[SameErrorMode]{key: "rules.same_error.same_error_mode",
	names: []SameErrorMode{SameErrorConsecutive, SameErrorTotal, SameErrorAny}}

// ParseSameErrorMode parses a value of same_error_mode.
func ParseSameErrorMode(s string) (SameErrorMode, error) { return sameErrorModeNames.parse(s) }

// String returns the TOML spelling.
func (v SameErrorMode) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v SameErrorMode) MarshalText() ([]byte, error) { return sameErrorModeNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *SameErrorMode) UnmarshalText(b []byte) error {
	x, err := ParseSameErrorMode(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// ScoreAction is what a negative score window does (key
// rules.score.score_action).
type ScoreAction string

// The values of score_action.
const (
	ScoreWatch ScoreAction = "watch" // move CLOSED to HALF_OPEN; never opens by itself
	ScoreOpen  ScoreAction = "open"  // open the breaker (strict)
)

var scoreActionNames = enum[ScoreAction]{key: "rules.score.score_action", names: []ScoreAction{ScoreWatch, ScoreOpen}}

// ParseScoreAction parses a value of score_action.
func ParseScoreAction(s string) (ScoreAction, error) { return scoreActionNames.parse(s) }

// String returns the TOML spelling.
func (v ScoreAction) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v ScoreAction) MarshalText() ([]byte, error) { return scoreActionNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *ScoreAction) UnmarshalText(b []byte) error {
	x, err := ParseScoreAction(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// StuckAction is what a task that does not move does (key
// rules.task_stuck.task_stuck_action).
type StuckAction string

// The values of task_stuck_action.
const (
	StuckWatch StuckAction = "watch" // HALF_OPEN, held while the task does not move; never opens by itself
	StuckOpen  StuckAction = "open"  // open the breaker (strict)
)

var stuckActionNames = enum[StuckAction]{key: "rules.task_stuck.task_stuck_action", names: []StuckAction{StuckWatch, StuckOpen}}

// ParseStuckAction parses a value of task_stuck_action.
func ParseStuckAction(s string) (StuckAction, error) { return stuckActionNames.parse(s) }

// String returns the TOML spelling.
func (v StuckAction) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v StuckAction) MarshalText() ([]byte, error) { return stuckActionNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *StuckAction) UnmarshalText(b []byte) error {
	x, err := ParseStuckAction(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// ProtectedMode says which touches of a protected path trip the breaker
// (key rules.protected_path.protected_mode).
type ProtectedMode string

// The values of protected_mode.
const (
	ProtectedDelete ProtectedMode = "delete" // deleting trips, modifying warns
	ProtectedDeny   ProtectedMode = "deny"   // deleting or modifying trips
	ProtectedWarn   ProtectedMode = "warn"   // both only warn
)

var protectedModeNames = enum[ProtectedMode]{key: "rules.protected_path.protected_mode",
	names: []ProtectedMode{ProtectedDelete, ProtectedDeny, ProtectedWarn}}

// ParseProtectedMode parses a value of protected_mode.
func ParseProtectedMode(s string) (ProtectedMode, error) { return protectedModeNames.parse(s) }

// String returns the TOML spelling.
func (v ProtectedMode) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v ProtectedMode) MarshalText() ([]byte, error) { return protectedModeNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *ProtectedMode) UnmarshalText(b []byte) error {
	x, err := ParseProtectedMode(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// ClaimMode is what a completion claim made while tests fail or tasks
// remain does (key rules.completion_claim.completion_claim).
type ClaimMode string

// The values of completion_claim.
const (
	ClaimOff  ClaimMode = "off"  // nothing
	ClaimWarn ClaimMode = "warn" // a warning in the decision
	ClaimTrip ClaimMode = "trip" // open the breaker
)

var claimModeNames = enum[ClaimMode]{key: "rules.completion_claim.completion_claim", names: []ClaimMode{ClaimOff, ClaimWarn, ClaimTrip}}

// ParseClaimMode parses a value of completion_claim.
func ParseClaimMode(s string) (ClaimMode, error) { return claimModeNames.parse(s) }

// String returns the TOML spelling.
func (v ClaimMode) String() string { return string(v) }

// MarshalText implements encoding.TextMarshaler.
func (v ClaimMode) MarshalText() ([]byte, error) { return claimModeNames.marshal(v) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *ClaimMode) UnmarshalText(b []byte) error {
	x, err := ParseClaimMode(string(b))
	if err == nil {
		*v = x
	}
	return err
}

// enum is the allowed names of one setting, in documentation order, and
// the dotted key it is set with.
type enum[T ~string] struct {
	key   string
	names []T
}

// parse returns the value named s, or an error naming the key, the value
// and the allowed names.
func (e enum[T]) parse(s string) (T, error) {
	for _, n := range e.names {
		if string(n) == s {
			return n, nil
		}
	}
	return "", &fieldError{key: e.key, msg: fmt.Sprintf("%s = %q is not allowed: want one of %s", e.key, s, e.list())}
}

func (e enum[T]) list() string {
	s := make([]string, len(e.names))
	for i, n := range e.names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// marshal refuses to print a value that would not load back.
func (e enum[T]) marshal(v T) ([]byte, error) {
	if _, err := e.parse(string(v)); err != nil {
		return nil, err
	}
	return []byte(v), nil
}

// check reports a value no load could produce (a policy built or changed
// in code) as the loader would.
func (e enum[T]) check(v *validator, val T) {
	if _, err := e.parse(string(val)); err != nil {
		v.failWith(err)
	}
}
