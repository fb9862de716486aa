package gitlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// defaultOpts returns Options with the path lists of the built-in
// "default" policy (the one source of the default lists) and a base.
func defaultOpts(t testing.TB, base string) Options {
	t.Helper()
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatalf("policy.Builtin(default): %v", err)
	}
	compile := func(key string, list []string) *pathmatch.Set {
		set, err := pathmatch.Compile(list)
		if err != nil {
			t.Fatalf("default policy %s: %v", key, err)
		}
		return set
	}
	return Options{
		Base:           base,
		IgnorePaths:    compile("ignore_paths", p.Progress.IgnorePaths),
		TestPaths:      compile("test_paths", p.Progress.TestPaths),
		TestDataPaths:  compile("test_data_paths", p.Progress.TestDataPaths),
		NotesPaths:     compile("notes_paths", p.Progress.NotesPaths),
		DocPaths:       compile("doc_paths", p.Progress.DocPaths),
		TaskFiles:      compile("task_files", p.Progress.TaskFiles),
		ProtectedPaths: compile("protected_paths", p.Rules.ProtectedPath.ProtectedPaths),
	}
}

// hashes returns the commits' hashes, oldest first.
func hashes(cs []Commit) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Hash
	}
	return out
}

func hs(hs ...plumbing.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

func history(t *testing.T, r *testRepo, opts Options) *History {
	t.Helper()
	h, err := r.open().History(opts)
	if err != nil {
		t.Fatalf("History(base %q): %v", opts.Base, err)
	}
	return h
}

func TestHistoryLinear(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("main.go", "package main\n").commit("init\n")
	c2 := r.write("main.go", "package main\n\nfunc main() {}\n").commit("add main\n\nLoop-Phase: GREEN\n")
	c3 := r.write("main_test.go", "package main\n").commit("add test\n")

	h := history(t, r, defaultOpts(t, c1.String()))
	if diff := cmp.Diff(hs(c2, c3), hashes(h.Commits)); diff != "" {
		t.Fatalf("commits (-want +got):\n%s", diff)
	}
	if h.Base != c1.String() || h.Head != c3.String() || h.Shallow || h.Truncated {
		t.Errorf("got base %s head %s shallow %v truncated %v, want base %s head %s, not shallow or truncated", h.Base, h.Head, h.Shallow, h.Truncated, c1, c3)
	}
	got := h.Commits[0]
	want := Commit{
		Hash:     c2.String(),
		Parents:  hs(c1),
		Author:   "Loop Agent",
		Email:    "agent@example.com",
		At:       t0.Add(time.Minute),
		AuthorAt: t0.Add(time.Minute),
		Message:  "add main\n\nLoop-Phase: GREEN\n",
		Subject:  "add main",
		Trailers: map[string][]string{"Loop-Phase": {"GREEN"}},
		Change: Change{
			Files: []FileChange{{
				Path: "main.go", Status: StatusModified, Added: 2, OldSize: 13, NewSize: 29, Meaningful: true,
			}},
			MeaningfulFiles: 1,
			MeaningfulLines: 2,
		},
	}
	if len(got.Tree) != 40 {
		t.Errorf("tree: got %q, want a 40-hex hash", got.Tree)
	}
	got.Tree = ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("commit 1 (-want +got):\n%s", diff)
	}
	if c := h.Commits[1].Change; c.TestLines != 1 || c.MeaningfulLines != 1 || !c.Files[0].Test {
		t.Errorf("commit 2: got test lines %d of %d (test %v), want 1 of 1 in a test file", c.TestLines, c.MeaningfulLines, c.Files[0].Test)
	}
	if len(h.Notes) != 0 {
		t.Errorf("notes: got %q, want none", h.Notes)
	}
}

func TestHistorySingleCommitNoDefaultBranch(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "one\ntwo\n").commit("root\n")
	h := history(t, r, defaultOpts(t, ""))
	if diff := cmp.Diff(hs(c1), hashes(h.Commits)); diff != "" {
		t.Fatalf("commits (-want +got):\n%s", diff)
	}
	if h.Base != "" {
		t.Errorf("base: got %q, want root", h.Base)
	}
	want := []FileChange{{Path: "a.txt", Status: StatusAdded, Added: 2, NewSize: 8, Meaningful: true}}
	if diff := cmp.Diff(want, h.Commits[0].Change.Files); diff != "" {
		t.Errorf("root diff against the empty tree (-want +got):\n%s", diff)
	}
	if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "no default branch") {
		t.Errorf("notes: got %q, want one saying there is no default branch", h.Notes)
	}
}

