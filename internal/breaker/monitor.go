package breaker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/policy"
)

// completion returns the evidence that the iteration finished the loop's
// work, or nil: every task checked, the newest test report green, and a
// claim or 100 %.
func completion(it *Iteration, prev *Prev) *Completion {
	t := it.Tasks
	if t == nil || t.Total == 0 || t.Done < t.Total {
		return nil
	}
	hundred := it.ProgressPercent != nil && *it.ProgressPercent >= 100
	if !it.CompletionClaimed && !hundred {
		return nil
	}
	c := &Completion{Tasks: *t, Claimed: it.CompletionClaimed}
	if hundred {
		p := *it.ProgressPercent
		c.Percent = &p
	}
	tests := it.Tests
	if tests == nil && prev != nil {
		tests = prev.Tests
	}
	if tests != nil {
		if tests.Failed > 0 || tests.BuildFailed {
			return nil
		}
		c.Tests = &TestTotals{Passed: tests.Passed, Failed: tests.Failed, Skipped: tests.Skipped}
	}
	return c
}

// clone copies the evidence; nil stays nil.
func (c *Completion) clone() *Completion {
	if c == nil {
		return nil
	}
	v := *c
	v.Tests, v.Percent = clonePtr(c.Tests), clonePtr(c.Percent)
	return &v
}

// trendWarnings warn when passing tests fell, or distinct errors rose, in
// trend_iterations iterations in a row (those without a value left out).
func trendWarnings(pol *policy.Policy, s *Snapshot, it *Iteration) []string {
	tr := pol.Trends
	if !tr.Enabled {
		return nil
	}
	var out []string
	if it.Tests != nil {
		if row := trendRow(s.Window, tr.TrendIterations, func(e Entry) (int, bool) { return e.Passed, e.HasTests }); row != nil && steady(row, -1) {
			out = append(out, fmt.Sprintf("trend: passing tests fell in %d iterations in a row (%s)", tr.TrendIterations, arrows(row)))
		}
	}
	if it.ErrorsKnown {
		if row := trendRow(s.Window, tr.TrendIterations, func(e Entry) (int, bool) { return e.Errors, e.HasErrors }); row != nil && steady(row, 1) {
			out = append(out, fmt.Sprintf("trend: distinct errors rose in %d iterations in a row (%s)", tr.TrendIterations, arrows(row)))
		}
	}
	return out
}

// trendRow returns the values of the newest n+1 window entries that have
// one, oldest first, or nil when there are fewer.
func trendRow(w []Entry, n int, value func(Entry) (int, bool)) []int {
	var row []int
	for i := len(w) - 1; i >= 0 && len(row) < n+1; i-- {
		if v, ok := value(w[i]); ok {
			row = append(row, v)
		}
	}
	if len(row) < n+1 {
		return nil
	}
	slices.Reverse(row)
	return row
}

// steady reports whether every value is above the one before it (sign
// 1) or below it (sign -1).
func steady(row []int, sign int) bool {
	for i := 1; i < len(row); i++ {
		if (row[i]-row[i-1])*sign <= 0 {
			return false
		}
	}
	return true
}

// arrows writes a row as "40 → 38 → 35".
func arrows(row []int) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, " → ")
}
