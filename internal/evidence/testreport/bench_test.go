package testreport

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"
)

// benchSize is the size of the generated JUnit report.
const benchSize = 50 << 20

// benchFiles holds the report generated for each benchmark, so that the
// file is written once per benchmark however often it is run.
var benchFiles sync.Map // *testing.B -> string

// benchReport returns a ~50 MB JUnit report in b.TempDir, written once per
// benchmark.
func benchReport(b *testing.B) string {
	if p, ok := benchFiles.Load(b); ok {
		return p.(string)
	}
	path := filepath.Join(b.TempDir(), "junit.xml")
	if err := writeBenchReport(path, benchSize); err != nil {
		b.Fatal(err)
	}
	benchFiles.Store(b, path)
	return path
}

// writeBenchReport writes a JUnit report of about size bytes in the shape
// of a large Surefire or pytest run: suites of 400 testcases, of which some
// fail with a stack trace, some error, some are skipped and some carry
// captured output.
func writeBenchReport(path string, size int64) error {
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

// peakHeap samples the bytes of live and unswept heap objects while it
// runs, without stopping the world, and keeps the largest value above the
// level when it started.
type peakHeap struct {
	stop chan struct{}
	done chan uint64
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startPeakHeap() *peakHeap {
	runtime.GC()
	base := heapObjects()
	p := &peakHeap{stop: make(chan struct{}), done: make(chan uint64)}
	go func() {
		var peak uint64
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if v := heapObjects(); v > base && v-base > peak {
				peak = v - base
			}
			select {
			case <-p.stop:
				p.done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peakHeap) end() uint64 {
	close(p.stop)
	return <-p.done
}

func BenchmarkParseJUnit50MB(b *testing.B) {
	path := benchReport(b)
	b.ReportAllocs()
	b.ResetTimer()
	peak := startPeakHeap()
	for b.Loop() {
		rep, err := ParseFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Failed == 0 || rep.Passed == 0 {
			b.Fatalf("got %d passed, %d failed, want both above 0", rep.Passed, rep.Failed)
		}
	}
	b.ReportMetric(float64(peak.end()), "peak-heap-B")
}

func BenchmarkJoshdkJUnit50MB(b *testing.B) {
	path := benchReport(b)
	b.ReportAllocs()
	b.ResetTimer()
	peak := startPeakHeap()
	for b.Loop() {
		suites, err := junit.IngestFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(suites) == 0 {
			b.Fatal("got no suites")
		}
	}
	b.ReportMetric(float64(peak.end()), "peak-heap-B")
}
