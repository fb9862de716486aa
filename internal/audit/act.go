package audit

import (
	"context"
	"errors"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

// labelSpec is a managed label and whether the decision wants it.
type labelSpec struct {
	name, color, desc string
	on                bool
}

// act moves the pull request's labels to its state and writes the sticky
// comment when asked. A refused write (a read-only token) stops further
// writes for the run and is reported once; a rate limit stops the run.
func (a *auditor) act(ctx context.Context, p *github.AuditPull, pr *PullResult, sticky *github.Comment, led *ledger.Ledger) error {
	d := pr.Decision
	had := hasLabel(p.Labels, a.o.Labels.Open) || hasLabel(p.Labels, a.o.Labels.HalfOpen)
	pr.Recovered = had && d.State == breaker.Closed
	if a.refused != "" {
		if a.wantsWrites(p, d, sticky) {
			pr.Notes = append(pr.Notes, "not labelled: writes were refused earlier in this run")
		}
		return nil
	}
	var adds, removes []labelSpec
	if a.o.ManageLabels {
		specs := []labelSpec{
			{a.o.Labels.Open, "b60205", "loopbreaker: the agent loop is stuck; see the audit report or the sticky comment", d.State == breaker.Open && has(a.o.OnOpen, "label")},
			{a.o.Labels.HalfOpen, "fbca04", "loopbreaker: stagnation suspected; the loop is watched", d.State == breaker.HalfOpen && has(a.o.OnHalfOpen, "label")},
		}
		for _, l := range specs {
			switch on := hasLabel(p.Labels, l.name); {
			case l.on && !on:
				adds = append(adds, l)
			case !l.on && on:
				removes = append(removes, l)
			}
		}
	}
	comment := a.wantsComment(p, d, sticky)
	// The writes must fit in the budget: all of them or none, so that a
	// pull request is never left half labelled.
	need := len(removes)
	for _, l := range adds {
		need++
		if !a.ensured[l.name] {
			need += 2 // look the label up, create it
		}
	}
	if comment {
		need++
		if sticky == nil {
			need++ // look for a comment made meanwhile
		}
	}
	if need > 0 {
		if err := a.afford(ctx, need); err != nil {
			return err
		}
	}
	for _, l := range adds {
		if !a.ensured[l.name] {
			before := a.used()
			err := a.c.EnsureLabel(ctx, l.name, l.color, l.desc)
			a.shared += a.used() - before
			if err != nil {
				if stop := a.writeFailed(ctx, err, pr, "create label "+l.name); stop != nil || a.refused != "" {
					return stop
				}
				continue
			}
			a.ensured[l.name] = true
		}
		if err := a.c.AddLabels(ctx, p.Number, l.name); err != nil {
			if stop := a.writeFailed(ctx, err, pr, "add label "+l.name); stop != nil || a.refused != "" {
				return stop
			}
			continue
		}
		pr.LabelsAdded = append(pr.LabelsAdded, l.name)
	}
	for _, l := range removes {
		if err := a.c.RemoveLabel(ctx, p.Number, l.name); err != nil {
			if stop := a.writeFailed(ctx, err, pr, "remove label "+l.name); stop != nil || a.refused != "" {
				return stop
			}
			continue
		}
		pr.LabelsRemoved = append(pr.LabelsRemoved, l.name)
	}
	if comment {
		var known int64
		if sticky != nil {
			known = sticky.ID
		}
		var recs []ledger.Record
		if led != nil {
			recs = led.Records
		}
		if _, err := a.c.UpsertComment(ctx, p.Number, known, github.Sticky{Marker: a.o.Sticky.Marker, Author: p.User}, a.commentBody(pr, recs)); err != nil {
			return a.writeFailed(ctx, err, pr, "write the sticky comment")
		}
		pr.Commented = true
	}
	return nil
}

// labelState is the state the pull request's labels announce.
func (a *auditor) labelState(p *github.AuditPull) breaker.State {
	switch {
	case hasLabel(p.Labels, a.o.Labels.Open):
		return breaker.Open
	case hasLabel(p.Labels, a.o.Labels.HalfOpen):
		return breaker.HalfOpen
	}
	return breaker.Closed
}

// wantsComment: a sticky comment is written when the state asks for one
// and there is none yet or the state changed since the labels were set,
// and an existing one is updated when the pull request recovered. An
// unchanged state costs no call.
func (a *auditor) wantsComment(p *github.AuditPull, d *breaker.Decision, sticky *github.Comment) bool {
	want := (d.State == breaker.Open && has(a.o.OnOpen, "comment")) || (d.State == breaker.HalfOpen && has(a.o.OnHalfOpen, "comment"))
	changed := a.labelState(p) != d.State
	return (want && (sticky == nil || changed)) || (sticky != nil && changed && d.State == breaker.Closed)
}

func (a *auditor) wantsWrites(p *github.AuditPull, d *breaker.Decision, sticky *github.Comment) bool {
	return (a.o.ManageLabels && a.labelState(p) != d.State) || a.wantsComment(p, d, sticky)
}

// writeFailed sorts a failed write: the rate limit stops the run (returned),
// a refusal of the token stops writing, anything else is a note.
func (a *auditor) writeFailed(ctx context.Context, err error, pr *PullResult, what string) error {
	switch {
	case errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil:
		return err
	case errors.Is(err, github.ErrForbidden):
		a.refused = "writes were refused (" + what + " on #" + itoa(pr.Number) + ": " + oneLine(err.Error()) + "); no more labels or comments were written in this run. A scheduled workflow needs permissions: pull-requests: write and issues: write"
		pr.Notes = append(pr.Notes, "could not "+what+": the token may not write")
		return nil
	}
	pr.Notes = append(pr.Notes, "could not "+what+": "+oneLine(err.Error()))
	return nil
}

// commentBody is the sticky comment the audit writes: the report, how to
// reset, and the ledger digest it read (so that the fallback survives).
func (a *auditor) commentBody(pr *PullResult, recs []ledger.Record) string {
	var b strings.Builder
	b.WriteString(a.o.Sticky.Marker + "\n")
	b.WriteString("_Scheduled loopbreaker audit._\n\n")
	b.WriteString(render.MarkdownReport(pr.Decision, render.Options{Notes: limitNotes(pr.Notes, 5),
		ResetHint: "comment `/loopbreaker reset` (people with write access), or remove the `" + a.o.Labels.Open + "` label"}))
	b.WriteString("\n<details><summary>Commands</summary>\n\nPeople with write access can comment `/loopbreaker reset`, `/loopbreaker skip-phase`, `/loopbreaker abort` or `/loopbreaker guide <text>`.\n\n</details>\n")
	body := b.String()
	digest := a.o.Sticky.Encode(recs)
	const room = 60000 // GitHub allows 65,536 characters
	if len(body)+len(digest) > room {
		cut := max(0, room-len(digest)-200)
		body = strings.ToValidUTF8(body[:min(len(body), cut)], "") + "\n\n… (truncated)\n"
	}
	if digest != "" {
		body += digest + "\n"
	}
	return body
}

func limitNotes(notes []string, n int) []string {
	if len(notes) <= n {
		return notes
	}
	return append(append([]string{}, notes[:n]...), itoa(len(notes)-n)+" more notes in the audit report")
}
