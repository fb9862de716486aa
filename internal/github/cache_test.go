package github

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// TestConditionalRequestsReuseTheAnswer: a run given the previous run's
// answers asks with If-None-Match; an unchanged list is answered 304, not
// charged, and read as before (the next page included, from the kept Link
// header); a changed one is read anew; another token's ETag does not match.
func TestConditionalRequestsReuseTheAnswer(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetPageSize(1)
	h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 2, Title: "second", HeadSHA: head, HeadRef: "b", BaseRef: "main"})
	ctx := context.Background()
	q := PullQuery{Sort: "updated", Direction: "asc", PerPage: 1}

	cache := NewCache(nil)
	first := h.again(t, func(o *Options) { o.Cache = cache })
	want, err := first.ListPulls(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if (first.Calls()-first.Charged()) != 0 || first.Charged() != 1 {
		t.Fatalf("first run: %d not modified, %d charged; want 0 and 1", (first.Calls() - first.Charged()), first.Charged())
	}
	// The answers go through the state file as JSON.
	data, _ := json.Marshal(cache.Used())
	var kept map[string]Answer
	if err := json.Unmarshal(data, &kept); err != nil || len(kept) != 1 {
		t.Fatalf("kept %d answers (%v), want 1", len(kept), err)
	}

	next := h.again(t, func(o *Options) { o.Cache = NewCache(kept) })
	before := h.srv.Charged()
	got, err := next.ListPulls(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" || got.Next != 2 {
		t.Errorf("the reused answer differs (-first +reused):\n%s", diff)
	}
	if (next.Calls()-next.Charged()) != 1 || next.Charged() != 0 || h.srv.Charged() != before {
		t.Errorf("repeat: %d not modified, %d charged by the client, %d by the fake; want 1, 0, 0", (next.Calls() - next.Charged()), next.Charged(), h.srv.Charged()-before)
	}

	h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 1, Title: "renamed", HeadSHA: head, HeadRef: "agent", BaseRef: "main"})
	changed := h.again(t, func(o *Options) { o.Cache = NewCache(kept) })
	got, err = changed.ListPulls(ctx, q)
	if err != nil || (changed.Calls()-changed.Charged()) != 0 || len(got.Pulls) != 1 || got.Pulls[0].Title != "renamed" {
		t.Errorf("a changed list: got %+v (%v), %d not modified; want the new title read", got.Pulls, err, (changed.Calls() - changed.Charged()))
	}

	h.srv.AddToken("other-token", "someone", "User")
	other := h.again(t, func(o *Options) { o.Token, o.Cache = "other-token", NewCache(changed.opts.Cache.Used()) })
	if _, err := other.ListPulls(ctx, q); err != nil || (other.Calls()-other.Charged()) != 0 {
		t.Errorf("another token: %d not modified (%v), want 0: an ETag is the token's", (other.Calls() - other.Charged()), err)
	}
}

// TestSearchPulls: the organisation's client searches; hits name their
// repository and issues are left out.
func TestSearchPulls(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	for i := 1; i <= 3; i++ {
		srv.AddPull("acme", fmt.Sprintf("r%d", i), fakegithub.Pull{Number: i, User: "claude[bot]", UserType: "Bot"})
	}
	srv.AddPull("acme", "r1", fakegithub.Pull{Number: 9, User: "alice"})
	srv.AddPull("other", "x", fakegithub.Pull{Number: 1, User: "claude[bot]", UserType: "Bot"})
	c, err := NewOrg(Options{Token: fakegithub.DefaultToken, BaseURL: srv.URL, Owner: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.SearchPulls(context.Background(), "is:pr is:open org:acme author:app/claude", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []SearchHit{{"acme/r1", 1, "claude[bot]"}, {"acme/r2", 2, "claude[bot]"}, {"acme/r3", 3, "claude[bot]"}}
	if diff := cmp.Diff(want, got.Hits); diff != "" || got.Total != 3 || got.Next != 0 {
		t.Errorf("got total %d next %d, hits (-want +got):\n%s", got.Total, got.Next, diff)
	}
	if _, err := NewOrg(Options{Owner: "acme", Repo: "r1"}); err == nil {
		t.Error("NewOrg took a repository")
	}
}
