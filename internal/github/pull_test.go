package github

import (
	"context"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// TestGetPullAndPullsByHead: an issue_comment run reads its pull request's
// head and base with one call; a fork's workflow_run finds its pull request
// by the fork's owner and branch with one call.
func TestGetPullAndPullsByHead(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 5, User: "carol", HeadRef: "main", HeadSHA: head, BaseRef: "main", BaseSHA: "b0", Fork: true, Labels: []string{"x"}})
	h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 6, User: "dave", HeadRef: "main", HeadSHA: "h6"})
	ctx := context.Background()
	p, err := h.c.GetPull(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if p.HeadSHA != head || p.HeadRef != "main" || p.BaseSHA != "b0" || !p.Fork || p.HeadRepo != "carol/"+repo || len(p.Labels) != 1 || p.User != "carol" {
		t.Errorf("got %+v", p)
	}
	found, err := h.c.PullsByHead(ctx, "carol", "main")
	if err != nil || len(found) != 1 || found[0].Number != 5 {
		t.Errorf("by head carol:main: got %+v, %v, want #5", found, err)
	}
	if found, err := h.c.PullsByHead(ctx, owner, "main"); err != nil || len(found) != 1 || found[0].Number != 6 {
		t.Errorf("by head %s:main: got %+v, %v, want #6", owner, found, err)
	}
	if got := h.c.Calls(); got != 3 {
		t.Errorf("got %d calls, want 3", got)
	}
	if _, err := h.c.PullsByHead(ctx, "bad owner", "main"); err == nil {
		t.Error("a bad owner was accepted")
	}
}

// TestUpsertCommentAbsentCreatesWithoutListing: a caller that just listed
// the comments and found no sticky one creates it with one call.
func TestUpsertCommentAbsentCreatesWithoutListing(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id, err := h.c.UpsertComment(context.Background(), 1, 0, Sticky{Marker: marker, Absent: true}, "body")
	if err != nil || id == 0 {
		t.Fatalf("got %d, %v", id, err)
	}
	if got := h.srv.CallLog(); len(got) != 1 || got[0] != "POST /repos/"+owner+"/"+repo+"/issues/1/comments" {
		t.Errorf("got calls %q, want one POST", got)
	}
}
