package audit

import (
	"context"
	"errors"
	"strconv"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// act moves the pull request's labels to its state and writes the sticky
// comment when asked. A refused write (a read-only token) stops further
// writes for the run and is reported once; a rate limit stops the run.
func (a *auditor) act(ctx context.Context, p *github.Pull, pr *present.PullResult, sticky *github.Comment, led *ledger.Ledger) error {
	d := pr.Decision
	had := hasLabel(p.Labels, present.LabelOpen) || hasLabel(p.Labels, present.LabelHalfOpen)
	pr.Recovered = had && d.State == breaker.Closed
	adds, removes := a.labelMoves(p, d)
	comment := a.wantsComment(p, d, sticky)
	if a.refused != "" {
		if len(adds)+len(removes) > 0 || comment {
			pr.Notes = append(pr.Notes, "not labelled: writes were refused earlier in this run")
		}
		return nil
	}
	// The writes must fit in the budget: all of them or none, so that a
	// pull request is never left half labelled.
	need := len(removes)
	for _, l := range adds {
		need++
		if !a.ensured[l.Name] {
			need++ // GitHub creates a missing label in grey: colour it
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
		if err := a.c.AddLabel(ctx, p.Number, github.LabelSpec{Name: l.Name, Color: l.Color, Description: l.Description}); err != nil {
			if stop := a.writeFailed(ctx, err, pr, "add label "+l.Name); stop != nil || a.refused != "" {
				return stop
			}
			continue
		}
		a.ensured[l.Name] = true
		pr.LabelsAdded = append(pr.LabelsAdded, l.Name)
	}
	for _, l := range removes {
		if err := a.c.RemoveLabel(ctx, p.Number, l.Name); err != nil {
			if stop := a.writeFailed(ctx, err, pr, "remove label "+l.Name); stop != nil || a.refused != "" {
				return stop
			}
			continue
		}
		pr.LabelsRemoved = append(pr.LabelsRemoved, l.Name)
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
		body := present.StickyComment(pr.Decision, recs, present.CommentOptions{Audit: true, Notes: pr.Notes})
		if _, err := a.c.UpsertComment(ctx, p.Number, known, github.Sticky{Marker: present.Marker, Author: p.User}, body); err != nil {
			return a.writeFailed(ctx, err, pr, "write the sticky comment")
		}
		pr.Commented = true
	}
	return nil
}

// labelState is the state the pull request's labels announce.
func (a *auditor) labelState(p *github.Pull) breaker.State {
	switch {
	case hasLabel(p.Labels, present.LabelOpen):
		return breaker.Open
	case hasLabel(p.Labels, present.LabelHalfOpen):
		return breaker.HalfOpen
	}
	return breaker.Closed
}

// wantsComment: a sticky comment is written when the state asks for one
// and there is none yet or the state changed since the labels were set,
// and an existing one is updated when the pull request recovered. An
// unchanged state costs no call.
func (a *auditor) wantsComment(p *github.Pull, d *breaker.Decision, sticky *github.Comment) bool {
	want := a.posts().Wants(d.State, "comment")
	changed := a.labelState(p) != d.State
	return (want && (sticky == nil || changed)) || (sticky != nil && changed && d.State == breaker.Closed)
}

// labelMoves are the presenter's label moves for the pull request (none
// when the audit does not manage labels).
func (a *auditor) labelMoves(p *github.Pull, d *breaker.Decision) (add, remove []present.Label) {
	if !a.o.ManageLabels {
		return nil, nil
	}
	return a.posts().LabelMoves(d, func(name string) bool { return hasLabel(p.Labels, name) })
}

// writeFailed sorts a failed write: the rate limit stops the run (returned),
// a refusal of the token stops writing, anything else is a note.
func (a *auditor) writeFailed(ctx context.Context, err error, pr *present.PullResult, what string) error {
	switch {
	case errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil:
		return err
	case errors.Is(err, github.ErrForbidden):
		a.refused = "writes were refused (" + what + " on #" + strconv.Itoa(pr.Number) + ": " + oneLine(err.Error()) + "); no more labels or comments were written in this run. A scheduled workflow needs permissions: pull-requests: write and issues: write"
		pr.Notes = append(pr.Notes, "could not "+what+": the token may not write")
		return nil
	}
	pr.Notes = append(pr.Notes, "could not "+what+": "+oneLine(err.Error()))
	return nil
}

// posts is what the options ask to post for each state.
func (a *auditor) posts() present.Posts {
	return present.Posts{Open: a.o.OnOpen, HalfOpen: a.o.OnHalfOpen}
}
