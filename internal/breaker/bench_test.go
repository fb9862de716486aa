package breaker_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// longLoop returns n iterations gap apart of a loop that never trips under
// the long-loop policies: progress most of the time, a new tree every
// iteration, many distinct errors, failing tests coming and going while
// the passing ones grow.
func longLoop(n int, gap time.Duration) []breaker.Iteration {
	its := make([]breaker.Iteration, n)
	for i := range its {
		it := breaker.Iteration{
			At:          t0.Add(time.Duration(i) * gap),
			Commit:      fmt.Sprintf("%040x", i+1),
			Change:      &breaker.Change{MeaningfulFiles: 1 + i%4, CodeFiles: 1, MeaningfulLines: 30, TestLines: 5, Tree: fmt.Sprintf("%040x", int64(1)<<40+int64(i)), Files: []string{"a.go", "b.go"}},
			Tests:       &breaker.Tests{Passed: 100 + i/7, Failed: i % 3, Failing: []string{"TestA", "TestB"}[:i%3%2+1]},
			ErrorsKnown: true,
			Output:      &breaker.Output{Lines: 200 + i%50, Bytes: 8000},
			Tasks:       &breaker.Tasks{Done: i / 50, Total: n/50 + 1},
		}
		if i%2 == 0 {
			it.Errors = []breaker.Signature{sig(fmt.Sprintf("error number %d", i%97))}
		}
		if i%5 == 4 {
			it.Change.MeaningfulFiles, it.Change.CodeFiles, it.Change.MeaningfulLines, it.Change.TestLines = 0, 0, 0, 0
		}
		its[i] = it
	}
	return its
}

// longLoopPolicies are the policies the long loops run under: default
// without its iteration cap, and ralph (no rate rule, no cap).
func longLoopPolicies(t testing.TB) map[string]*policy.Policy {
	return map[string]*policy.Policy{
		"default": pol(t, "default", func(p *policy.Policy) { p.Rules.MaxIterations.Enabled = false }),
		"ralph":   pol(t, "ralph"),
	}
}

// TestSnapshotSizeIsBounded: the state after 10,000 iterations is no
// bigger than after 1,000: it is bounded by the rule windows, not by the
// loop's length.
func TestSnapshotSizeIsBounded(t *testing.T) {
	t.Parallel()
	// default's rate rule allows 100 an hour: its loop runs a minute apart.
	gaps := map[string][]time.Duration{"default": {time.Minute, 5 * time.Minute}, "ralph": {time.Second, 5 * time.Minute}}
	for name, p := range longLoopPolicies(t) {
		for _, gap := range gaps[name] {
			t.Run(fmt.Sprintf("%s/every_%s", name, gap), func(t *testing.T) {
				t.Parallel()
				its := longLoop(10000, gap)
				b := newBreaker(t, p, breaker.Options{})
				var size1k int
				for i, it := range its {
					d, err := b.Observe(it)
					if err != nil {
						t.Fatal(err)
					}
					if d.State == breaker.Open {
						t.Fatalf("iteration %d opened (%s): the long loop must stay live", i+1, str(d.Reason))
					}
					if i+1 == 1000 {
						size1k = snapshotSize(t, b)
					}
				}
				size10k := snapshotSize(t, b)
				// Allow for longer numbers (iteration 10000 against 1000).
				if size10k > size1k+100 {
					t.Errorf("snapshot is %d bytes after 10,000 iterations and %d after 1,000: it grows with the loop", size10k, size1k)
				}
				if size10k > 64<<10 {
					t.Errorf("snapshot is %d bytes, want at most 64 KiB", size10k)
				}
				t.Logf("snapshot: %d bytes after 1,000 iterations, %d after 10,000", size1k, size10k)
			})
		}
	}
}

func snapshotSize(t testing.TB, b *breaker.Breaker) int {
	data, err := json.Marshal(b.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	return len(data)
}

// BenchmarkFold10000 folds a 10,000-iteration loop from a fresh breaker.
func BenchmarkFold10000(b *testing.B) {
	p := longLoopPolicies(b)["default"]
	its := longLoop(10000, time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		br, err := breaker.New(p, breaker.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, it := range its {
			if _, err := br.Observe(it); err != nil {
				b.Fatal(err)
			}
		}
	}
}
