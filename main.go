// Command loopbreaker is a circuit breaker for autonomous coding loops.
package main

import (
	"os"
	"runtime/debug"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

// memoryLimit is a soft limit on the heap: a replay of 10,000 commits
// peaks at about 255 MB of memory with Go's default, about 232 MB with
// it, at the same CPU time. GOMEMLIMIT, when set, decides.
const memoryLimit = 224 << 20

func main() {
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
