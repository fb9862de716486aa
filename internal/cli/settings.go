package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/notify"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// profileFrom returns the profile flag, else LOOPBREAKER_PROFILE, else
// PROJECT_TYPE ("" for none).
func profileFrom(flagValue string, env Env) string {
	for _, v := range []string{flagValue, env.Getenv(policy.EnvProfile), env.Getenv(policy.EnvProjectType)} {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// policyFrom returns the policy flag when it was given, else
// CIRCUIT_CONFIG, else fallback.
func policyFrom(flagValue string, given bool, env Env, fallback string) string {
	if given {
		return flagValue
	}
	return cmp.Or(strings.TrimSpace(env.Getenv(policy.EnvConfig)), fallback)
}

// given reports whether the named flag was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// disabledFrom returns whether the breaker is off: the --disabled flag
// when it was given, else CIRCUIT_BREAKER_DISABLED, and why, for the
// notice.
func disabledFrom(fs *flag.FlagSet, flagValue bool, env Env) (bool, string, error) {
	if given(fs, "disabled") {
		return flagValue, "--disabled", nil
	}
	v := strings.TrimSpace(env.Getenv(policy.EnvDisabled))
	if v == "" {
		return false, "", nil
	}
	off, err := strconv.ParseBool(v)
	if err != nil {
		return false, "", usagef("%s", render.Clean(fmt.Sprintf("%s=%q is not true or false", policy.EnvDisabled, v)))
	}
	return off, policy.EnvDisabled + " is true", nil
}

// registerDisabled adds the --disabled flag.
func registerDisabled(fs *flag.FlagSet) *bool {
	return fs.Bool("disabled", false, "turn the breaker off: no decision, no state written, exit 0 (default: $"+policy.EnvDisabled+")")
}

// postAlert posts the alert of on_open = "alert" when the breaker opened
// at this decision, to the webhook of the policy for the decision's phase;
// what happened goes to stderr, naming the webhook's host only. It never
// changes the exit code.
func postAlert(env Env, d *breaker.Decision, p *policy.Policy, where notify.Where) {
	if p == nil || !loop.AlertDue(d) {
		return
	}
	line, warn := notify.Send(context.Background(), p.WithPhase(d.Phase).Alert, env.Getenv,
		notify.Webhook{Client: env.HTTPClient, Sleep: env.Sleep}, notify.NewPayload(d, where))
	switch {
	case line == "":
	case warn:
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", render.Clean(line))
	default:
		fmt.Fprintf(env.Stderr, "loopbreaker: %s\n", render.Clean(line))
	}
}
