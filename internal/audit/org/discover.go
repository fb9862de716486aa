package org

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/github"
)

const (
	// DefaultPullsPerShard sizes the shards: an audit job with the default
	// operations-per-run (200) evaluates 70 to 100 pull requests.
	DefaultPullsPerShard = 50
	// MaxJobs is the most jobs GitHub runs for one matrix.
	MaxJobs = 256
	// maxListPages bounds the listing of one repository (10,000 pull
	// requests).
	maxListPages = 100
)

// Searcher is the search an organisation's discovery uses.
type Searcher interface {
	SearchPulls(ctx context.Context, query string, page int) (github.SearchPage, error)
}

// DiscoverOptions say where to look and how to size the shards.
type DiscoverOptions struct {
	// Org is the organisation (or user) searched; Repos, "owner/name",
	// are listed instead when given.
	Org   string
	Repos []string
	// Filters are the audit's: the search asks for the authors (or, with
	// "*", the any-of labels) and a listed repository's pull requests are
	// matched against all of them.
	Filters audit.Filters
	// PullsPerShard is the pull requests one audit job takes (0:
	// DefaultPullsPerShard).
	PullsPerShard int
	// Search is the organisation's search (for Org).
	Search Searcher
	// Open returns the pull requests of a listed repository (for Repos).
	Open func(owner, name string) (github.PullService, error)
}

// Entry is one audit job of the matrix: the shard ShardIndex of
// ShardCount of a repository's pull requests (audit.ShardOf).
type Entry struct {
	// Repository is "owner/name"; Owner and Name its parts (a GitHub App
	// token is asked for by name).
	Repository string `json:"repository"`
	Owner      string `json:"owner"`
	Name       string `json:"name"`
	ShardIndex int    `json:"shard-index"`
	ShardCount int    `json:"shard-count"`
	// Pulls is how many of the repository's pull requests discovery found.
	Pulls int `json:"pulls"`
}

// Matrix is a strategy matrix: fromJSON of it is the audit job's matrix.
type Matrix struct {
	Include []Entry `json:"include"`
}

// Discovery is what discovery found.
type Discovery struct {
	Matrix Matrix
	// Pulls and Repositories count what was found.
	Pulls, Repositories int
	// Notes say what may be missing (a search past GitHub's 1,000
	// results).
	Notes []string
}

// Discover finds the repositories with open pull requests to audit and
// sizes the matrix.
func Discover(ctx context.Context, o DiscoverOptions) (*Discovery, error) {
	per := o.PullsPerShard
	if per <= 0 {
		per = DefaultPullsPerShard
	}
	found := map[string]map[int]bool{} // repository -> numbers
	add := func(repo string, n int) {
		if found[repo] == nil {
			found[repo] = map[int]bool{}
		}
		found[repo][n] = true
	}
	d := &Discovery{}
	switch {
	case len(o.Repos) > 0:
		for _, r := range o.Repos {
			owner, name, _ := strings.Cut(r, "/")
			if !github.ValidRepo(owner, name) {
				return nil, fmt.Errorf("discover: %q is not owner/name", r)
			}
			nums, err := listRepo(ctx, o, owner, name)
			if err != nil {
				return nil, err
			}
			for _, n := range nums {
				add(owner+"/"+name, n)
			}
		}
	case o.Org != "":
		if o.Search == nil {
			return nil, errors.New("discover: no search for the organisation")
		}
		for _, q := range queries(o.Org, o.Filters) {
			hits, note, err := search(ctx, o.Search, q)
			if err != nil {
				return nil, err
			}
			if note != "" {
				d.Notes = append(d.Notes, note)
			}
			for _, h := range hits {
				add(h.Repository, h.Number)
			}
		}
	default:
		return nil, errors.New("discover: name an organisation or the repositories")
	}
	repos := slices.Sorted(maps.Keys(found))
	d.Matrix.Include = []Entry{}
	for _, r := range repos {
		n := len(found[r])
		count := (n + per - 1) / per
		for i := 0; i < count; i++ {
			owner, name, _ := strings.Cut(r, "/")
			d.Matrix.Include = append(d.Matrix.Include, Entry{Repository: r, Owner: owner, Name: name, ShardIndex: i, ShardCount: count, Pulls: n})
		}
		d.Pulls += n
	}
	d.Repositories = len(repos)
	if len(d.Matrix.Include) > MaxJobs {
		return nil, fmt.Errorf("discover: %d pull requests in %d repositories make %d audit jobs at %d pull requests a shard; a matrix runs at most %d: raise --pulls-per-shard to %d",
			d.Pulls, d.Repositories, len(d.Matrix.Include), per, MaxJobs, minPerShard(found, MaxJobs))
	}
	return d, nil
}

