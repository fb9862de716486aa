package cli

import (
	"github.com/loopbreaker/loopbreaker/internal/localstate"
)

// EnvStateDir names the environment variable that moves the local state
// directory (default $XDG_STATE_HOME/loopbreaker, else
// ~/.local/state/loopbreaker).
const EnvStateDir = "LOOPBREAKER_STATE_DIR"

// where is the user's state directory: the flag's, else the environment's.
func where(env Env, dir string) localstate.Where {
	if dir == "" {
		dir = env.Getenv(EnvStateDir)
	}
	return localstate.Where{Dir: dir, XDGStateHome: env.Getenv("XDG_STATE_HOME"), Home: env.Getenv("HOME")}
}

// stateDirUsage is the help of the --state-dir flag.
const stateDirUsage = "the local state directory, outside the working tree (default: $" + EnvStateDir + ", else $XDG_STATE_HOME/loopbreaker, else ~/.local/state/loopbreaker)"
