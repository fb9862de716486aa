package audit

import (
	"context"
	"fmt"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// benchEnv is 100 open agent pull requests of 30 commits each on the
// fake, as the API lists them.
func benchEnv(b *testing.B) *env {
	b.Helper()
	e := newHTTPEnv(b)
	for n := 1; n <= 100; n++ {
		e.pull(n, 30)
	}
	return e
}

func runBench(b *testing.B, e *env) *present.AuditResult {
	b.Helper()
	res, err := Run(context.Background(), e.client(false), e.opts)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Pulls) != 100 || res.StoppedEarly {
		b.Fatalf("got %d evaluated (stopped: %s), want 100", len(res.Pulls), res.StopReason)
	}
	return res
}

// BenchmarkAudit100x30 is the first audit of 100 pull requests of 30
// commits read from the API: every one trips max_iterations (30 > 20), so
// each also has its label events read and the open label added.
func BenchmarkAudit100x30(b *testing.B) {
	var calls int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := benchEnv(b)
		b.StartTimer()
		res := runBench(b, e)
		calls = res.Operations.Used
	}
	b.ReportMetric(float64(calls)/100, "calls/PR")
}

// BenchmarkAudit100x30Again is the next scheduled run over the same pull
// requests: labels are in place, nothing is written.
func BenchmarkAudit100x30Again(b *testing.B) {
	e := benchEnv(b)
	runBench(b, e)
	b.ResetTimer()
	var calls int
	for i := 0; i < b.N; i++ {
		calls = runBench(b, e).Operations.Used
	}
	b.ReportMetric(float64(calls)/100, "calls/PR")
}

// BenchmarkAudit100x30Git reads the same 100 pull requests from a local
// clone (refs/pull/N/head fetched with go-git on the first run): only the
// comments and the writes are API calls.
func BenchmarkAudit100x30Git(b *testing.B) {
	steps := map[int]pullSteps{}
	for n := 1; n <= 100; n++ {
		var s pullSteps
		for i := 0; i < 30; i++ {
			s = append(s, map[string]string{fmt.Sprintf("f%d.go", n): fmt.Sprintf("package main\n// %d\n", i)})
		}
		steps[n] = s
	}
	o := newOrigin(b, steps)
	b.ResetTimer()
	var calls int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := benchEnv(b)
		for n := 1; n <= 100; n++ {
			e.gitPull(o, n, func(p *fakegithub.Pull) { p.Commits = nil })
		}
		c, err := OpenClone(o.clone(b), o.url(), "")
		if err != nil {
			b.Fatal(err)
		}
		e.opts.Clone = c
		b.StartTimer()
		res := runBench(b, e)
		calls = res.Operations.Used
		b.StopTimer()
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(calls)/100, "calls/PR")
}

// BenchmarkAudit100x30GitAgain is the next scheduled run from the clone:
// the heads are fetched already and the labels are in place.
func BenchmarkAudit100x30GitAgain(b *testing.B) {
	steps := map[int]pullSteps{}
	for n := 1; n <= 100; n++ {
		var s pullSteps
		for i := 0; i < 30; i++ {
			s = append(s, map[string]string{fmt.Sprintf("f%d.go", n): fmt.Sprintf("package main\n// %d\n", i)})
		}
		steps[n] = s
	}
	o := newOrigin(b, steps)
	e := benchEnv(b)
	for n := 1; n <= 100; n++ {
		e.gitPull(o, n, func(p *fakegithub.Pull) { p.Commits = nil })
	}
	c, err := OpenClone(o.clone(b), o.url(), "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	e.opts.Clone = c
	runBench(b, e)
	b.ResetTimer()
	var calls int
	for i := 0; i < b.N; i++ {
		calls = runBench(b, e).Operations.Used
	}
	b.ReportMetric(float64(calls)/100, "calls/PR")
}