func TestHistoryEmptyRepository(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	h := history(t, r, defaultOpts(t, ""))
	if len(h.Commits) != 0 || h.Head != "" {
		t.Errorf("got %d commits, head %q, want none", len(h.Commits), h.Head)
	}
	if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "empty repository") {
		t.Errorf("notes: got %q, want one saying the repository is empty", h.Notes)
	}
}

func TestHistoryDefaultBranch(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").commit("init\n")
	c2 := r.write("a.txt", "b\n").commit("main moves on\n")
	r.ref("refs/heads/main", c2)
	r.setHead("refs/heads/loop")
	r.reset(c1)
	l1 := r.write("b.txt", "1\n").commit("loop 1\n")
	l2 := r.write("b.txt", "2\n").commit("loop 2\n")

	h := history(t, r, defaultOpts(t, ""))
	if diff := cmp.Diff(hs(l1, l2), hashes(h.Commits)); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	if h.Base != c1.String() || h.BaseRef != "main" {
		t.Errorf("got base %s from %q, want %s from main", h.Base, h.BaseRef, c1)
	}

	// origin/HEAD comes first.
	r.ref("refs/remotes/origin/main", l1)
	if err := r.st.SetReference(plumbing.NewSymbolicReference("refs/remotes/origin/HEAD", "refs/remotes/origin/main")); err != nil {
		t.Fatal(err)
	}
	h = history(t, r, defaultOpts(t, ""))
	if diff := cmp.Diff(hs(l2), hashes(h.Commits)); diff != "" {
		t.Errorf("with origin/HEAD: commits (-want +got):\n%s", diff)
	}
	if h.BaseRef != "origin/HEAD" {
		t.Errorf("with origin/HEAD: base ref got %q, want origin/HEAD", h.BaseRef)
	}

	// HEAD on the default branch: zero iterations and a note.
	r.setHead("refs/heads/main")
	if err := r.st.RemoveReference("refs/remotes/origin/HEAD"); err != nil {
		t.Fatal(err)
	}
	h = history(t, r, defaultOpts(t, ""))
	if len(h.Commits) != 0 || h.Base != c2.String() {
		t.Errorf("on main: got %d commits from base %s, want 0 from %s", len(h.Commits), h.Base, c2)
	}
	if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "HEAD is on the default branch main") {
		t.Errorf("on main: notes got %q, want one saying HEAD is on the default branch", h.Notes)
	}
}

// sideMerge builds c1, c2 on the loop branch, s1 on a side branch from c1,
// and m merging s1 into c2 (the loop branch's tip).
func sideMerge(t *testing.T) (r *testRepo, c1, c2, s1, m plumbing.Hash) {
	r = newTestRepo(t)
	c1 = r.write("a.txt", "a\n").commit("init\n")
	c2 = r.write("a.txt", "a\nb\n").commit("loop 1\n")
	r.reset(c1)
	s1 = r.write("side.txt", "x\ny\n").commit("side\n")
	r.reset(c2)
	r.write("side.txt", "x\ny\n")
	m = r.commitWithParents("Merge side\n", c2, s1)
	r.ref("refs/heads/loop", m)
	return r, c1, c2, s1, m
}

func TestHistoryMergeFirstParent(t *testing.T) {
	t.Parallel()
	r, c1, c2, s1, m := sideMerge(t)

	h := history(t, r, defaultOpts(t, c1.String()))
	if diff := cmp.Diff(hs(c2, m), hashes(h.Commits)); diff != "" {
		t.Fatalf("commits (-want +got):\n%s", diff)
	}
	merge := h.Commits[1]
	if diff := cmp.Diff(hs(c2, s1), merge.Parents); diff != "" {
		t.Errorf("merge parents (-want +got):\n%s", diff)
	}
	want := []FileChange{{Path: "side.txt", Status: StatusAdded, Added: 2, NewSize: 4, Meaningful: true}}
	if diff := cmp.Diff(want, merge.Change.Files); diff != "" {
		t.Errorf("merge diff against its first parent (-want +got):\n%s", diff)
	}

	// A base reached only through the merge's second parent: the walk
	// stops at the newest first-parent commit the base contains (c1).
	h = history(t, r, defaultOpts(t, s1.String()))
	if diff := cmp.Diff(hs(c2, m), hashes(h.Commits)); diff != "" {
		t.Errorf("base on the side branch: commits (-want +got):\n%s", diff)
	}
	if len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "not on HEAD's first-parent chain") {
		t.Errorf("base on the side branch: notes got %q, want one about the first-parent chain", h.Notes)
	}
}

