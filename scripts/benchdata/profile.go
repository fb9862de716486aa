//go:build ignore

// Command profile runs one loopbreaker command in-process -n times under
// the CPU profiler (and writes a heap profile at the end), so that the hot
// paths scripts/bench.sh measures can be read with go tool pprof:
//
//	go run scripts/benchdata/profile.go -cpu cpu.out -n 20 -- check --repo R --base B --format json
//	go tool pprof -top -cum cpu.out
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

func main() {
	cpu := flag.String("cpu", "cpu.out", "CPU profile `file`")
	heap := flag.String("heap", "", "heap profile `file` (allocations), written at the end")
	n := flag.Int("n", 10, "runs")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: profile [-cpu FILE] [-heap FILE] [-n N] -- COMMAND [flags]")
		os.Exit(2)
	}
	env := cli.Env{Stdout: io.Discard, Stderr: os.Stderr, Getenv: os.Getenv, Now: time.Now}
	f, err := os.Create(*cpu)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
	began := time.Now()
	code := 0
	for range *n {
		code = cli.Main(args, env)
	}
	took := time.Since(began)
	pprof.StopCPUProfile()
	f.Close()
	if *heap != "" {
		h, err := os.Create(*heap)
		if err == nil {
			runtime.GC()
			err = pprof.Lookup("allocs").WriteTo(h, 0)
			h.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "%d runs, %.1f ms each, last exit %d\n", *n, float64(took.Microseconds())/1000/float64(*n), code)
}
