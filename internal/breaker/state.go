package breaker

import (
	"fmt"
	"slices"
)

// State is the breaker's state.
type State int

// The three states of a breaker.
const (
	Closed State = iota
	HalfOpen
	Open
)

var stateNames = [...]string{"CLOSED", "HALF_OPEN", "OPEN"}

// String returns CLOSED, HALF_OPEN or OPEN.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("State(%d)", int(s))
	}
	return stateNames[s]
}

// ParseState parses CLOSED, HALF_OPEN or OPEN and rejects anything else.
func ParseState(s string) (State, error) {
	if i := slices.Index(stateNames[:], s); i >= 0 {
		return State(i), nil
	}
	return 0, fmt.Errorf("unknown state %q: want CLOSED, HALF_OPEN or OPEN", s)
}

// MarshalText implements encoding.TextMarshaler.
func (s State) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(stateNames) {
		return nil, fmt.Errorf("invalid state %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *State) UnmarshalText(b []byte) error {
	v, err := ParseState(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
