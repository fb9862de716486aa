package present

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

// Level is an annotation's level, the workflow command that writes it.
type Level int

// Annotation levels.
const (
	Notice Level = iota
	Warning
	Error
)

// Annotation is one log annotation: its level, its title ("" for none)
// and its message, agent text already cleaned.
type Annotation struct {
	Level   Level
	Title   string
	Message string
}

// Annotations are a check's annotations: the state (error when OPEN,
// warning when HALF_OPEN, notice on recovery or completion) and one warning
// per warning of the decision.
func Annotations(ds []breaker.Decision, dryRun bool) []Annotation {
	d := &ds[len(ds)-1]
	reason := ""
	if d.Reason != nil {
		reason = fmt.Sprintf("%s (%s)", render.Clean(*d.Reason), *d.Trigger)
	}
	var out []Annotation
	switch {
	case d.Complete:
		out = append(out, Annotation{Notice, "loopbreaker done: stop the loop", fmt.Sprintf("iteration %d: %s", d.Iteration, render.Evidence(d))})
		if d.State == breaker.HalfOpen {
			out = append(out, Annotation{Warning, "loopbreaker HALF_OPEN: watching", fmt.Sprintf("iteration %d: %s", d.Iteration, reason)})
		}
	case d.State == breaker.Open:
		// The verdict says what on_open does with the loop: a paused,
		// alerted or escalated loop is not stopped.
		title := "loopbreaker " + render.Verdict(d)
		if dryRun {
			title = "loopbreaker would be OPEN (dry run)"
		}
		out = append(out, Annotation{Error, title, fmt.Sprintf("iteration %d: %s", d.Iteration, reason)})
	case d.State == breaker.HalfOpen:
		out = append(out, Annotation{Warning, "loopbreaker HALF_OPEN: watching", fmt.Sprintf("iteration %d: %s", d.Iteration, reason)})
	default:
		if n := len(ds); n > 1 && ds[n-2].State != breaker.Closed {
			out = append(out, Annotation{Notice, "loopbreaker recovered", fmt.Sprintf("iteration %d: progress resumed; the breaker is CLOSED", d.Iteration)})
		}
	}
	for _, w := range d.Warnings {
		out = append(out, Annotation{Warning, "loopbreaker warning", render.Warning(w)})
	}
	return out
}

// AuditAnnotations are an audit's annotations: a warning when it stopped
// early (never a silent success), one for the stuck pull requests, one per
// refused write, and a notice with the counts and the budget.
func AuditAnnotations(r *AuditResult) []Annotation {
	var out []Annotation
	if s := AuditStop(r); s != "" {
		out = append(out, Annotation{Warning, "loopbreaker audit stopped early", render.Clean(s) + " " + AuditBudget(r)})
	}
	if n := r.Tripped(); len(n) > 0 {
		verb := "are OPEN (stuck)"
		if r.DryRun {
			verb = "would be OPEN (dry run)"
		}
		out = append(out, Annotation{Warning, "loopbreaker audit", fmt.Sprintf("%d pull requests %s: %s", len(n), verb, numberList(n))})
	}
	for _, note := range r.Notes {
		if strings.HasPrefix(note, "writes were refused") {
			out = append(out, Annotation{Warning, "loopbreaker audit could not write", render.Clean(note)})
		}
	}
	out = append(out, Annotation{Notice, "", fmt.Sprintf("loopbreaker audit: %s. %s", render.Clean(AuditHeadline(r)), AuditBudget(r))})
	return out
}
