// Command loopbreaker is a circuit breaker for autonomous coding loops.
package main

import (
	"os"
	"runtime/debug"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

// gcPercent is the garbage collector's target for a run: a run is short
// and most of what it allocates (objects read from git, kept in bounded
// caches) lives to its end, so collecting at every doubling of the heap
// was a tenth of a check's time. GOGC, when set, still decides.
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Now:    time.Now,
	}))
}
