package fakegithub

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestListPullsPaginatesOver250(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for n := 1; n <= 250; n++ {
		s.AddPull("o", "r", Pull{Number: n, Title: fmt.Sprint("pr ", n), HeadSHA: fmt.Sprintf("%040d", n),
			HeadRef: fmt.Sprint("b", n), CreatedAt: t0.Add(time.Duration(n) * time.Minute)})
	}
	gh := ghClient(t, s, DefaultToken)
	opts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100}}
	var got []int
	var pages []int
	for {
		prs, resp, err := gh.PullRequests.List(ctx, "o", "r", opts)
		if err != nil {
			t.Fatalf("list pulls page %d: %v", opts.Page, err)
		}
		pages = append(pages, len(prs))
		for _, p := range prs {
			got = append(got, p.GetNumber())
		}
		if resp.NextPage == 0 {
			if resp.LastPage != 0 {
				t.Errorf("last page: got LastPage %d, want 0", resp.LastPage)
			}
			break
		}
		if resp.LastPage != 3 {
			t.Errorf("page %d: got LastPage %d, want 3", opts.Page, resp.LastPage)
		}
		opts.Page = resp.NextPage
	}
	if diff := cmp.Diff([]int{100, 100, 50}, pages); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
	if len(got) != 250 || got[0] != 250 || got[249] != 1 {
		t.Errorf("got %d pulls from %v to %v, want 250 newest first", len(got), got[0], got[len(got)-1])
	}
	if c := s.CallsTo("GET", "/repos/o/r/pulls"); c != 3 {
		t.Errorf("got %d calls, want 3", c)
	}
}

func TestListPullsFilters(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1, CreatedAt: t0, UpdatedAt: t0.Add(5 * time.Hour)})
	s.AddPull("o", "r", Pull{Number: 2, CreatedAt: t0.Add(time.Hour), UpdatedAt: t0.Add(time.Hour), State: "closed"})
	s.AddPull("o", "r", Pull{Number: 3, CreatedAt: t0.Add(2 * time.Hour), UpdatedAt: t0.Add(2 * time.Hour), BaseRef: "dev"})
	tests := []struct {
		query string
		want  []int
	}{
		{"", []int{3, 1}},
		{"?state=closed", []int{2}},
		{"?state=all", []int{3, 2, 1}},
		{"?state=all&direction=asc", []int{1, 2, 3}},
		{"?state=all&sort=updated", []int{2, 3, 1}},
		{"?state=all&sort=updated&direction=desc", []int{1, 3, 2}},
		{"?state=all&per_page=2&page=2", []int{1}},
	}
	for _, tt := range tests {
		resp, body := do(t, s, "GET", "/repos/o/r/pulls"+tt.query, DefaultToken, nil)
		wantStatus(t, resp, body, http.StatusOK)
		var got []int
		for _, p := range decodeJSON[[]*github.PullRequest](t, body) {
			got = append(got, p.GetNumber())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("pulls%s (-want +got):\n%s", tt.query, diff)
		}
	}
	resp, body := do(t, s, "GET", "/repos/o/r/pulls?state=bogus", DefaultToken, nil)
	wantStatus(t, resp, body, http.StatusUnprocessableEntity)
}

func TestListedPullFields(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 7, Title: "agent loop", User: "agent", UserType: "Bot", HeadSHA: "abc",
		HeadRef: "loop", BaseRef: "main", BaseSHA: "def", Draft: true, Labels: []string{"loopbreaker:open"},
		CreatedAt: t0, Fork: true, Commits: []string{"a1"}, Files: []string{"x.go", "y.go"}})
	prs, _, err := ghClient(t, s, DefaultToken).PullRequests.List(ctx, "o", "r", nil)
	if err != nil || len(prs) != 1 {
		t.Fatalf("list pulls: got %d, %v, want 1", len(prs), err)
	}
	pr := prs[0]
	got := []any{pr.GetTitle(), pr.GetUser().GetLogin(), pr.GetUser().GetType(), pr.GetHead().GetSHA(),
		pr.GetHead().GetRef(), pr.GetBase().GetRef(), pr.GetBase().GetSHA(), pr.GetDraft(), pr.GetState(),
		pr.GetHead().GetRepo().GetFork(), pr.GetHead().GetRepo().GetFullName(), pr.GetBase().GetRepo().GetFullName(),
		pr.Labels[0].GetName(), pr.GetCreatedAt().Time, pr.GetCommits(), pr.GetChangedFiles()}
	want := []any{"agent loop", "agent", "Bot", "abc", "loop", "main", "def", true, "open",
		true, "agent/r", "o/r", "loopbreaker:open", t0, 1, 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pull fields (-want +got):\n%s", diff)
	}
	for _, path := range []string{"/repos/o/r/pulls/8/commits", "/repos/o/nope/pulls", "/repos/o/r/pulls/x/files"} {
		resp, body := do(t, s, "GET", path, DefaultToken, nil)
		wantStatus(t, resp, body, http.StatusNotFound)
		if e := decodeJSON[github.ErrorResponse](t, body); e.Message != "Not Found" || e.DocumentationURL == "" {
			t.Errorf("GET %s: got error %+v, want GitHub's Not Found", path, e)
		}
	}
}