func TestHistoryBaseErrors(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").commit("init\n")
	r.write("a.txt", "b\n").commit("loop\n")
	loop := r.head
	r.reset(c1)
	other := r.write("o.txt", "o\n").commit("elsewhere\n")
	r.ref("refs/heads/other", other)
	r.ref("refs/heads/loop", loop)
	repo := r.open()

	tests := []struct {
		name  string
		base  string
		is    error
		parts []string
	}{
		{"not an ancestor", "other", ErrNotAncestor, []string{`base "other"`, other.String(), "not an ancestor of HEAD", r.dir}},
		{"unknown name", "no-such-branch", ErrUnknownRevision, []string{`"no-such-branch"`, r.dir}},
		{"unknown hash", strings.Repeat("ab", 20), ErrUnknownRevision, []string{strings.Repeat("ab", 20), r.dir}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Sequential: a Repo is not safe for concurrent use.
			h, err := repo.History(defaultOpts(t, tt.base))
			if err == nil {
				t.Fatalf("History(base %q): got %d commits, want an error", tt.base, len(h.Commits))
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("History(base %q): got error %q, want it to wrap %q", tt.base, err, tt.is)
			}
			for _, p := range tt.parts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("History(base %q): got error %q, want it to contain %q", tt.base, err, p)
				}
			}
		})
	}
}

func TestHistoryDetachedHead(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "1\n").commit("one\n")
	c2 := r.write("a.txt", "2\n").commit("two\n")
	r.write("a.txt", "3\n").commit("three\n")
	r.detach(c2)
	h := history(t, r, defaultOpts(t, c1.String()))
	if diff := cmp.Diff(hs(c2), hashes(h.Commits)); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	if h.Head != c2.String() {
		t.Errorf("head: got %s, want %s", h.Head, c2)
	}
}

func TestHistoryBaseIsHead(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("a.txt", "1\n").commit("one\n")
	r.write("fix_plan.md", "- [x] a\n- [ ] b\n").commit("two\n")
	h := history(t, r, defaultOpts(t, "HEAD"))
	if len(h.Commits) != 0 {
		t.Errorf("got %d commits, want 0", len(h.Commits))
	}
	if diff := cmp.Diff(&Tasks{Done: 1, Total: 2}, h.BaseTasks); diff != "" {
		t.Errorf("base tasks (-want +got):\n%s", diff)
	}
}

func TestHistoryMaxCommits(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	var all []plumbing.Hash
	for i := range 5 {
		all = append(all, r.write("a.txt", strings.Repeat("x\n", i+1)).commit("c\n"))
	}
	o := defaultOpts(t, "")
	o.MaxCommits = 3
	h := history(t, r, o)
	if diff := cmp.Diff(hs(all[2:]...), hashes(h.Commits)); diff != "" {
		t.Errorf("commits (-want +got):\n%s", diff)
	}
	if !h.Truncated || !strings.Contains(strings.Join(h.Notes, "\n"), "only the newest 3") {
		t.Errorf("got truncated %v, notes %q, want truncated with a note", h.Truncated, h.Notes)
	}
	if c := h.Commits[0].Change.Files[0]; c.Added != 1 || c.Deleted != 0 {
		t.Errorf("oldest kept commit is diffed against its parent: got +%d -%d, want +1 -0", c.Added, c.Deleted)
	}
}

