package breaker_test

import (
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

func observeAll(t *testing.T, b *breaker.Breaker, its []breaker.Iteration) []breaker.Decision {
	t.Helper()
	var ds []breaker.Decision
	for i, it := range its {
		it.At = t0.Add(time.Duration(i) * 10 * time.Minute)
		d, err := b.Observe(it)
		if err != nil {
			t.Fatalf("iteration %d: %v", i+1, err)
		}
		ds = append(ds, d)
	}
	return ds
}

func TestReturnToTheBaseTreeIsNoProgress(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{BaseTree: "base"})
	ds := observeAll(t, b, []breaker.Iteration{
		{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 4, Tree: "one"}},
		{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 4, Tree: "base"}}, // reverts to the base
	})
	if ds[1].Progress {
		t.Errorf("a revert to the base tree counted as progress")
	}
	if ds[1].ProgressScore != -4 { // no meaningful change -3, revert -1
		t.Errorf("got score %d, want -4", ds[1].ProgressScore)
	}
}

func TestUntickingAndRetickingIsNotCircular(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default"), breaker.Options{BaseTree: "ticked"})
	// Only the task file changes (not a meaningful change): trees alternate.
	ds := observeAll(t, b, []breaker.Iteration{
		{Change: &breaker.Change{Tree: "unticked"}, Tasks: &breaker.Tasks{Done: 2, Total: 5}, TasksBefore: intp(3)},
		{Change: &breaker.Change{Tree: "ticked"}, Tasks: &breaker.Tasks{Done: 3, Total: 5}},
	})
	last := ds[len(ds)-1]
	if last.Trigger != nil && *last.Trigger == "circular" {
		t.Errorf("unticking and re-ticking opened the circular rule")
	}
	if last.Progress {
		t.Errorf("re-ticking a task counted as progress")
	}
}

func TestTestLinesCountAsTestsAddedWithoutAnEarlierReport(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "tdd"), breaker.Options{Phase: "RED"})
	ds := observeAll(t, b, []breaker.Iteration{
		{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 10, TestLines: 10, Tree: "a"}, Tests: &breaker.Tests{Passed: 0, Failed: 2}},
	})
	if !ds[0].Progress {
		t.Errorf("the first RED iteration that wrote tests is not progress")
	}
}

func intp(v int) *int { return &v }
