package github

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Caps GitHub puts on the pull-request lists an audit reads.
const (
	// MaxPullCommits is the most commits GitHub lists for a pull request:
	// a longer one's oldest commits are not visible through the API.
	MaxPullCommits = 250
	// MaxPullFiles is the most files GitHub lists for a pull request.
	MaxPullFiles = 3000
)

// PullQuery selects one page of open pull requests. Sort is "created",
// "updated", "popularity" or "long-running" (GitHub's default "created"
// when empty); Direction is "asc" or "desc" (GitHub's default when empty).
// Page counts from 1 (0 means 1); PerPage is at most 100 (0 means 100).
type PullQuery struct {
	Sort, Direction string
	Page, PerPage   int
}

// PullPage is one page of open pull requests.
type PullPage struct {
	Pulls []Pull
	// Next is the following page, 0 on the last one.
	Next int
	// Last is the last page GitHub announces in its Link header, 0 when it
	// announces none (this is the last page).
	Last int
}

// ListPulls returns one page of open pull requests in the query's order:
// one call, so that a caller can stop when its call budget is spent.
func (c *Client) ListPulls(ctx context.Context, q PullQuery) (PullPage, error) {
	page := max(q.Page, 1)
	per := q.PerPage
	if per <= 0 || per > perPage {
		per = perPage
	}
	call := "GET " + c.path("/pulls")
	list, resp, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{
		State:       "open",
		Sort:        q.Sort,
		Direction:   q.Direction,
		ListOptions: gh.ListOptions{Page: page, PerPage: per},
	})
	if err != nil {
		return PullPage{}, c.fail(call, err)
	}
	out := PullPage{Pulls: make([]Pull, 0, len(list))}
	for _, p := range list {
		if p != nil {
			out.Pulls = append(out.Pulls, pullOf(p))
			out.Pulls[len(out.Pulls)-1].Seen = dateOf(resp)
		}
	}
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
	call := "GET " + c.path("/pulls/%d", number)
	p, resp, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return Pull{}, c.fail(call, err)
	}
	ap := pullOf(p)
	ap.Seen = dateOf(resp)
	return ap, nil
}

// dateOf is the Date header of an answer (zero when absent).
func dateOf(resp *gh.Response) time.Time {
	if resp == nil {
		return time.Time{}
	}
	t, _ := http.ParseTime(resp.Header.Get("Date"))
	return t
}

// PullsByHead returns the open pull requests whose head is branch of
// owner's repository (the fork's owner for a fork's pull request): one
// call. A workflow_run payload lists no pull request for a fork's branch;
// this finds it.
func (c *Client) PullsByHead(ctx context.Context, owner, branch string) ([]Pull, error) {
	if !loginPattern().MatchString(owner) || strings.TrimSpace(branch) == "" {
		return nil, fmt.Errorf("pull requests by head: %q:%q is not an owner and a branch", bounded(owner, 60), bounded(branch, 100))
	}
	call := "GET " + c.path("/pulls")
	list, _, err := c.gh.PullRequests.List(ctx, c.owner, c.repo, &gh.PullRequestListOptions{State: "open", Head: owner + ":" + branch,
		ListOptions: gh.ListOptions{PerPage: perPage}})
	if err != nil {
		return nil, c.fail(call, err)
	}
	var out []Pull
	for _, p := range list {
		if p != nil {
			out = append(out, pullOf(p))
		}
	}
	return out, nil
}

// PullCommit is one commit of a pull request as the API lists it.
type PullCommit struct {
	// SHA and Tree are full hashes; Tree is "" when the answer has none.
	SHA, Tree string
	// Parents are the parent hashes, first parent first.
	Parents []string
	// Message is the full commit message.
	Message string
	// At is the committer date, AuthorAt the author date.
	At, AuthorAt time.Time
	// Login is the GitHub account of the commit's author, "" when GitHub
	// matched none.
	Login string
}

