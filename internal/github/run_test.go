package github

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// TestTypicalCheckRunBudget: what one `check` run does on a pull request
// costs five API calls, whatever the loop's length.
func TestTypicalCheckRunBudget(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for run := int64(1); run <= 30; run++ {
		h.srv.AddRun(owner, repo, fakegithub.Run{ID: run, HeadBranch: "agent", HeadSHA: head, CreatedAt: t0.Add(time.Duration(run) * time.Minute)})
		h.srv.AddArtifact(owner, repo, run, recordName, []byte("record of run"), false)
	}
	sticky := h.srv.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+"\nold", t0)
	if err := h.srv.LoadSeed(strings.NewReader(`{"repos":[{"owner":"acme","name":"widget","labels":[{"name":"loopbreaker:half-open","color":"fbca04","description":"watched"}]}]}`)); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	a, err := h.c.LatestArtifact(ctx, recordName, 31, onBranch("agent"))
	if err != nil || a == nil || a.RunID != 30 {
		t.Fatalf("LatestArtifact: got %+v, %v, want run 30", a, err)
	}
	if _, err := h.c.DownloadArtifact(ctx, a, 1<<20); err != nil {
		t.Fatalf("DownloadArtifact: %v", err)
	}
	if _, err := h.c.UpsertComment(ctx, 1, sticky, Sticky{Marker: marker}, "state: CLOSED"); err != nil {
		t.Fatalf("UpsertComment: %v", err)
	}
	if err := h.c.SetStatus(ctx, head, "success", "CLOSED", ""); err != nil {
		t.Fatalf("SetStatus: %v", err)
	}
	if err := h.c.AddLabel(ctx, 1, LabelSpec{Name: "loopbreaker:half-open", Color: "fbca04"}); err != nil {
		t.Fatalf("AddLabel: %v", err)
	}
	if got := h.c.Calls(); got != 5 {
		t.Errorf("got %d API calls, want 5", got)
	}
	if got := h.srv.Calls(); got != 5 {
		t.Errorf("the fake counted %d API calls, want 5: %q", got, h.srv.CallLog())
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	h := setup(t)
	sticky := h.srv.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+"\nold", t0)
	h.srv.AddComment(owner, repo, 2, "alice", "User", "hello", t0)
	h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 2, Labels: []string{"loopbreaker:open"}})
	c := h.again(t, dryRun)
	ctx := context.Background()

	steps := []struct {
		name string
		run  func() error
	}{
		{"add", func() error {
			return c.AddLabel(ctx, 1, LabelSpec{Name: "loopbreaker:open", Color: "b60205", Description: "stuck"})
		}},
		{"remove", func() error { return c.RemoveLabel(ctx, 2, "loopbreaker:open") }},
		{"upsert known", func() error {
			id, err := c.UpsertComment(ctx, 1, sticky, Sticky{Marker: marker}, "new")
			if err == nil && id != sticky {
				err = errors.New("wrong id")
			}
			return err
		}},
		{"upsert found", func() error {
			id, err := c.UpsertComment(ctx, 1, 0, Sticky{Marker: marker}, "new")
			if err == nil && id != sticky {
				err = errors.New("wrong id")
			}
			return err
		}},
		{"upsert new", func() error {
			id, err := c.UpsertComment(ctx, 2, 0, Sticky{Marker: marker}, "new")
			if err == nil && id != 0 {
				err = errors.New("got an id for a comment never made")
			}
			return err
		}},
		{"status", func() error { return c.SetStatus(ctx, head, "failure", "OPEN", "") }},
		{"check", func() error { return c.CreateCheckRun(ctx, head, "failure", "OPEN", "summary") }},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	for _, m := range []string{"POST", "PATCH", "PUT", "DELETE"} {
		if n := h.srv.CallsTo(m, "/"); n != 0 {
			t.Errorf("got %d %s calls in a dry run, want 0", n, m)
		}
	}
	want := []string{
		`add label "loopbreaker:open" to #1 (created with colour #b60205 when the repository lacks it)`,
		`remove label "loopbreaker:open" from #2`,
		"edit comment " + strconv.FormatInt(sticky, 10) + " on #1 (31 characters)",
		"edit comment " + strconv.FormatInt(sticky, 10) + " on #1 (31 characters)",
		"create a comment on #2 (31 characters)",
		`set commit status "loopbreaker" of ` + head + ` to failure: "OPEN"`,
		`create check run "loopbreaker" on ` + head + `: failure, "OPEN"`,
	}
	if diff := cmp.Diff(want, c.Planned()); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if got := h.srv.Comments(owner, repo, 1); len(got) != 1 || !strings.HasSuffix(got[0].Body, "old") {
		t.Errorf("got comments %+v, want the old one untouched", got)
	}
	if got := h.srv.IssueLabels(owner, repo, 2); len(got) != 1 {
		t.Errorf("got labels %v on #2, want the label kept", got)
	}
}