func TestPullCommitsAndFilesAreCapped(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	var commits, files []string
	for i := range 300 {
		commits = append(commits, fmt.Sprintf("%040x", i))
	}
	for i := range 3100 {
		files = append(files, fmt.Sprintf("f%d.go", i))
	}
	s.AddPull("o", "r", Pull{Number: 1, Commits: commits, Files: files})
	tests := []struct {
		path     string
		want     int
		lastPage string
	}{
		{"/repos/o/r/pulls/1/commits?per_page=100", 250, "page=3&per_page=100"},
		{"/repos/o/r/pulls/1/files?per_page=100", 3000, "page=30&per_page=100"},
	}
	for _, tt := range tests {
		total := 0
		next := tt.path
		for next != "" {
			resp, body := do(t, s, "GET", next, DefaultToken, nil)
			wantStatus(t, resp, body, http.StatusOK)
			total += len(decodeJSON[[]map[string]any](t, body))
			link := resp.Header.Get("Link")
			if total == 100 && !strings.Contains(link, tt.lastPage+`>; rel="last"`) {
				t.Errorf("%s: got Link %q, want last %s", tt.path, link, tt.lastPage)
			}
			next = ""
			for _, part := range strings.Split(link, ", ") {
				if u, ok := strings.CutSuffix(part, `>; rel="next"`); ok {
					next = strings.TrimPrefix(strings.TrimPrefix(u, "<"), s.URL)
				}
			}
		}
		if total != tt.want {
			t.Errorf("%s: got %d items, want %d", tt.path, total, tt.want)
		}
	}
	cs, _, err := ghClient(t, s, DefaultToken).PullRequests.ListCommits(ctx, "o", "r", 1, &github.ListOptions{PerPage: 2})
	if err != nil || len(cs) != 2 || cs[0].GetSHA() != commits[0] {
		t.Errorf("list commits: got %d commits, err %v, want 2 starting %s", len(cs), err, commits[0])
	}
}

func TestDefaultPageSize(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for n := 1; n <= 45; n++ {
		s.AddPull("o", "r", Pull{Number: n, CreatedAt: t0})
	}
	_, body := do(t, s, "GET", "/repos/o/r/pulls", DefaultToken, nil)
	if got := len(decodeJSON[[]any](t, body)); got != 30 {
		t.Errorf("default page: got %d pulls, want 30", got)
	}
	s.SetPageSize(10)
	resp, body := do(t, s, "GET", "/repos/o/r/pulls?page=5", DefaultToken, nil)
	if got := len(decodeJSON[[]any](t, body)); got != 5 {
		t.Errorf("page 5 of 10: got %d pulls, want 5", got)
	}
	link := resp.Header.Get("Link")
	if !strings.Contains(link, `page=4>; rel="prev"`) || !strings.Contains(link, `page=1>; rel="first"`) || strings.Contains(link, `rel="next"`) {
		t.Errorf("last page: got Link %q, want prev and first only", link)
	}
	_, body = do(t, s, "GET", "/repos/o/r/pulls?page=99999999999999999", DefaultToken, nil)
	if got := len(decodeJSON[[]any](t, body)); got != 0 {
		t.Errorf("page past the end: got %d pulls, want 0", got)
	}
}