// PullCommits returns the commits of pull request number, oldest first:
// one call per 100 commits. GitHub lists at most MaxPullCommits; capped
// reports that the list reached that cap, so older commits may be missing.
func (c *Client) PullCommits(ctx context.Context, number int) (commits []PullCommit, capped bool, err error) {
	if err := validNumber(number); err != nil {
		return nil, false, fmt.Errorf("pull request commits: %w", err)
	}
	call := "GET " + c.path("/pulls/%d/commits", number)
	_, _, err = eachPage(MaxPullCommits/perPage+1, func(o gh.ListOptions) ([]*gh.RepositoryCommit, *gh.Response, error) {
		return c.gh.PullRequests.ListCommits(ctx, c.owner, c.repo, number, &o)
	}, func(list []*gh.RepositoryCommit) bool {
		for _, rc := range list {
			if rc == nil || len(commits) == MaxPullCommits {
				continue
			}
			pc := PullCommit{SHA: strings.ToLower(rc.GetSHA()), Login: rc.GetAuthor().GetLogin()}
			if gc := rc.GetCommit(); gc != nil {
				pc.Tree = strings.ToLower(gc.GetTree().GetSHA())
				pc.Message = gc.GetMessage()
				pc.At = gc.GetCommitter().GetDate().Time
				pc.AuthorAt = gc.GetAuthor().GetDate().Time
				if pc.At.IsZero() {
					pc.At = pc.AuthorAt
				}
			}
			for _, p := range rc.Parents {
				if p != nil {
					pc.Parents = append(pc.Parents, strings.ToLower(p.GetSHA()))
				}
			}
			commits = append(commits, pc)
		}
		return len(commits) < MaxPullCommits
	})
	if err != nil {
		return nil, false, c.fail(call, err)
	}
	return commits, len(commits) >= MaxPullCommits, nil
}

// PullFile is one file of a pull request's diff against its base.
type PullFile struct {
	// Name is the path; Previous the path before a rename.
	Name, Previous string
	// Status is GitHub's: added, removed, modified, renamed, copied,
	// changed or unchanged.
	Status string
	// Additions and Deletions are line counts.
	Additions, Deletions int
}

// PullFiles is a pull request's file list as far as it was read.
type PullFiles struct {
	Files []PullFile
	// Pages is how many pages (calls) were read.
	Pages int
	// Complete is false when reading stopped at maxPages with more pages
	// left.
	Complete bool
	// Capped is true when the list reached MaxPullFiles: GitHub lists no
	// more.
	Capped bool
}

// PullFiles returns the files of pull request number, reading at most
// maxPages pages of 100 (at least one; GitHub's cap of MaxPullFiles files
// is 30 pages).
func (c *Client) PullFiles(ctx context.Context, number, maxPages int) (PullFiles, error) {
	if err := validNumber(number); err != nil {
		return PullFiles{}, fmt.Errorf("pull request files: %w", err)
	}
	maxPages = min(max(maxPages, 1), MaxPullFiles/perPage)
	call := "GET " + c.path("/pulls/%d/files", number)
	var out PullFiles
	pages, more, err := eachPage(maxPages, func(o gh.ListOptions) ([]*gh.CommitFile, *gh.Response, error) {
		return c.gh.PullRequests.ListFiles(ctx, c.owner, c.repo, number, &o)
	}, func(list []*gh.CommitFile) bool {
		for _, f := range list {
			if f == nil || len(out.Files) == MaxPullFiles {
				continue
			}
			out.Files = append(out.Files, PullFile{Name: f.GetFilename(), Previous: f.GetPreviousFilename(), Status: f.GetStatus(),
				Additions: f.GetAdditions(), Deletions: f.GetDeletions()})
		}
		return len(out.Files) < MaxPullFiles
	})
	out.Pages, out.Complete, out.Capped = pages, !more, len(out.Files) >= MaxPullFiles
	if err != nil {
		return out, c.fail(call, err)
	}
	return out, nil
}

// ListArtifacts returns one page (100) of the repository's artifacts
// called name, expired ones included, and the next page (0 on the last):
// one call. GitHub documents no order for this list. An audit matches them
// to pull requests by branch and commit instead of asking once per pull
// request.
func (c *Client) ListArtifacts(ctx context.Context, name string, page int) ([]Artifact, int, error) {
	if name == "" {
		return nil, 0, fmt.Errorf("list artifacts: no name given")
	}
	page = max(page, 1)
	call := "GET " + c.path("/actions/artifacts")
	q := url.Values{"name": {name}, "per_page": {fmt.Sprint(perPage)}, "page": {fmt.Sprint(page)}}
	req, err := c.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/actions/artifacts?%s", c.owner, c.repo, q.Encode()), nil)
	if err != nil {
		return nil, 0, c.fail(call, err)
	}
	var list gh.ArtifactList
	resp, err := c.gh.Do(ctx, req, &list)
	if err != nil {
		return nil, 0, c.fail(call, err)
	}
	out := make([]Artifact, 0, len(list.Artifacts))
	for _, a := range list.Artifacts {
		if a != nil && a.GetName() == name {
			out = append(out, artifactOf(a))
		}
	}
	return out, nextPage(resp, page), nil
}
