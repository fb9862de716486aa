package github

import (
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Pull is a pull request as GitHub lists it.
type Pull struct {
	Number int
	Title  string
	// User is the author's login, UserType its account type.
	User, UserType string
	// HeadSHA and HeadRef are the head commit and branch, BaseRef the
	// branch it targets.
	HeadSHA, HeadRef, BaseRef string
	Draft                     bool
	// Fork reports a head branch in another repository (a fork, or one
	// that was deleted): such a pull request's workflows get a read-only
	// token.
	Fork bool
	// Labels are the names of its labels.
	Labels []string
	// CreatedAt and UpdatedAt are GitHub's timestamps.
	CreatedAt, UpdatedAt time.Time
	// BaseSHA is the base branch's commit GitHub reports for the pull
	// request.
	BaseSHA string
	// HeadRepo is the head repository's "owner/name" ("" when it was
	// deleted).
	HeadRepo string
	// Comments is the number of issue comments GitHub counts: only the
	// answer for one pull request (GetPull) carries it, a list's says 0.
	Comments int
	// Seen is GitHub's time (its Date header) of the answer that listed or
	// returned the pull request: its UpdatedAt, which has whole seconds,
	// says everything up to Seen only when it is earlier.
	Seen time.Time
}

func pullOf(p *gh.PullRequest) Pull {
	out := Pull{
		Number:    p.GetNumber(),
		Title:     p.GetTitle(),
		User:      p.GetUser().GetLogin(),
		UserType:  p.GetUser().GetType(),
		HeadSHA:   p.GetHead().GetSHA(),
		HeadRef:   p.GetHead().GetRef(),
		BaseRef:   p.GetBase().GetRef(),
		Draft:     p.GetDraft(),
		CreatedAt: timeOf(p.CreatedAt),
		UpdatedAt: timeOf(p.UpdatedAt),
		BaseSHA:   p.GetBase().GetSHA(),
		HeadRepo:  p.GetHead().GetRepo().GetFullName(),
		Comments:  p.GetComments(),
	}
	head, base := p.GetHead().GetRepo(), p.GetBase().GetRepo()
	switch {
	case head == nil:
		out.Fork = true
	case base != nil && head.GetFullName() != "" && base.GetFullName() != "":
		out.Fork = !strings.EqualFold(head.GetFullName(), base.GetFullName())
	case base != nil && head.GetID() != 0 && base.GetID() != 0:
		out.Fork = head.GetID() != base.GetID()
	default:
		out.Fork = head.GetFork()
	}
	for _, l := range p.Labels {
		if l != nil {
			out.Labels = append(out.Labels, l.GetName())
		}
	}
	return out
}
