package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/control"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// One trust rule for every control (command, label removed or added): a
// person, not a bot, with write access. The agent holds the checkout's
// token and may add labels; that must not turn its breaker off.

// trusted is the trust rule of the run (control.Trust.Rule): the loop's
// own identities never control it, and the trusted input, when set,
// narrows it further. A refusal or a failed look-up is kept for the run.
func (r *run) trusted(ctx context.Context) control.Trusted {
	return r.trust.Rule(func(login string) (string, bool, error) {
		if why := control.OwnIdentity(login, r.ev.Author, r.ev.Pusher(), r.in.AgentLogins); why != "" {
			r.note(fmt.Sprintf("%s cannot control the breaker: %s", login, why))
			return "", true, nil
		}
		if len(r.in.Trusted) > 0 && !r.named(ctx, login) {
			r.note(fmt.Sprintf("%s cannot control the breaker: not among the trusted input's people and teams", login))
			return "", true, nil
		}
		perm, err := r.client.Permission(ctx, login)
		if err != nil {
			r.apiError("check the permission of "+login, err)
			return "", true, nil
		}
		return perm, true, nil
	})
}

// named reports whether the trusted input names login or a team it is an
// active member of (one call per team, at most).
func (r *run) named(ctx context.Context, login string) bool {
	for _, t := range r.in.Trusted {
		t = strings.TrimPrefix(t, "@")
		org, slug, isTeam := strings.Cut(t, "/")
		if !isTeam {
			if strings.EqualFold(t, login) {
				return true
			}
			continue
		}
		in, err := r.client.TeamMember(ctx, org, slug, login)
		if err != nil {
			r.apiError("read the membership of "+login+" in "+t, err)
			continue
		}
		if in {
			return true
		}
	}
	return false
}

// labelEvents returns the pull request's label events, read once per run
// and only when a control can depend on them; ok is false when they could
// not be read.
func (r *run) labelEvents(ctx context.Context) ([]github.LabelEvent, bool) {
	if !r.eventsRead {
		r.eventsRead = true
		events, err := r.client.LabelEvents(ctx, r.ev.Number)
		if err != nil {
			r.apiError("list label events", err)
			return nil, false
		}
		r.events, r.eventsOK = events, true
	}
	return r.events, r.eventsOK
}

// labelledBy says who put label on the pull request when that person may
// control the breaker; ok is false, with a note, otherwise.
func (r *run) labelledBy(ctx context.Context, label string) (by string, ok bool) {
	if r.client == nil || r.ev.Number == 0 {
		r.note(fmt.Sprintf("the %s label was ignored: without a token, who added it cannot be checked", label))
		return "", false
	}
	events, read := r.labelEvents(ctx)
	if !read {
		r.note(fmt.Sprintf("the %s label was ignored: who added it could not be read", label))
		return "", false
	}
	e, ok, note, _ := control.LabelledBy(events, label, r.trusted(ctx))
	if !ok {
		r.note(note)
	}
	return e.Actor, ok
}

// commands finds the sticky comment and turns trusted /loopbreaker
// commands into controls.
func (r *run) commands(ctx context.Context, comments []github.Comment, cfg *loop.Config) {
	r.sticky = control.Sticky(comments, present.Marker, r.ev.Author)
	if s := r.sealedSticky(comments); s != nil {
		r.sticky = s
	}
	controls, notes, _ := control.Commands(comments, present.Marker, r.trusted(ctx))
	cfg.Controls = append(cfg.Controls, controls...)
	for _, n := range notes {
		r.note(n)
	}
}

// sealedSticky is, with a digest key, the candidate sticky comment whose
// digest verifies and is the newest run's: a marked comment the agent
// posted with loopbreaker's identity is then neither read nor edited.
func (r *run) sealedSticky(comments []github.Comment) *github.Comment {
	if r.in.DigestKey == "" {
		return nil
	}
	var best *github.Comment
	var run runAttempt
	for i := range comments {
		c := &comments[i]
		if !control.IsSticky(*c, present.Marker, r.ev.Author) {
			continue
		}
		d, err := present.ReadDigest(c.Body, r.seal())
		if err != nil {
			continue
		}
		// The digest of the newest run, not the newest edit: an older
		// sealed body posted again is older.
		w := runAttempt{d.Run, d.Attempt}
		if best == nil || w.after(run) || w == run && c.UpdatedAt.After(best.UpdatedAt) {
			best, run = c, w
		}
	}
	return best
}

// labelResets applies every reset a person made by taking the open label
// off (control.LabelResets, the audit's rule too), folding again after
// each. It returns the result, the resets applied (the newest
// ledger.MaxLabelResets) and whether the label events could be read.
func (r *run) labelResets(ctx context.Context, cfg *loop.Config, res *loop.Result) (*loop.Result, []ledger.LabelReset, bool, error) {
	events, read := r.labelEvents(ctx)
	if !read {
		return res, nil, false, nil
	}
	done, refused, err := control.LabelResets(events, present.LabelOpen, res.Final().History, r.trusted(ctx), func(c loop.Control) ([]breaker.Event, error) {
		cfg.Controls = append(cfg.Controls, c)
		next, err := loop.Run(*cfg)
		if err != nil {
			return nil, err
		}
		res = next
		return res.Final().History, nil
	})
	if err != nil {
		return nil, nil, true, err
	}
	for _, e := range refused {
		r.note(fmt.Sprintf("the %s label was removed by %s, who cannot reset the breaker; it stays OPEN", present.LabelOpen, e.Actor))
	}
	var applied []ledger.LabelReset
	for _, e := range done {
		applied = append(applied, ledger.LabelReset{At: e.At.UTC(), By: e.Actor})
	}
	if n := len(applied); n > ledger.MaxLabelResets {
		applied = applied[n-ledger.MaxLabelResets:]
	}
	return res, applied, true, nil
}
