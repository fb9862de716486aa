package checkout

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/loopbreaker/loopbreaker/internal/checkout/checkouttest"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

const token = "ghs_test_token"

// origin makes root/origin, a repository of n commits on main, and returns
// their hashes, oldest first.
func origin(t *testing.T, root string, n int) []string {
	t.Helper()
	dir := filepath.Join(root, "origin")
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	var out []string
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(fmt.Sprintf("step %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add("f.txt"); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "a", Email: "a@example.com", When: t0.Add(time.Duration(i) * time.Minute)}
		h, err := wt.Commit(fmt.Sprintf("step %d", i), &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.String())
	}
	return out
}

// shallowClone clones url at depth 1, as actions/checkout does by default.
func shallowClone(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	_, err := git.PlainClone(dir, false, &git.CloneOptions{URL: url, Depth: 1, Auth: &githttp.BasicAuth{Username: "x-access-token", Password: token}})
	if err != nil {
		t.Fatalf("shallow clone: %v", err)
	}
	return dir
}

// TestUnshallowWithTheToken: a depth-1 clone is deepened over smart HTTP
// with the token; afterwards the whole history is there and .git/shallow
// is gone (go-git alone would leave the old boundary in it).
func TestUnshallowWithTheToken(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	commits := origin(t, root, 5)
	url := checkouttest.Serve(t, root, token) + "/origin/.git"
	ws := shallowClone(t, url)
	c, err := Open(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	head := commits[4]
	if !c.Shallow() || c.Has(commits[3]) {
		t.Fatalf("the clone is not shallow: shallow %v, has the parent %v", c.Shallow(), c.Has(commits[3]))
	}
	if cut, err := c.Cut(head, commits[0]); err != nil || !cut {
		t.Fatalf("Cut before deepening: got %v, %v, want true", cut, err)
	}
	parents, err := c.Parents(head)
	if err != nil || len(parents) != 1 || parents[0] != commits[3] {
		t.Errorf("parents of the boundary: got %v, %v, want %s", parents, err, commits[3])
	}

	err = c.Fetch(context.Background(), url, "wrong-token", []string{"+refs/heads/master:refs/remotes/origin/master"}, Unshallow)
	if err == nil || strings.Contains(err.Error(), "wrong-token") {
		t.Fatalf("fetch with a bad token: got %v, want an error without the token", err)
	}
	if err := c.Fetch(context.Background(), url, token, []string{"+refs/heads/master:refs/remotes/origin/master"}, Unshallow); err != nil {
		t.Fatalf("unshallow: %v", err)
	}
	if c.Shallow() {
		t.Error("the clone is still shallow")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "shallow")); !os.IsNotExist(err) {
		t.Errorf(".git/shallow is still there: %v", err)
	}
	chain, err := c.Chain(head, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range commits {
		if !chain.Has(h) {
			t.Errorf("after deepening, %.12s is not on the head's chain", h)
		}
	}
	if cut, err := c.Cut(head, commits[0]); err != nil || cut {
		t.Errorf("Cut after deepening: got %v, %v, want false", cut, err)
	}
	if mb, err := c.MergeBase(head, commits[2]); err != nil || mb != commits[2] {
		t.Errorf("merge base: got %s, %v, want %s", mb, err, commits[2])
	}
}

// TestFetchOfAMissingRefIsAnError: an unknown ref names itself.
func TestFetchOfAMissingRefIsAnError(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	origin(t, root, 2)
	url := checkouttest.Serve(t, root, token) + "/origin/.git"
	c, err := Open(shallowClone(t, url))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Fetch(context.Background(), url, token, []string{"+refs/pull/9/head:refs/remotes/pull/9/head"}, 0)
	if !errors.Is(err, git.NoMatchingRefSpecError{}) || !strings.Contains(err.Error(), "refs/pull/9/head") {
		t.Errorf("got %v, want a missing-ref error naming it", err)
	}
}

func TestAuthOnlyForHTTPAndRedact(t *testing.T) {
	t.Parallel()
	if Auth("https://github.com/o/r.git", "tok") == nil {
		t.Error("no auth for an https remote")
	}
	for _, u := range []string{"/local/path", "file:///x", "git@github.com:o/r.git", "ssh://git@github.com/o/r"} {
		if Auth(u, "tok") != nil {
			t.Errorf("the token was set up for %s", u)
		}
	}
	if Auth("https://github.com/o/r.git", "") != nil {
		t.Error("auth without a token")
	}
	got := Redact(`Get "https://x-access-token:ghs_secret@github.com/o/r.git/info/refs": dial tcp`)
	if strings.Contains(got, "ghs_secret") {
		t.Errorf("got %q", got)
	}
}

// TestViewReadsAnotherCommit: a view's HEAD is the commit asked for; the
// clone's HEAD and work tree stay.
func TestViewReadsAnotherCommit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	commits := origin(t, root, 3)
	c, err := Open(filepath.Join(root, "origin"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := c.View(commits[0])
	if err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := r.Head(); err != nil || h.Hash() != plumbing.NewHash(commits[0]) {
		t.Errorf("view HEAD: got %v, %v, want %s", h, err, commits[0])
	}
	if h, _ := c.Head(); h != commits[2] {
		t.Errorf("the clone's HEAD moved to %s", h)
	}
	chain, err := c.Chain(commits[2], commits[1])
	if err != nil {
		t.Fatal(err)
	}
	if !chain.Has(commits[2]) || !chain.Has(commits[1]) || chain.Has(commits[0]) {
		t.Error("the chain back to the second commit does not hold exactly the last two")
	}
	if back, _ := c.Chain(commits[0], ""); back.Has(commits[2]) {
		t.Error("a chain holds a commit made after its head")
	}
	c.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Close left the view: %v", err)
	}
}