func TestHistoryShallow(t *testing.T) {
	t.Parallel()
	// c1 .. c5; the clone has c3 .. c5 (c3 is the shallow boundary).
	build := func(t *testing.T, keep bool) (*testRepo, []plumbing.Hash) {
		r := newTestRepo(t)
		var c []plumbing.Hash
		for i := range 5 {
			c = append(c, r.write("a.txt", strings.Repeat("line\n", i+1)).commit("c\n"))
		}
		if err := r.st.SetShallow([]plumbing.Hash{c[2]}); err != nil {
			t.Fatal(err)
		}
		r.removeObject(c[0])
		if !keep {
			r.removeObject(c[1])
		}
		return r, c
	}
	tests := []struct {
		name      string
		keepC2    bool
		base      func(c []plumbing.Hash) string
		want      func(c []plumbing.Hash) []string
		shallow   bool
		noteParts []string
	}{
		{
			name:      "default base, no branch",
			base:      func([]plumbing.Hash) string { return "" },
			want:      func(c []plumbing.Hash) []string { return hs(c[3], c[4]) },
			shallow:   true,
			noteParts: []string{"shallow clone: 2 of an unknown number of iterations visible", "fetch-depth: 0"},
		},
		{
			name:      "base beyond the boundary",
			base:      func(c []plumbing.Hash) string { return c[0].String() },
			want:      func(c []plumbing.Hash) []string { return hs(c[3], c[4]) },
			shallow:   true,
			noteParts: []string{"2 of an unknown number"},
		},
		{
			// The shallow file names c3, but c3's parent is present:
			// nothing is cut there.
			name:   "base is the listed commit's parent, which is present",
			keepC2: true,
			base:   func(c []plumbing.Hash) string { return c[1].String() },
			want:   func(c []plumbing.Hash) []string { return hs(c[2], c[3], c[4]) },
		},
		{
			name: "base is the boundary",
			base: func(c []plumbing.Hash) string { return c[2].String() },
			want: func(c []plumbing.Hash) []string { return hs(c[3], c[4]) },
		},
		{
			name: "base inside the clone",
			base: func(c []plumbing.Hash) string { return c[3].String() },
			want: func(c []plumbing.Hash) []string { return hs(c[4]) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, c := build(t, tt.keepC2)
			h := history(t, r, defaultOpts(t, tt.base(c)))
			if diff := cmp.Diff(tt.want(c), hashes(h.Commits)); diff != "" {
				t.Errorf("commits (-want +got):\n%s", diff)
			}
			if h.Shallow != tt.shallow {
				t.Errorf("shallow: got %v, want %v", h.Shallow, tt.shallow)
			}
			notes := strings.Join(h.Notes, "\n")
			for _, p := range tt.noteParts {
				if !strings.Contains(notes, p) {
					t.Errorf("notes: got %q, want them to contain %q", notes, p)
				}
			}
			if len(tt.noteParts) == 0 && len(h.Notes) != 0 {
				t.Errorf("notes: got %q, want none", notes)
			}
			if tt.shallow && strings.Count(notes, "shallow clone") != 1 {
				t.Errorf("notes: got %q, want the shallow clone said once", notes)
			}
			// The oldest visible iteration still has its true diff.
			if f := h.Commits[0].Change.Files; len(f) != 1 || f[0].Added != 1 {
				t.Errorf("oldest visible diff: got %+v, want a.txt +1", f)
			}
		})
	}

	t.Run("boundary commit info and missing objects", func(t *testing.T) {
		t.Parallel()
		r, c := build(t, false)
		repo := r.open()
		info, err := repo.CommitInfo(c[2].String(), defaultOpts(t, ""))
		if err != nil {
			t.Fatalf("CommitInfo(boundary): %v", err)
		}
		if !info.Shallow || len(info.Change.Files) != 0 {
			t.Errorf("CommitInfo(boundary): got shallow %v with %d files, want shallow with no change", info.Shallow, len(info.Change.Files))
		}
		_, err = repo.Diff(c[1].String(), c[4].String(), defaultOpts(t, ""))
		if err == nil || !errors.Is(err, ErrUnknownRevision) || !strings.Contains(err.Error(), c[1].String()) || !strings.Contains(err.Error(), r.dir) {
			t.Errorf("Diff from a missing commit: got %v, want an unknown-revision error naming %s and the repository", err, c[1])
		}
		// A default branch whose tip was not fetched.
		r.ref("refs/heads/main", c[0])
		h, err := repo.History(defaultOpts(t, ""))
		if err != nil {
			t.Fatalf("History with main beyond the boundary: %v", err)
		}
		if !h.Shallow || len(h.Commits) != 2 {
			t.Errorf("History with main beyond the boundary: got shallow %v, %d commits, want shallow, 2", h.Shallow, len(h.Commits))
		}
	})

	t.Run("depth one", func(t *testing.T) {
		t.Parallel()
		r := newTestRepo(t)
		c1 := r.write("a.txt", "1\n").commit("one\n")
		c2 := r.write("a.txt", "2\n").commit("two\n")
		if err := r.st.SetShallow([]plumbing.Hash{c2}); err != nil {
			t.Fatal(err)
		}
		r.removeObject(c1)
		h := history(t, r, defaultOpts(t, ""))
		if len(h.Commits) != 0 || !h.Shallow {
			t.Errorf("got %d commits, shallow %v, want 0 and shallow", len(h.Commits), h.Shallow)
		}
		if !strings.Contains(strings.Join(h.Notes, "\n"), "shallow clone: 0 of an unknown number of iterations visible") {
			t.Errorf("notes: got %q, want the visible count", h.Notes)
		}
	})
}

