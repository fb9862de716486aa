package cli

import (
	"cmp"
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// EnvStateDir names the environment variable that moves the local state
// directory.
const EnvStateDir = "LOOPBREAKER_STATE_DIR"

// where is the user's state directory: the flag's, else the environment's.
func where(env Env, dir string) localstate.Where {
	if dir == "" {
		dir = env.Getenv(EnvStateDir)
	}
	return localstate.Where{Dir: dir, XDGStateHome: env.Getenv("XDG_STATE_HOME"), Home: env.Getenv("HOME")}
}

const stateDirUsage = "the local state directory, outside the working tree (default: $" + EnvStateDir + ", else $XDG_STATE_HOME/loopbreaker, else ~/.local/state/loopbreaker)"

// start is how a loop runs, which decides the iteration caps that fit it.
type start int

const (
	startRun     start = iota // workflow runs, or calls a person makes: the policy's caps
	startLoop                 // an unattended local loop (the shell loop, record --repo)
	startSession              // the hook: a stop of a session a person may watch
)

// startCaps replace the default policy's iteration caps (20, for workflow
// runs) for the local starts, which make hundreds a day; the rate and
// stagnation rules still stop a runaway or stuck loop.
var startCaps = map[start]policy.MaxIterations{
	startLoop:    {Enabled: true, MaxIterations: 250, WarningIterations: 100, CriticalIterations: 200},
	startSession: {Enabled: true, MaxIterations: 300, WarningIterations: 100, CriticalIterations: 200},
}

// forStart is the policy for a start: a policy whose iteration caps are
// the default policy's gets the start's; one that sets its own keeps them.
func forStart(p *policy.Policy, s start) *policy.Policy {
	caps, ok := startCaps[s]
	def, err := policy.Builtin("default")
	if !ok || err != nil || p.Rules.MaxIterations != def.Rules.MaxIterations {
		return p
	}
	p = p.Clone()
	p.Rules.MaxIterations = caps
	return p
}

// controlsOf are a store's resets and a version 1 state file's OPEN
// breaker (held OPEN until a reset) as the fold's controls.
func controlsOf(f *localstate.File) []loop.Control {
	var cs []loop.Control
	if c := f.Carried; c != nil && c.State == breaker.Open.String() {
		cs = append(cs, loop.Control{At: c.At, Kind: loop.ControlForceOpen, By: "local",
			Reason: cmp.Or(c.Reason, "OPEN in a state file of an earlier version") + " (carried from a state file of an earlier version; reset to go on)"})
	}
	for _, r := range f.Resets {
		cs = append(cs, loop.Control{At: r.At, Kind: loop.ControlReset, Reason: r.Reason, By: "local"})
	}
	return cs
}

// loopResult is one loop's decision as status and reset print it.
type loopResult struct {
	name  string
	code  int
	write func() error
}

// writeLoops prints the decisions of a repository's loops, several each
// under its name; the exit code is the most urgent.
func writeLoops(env Env, format string, results []loopResult) (int, error) {
	code := ExitContinue
	for _, r := range results {
		if len(results) > 1 && format != "json" {
			fmt.Fprintf(env.Stdout, "== loop %s\n", render.Clean(r.name))
		}
		if err := r.write(); err != nil {
			return 0, err
		}
		if urgency[r.code] > urgency[code] {
			code = r.code
		}
	}
	return code, nil
}

// urgency orders exit codes: OPEN before paused before done before
// continue.
var urgency = map[int]int{ExitOpen: 3, ExitPaused: 2, ExitDone: 1}
