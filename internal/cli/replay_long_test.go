package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestReplayOfALongLoop: replay marks where the breaker opened and the
// iterations that ran while it was OPEN, and shows each commit's short
// subject, escaped for markdown.
func TestReplayOfALongLoop(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	at := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 6; i++ {
		at = at.Add(time.Minute)
		sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: at}
		msg := "chore: idle tick | <b>" + strings.Repeat("x", i) + "</b> and a subject much longer than fifty characters"
		if _, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
			t.Fatal(err)
		}
	}
	_, text, _ := call(at, nil, "replay", "--repo", dir, "--base", "HEAD~6")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) < 6 {
		t.Fatalf("replay:\n%s", text)
	}
	if !strings.Contains(lines[2], "OPENED here: no_progress") || strings.Count(text, "OPENED here") != 1 {
		t.Errorf("the third iteration should be where it opened, once:\n%s", text)
	}
	for _, l := range lines[3:6] {
		if !strings.Contains(l, "ran while OPEN (ignored)") || strings.Contains(l, "no progress in") {
			t.Errorf("an iteration after the trip is not marked as run while OPEN: %q", l)
		}
	}
	if !strings.Contains(lines[0], `"chore: idle tick | <b></b> and a subject much lon…"`) {
		t.Errorf("text line without its short subject: %q", lines[0])
	}
	_, md, _ := call(at, nil, "replay", "--repo", dir, "--base", "HEAD~6", "--format", "markdown")
	if !strings.Contains(md, "| chore: idle tick \\| &lt;b&gt;x&lt;/b&gt; and a subject much lo… |") || strings.Contains(md, "<b>") {
		t.Errorf("markdown subject not escaped or not cut:\n%s", md)
	}
	if !strings.Contains(md, "| OPENED here: no\\_progress") || !strings.Contains(md, "| ran while OPEN (ignored) |") {
		t.Errorf("markdown without the marks:\n%s", md)
	}
}
