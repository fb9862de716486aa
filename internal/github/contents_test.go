package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

func TestFileAt(t *testing.T) {
	t.Parallel()
	h := setup(t)
	policy := []byte("[breaker]\nno_progress_threshold = 3\n")
	h.srv.PutFile(owner, repo, "main", ".github/loopbreaker.toml", policy)
	h.srv.PutFile(owner, repo, "agent", ".github/loopbreaker.toml", []byte("loosened = true\n"))
	h.srv.PutFile(owner, repo, "main", "big.bin", bytes.Repeat([]byte("b"), MaxFileBytes+1))
	ctx := context.Background()

	got, err := h.c.FileAt(ctx, "main", ".github/loopbreaker.toml")
	if err != nil {
		t.Fatalf("FileAt: %v", err)
	}
	if !bytes.Equal(got, policy) {
		t.Errorf("got %q, want the base branch's %q", got, policy)
	}

	tests := []struct {
		ref, path string
		wantErr   error
		wantText  string
	}{
		{"main", "missing.toml", ErrNotFound, "404"},
		{"main", ".github", nil, "directory"},
		{"main", "big.bin", nil, "larger than"},
		{"main", "../etc/passwd", nil, "not a clean"},
		{"main", "/abs", nil, "not a relative"},
		{"main", "", nil, "empty"},
	}
	for _, tt := range tests {
		_, err := h.c.FileAt(ctx, tt.ref, tt.path)
		if err == nil {
			t.Errorf("FileAt(%q): got no error, want one", tt.path)
			continue
		}
		if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
			t.Errorf("FileAt(%q): got %v, want %v", tt.path, err, tt.wantErr)
		}
		if !strings.Contains(err.Error(), tt.wantText) {
			t.Errorf("FileAt(%q): got %q, want it to mention %q", tt.path, err, tt.wantText)
		}
	}
}

func TestListPullsPages(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetPageSize(30)
	for n := 2; n <= 250; n++ {
		h.srv.AddPull(owner, repo, fakegithub.Pull{
			Number: n, Title: fmt.Sprintf("pr %d", n), HeadSHA: head, HeadRef: fmt.Sprintf("b%d", n),
			CreatedAt: t0, UpdatedAt: t0, Fork: n == 42, User: "mallory", Draft: n == 43,
			Labels: []string{"loopbreaker:open"},
		})
	}
	ctx := context.Background()
	seen := map[int]Pull{}
	page, pages := 1, 0
	for page != 0 {
		pp, err := h.c.ListPulls(ctx, PullQuery{Page: page})
		if err != nil {
			t.Fatalf("ListPulls(page %d): %v", page, err)
		}
		pulls, next := pp.Pulls, pp.Next
		pages++
		if pages > 10 {
			t.Fatalf("got more than 10 pages")
		}
		for _, p := range pulls {
			seen[p.Number] = p
		}
		page = next
	}
	if len(seen) != 250 || pages != 3 || h.c.Calls() != 3 {
		t.Errorf("got %d pulls in %d pages and %d calls, want 250 in 3 and 3", len(seen), pages, h.c.Calls())
	}
	want := Pull{Number: 42, Title: "pr 42", User: "mallory", UserType: "User", HeadSHA: head, HeadRef: "b42", BaseRef: "main",
		Fork: true, Labels: []string{"loopbreaker:open"}, CreatedAt: t0, UpdatedAt: t0}
	if diff := cmp.Diff(want, seen[42], cmpopts.IgnoreFields(Pull{}, "BaseSHA", "HeadRepo", "Seen")); diff != "" {
		t.Errorf("pull 42 (-want +got):\n%s", diff)
	}
	if seen[41].Fork || !seen[43].Draft {
		t.Errorf("got fork %v for #41 and draft %v for #43, want false and true", seen[41].Fork, seen[43].Draft)
	}

	// A small page size stops where the caller asks.
	pp, err := h.c.ListPulls(ctx, PullQuery{Page: 2, PerPage: 10})
	if err != nil || len(pp.Pulls) != 10 || pp.Next != 3 {
		t.Errorf("ListPulls(page 2 of 10): got %d pulls, next %d, %v, want 10, 3, nil", len(pp.Pulls), pp.Next, err)
	}
}
