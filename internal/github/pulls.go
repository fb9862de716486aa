package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Caps GitHub puts on a pull request's lists: a longer one's oldest
// commits, or further files, are not visible through the API.
const (
	MaxPullCommits = 250
	MaxPullFiles   = 3000
)

// Pull is a pull request as GitHub lists it.
type Pull struct {
	Number int
	Title  string
	// User is the author's login, UserType its account type.
	User, UserType string
	// HeadSHA and HeadRef are the head commit and branch, BaseRef the
	// branch it targets and BaseSHA its commit as GitHub reports it.
	HeadSHA, HeadRef, BaseRef, BaseSHA string
	// HeadRepo is the head repository's "owner/name" ("" when deleted).
	HeadRepo string
	Draft    bool
	// Fork reports a head branch in another repository (a fork, or one
	// that was deleted): its workflows get a read-only token.
	Fork   bool
	Labels []string
	// CreatedAt and UpdatedAt are GitHub's timestamps.
	CreatedAt, UpdatedAt time.Time
	// Comments is the number of issue comments GitHub counts: only the
	// answer for one pull request (GetPull) carries it.
	Comments int
	// Seen is GitHub's time (its Date header) of the answer that listed or
	// returned the pull request: UpdatedAt, which has whole seconds, says
	// everything up to Seen only when it is earlier.
	Seen time.Time
}

func pullOf(p *gh.PullRequest, resp *gh.Response) Pull {
	out := Pull{Number: p.GetNumber(), Title: p.GetTitle(), User: p.GetUser().GetLogin(), UserType: p.GetUser().GetType(),
		HeadSHA: p.GetHead().GetSHA(), HeadRef: p.GetHead().GetRef(), BaseRef: p.GetBase().GetRef(), BaseSHA: p.GetBase().GetSHA(),
		HeadRepo: p.GetHead().GetRepo().GetFullName(), Draft: p.GetDraft(), CreatedAt: p.GetCreatedAt().Time, UpdatedAt: p.GetUpdatedAt().Time,
		Comments: p.GetComments()}
	if resp != nil {
		out.Seen, _ = http.ParseTime(resp.Header.Get("Date"))
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

func pullsOf(list []*gh.PullRequest, resp *gh.Response) []Pull {
	out := make([]Pull, 0, len(list))
	for _, p := range list {
		if p != nil {
			out = append(out, pullOf(p, resp))
		}
	}
	return out
}

// PullQuery selects one page of open pull requests: Sort and Direction as
// GitHub takes them ("" for its default); Page counts from 1 (0 means 1),
// PerPage is at most 100 (0 means 100).
type PullQuery struct {
	Sort, Direction string
	Page, PerPage   int
}

// PullPage is one page of open pull requests. Next is the following page
// and Last the last one GitHub announces in its Link header (both 0 on
// the last page).
type PullPage struct {
	Pulls      []Pull
	Next, Last int
}

// ListPulls returns one page of open pull requests in the query's order:
// one call, so that a caller can stop when its call budget is spent.
func (c *Client) ListPulls(ctx context.Context, q PullQuery) (PullPage, error) {
	page, per := max(q.Page, 1), q.PerPage
	if per <= 0 || per > perPage {
		per = perPage
	}
	list, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{
		State: "open", Sort: q.Sort, Direction: q.Direction, ListOptions: gh.ListOptions{Page: page, PerPage: per}})
	if err != nil {
		return PullPage{}, c.fail("GET "+c.path("/pulls"), err)
	}
	out := PullPage{Pulls: pullsOf(list, resp)}
	if out.Next = nextPage(resp, page); out.Next > 0 {
		out.Last = max(resp.LastPage, out.Next)
	}
	return out, nil
}

// GetPull returns pull request number, open or closed: one call. A run
// whose payload lacks the head and base (issue_comment) learns them so.
func (c *Client) GetPull(ctx context.Context, number int) (Pull, error) {
	if err := validNumber(number); err != nil {
		return Pull{}, fmt.Errorf("get pull request: %w", err)
	}
	p, resp, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return Pull{}, c.fail("GET "+c.path("/pulls/%d", number), err)
	}
	return pullOf(p, resp), nil
}

