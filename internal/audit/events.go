package audit

import (
	"context"
	"errors"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// labelFeed is the repository's label events, newest first, read a page at
// a time and shared by the run's pull requests: one page usually answers
// for all that need their open label's removals, where each asking would
// cost a call. It reads no more pages than were asked for, and is abandoned
// once it cannot reach back far enough for one.
type labelFeed struct {
	events    []github.LabelEvent // newest first
	next      int                 // the next page; 0 when all are read
	pages     int
	asked     int
	abandoned bool
}

// covers reports whether the feed holds every event at or after since.
func (f *labelFeed) covers(since time.Time) bool {
	if f.pages == 0 {
		return false
	}
	if f.next == 0 {
		return true
	}
	n := len(f.events)
	return n > 0 && f.events[n-1].At.Before(since)
}

// of returns the feed's events of pull request number, oldest first.
func (f *labelFeed) of(number int) []github.LabelEvent {
	var out []github.LabelEvent
	for i := len(f.events) - 1; i >= 0; i-- {
		if f.events[i].Number == number {
			out = append(out, f.events[i])
		}
	}
	return out
}

// labelEvents returns p's label events: its own when read already, else the
// feed's when it reaches back to since. With read it reads what is missing,
// budgeted; ok is false when they are not at hand.
func (a *auditor) labelEvents(ctx context.Context, p *github.Pull, since time.Time, read bool, pr *present.PullResult) (events []github.LabelEvent, ok bool, err error) {
	if events, ok := a.prEvents[p.Number]; ok {
		return events, true, nil
	}
	f := &a.feed
	if !read {
		if !f.abandoned && f.covers(since) {
			return f.of(p.Number), true, nil
		}
		return nil, false, nil
	}
	f.asked++
	for !f.abandoned && !f.covers(since) && f.pages < f.asked { // covers holds once every page is read
		if err := a.afford(ctx, 1); err != nil {
			return nil, false, err
		}
		before := a.used()
		list, next, err := a.c.RepoLabelEvents(ctx, max(f.next, 1))
		a.shared += a.used() - before
		if err != nil {
			if errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil {
				return nil, false, err
			}
			f.abandoned = true // each pull request asks for its own
			break
		}
		f.pages++
		f.events = append(f.events, list...)
		f.next = next
	}
	if !f.abandoned && f.covers(since) {
		return f.of(p.Number), true, nil
	}
	f.abandoned = true
	return a.pullEvents(ctx, p, pr, "the label events could not be read: %s")
}
