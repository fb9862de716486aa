package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

func TestMain(m *testing.M) {
	// Local remotes are served in-process, so that the tests need no git
	// binary (go-git's file transport would run git-upload-pack).
	client.InstallProtocol("file", server.DefaultServer)
	os.Exit(m.Run())
}

// origin is a repository standing in for GitHub's git side: main, and
// refs/pull/N/head for each pull request (no branch holds them, as for a
// fork's pull request).
type origin struct {
	dir   string
	repo  *git.Repository
	base  string
	heads map[int]string
}

// pullSteps are a pull request's commits: the files each one writes (nil:
// an empty commit).
type pullSteps []map[string]string

func newOrigin(t testing.TB, pulls map[int]pullSteps) *origin {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	o := &origin{dir: dir, repo: r, heads: map[int]string{}}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	step := 0
	commit := func(files map[string]string) string {
		t.Helper()
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(name); err != nil {
				t.Fatal(err)
			}
		}
		step++
		sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: t0.Add(time.Duration(step) * 10 * time.Minute)}
		h, err := wt.Commit(fmt.Sprintf("step %d", step), &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	o.base = commit(map[string]string{"main.go": "package main\n"})
	for n := 1; n <= len(pulls)+100 && len(o.heads) < len(pulls); n++ {
		steps, ok := pulls[n]
		if !ok {
			continue
		}
		branch := plumbing.NewBranchReferenceName(fmt.Sprintf("pr-%d", n))
		if err := wt.Checkout(&git.CheckoutOptions{Branch: branch, Create: true, Hash: plumbing.NewHash(o.base)}); err != nil {
			t.Fatal(err)
		}
		head := o.base
		for _, s := range steps {
			head = commit(s)
		}
		o.heads[n] = head
		if err := r.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(fmt.Sprintf("refs/pull/%d/head", n)), plumbing.NewHash(head))); err != nil {
			t.Fatal(err)
		}
		if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.Master}); err != nil {
			t.Fatal(err)
		}
		if err := r.Storer.RemoveReference(branch); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// url is the origin's git directory, served in-process.
func (o *origin) url() string { return filepath.Join(o.dir, ".git") }

