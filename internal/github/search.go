package github

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// MaxSearchResults is the most results GitHub's search lists for one
// query, whatever its total count.
const MaxSearchResults = 1000

// SearchHit is one pull request a search found.
type SearchHit struct {
	// Repository is "owner/name".
	Repository string
	Number     int
	// User is the author's login.
	User string
}

// SearchPage is one page of a search for pull requests.
type SearchPage struct {
	Hits []SearchHit
	// Total is GitHub's total_count; Incomplete its incomplete_results (the
	// search timed out on GitHub's side).
	Total      int
	Incomplete bool
	// Next is the following page, 0 on the last one.
	Next int
}

// SearchPulls returns one page (100) of the issues search for query, oldest
// first: one call. Only pull requests are kept (add is:pr to the query so
// that issues do not take the places). NewOrg's Client serves it.
func (c *Client) SearchPulls(ctx context.Context, query string, page int) (SearchPage, error) {
	if strings.TrimSpace(query) == "" {
		return SearchPage{}, fmt.Errorf("search pull requests: no query")
	}
	page = max(page, 1)
	call := "GET /search/issues"
	res, resp, err := c.gh.Search.Issues(ctx, query, &gh.SearchOptions{Sort: "created", Order: "asc",
		ListOptions: gh.ListOptions{Page: page, PerPage: perPage}})
	if err != nil {
		return SearchPage{}, c.fail(call, err)
	}
	out := SearchPage{Total: res.GetTotal(), Incomplete: res.GetIncompleteResults()}
	for _, is := range res.Issues {
		if is == nil || !is.IsPullRequest() {
			continue
		}
		repo, err := repoOfURL(is.GetRepositoryURL())
		if err != nil {
			return SearchPage{}, fmt.Errorf("%s: pull request %d: %w", call, is.GetNumber(), err)
		}
		out.Hits = append(out.Hits, SearchHit{Repository: repo, Number: is.GetNumber(), User: is.GetUser().GetLogin()})
	}
	out.Next = nextPage(resp, page)
	return out, nil
}

// repoOfURL reads "owner/name" from a repository's API URL
// (…/repos/owner/name), checking both parts.
func repoOfURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("repository_url %q: %w", bounded(s, 100), err)
	}
	_, rest, ok := strings.Cut(u.Path, "/repos/")
	owner, name, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || !ValidRepo(owner, name) {
		return "", fmt.Errorf("repository_url %q names no repository", bounded(s, 100))
	}
	return owner + "/" + name, nil
}

// ValidRepo reports whether owner and name can name a GitHub repository.
func ValidRepo(owner, name string) bool {
	return namePart().MatchString(owner) && namePart().MatchString(name) && name != "." && name != ".."
}
