package policy

// The environment variables that stand for a setting its flag or input
// does not give: loopbreaker's own, and the names some shell loops use for
// the same settings. A flag or input that is given always wins.
const (
	EnvProfile     = "LOOPBREAKER_PROFILE"
	EnvProjectType = "PROJECT_TYPE"             // the profile, after LOOPBREAKER_PROFILE
	EnvConfig      = "CIRCUIT_CONFIG"           // the policy file (or a built-in name)
	EnvDisabled    = "CIRCUIT_BREAKER_DISABLED" // true turns the breaker off
)
