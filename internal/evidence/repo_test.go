package evidence_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/policy"
)

// t0 is the time of a loop repository's first commit; each commit is ten
// minutes after the one before.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// missing is a commit hash no test repository holds.
const missing = "0123456789abcdef0123456789abcdef01234567"

// loopRepo is a loop's repository, built commit by commit with go-git in
// a temporary directory.
type loopRepo struct {
	t   *testing.T
	dir string
	g   *git.Repository
	wt  *git.Worktree
	at  time.Time
}

func newLoopRepo(t *testing.T) *loopRepo {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatalf("init %s: %v", dir, err)
	}
	wt, err := g.Worktree()
	if err != nil {
		t.Fatalf("worktree of %s: %v", dir, err)
	}
	return &loopRepo{t: t, dir: dir, g: g, wt: wt, at: t0}
}

// write stages a file with the content.
func (r *loopRepo) write(path, content string) *loopRepo {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.wt.Add(path); err != nil {
		r.t.Fatalf("add %s: %v", path, err)
	}
	return r
}

// remove stages the deletion of a file.
func (r *loopRepo) remove(path string) *loopRepo {
	r.t.Helper()
	if _, err := r.wt.Remove(path); err != nil {
		r.t.Fatalf("remove %s: %v", path, err)
	}
	return r
}

// plan writes fix_plan.md with total tasks, the first done of them checked.
func (r *loopRepo) plan(done, total int) *loopRepo {
	var b strings.Builder
	b.WriteString("# Plan\n\n")
	for i := range total {
		box := " "
		if i < done {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] task %d\n", box, i+1)
	}
	return r.write("fix_plan.md", b.String())
}

// commit commits what is staged (possibly nothing) at the repository's
// clock and moves the clock on; it returns the full hash.
func (r *loopRepo) commit(msg string) string {
	r.t.Helper()
	sig := &object.Signature{Name: "loop", Email: "loop@example.com", When: r.at}
	h, err := r.wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		r.t.Fatalf("commit %q: %v", msg, err)
	}
	r.at = r.at.Add(10 * time.Minute)
	return h.String()
}

// blob returns the hash of the staged content of path.
func (r *loopRepo) blob(path string) string {
	r.t.Helper()
	idx, err := r.g.Storer.Index()
	if err != nil {
		r.t.Fatal(err)
	}
	e, err := idx.Entry(path)
	if err != nil {
		r.t.Fatalf("index entry %s: %v", path, err)
	}
	return e.Hash.String()
}

// open opens the repository for reading.
func (r *loopRepo) open() *gitlog.Repo {
	r.t.Helper()
	repo, err := gitlog.Open(r.dir)
	if err != nil {
		r.t.Fatalf("open %s: %v", r.dir, err)
	}
	r.t.Cleanup(func() { repo.Close() })
	return repo
}

// options are the default policy's path sets, with base as the base.
func options(t *testing.T, base string) gitlog.Options {
	t.Helper()
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	o, err := evidence.GitOptions(p, base)
	if err != nil {
		t.Fatalf("GitOptions: %v", err)
	}
	return o
}

func intp(v int) *int { return &v }

// deref shows a count that may be unknown.
func deref(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}