// clone makes the workspace: a clone of the origin's default branch only.
func (o *origin) clone(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := git.PlainClone(dir, false, &git.CloneOptions{URL: o.url()}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cloneOf makes the audit read commits from a fresh clone of o, closed
// when the test ends.
func (e *env) cloneOf(o *origin) {
	e.t.Helper()
	c, err := OpenClone(o.clone(e.t), o.url(), "")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { c.Close() })
	e.opts.Clone = c
}

func (e *env) gitPull(o *origin, n int, edit ...func(*fakegithub.Pull)) fakegithub.Pull {
	return e.pull(n, 0, append([]func(*fakegithub.Pull){func(p *fakegithub.Pull) {
		p.HeadSHA, p.BaseSHA = o.heads[n], o.base
	}}, edit...)...)
}

func TestCommitsFromTheClone(t *testing.T) {
	t.Parallel()
	o := newOrigin(t, map[int]pullSteps{
		1: {{"a.go": "package main\n// a\n"}, nil, nil, nil},                                    // stuck: empty commits
		2: {{"a.go": "package main\n"}, {"b.go": "package main\n"}, {"c.go": "package main\n"}}, // steady
		3: {{"package-lock.json": "{}"}, {"package-lock.json": "{\"a\":1}"}, {"package-lock.json": "{\"a\":2}"}, {"package-lock.json": "{}\n"}},
		4: {{"d.go": "package main\n"}}, // a fork's pull request
	})
	ws := o.clone(t)
	wsRepo, _ := git.PlainOpen(ws)
	headBefore, _ := wsRepo.Head()

	e := newHTTPEnv(t)
	for n := 1; n <= 4; n++ {
		e.gitPull(o, n, func(p *fakegithub.Pull) { p.Fork = n == 4 })
	}
	// #5's ref is not on the remote: its commits come from the API.
	e.pull(5, 2)
	c, err := OpenClone(ws, o.url(), "secret-token")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e.opts.Clone = c
	res := e.run()
	want := map[int]string{1: "OPEN", 2: "CLOSED", 3: "OPEN", 4: "CLOSED", 5: "CLOSED"}
	for n, w := range want {
		if got := stateOf(res, n); got != w {
			t.Errorf("#%d: got %s, want %s", n, got, w)
		}
	}
	for n := 1; n <= 4; n++ {
		if p := find(res, n); p == nil || p.Evidence != "git" {
			t.Errorf("#%d: evidence %q, want git", n, p.Evidence)
		}
	}
	if p := find(res, 5); !strings.HasPrefix(p.Evidence, "api") || !strings.Contains(strings.Join(p.Notes, "\n"), "refs/pull/5/head is not on the remote") {
		t.Errorf("#5: got evidence %q and notes %q, want the API and why", p.Evidence, p.Notes)
	}
	if p := find(res, 3); p.Trigger != "no_progress" {
		t.Errorf("#3 (lock file churn): got trigger %q, want no_progress", p.Trigger)
	}
	// No commit list was asked for the pull requests read from git.
	for n := 1; n <= 4; n++ {
		if k := e.fake.CallsTo("GET", fmt.Sprintf("/repos/octo/loop/pulls/%d/", n)); k != 0 {
			t.Errorf("#%d: got %d pull request calls, want none", n, k)
		}
	}
	for n := 1; n <= 4; n++ {
		ref, err := wsRepo.Reference(plumbing.ReferenceName(fmt.Sprintf("%s%d", RefPrefix, n)), false)
		if err != nil || ref.Hash().String() != o.heads[n] {
			t.Errorf("#%d: got ref %v (%v), want %s", n, ref, err, o.heads[n])
		}
	}
	if h, _ := wsRepo.Head(); h.Hash() != headBefore.Hash() || h.Name() != headBefore.Name() {
		t.Errorf("the workspace HEAD moved from %v to %v", headBefore, h)
	}
	if cfg, _ := wsRepo.Config(); len(cfg.Remotes) != 1 {
		t.Errorf("the workspace gained remotes: %v", cfg.Remotes)
	}
	// A second run fetches nothing: the heads are in the clone.
	c2, err := OpenClone(ws, "/nonexistent/remote", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	e.opts.Clone = c2
	again := e.run()
	if got := stateOf(again, 1); got != "OPEN" || find(again, 1).Evidence != "git" {
		t.Errorf("second run: #1 got %s from %s, want OPEN from git without fetching", got, find(again, 1).Evidence)
	}
}

func TestCloneWithLedgerAndHeadPushedAfterTheLastRun(t *testing.T) {
	t.Parallel()
	o := newOrigin(t, map[int]pullSteps{
		1: {{"a.go": "package main\n// 1\n"}},
		2: {{"a.go": "package main\n// 1\n"}, {"b.go": "package main\n"}},
	})
	e := newHTTPEnv(t)
	// Both loops ran four times on their first commit; #2 then pushed a
	// second commit that no run judged yet.
	e.gitPull(o, 1)
	e.gitPull(o, 2)
	first := func(n int) string {
		r, _ := git.PlainOpen(o.dir)
		c, _ := r.CommitObject(plumbing.NewHash(o.heads[n]))
		for c.NumParents() > 0 && c.ParentHashes[0].String() != o.base {
			c, _ = c.Parent(0)
		}
		return c.Hash.String()
	}
	for n := 1; n <= 2; n++ {
		e.stickyComment(n, stuckRecords(first(n), 4), t0.Add(5*time.Hour))
	}
	e.cloneOf(o)
	res := e.run()
	if got := stateOf(res, 1); got != "OPEN" {
		t.Errorf("#1: got %s, want OPEN", got)
	}
	// #2 opened at its fourth run; the later commit does not reset it, but
	// it is an iteration (the fifth).
	p2 := find(res, 2)
	if p2 == nil || p2.State != breaker.Open || p2.Iterations != 5 {
		t.Errorf("#2: got %+v, want OPEN after 5 iterations", p2)
	}
}

func TestOpenCloneFindsTheGitDirectory(t *testing.T) {
	t.Parallel()
	o := newOrigin(t, map[int]pullSteps{1: {{"a.go": "x"}}})
	ws := o.clone(t)
	sub := filepath.Join(ws, "sub")
	os.MkdirAll(sub, 0o755)
	for _, dir := range []string{ws, sub, o.url()} {
		c, err := OpenClone(dir, "", "")
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		if dir != o.url() && c.url != o.url() {
			t.Errorf("%s: got fetch URL %q, want the origin remote %q", dir, c.url, o.url())
		}
	}
	if _, err := OpenClone(t.TempDir(), "", ""); err == nil {
		t.Error("a directory outside any repository was accepted")
	}
}