// PullsByHead returns the open pull requests whose head is branch of
// owner's repository (a fork's owner for a fork's pull request, which a
// workflow_run payload does not list): one call.
func (c *Client) PullsByHead(ctx context.Context, owner, branch string) ([]Pull, error) {
	if !loginPattern().MatchString(owner) || strings.TrimSpace(branch) == "" {
		return nil, fmt.Errorf("pull requests by head: %q:%q is not an owner and a branch", bounded(owner, 60), bounded(branch, 100))
	}
	list, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{State: "open", Head: owner + ":" + branch,
		ListOptions: gh.ListOptions{PerPage: perPage}})
	if err != nil {
		return nil, c.fail("GET "+c.path("/pulls"), err)
	}
	return pullsOf(list, resp), nil
}

// PullCommit is one commit of a pull request as the API lists it: full
// hashes (Tree "" when the answer has none), parents first parent first,
// the committer and author dates.
type PullCommit struct {
	SHA, Tree    string
	Parents      []string
	Message      string
	At, AuthorAt time.Time
}

// PullCommits returns the commits of pull request number, oldest first:
// one call per 100 commits. GitHub lists at most MaxPullCommits; capped
// reports that the list reached that cap, so older commits may be missing.
func (c *Client) PullCommits(ctx context.Context, number int) (commits []PullCommit, capped bool, err error) {
	if err := validNumber(number); err != nil {
		return nil, false, fmt.Errorf("pull request commits: %w", err)
	}
	_, _, err = eachPage(MaxPullCommits/perPage+1, func(o gh.ListOptions) ([]*gh.RepositoryCommit, *gh.Response, error) {
		return c.gh.PullRequests.ListCommits(ctx, c.owner, c.repo, number, &o)
	}, func(list []*gh.RepositoryCommit) bool {
		for _, rc := range list {
			if rc == nil || len(commits) == MaxPullCommits {
				continue
			}
			gc := rc.GetCommit()
			pc := PullCommit{SHA: strings.ToLower(rc.GetSHA()), Tree: strings.ToLower(gc.GetTree().GetSHA()), Message: gc.GetMessage(),
				At: gc.GetCommitter().GetDate().Time, AuthorAt: gc.GetAuthor().GetDate().Time}
			if pc.At.IsZero() {
				pc.At = pc.AuthorAt
			}
			for _, p := range rc.Parents {
				pc.Parents = append(pc.Parents, strings.ToLower(p.GetSHA()))
			}
			commits = append(commits, pc)
		}
		return len(commits) < MaxPullCommits
	})
	if err != nil {
		return nil, false, c.fail("GET "+c.path("/pulls/%d/commits", number), err)
	}
	return commits, len(commits) >= MaxPullCommits, nil
}

// PullFile is one file of a pull request's diff against its base: its
// path (Previous before a rename), GitHub's status (added, removed,
// modified, renamed, ...) and line counts.
type PullFile struct {
	Name, Previous       string
	Status               string
	Additions, Deletions int
}

// PullFiles is a pull request's file list as far as it was read: Complete
// is false when reading stopped with more pages left, Capped true when
// the list reached MaxPullFiles (GitHub lists no more).
type PullFiles struct {
	Files            []PullFile
	Complete, Capped bool
}

// PullFiles returns the files of pull request number, reading at most
// maxPages pages of 100 (at least one; GitHub's cap is 30 pages).
func (c *Client) PullFiles(ctx context.Context, number, maxPages int) (PullFiles, error) {
	if err := validNumber(number); err != nil {
		return PullFiles{}, fmt.Errorf("pull request files: %w", err)
	}
	var out PullFiles
	_, more, err := eachPage(min(max(maxPages, 1), MaxPullFiles/perPage), func(o gh.ListOptions) ([]*gh.CommitFile, *gh.Response, error) {
		return c.gh.PullRequests.ListFiles(ctx, c.owner, c.repo, number, &o)
	}, func(list []*gh.CommitFile) bool {
		for _, f := range list {
			if f != nil && len(out.Files) < MaxPullFiles {
				out.Files = append(out.Files, PullFile{Name: f.GetFilename(), Previous: f.GetPreviousFilename(), Status: f.GetStatus(),
					Additions: f.GetAdditions(), Deletions: f.GetDeletions()})
			}
		}
		return len(out.Files) < MaxPullFiles
	})
	out.Complete, out.Capped = !more, len(out.Files) >= MaxPullFiles
	if err != nil {
		return out, c.fail("GET "+c.path("/pulls/%d/files", number), err)
	}
	return out, nil
}
