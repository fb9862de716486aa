// Command loopbreaker is a circuit breaker for autonomous coding loops.
package main

import (
	"os"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Now:    time.Now,
	}))
}
