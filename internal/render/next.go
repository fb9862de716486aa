package render

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

// maxNextSteps is how many recovery strategies lead a report.
const maxNextSteps = 3

// maxFailing is how many failing tests a report names.
const maxFailing = 5

// trigger is the decision's trigger, "" for none.
func trigger(d *breaker.Decision) string {
	if d.Trigger == nil {
		return ""
	}
	return *d.Trigger
}

// NextSteps are the first three recovery strategies for the decision's
// trigger (none when CLOSED), and the ones left after them.
func NextSteps(d *breaker.Decision) (next, more []string) {
	if d.State == breaker.Closed || d.Complete {
		return nil, nil
	}
	st := Strategies(trigger(d))
	if len(st) <= maxNextSteps {
		return st, nil
	}
	return st[:maxNextSteps:maxNextSteps], st[maxNextSteps:]
}

// Warning is a warning's text for a line that already says it is a
// warning: cleaned, without a leading "warning: " of its own.
func Warning(w string) string {
	w = Clean(w)
	if len(w) > len("warning: ") && strings.EqualFold(w[:len("warning: ")], "warning: ") {
		return w[len("warning: "):]
	}
	return w
}

// Failing returns the failing tests of the newest iteration that was
// measured (at most maxFailing, cleaned) and how many failed in all.
func Failing(d *breaker.Decision) (names []string, total int) {
	for i := len(d.Recent) - 1; i >= 0; i-- {
		s := &d.Recent[i]
		if s.IgnoredOpen {
			continue
		}
		if s.Tests == nil {
			return nil, 0
		}
		for _, n := range s.Tests.Failing[:min(len(s.Tests.Failing), maxFailing)] {
			names = append(names, Clean(n))
		}
		return names, max(s.Tests.Failed, len(s.Tests.Failing))
	}
	return nil, 0
}
