package fakegithub

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestCallCounting(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1, Labels: []string{"loopbreaker:open"}})
	id := s.AddArtifact("o", "r", 1, "a", []byte("zip"), false)
	gh := ghClient(t, s, DefaultToken)
	if _, _, err := gh.PullRequests.List(ctx, "o", "r", &github.PullRequestListOptions{ListOptions: github.ListOptions{Page: 2}}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Issues.RemoveLabelForIssue(ctx, "o", "r", 1, "loopbreaker:open"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Users.Get(ctx, ""); errStatus(err) != http.StatusForbidden {
		t.Fatalf("GET /user with the workflow token: got %v, want 403", err)
	}
	do(t, s, "GET", "/_blobs/"+itoa(id), "", nil)
	do(t, s, "GET", "/_fake/dump", "", nil)
	want := []string{
		"GET /repos/o/r/pulls?page=2",
		"DELETE /repos/o/r/issues/1/labels/loopbreaker:open",
		"GET /user",
	}
	if diff := cmp.Diff(want, s.CallLog()); diff != "" {
		t.Errorf("call log (-want +got):\n%s", diff)
	}
	tests := []struct {
		method, prefix string
		want           int
	}{
		{"", "/", 3},
		{"GET", "/repos/", 1},
		{"delete", "/repos/o/r/issues/1/labels", 1},
		{"POST", "/", 0},
		{"", "/user", 1},
	}
	for _, tt := range tests {
		if got := s.CallsTo(tt.method, tt.prefix); got != tt.want {
			t.Errorf("CallsTo(%q, %q): got %d, want %d", tt.method, tt.prefix, got, tt.want)
		}
	}
	if s.Calls() != 3 {
		t.Errorf("Calls: got %d, want 3", s.Calls())
	}
	s.ResetCalls()
	if s.Calls() != 0 || len(s.CallLog()) != 0 || s.CallsTo("", "/") != 0 {
		t.Errorf("after ResetCalls: got %d calls, log %v", s.Calls(), s.CallLog())
	}
}

func TestEnterprisePrefix(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for n := 1; n <= 3; n++ {
		s.AddPull("o", "r", Pull{Number: n, CreatedAt: t0})
	}
	gh, err := github.NewClient(nil).WithAuthToken(DefaultToken).WithEnterpriseURLs(s.URL, s.URL)
	if err != nil {
		t.Fatal(err)
	}
	prs, resp, err := gh.PullRequests.List(ctx, "o", "r", &github.PullRequestListOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(prs) != 2 || resp.NextPage != 2 {
		t.Fatalf("list via /api/v3: got %d pulls, next %d, %v", len(prs), resp.NextPage, err)
	}
	if link := resp.Header.Get("Link"); !strings.HasPrefix(link, "<"+s.URL+"/api/v3/repos/o/r/pulls?") {
		t.Errorf("Link: got %q, want it to keep the /api/v3 prefix", link)
	}
	if got := s.CallLog(); len(got) != 1 || got[0] != "GET /repos/o/r/pulls?per_page=2" {
		t.Errorf("call log: got %v, want the path without the prefix", got)
	}
}

func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gh := ghClient(t, s, DefaultToken)
			for range 5 {
				if _, _, err := gh.Issues.CreateComment(ctx, "o", "r", 1, &github.IssueComment{Body: github.String("c")}); err != nil {
					t.Errorf("client %d: %v", i, err)
				}
				if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "o", "r", 1, []string{"l"}); err != nil {
					t.Errorf("client %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	if got := len(s.Comments("o", "r", 1)); got != 40 {
		t.Errorf("got %d comments, want 40", got)
	}
	if got := s.Calls(); got != 80 {
		t.Errorf("got %d calls, want 80", got)
	}
}
