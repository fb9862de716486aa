package audit

import (
	"sort"

	"github.com/loopbreaker/loopbreaker/internal/audit/report"
)

// sortByProgress orders the pulls least recently progressed first: never
// progressed, then the oldest last progress; ties by number.
func sortByProgress(ps []report.PullResult) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].LastProgress, ps[j].LastProgress
		switch {
		case a == nil && b != nil:
			return true
		case a != nil && b == nil:
			return false
		case a != nil && b != nil && !a.Equal(*b):
			return a.Before(*b)
		}
		return ps[i].Number < ps[j].Number
	})
}
