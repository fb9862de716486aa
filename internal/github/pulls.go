package github

import (
	"context"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Pull is an open pull request as the audit sees it.
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

// OpenPulls returns one page of open pull requests, newest first: page
// counts from 1 (0 means 1), perPage is at most 100 (0 means 100). next
// is the following page, 0 on the last, so that a caller can stop when
// its call budget is spent.
func (c *Client) OpenPulls(ctx context.Context, page, perPage int) (pulls []Pull, next int, err error) {
	page = max(page, 1)
	if perPage <= 0 || perPage > 100 {
		perPage = 100
	}
	call := "GET " + c.path("/pulls")
	list, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{
		State:       "open",
		ListOptions: gh.ListOptions{Page: page, PerPage: perPage},
	})
	if err != nil {
		return nil, 0, c.fail(call, err)
	}
	pulls = make([]Pull, 0, len(list))
	for _, p := range list {
		if p != nil {
			pulls = append(pulls, pullOf(p))
		}
	}
	if resp != nil && resp.NextPage > page {
		next = resp.NextPage
	}
	return pulls, next, nil
}
