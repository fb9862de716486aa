package github

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

func TestSetStatus(t *testing.T) {
	t.Parallel()
	h := setup(t)
	long := strings.Repeat("d", 300)
	if err := h.c.SetStatus(context.Background(), head, "failure", long, "https://example.com/run/1"); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	got := h.srv.Statuses(owner, repo, head)
	want := []fakegithub.Status{{
		State: "failure", Context: "loopbreaker", Description: strings.Repeat("d", 139) + "…",
		TargetURL: "https://example.com/run/1", Creator: fakegithub.DefaultLogin,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if got := h.c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1", got)
	}
}

func TestSetStatusRejectsBadInput(t *testing.T) {
	t.Parallel()
	h := setup(t)
	tests := []struct{ sha, state, url string }{
		{"not-a-sha", "success", ""},
		{head, "success", "javascript:alert(1)"},
	}
	for _, tt := range tests {
		if err := h.c.SetStatus(context.Background(), tt.sha, tt.state, "", tt.url); err == nil {
			t.Errorf("SetStatus(%q, %q, %q): got no error, want one", tt.sha, tt.state, tt.url)
		}
	}
	if got := h.c.Calls(); got != 0 {
		t.Errorf("got %d calls, want 0", got)
	}
}

func TestCreateCheckRun(t *testing.T) {
	t.Parallel()
	h := setup(t)
	summary := strings.Repeat("é", 65535)
	if err := h.c.CreateCheckRun(context.Background(), head, "failure", "OPEN: same error 5 times", summary+"s"); err == nil || !strings.Contains(err.Error(), "65536 characters") {
		t.Errorf("a summary of 65,536 characters: got %v, want a refusal naming its length", err)
	}
	if n := h.srv.Calls(); n != 0 {
		t.Errorf("the refused check run made %d calls, want 0", n)
	}
	if err := h.c.CreateCheckRun(context.Background(), head, "failure", "OPEN: same error 5 times", summary); err != nil {
		t.Fatalf("CreateCheckRun: %v", err)
	}
	runs := h.srv.CheckRuns(owner, repo, head)
	if len(runs) != 1 {
		t.Fatalf("got %d check runs, want 1", len(runs))
	}
	r := runs[0]
	if r.Name != "loopbreaker" || r.Status != "completed" || r.Conclusion != "failure" || r.Title != "OPEN: same error 5 times" {
		t.Errorf("got %+v, want loopbreaker completed failure with the title", r)
	}
	if r.Summary != summary {
		t.Errorf("got a summary of %d characters, want the %d sent, uncut", utf8.RuneCountInString(r.Summary), utf8.RuneCountInString(summary))
	}
}