func TestHistoryMessages(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.go", "package a\n\nvar X = 1\n").commit("init\n")
	r.write("a.go", "package a\n\nvar X = 2\n").commit("feat: two\n\nBody text.\n\nLoop-Phase: GREEN\nloop-progress: 45%\nSigned-off-by: Agent <agent@example.com>\n")
	bad := r.head
	r.write("a.go", "package a\n\nvar X = 1\n").commit("Revert \"feat: two\"\n\nThis reverts commit " + bad.String() + ".\n")
	h := history(t, r, defaultOpts(t, c1.String()))
	if len(h.Commits) != 2 {
		t.Fatalf("got %d commits, want 2", len(h.Commits))
	}
	wantTrailers := map[string][]string{
		"Loop-Phase":    {"GREEN"},
		"Loop-Progress": {"45%"},
		"Signed-Off-By": {"Agent <agent@example.com>"},
	}
	if diff := cmp.Diff(wantTrailers, h.Commits[0].Trailers); diff != "" {
		t.Errorf("trailers (-want +got):\n%s", diff)
	}
	if h.Commits[0].Revert {
		t.Errorf("commit 1: got revert, want not")
	}
	rev := h.Commits[1]
	if !rev.Revert || rev.Reverts != bad.String() || rev.Subject != `Revert "feat: two"` {
		t.Errorf("revert commit: got revert %v of %q, subject %q, want a revert of %s", rev.Revert, rev.Reverts, rev.Subject, bad)
	}
	// The revert restores the tree of c1.
	c1info, err := r.open().CommitInfo(c1.String(), defaultOpts(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	if rev.Tree != c1info.Tree {
		t.Errorf("revert tree: got %s, want the tree of the first commit %s", rev.Tree, c1info.Tree)
	}
}

func TestHistoryTasks(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	base := r.write("main.go", "package main\n").commit("init\n")
	steps := []struct {
		msg  string
		edit func()
		want *Tasks
	}{
		{"no task file yet", func() { r.write("main.go", "package main\n\n") }, nil},
		{"plan", func() { r.write(".ralph/fix_plan.md", "# Plan\n- [ ] one\n- [ ] two\n- [ ] three\n") }, &Tasks{0, 3}},
		{"tick", func() { r.write(".ralph/fix_plan.md", "# Plan\n- [x] one\n- [ ] two\n- [ ] three\n") }, &Tasks{1, 3}},
		{"tick more", func() { r.write(".ralph/fix_plan.md", "# Plan\n- [x] one\n- [X] two\n- [ ] three\n") }, &Tasks{2, 3}},
		{"untick", func() { r.write(".ralph/fix_plan.md", "# Plan\n- [x] one\n- [ ] two\n- [ ] three\n") }, &Tasks{1, 3}},
		{"second list", func() { r.write("IMPLEMENTATION_PLAN.md", "1. [x] design\n2. [ ] build\n```\n- [ ] not a task\n```\n") }, &Tasks{2, 5}},
		{"move plan", func() { r.move(".ralph/fix_plan.md", "@fix_plan.md") }, &Tasks{2, 5}},
		{"unrelated edit", func() { r.write("main.go", "package main\n") }, &Tasks{2, 5}},
		{"delete lists", func() { r.remove("@fix_plan.md").remove("IMPLEMENTATION_PLAN.md") }, nil},
	}
	for _, s := range steps {
		s.edit()
		r.commit(s.msg + "\n")
	}
	h := history(t, r, defaultOpts(t, base.String()))
	if len(h.Commits) != len(steps) {
		t.Fatalf("got %d commits, want %d", len(h.Commits), len(steps))
	}
	repo := r.open()
	for i, s := range steps {
		if diff := cmp.Diff(s.want, h.Commits[i].Tasks); diff != "" {
			t.Errorf("after %q: tasks (-want +got):\n%s", s.msg, diff)
		}
		// The incremental count agrees with a full walk of the commit.
		info, err := repo.CommitInfo(h.Commits[i].Hash, defaultOpts(t, ""))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s.want, info.Tasks); diff != "" {
			t.Errorf("after %q: CommitInfo tasks (-want +got):\n%s", s.msg, diff)
		}
	}
	if h.BaseTasks != nil {
		t.Errorf("base tasks: got %+v, want nil", h.BaseTasks)
	}
	// No task sets: no counts.
	o := defaultOpts(t, base.String())
	o.TaskFiles = nil
	if got := history(t, r, o).Commits[2].Tasks; got != nil {
		t.Errorf("without task files: got %+v, want nil", got)
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").commit("init\n")
	sub := filepath.Join(r.dir, "deep", "er")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(sub)
	if err != nil {
		t.Fatalf("Open(subdirectory): %v", err)
	}
	defer repo.Close()
	if got, err := repo.Resolve("HEAD"); err != nil || got != c1.String() {
		t.Errorf("Resolve(HEAD) from a subdirectory: got %q, %v, want %s", got, err, c1)
	}

	empty := t.TempDir()
	missing := filepath.Join(empty, "nope")
	for _, dir := range []string{empty, missing} {
		_, err := Open(dir)
		if !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), "not a git repository: "+dir) {
			t.Errorf("Open(%s): got %v, want %q", dir, err, "not a git repository: "+dir)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").commit("one\n")
	c2 := r.write("a.txt", "b\n").commit("two\n")
	repo := r.open()
	tests := []struct {
		rev, want string
	}{
		{"HEAD", c2.String()},
		{"HEAD~1", c1.String()},
		{"loop", c2.String()},
		{c1.String()[:10], c1.String()},
		{c1.String(), c1.String()},
		{strings.ToUpper(c2.String()), c2.String()},
	}
	for _, tt := range tests {
		got, err := repo.Resolve(tt.rev)
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q): got %q, %v, want %s", tt.rev, got, err, tt.want)
		}
	}
	for _, rev := range []string{"", "HEAD~5", "nope", "HEAD@{upstream}", "^^^", "main..loop", strings.Repeat("ab", 20)} {
		got, err := repo.Resolve(rev)
		if err == nil {
			t.Errorf("Resolve(%q): got %q, want an error", rev, got)
			continue
		}
		if !strings.Contains(err.Error(), r.dir) {
			t.Errorf("Resolve(%q): got error %q, want it to name the repository", rev, err)
		}
	}
}

