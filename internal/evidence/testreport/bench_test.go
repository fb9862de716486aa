package testreport

import (
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	junit "github.com/joshdk/go-junit"

	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport/junitgen"
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
	if err := junitgen.WriteFile(path, benchSize); err != nil {
		b.Fatal(err)
	}
	benchFiles.Store(b, path)
	return path
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
