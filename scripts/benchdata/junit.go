//go:build ignore

// Command junit is scripts/bench.sh's JUnit helper. It writes a large
// generated report, or reads one with loopbreaker's reader or with
// github.com/joshdk/go-junit and prints what it found and the process's
// peak resident set size (getrusage, the number /usr/bin/time -v reports):
//
//	junit gen -size 52428800 report.xml
//	junit read -reader ours report.xml      # or -reader joshdk
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"

	junit "github.com/joshdk/go-junit"

	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport/junitgen"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		fs := flag.NewFlagSet("gen", flag.ExitOnError)
		size := fs.Int64("size", 50<<20, "approximate size in bytes")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 1 {
			usage()
		}
		err = junitgen.WriteFile(fs.Arg(0), *size)
	case "read":
		fs := flag.NewFlagSet("read", flag.ExitOnError)
		reader := fs.String("reader", "ours", "ours or joshdk")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 1 {
			usage()
		}
		err = read(*reader, fs.Arg(0))
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "junit:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: junit gen [-size BYTES] FILE | junit read [-reader ours|joshdk] FILE")
	os.Exit(2)
}

// read parses the report and prints the totals and the peak RSS in KiB.
func read(reader, path string) error {
	var passed, failed, skipped int
	switch reader {
	case "ours":
		rep, err := testreport.ParseFile(path)
		if err != nil {
			return err
		}
		passed, failed, skipped = rep.Passed, rep.Failed, rep.Skipped
	case "joshdk":
		suites, err := junit.IngestFile(path)
		if err != nil {
			return err
		}
		for _, s := range suites {
			passed += s.Totals.Passed
			failed += s.Totals.Failed + s.Totals.Error
			skipped += s.Totals.Skipped
		}
	default:
		return fmt.Errorf("unknown reader %q (ours or joshdk)", reader)
	}
	if passed == 0 || failed == 0 {
		return fmt.Errorf("%s: got %d passed and %d failed, want both above 0", path, passed, failed)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return err
	}
	fmt.Printf("reader=%s passed=%d failed=%d skipped=%d maxrss_kb=%d\n", reader, passed, failed, skipped, ru.Maxrss)
	return nil
}