func TestHistoryNonUTF8Path(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("readme.txt", "hi\n").commit("init\n")
	name := "caf\xe9/men\xfc.txt"
	r.write(name, "a\nb\n").commit("latin-1 path\n")
	o := defaultOpts(t, c1.String())
	var err error
	if o.ProtectedPaths, err = pathmatch.Compile([]string{"caf\xe9/"}); err != nil {
		t.Fatal(err)
	}
	h := history(t, r, o)
	want := Change{
		Files:             []FileChange{{Path: name, Status: StatusAdded, Added: 2, NewSize: 4, Protected: true, Meaningful: true}},
		MeaningfulFiles:   1,
		MeaningfulLines:   2,
		ProtectedModified: []string{name},
	}
	if diff := cmp.Diff(want, h.Commits[0].Change); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
}

// TestHistoryMissingObject: a blob that is not in the repository (a
// partial clone, a copy without large files) does not stop the walk: its
// file counts as changed, a note names the commit and the object, and the
// task file whose blob is missing is left out with a note.
func TestHistoryMissingObject(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").write("fix_plan.md", "- [ ] one\n").commit("one\n")
	c2 := r.write("a.txt", "b\n").commit("two\n")
	blob := r.files["a.txt"].hash
	r.write("fix_plan.md", "- [x] one\n").commit("three\n")
	plan := r.files["fix_plan.md"].hash
	r.write("c.txt", "c\n").commit("four\n")
	r.removeObject(blob)
	r.removeObject(plan)
	h, err := r.open().History(defaultOpts(t, c1.String()))
	if err != nil {
		t.Fatalf("History with a missing blob: %v", err)
	}
	if len(h.Commits) != 3 {
		t.Fatalf("got %d commits, want 3", len(h.Commits))
	}
	ch := h.Commits[0].Change
	want := []FileChange{{Path: "a.txt", Status: StatusModified, OldSize: 2, Unreadable: true, Meaningful: true}}
	if diff := cmp.Diff(want, ch.Files); diff != "" {
		t.Errorf("commit two (-want +got):\n%s", diff)
	}
	if ch.MeaningfulFiles != 1 {
		t.Errorf("commit two: got %d meaningful files, want the unreadable file counted", ch.MeaningfulFiles)
	}
	notes := strings.Join(h.Notes, "\n")
	for _, part := range []string{textcut.Hash(c2.String()), blob.String(), "a.txt", plan.String(), "fix_plan.md"} {
		if !strings.Contains(notes, part) {
			t.Errorf("notes %q: want them to name %s", h.Notes, part)
		}
	}
	// The next commit's diff reads the missing blob as its old side.
	if f := h.Commits[1].Change.Files; len(f) != 1 || !f[0].Unreadable {
		t.Errorf("commit three: got %+v, want fix_plan.md changed, its new blob unreadable", f)
	}
}

