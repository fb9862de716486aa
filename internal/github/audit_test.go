package github

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

func shaN(i int) string { return fmt.Sprintf("%040x", i) }

func TestListPullsSortsAndPages(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		srv.AddPull(owner, repo, fakegithub.Pull{Number: i, HeadSHA: shaN(i), BaseSHA: shaN(100), HeadRef: fmt.Sprint("b", i),
			CreatedAt: t0, UpdatedAt: t0.Add(time.Duration(10-i) * time.Hour), Fork: i == 2, User: "Copilot", UserType: "Bot"})
	}
	c, _ := newClient(t, srv.URL)
	var got []int
	page := 1
	for page != 0 {
		p, err := c.ListPulls(context.Background(), PullQuery{Sort: "updated", Direction: "asc", Page: page, PerPage: 2})
		if err != nil {
			t.Fatal(err)
		}
		if page == 1 && p.Last != 3 {
			t.Errorf("got last page %d, want 3", p.Last)
		}
		for _, pr := range p.Pulls {
			got = append(got, pr.Number)
			if pr.BaseSHA != shaN(100) {
				t.Errorf("#%d: got base sha %q, want %q", pr.Number, pr.BaseSHA, shaN(100))
			}
			if pr.Fork != (pr.Number == 2) {
				t.Errorf("#%d: got fork %v", pr.Number, pr.Fork)
			}
		}
		page = p.Next
	}
	if diff := cmp.Diff([]int{5, 4, 3, 2, 1}, got); diff != "" {
		t.Errorf("order by updated ascending (-want +got):\n%s", diff)
	}
	if n := srv.Calls(); n != 3 {
		t.Errorf("got %d calls for 3 pages, want 3", n)
	}
}

func TestPullCommitsCapAndFields(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	for _, n := range []int{30, 260} {
		var shas []string
		for i := 0; i < n; i++ {
			shas = append(shas, shaN(n*1000+i))
		}
		srv.AddPull(owner, repo, fakegithub.Pull{Number: n, HeadSHA: shas[n-1], Commits: shas, CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)})
	}
	c, _ := newClient(t, srv.URL)
	tests := []struct {
		number, want, calls int
		capped              bool
	}{{30, 30, 1, false}, {260, MaxPullCommits, 3, true}}
	for _, tt := range tests {
		before := c.Calls()
		got, capped, err := c.PullCommits(context.Background(), tt.number)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tt.want || capped != tt.capped {
			t.Errorf("#%d: got %d commits (capped %v), want %d (capped %v)", tt.number, len(got), capped, tt.want, tt.capped)
		}
		if n := c.Calls() - before; n != tt.calls {
			t.Errorf("#%d: got %d calls, want %d", tt.number, n, tt.calls)
		}
		if got[0].SHA != shaN(tt.number*1000) || got[0].At.IsZero() || got[0].Message == "" {
			t.Errorf("#%d: first commit %+v lacks its fields", tt.number, got[0])
		}
	}
}

func TestPullFilesPagesAndCap(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	files := func(n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("f%04d.go", i))
		}
		return out
	}
	srv.AddPull(owner, repo, fakegithub.Pull{Number: 1, HeadSHA: shaN(1), Files: files(250)})
	srv.AddPull(owner, repo, fakegithub.Pull{Number: 2, HeadSHA: shaN(2), Files: files(3100)})
	c, _ := newClient(t, srv.URL)
	tests := []struct {
		number, maxPages, files, pages int
		complete, capped               bool
	}{
		{1, 5, 250, 3, true, false},
		{1, 2, 200, 2, false, false},
		{2, 100, MaxPullFiles, 30, true, true},
	}
	for _, tt := range tests {
		before := c.Calls()
		got, err := c.PullFiles(context.Background(), tt.number, tt.maxPages)
		if err != nil {
			t.Fatal(err)
		}
		if pages := c.Calls() - before; len(got.Files) != tt.files || pages != tt.pages || got.Complete != tt.complete || got.Capped != tt.capped {
			t.Errorf("#%d max %d: got %d files, %d pages, complete %v, capped %v; want %d, %d, %v, %v",
				tt.number, tt.maxPages, len(got.Files), pages, got.Complete, got.Capped, tt.files, tt.pages, tt.complete, tt.capped)
		}
	}
}

func TestListArtifactsPages(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	for i := 1; i <= 150; i++ {
		srv.AddRun(owner, repo, fakegithub.Run{ID: int64(i), HeadBranch: fmt.Sprint("b", i), HeadSHA: shaN(i)})
		srv.AddArtifact(owner, repo, int64(i), "loopbreaker-record", []byte("zip"), i%2 == 0)
	}
	srv.AddArtifact(owner, repo, 1, "other", []byte("zip"), false)
	c, _ := newClient(t, srv.URL)
	first, next, err := c.ListArtifacts(context.Background(), "loopbreaker-record", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 100 || next != 2 {
		t.Fatalf("got %d artifacts and next %d, want 100 and 2", len(first), next)
	}
	second, next, err := c.ListArtifacts(context.Background(), "loopbreaker-record", 2)
	if err != nil || len(second) != 50 || next != 0 {
		t.Errorf("got %d artifacts, next %d, err %v; want 50, 0, nil", len(second), next, err)
	}
	runs := map[int64]bool{}
	for _, a := range append(first, second...) {
		runs[a.RunID] = true
		if a.HeadBranch != fmt.Sprint("b", a.RunID) || a.HeadSHA != shaN(int(a.RunID)) || a.Expired != (a.RunID%2 == 0) {
			t.Errorf("artifact of run %d: got %+v", a.RunID, a)
		}
	}
	if len(runs) != 150 {
		t.Errorf("the two pages hold %d runs' artifacts, want 150", len(runs))
	}
	if _, _, err := c.ListArtifacts(context.Background(), "", 1); err == nil {
		t.Error("an empty name was accepted")
	}
}
