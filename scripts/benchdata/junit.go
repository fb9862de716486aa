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
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"syscall"

	junit "github.com/joshdk/go-junit"

	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
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
		err = generate(fs.Arg(0), *size)
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

// generate writes a JUnit report of about size bytes in the shape of a
// large Surefire or pytest run: suites of 400 testcases, of which some fail
// with a stack trace, some error, some are skipped and some carry captured
// output.
func generate(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	stack := strings.Repeat("\tat com.example.service.Handler.process(Handler.java:123)\n", 24)
	out := strings.Repeat("INFO  request handled in 3 ms &amp; cached\n", 12)
	var written int64
	count := func(n int, _ error) { written += int64(n) }
	count(fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"bench\">\n"))
	for s := 0; written < size; s++ {
		count(fmt.Fprintf(w, "  <testsuite name=\"com.example.Suite%d\" tests=\"400\" failures=\"20\" errors=\"4\" skipped=\"8\" time=\"12.5\">\n", s))
		count(fmt.Fprintf(w, "    <properties><property name=\"java.version\" value=\"17\"/><property name=\"run\" value=\"%d\"/></properties>\n", s))
		for c := range 400 {
			count(fmt.Fprintf(w, "    <testcase name=\"test%d_handlesRequest\" classname=\"com.example.Suite%d\" time=\"0.%03d\"", c, s, c))
			switch {
			case c%20 == 3:
				count(fmt.Fprintf(w, ">\n      <failure message=\"expected: &lt;%d&gt; but was: &lt;%d&gt;\" type=\"org.opentest4j.AssertionFailedError\"><![CDATA[org.opentest4j.AssertionFailedError: expected: <%d> but was: <%d>\n%s]]></failure>\n    </testcase>\n", c, c+1, c, c+1, stack))
			case c%100 == 7:
				count(fmt.Fprintf(w, ">\n      <error message=\"Connection refused\" type=\"java.net.ConnectException\">java.net.ConnectException: Connection refused\n%s</error>\n    </testcase>\n", stack))
			case c%50 == 11:
				count(fmt.Fprintf(w, ">\n      <skipped message=\"not on this platform\"/>\n    </testcase>\n"))
			case c%10 == 5:
				count(fmt.Fprintf(w, ">\n      <system-out>%s</system-out>\n    </testcase>\n", out))
			default:
				count(fmt.Fprintf(w, "/>\n"))
			}
		}
		count(fmt.Fprintf(w, "  </testsuite>\n"))
	}
	count(fmt.Fprintf(w, "</testsuites>\n"))
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