// TestHistoryTooDeep: a directory nested deeper than the diff descends is
// one changed path with a note, not an error.
func TestHistoryTooDeep(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").commit("one\n")
	deep := strings.Repeat("d/", maxTreeDepth+5) + "x.txt"
	c2 := r.write(deep, "x\n").commit("deep\n")
	h, err := r.open().History(defaultOpts(t, c1.String()))
	if err != nil {
		t.Fatalf("History with a deep tree: %v", err)
	}
	ch := h.Commits[0].Change
	if ch.MeaningfulFiles != 1 || len(ch.Files) != 1 || !ch.Files[0].Unreadable || !strings.HasPrefix(deep, ch.Files[0].Path) {
		t.Errorf("got %+v, want one unreadable change for a directory on the path to %s", ch.Files, deep)
	}
	if notes := strings.Join(h.Notes, "\n"); !strings.Contains(notes, textcut.Hash(c2.String())) || !strings.Contains(notes, "deeper than") {
		t.Errorf("notes %q: want one naming %s and the depth", h.Notes, textcut.Hash(c2.String()))
	}
}

func TestCommitInfoRootAndMerge(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("a.txt", "a\n").commit("root\n")
	c2 := r.write("a.txt", "a\nb\n").commit("two\n")
	r.reset(c1)
	s1 := r.write("s.txt", "s\n").commit("side\n")
	r.reset(c2)
	r.write("s.txt", "s\n")
	m := r.commitWithParents("merge\n", c2, s1)
	repo := r.open()
	o := defaultOpts(t, "")
	root, err := repo.CommitInfo(c1.String(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(root.Parents) != 0 || len(root.Change.Files) != 1 || root.Change.Files[0].Status != StatusAdded {
		t.Errorf("root: got parents %v, files %+v, want none and a.txt added", root.Parents, root.Change.Files)
	}
	merge, err := repo.CommitInfo(m.String()[:12], o)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{{Path: "s.txt", Status: StatusAdded, Added: 1, NewSize: 2, Meaningful: true}}
	if diff := cmp.Diff(want, merge.Change.Files); diff != "" {
		t.Errorf("merge against its first parent (-want +got):\n%s", diff)
	}
	if _, err := repo.CommitInfo("no-such-rev", o); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("CommitInfo(no-such-rev): got %v, want an error naming the revision", err)
	}
}

// TestHistoryChainOnly: ChainOnly walks the same chain and describes the
// same commits as a full History, without their evidence; both report the
// base's tree.
func TestHistoryChainOnly(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("main.go", "package main\n").write("fix_plan.md", "- [ ] one\n").commit("init\n")
	r.write("main.go", "package main\n\nfunc main() {}\n").commit("add main\n\nLoop-Phase: GREEN\n")
	r.write("fix_plan.md", "- [x] one\n").commit("tick\n")
	full := history(t, r, defaultOpts(t, c1.String()))
	opts := defaultOpts(t, c1.String())
	opts.ChainOnly = true
	chain := history(t, r, opts)

	if diff := cmp.Diff(hashes(full.Commits), hashes(chain.Commits)); diff != "" {
		t.Errorf("commits (-full +chain only):\n%s", diff)
	}
	c, err := r.open().CommitInfo(c1.String(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]*History{"full": full, "chain only": chain} {
		if h.BaseTree != c.Tree || h.Base != c1.String() {
			t.Errorf("%s: got base %s tree %s, want %s tree %s", name, h.Base, h.BaseTree, c1, c.Tree)
		}
	}
	for i, cm := range chain.Commits {
		want := full.Commits[i]
		want.Change, want.Tasks, want.TaskChange, want.CurrentTask = Change{}, nil, nil, nil
		if diff := cmp.Diff(want, cm); diff != "" {
			t.Errorf("commit %d (-want +got):\n%s", i, diff)
		}
	}
	if chain.BaseTasks != nil || full.BaseTasks == nil || full.Commits[1].Tasks == nil || len(full.Commits[0].Change.Files) == 0 {
		t.Errorf("got base tasks %v (chain only) and %v (full), want nil and counted", chain.BaseTasks, full.BaseTasks)
	}
	root := history(t, r, defaultOpts(t, ""))
	if root.BaseTree != "" {
		t.Errorf("history from the root: got base tree %q, want none", root.BaseTree)
	}
}

// TestDescribe: Describe is CommitInfo without the change and the tasks.
func TestDescribe(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("main.go", "package main\n").write("docs/fix_plan.md", "- [ ] one\n- [ ] two\n").commit("init\n")
	c2 := r.write("docs/fix_plan.md", "- [x] one\n- [ ] two\n").write("main.go", "package main\n\nfunc main() {}\n").commit("tick\n\nLoop-Phase: RED\n")
	c3 := r.remove("docs/fix_plan.md").commit("drop the plan\n")
	repo := r.open()
	opts := defaultOpts(t, "")
	for _, rev := range []string{c1.String(), c2.String(), c3.String(), "HEAD~1"} {
		info, err := repo.CommitInfo(rev, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := repo.Describe(rev)
		if err != nil {
			t.Fatalf("Describe(%s): %v", rev, err)
		}
		want := *info
		want.Change, want.Tasks, want.TaskChange = Change{}, nil, nil
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("Describe(%s) (-want +got):\n%s", rev, diff)
		}
	}
	if info, _ := repo.CommitInfo(c2.String(), opts); info == nil || info.Tasks == nil || *info.Tasks != (Tasks{Done: 1, Total: 2}) {
		t.Errorf("CommitInfo(c2): got %v, want 1 of 2 tasks done", info)
	}
	for _, rev := range []string{"nope", strings.Repeat("cd", 20)} {
		if _, err := repo.Describe(rev); err == nil || !strings.Contains(err.Error(), r.dir) {
			t.Errorf("Describe(%q): got %v, want an error naming the repository", rev, err)
		}
		if _, err := repo.CommitInfo(rev, opts); err == nil {
			t.Errorf("CommitInfo(%q): got no error", rev)
		}
	}
}

// TestResolveAncestry: revisions that walk back through parents ("~n",
// "^n", in any sequence) resolve to what go-git's resolver answers, and
// those it cannot follow fail as they did.
func TestResolveAncestry(t *testing.T) {
	t.Parallel()
	r, _, c2, s1, _ := sideMerge(t)
	r.write("a.txt", "4\n").commit("four\n")
	repo := r.open()
	revs := []string{"HEAD~", "HEAD~1", "HEAD^", "HEAD^^", "HEAD~2", "HEAD~1^2", "HEAD^1^2", "HEAD~1^2~1", "HEAD^0", "HEAD~0",
		"loop~2~1", "HEAD~1^1", "HEAD~3", "HEAD~1^3", "HEAD~9", "HEAD^2", c2.String()[:10] + "~1", "nope~1", "HEAD~1^{commit}"}
	for _, rev := range revs {
		got, err := repo.Resolve(rev)
		want, werr := repo.git.ResolveRevision(plumbing.Revision(rev))
		switch {
		case werr != nil && err == nil:
			t.Errorf("Resolve(%q): got %s, want an error as go-git's (%v)", rev, got, werr)
		case werr == nil && (err != nil || got != want.String()):
			t.Errorf("Resolve(%q): got %q, %v, want %s", rev, got, err, want)
		}
	}
	if got, _ := repo.Resolve("HEAD~1^2"); got != s1.String() {
		t.Errorf("Resolve(HEAD~1^2): got %s, want the merged side %s", got, s1)
	}
}