// minPerShard is the smallest shard size that keeps the matrix within
// jobs entries.
func minPerShard(found map[string]map[int]bool, jobs int) int {
	for per := 1; ; per++ {
		n := 0
		for _, nums := range found {
			n += (len(nums) + per - 1) / per
		}
		if n <= jobs {
			return per
		}
	}
}

// queries are the searches for the organisation's open pull requests: one
// per author (an app "name[bot]" is searched as author:app/name), or, when
// any author is audited, one per any-of label (one for all without).
func queries(org string, f audit.Filters) []string {
	base := "is:pr is:open org:" + org
	authors := f.Authors
	if len(authors) == 0 {
		authors = audit.DefaultAuthors
	}
	var out []string
	for _, a := range authors {
		if a == "*" {
			out = nil
			for _, l := range f.AnyOfLabels {
				out = append(out, base+" label:"+quote(l))
			}
			if len(out) == 0 {
				out = []string{base}
			}
			return out
		}
		if app, ok := strings.CutSuffix(a, "[bot]"); ok {
			a = "app/" + app
		}
		out = append(out, base+" author:"+a)
	}
	return out
}

func quote(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		return `"` + strings.ReplaceAll(s, `"`, "") + `"`
	}
	return s
}

// search reads every page of one query; note says when GitHub lists fewer
// results than it counts.
func search(ctx context.Context, s Searcher, q string) (hits []github.SearchHit, note string, err error) {
	total := 0
	for page := 1; page != 0; {
		sp, err := s.SearchPulls(ctx, q, page)
		if err != nil {
			return nil, "", fmt.Errorf("discover: search %q: %w", q, err)
		}
		hits = append(hits, sp.Hits...)
		total = max(total, sp.Total)
		if sp.Incomplete {
			note = fmt.Sprintf("the search %q timed out on GitHub's side and may have missed pull requests", q)
		}
		page = sp.Next
	}
	if total > len(hits) && total > github.MaxSearchResults {
		note = fmt.Sprintf("the search %q counts %d pull requests and GitHub lists %d: name the repositories (--repos) to audit the rest", q, total, len(hits))
	}
	return hits, note, nil
}

// listRepo lists a repository's open pull requests and keeps those the
// audit's filters take.
func listRepo(ctx context.Context, o DiscoverOptions, owner, name string) ([]int, error) {
	if o.Open == nil {
		return nil, errors.New("discover: no client for the listed repositories")
	}
	c, err := o.Open(owner, name)
	if err != nil {
		return nil, fmt.Errorf("discover %s/%s: %w", owner, name, err)
	}
	var out []int
	for page, n := 1, 0; page != 0 && n < maxListPages; n++ {
		pp, err := c.ListPulls(ctx, github.PullQuery{Sort: "created", Direction: "asc", Page: page})
		if err != nil {
			return nil, fmt.Errorf("discover %s/%s: %w", owner, name, err)
		}
		for i := range pp.Pulls {
			if ok, _ := o.Filters.Match(&pp.Pulls[i]); ok {
				out = append(out, pp.Pulls[i].Number)
			}
		}
		page = pp.Next
	}
	return out, nil
}
