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
// was a tenth of a check's time. memoryLimit keeps a long scan's heap from
// growing to five times what is live: a replay of 10,000 commits keeps
// about 130 MiB live (half of it the delta-base cache) and reached the
// former limit of 512 MiB, four times git log's peak; 224 MiB keeps it
// under twice git's for about 5 % more time. GOGC and GOMEMLIMIT, when
// set, still decide.
const (
	gcPercent   = 400
	memoryLimit = 224 << 20
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	os.Exit(cli.Main(os.Args[1:], cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Now:    time.Now,
	}))
}
