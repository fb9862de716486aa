package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// The environment variables that stand for a setting its flag or input
// does not give: loopbreaker's own, and the names some shell loops use for
// the same settings. A flag or input that is given always wins; the callers
// pass their environment's lookup (getenv).
const (
	EnvProfile     = "LOOPBREAKER_PROFILE"
	EnvProjectType = "PROJECT_TYPE"             // the profile, after LOOPBREAKER_PROFILE
	EnvConfig      = "CIRCUIT_CONFIG"           // the policy file (or a built-in name)
	EnvDisabled    = "CIRCUIT_BREAKER_DISABLED" // true turns the breaker off
)

// ProfileFrom returns the profile given, else $LOOPBREAKER_PROFILE, else
// $PROJECT_TYPE ("" for none).
func ProfileFrom(given string, getenv func(string) string) string {
	for _, v := range []string{given, getenv(EnvProfile), getenv(EnvProjectType)} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// NameFrom returns the policy given (when isGiven), else $CIRCUIT_CONFIG,
// else fallback.
func NameFrom(given string, isGiven bool, getenv func(string) string, fallback string) string {
	if isGiven {
		return given
	}
	if v := strings.TrimSpace(getenv(EnvConfig)); v != "" {
		return v
	}
	return fallback
}

// DisabledFrom reads $CIRCUIT_BREAKER_DISABLED: whether it turns the
// breaker off, whether it is set, and an error naming it when it is not
// true or false.
func DisabledFrom(getenv func(string) string) (off, set bool, err error) {
	v := strings.TrimSpace(getenv(EnvDisabled))
	if v == "" {
		return false, false, nil
	}
	off, err = strconv.ParseBool(v)
	if err != nil {
		return false, false, fmt.Errorf("%s=%q is not true or false", EnvDisabled, v)
	}
	return off, true, nil
}
