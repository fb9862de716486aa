package evidence_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/policy"
)

func TestGitOptions(t *testing.T) {
	t.Parallel()
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	o, err := evidence.GitOptions(p, "main", "ci/loop.toml")
	if err != nil {
		t.Fatalf("GitOptions: %v", err)
	}
	if o.Base != "main" {
		t.Errorf("got base %q, want main", o.Base)
	}
	for _, c := range []struct {
		set  *pathmatch.Set
		name string
		path string
		want bool
	}{
		{o.ProtectedPaths, "protected", "ci/loop.toml", true},
		{o.ProtectedPaths, "protected", "AGENTS.md", true},
		{o.ProtectedPaths, "protected", "src/main.go", false},
		{o.TaskFiles, "task files", "fix_plan.md", true},
		{o.TestPaths, "test paths", "pkg/x_test.go", true},
		{o.TestDataPaths, "test data", "pkg/testdata/in.txt", true},
		{o.DocPaths, "doc paths", "README.md", true},
		{o.NotesPaths, "notes", "NOTES.md", true},
		{o.IgnorePaths, "ignored", "go.sum", true},
	} {
		if got := c.set.Match(c.path); got != c.want {
			t.Errorf("%s match %s: got %v, want %v", c.name, c.path, got, c.want)
		}
	}
	// The extra path is added to a copy: the policy keeps its own list.
	for _, q := range p.Rules.ProtectedPath.ProtectedPaths {
		if q == "ci/loop.toml" {
			t.Errorf("GitOptions added %s to the policy's own protected paths", q)
		}
	}
}

func TestGitOptionsBadPatternNamesTheKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key string
		set func(p *policy.Policy)
	}{
		{"progress.ignore_paths", func(p *policy.Policy) { p.Progress.IgnorePaths = []string{"vendor/", ""} }},
		{"progress.test_paths", func(p *policy.Policy) { p.Progress.TestPaths = []string{"!"} }},
		{"progress.test_data_paths", func(p *policy.Policy) { p.Progress.TestDataPaths = []string{"/"} }},
		{"progress.notes_paths", func(p *policy.Policy) { p.Progress.NotesPaths = []string{" "} }},
		{"progress.doc_paths", func(p *policy.Policy) { p.Progress.DocPaths = []string{""} }},
		{"progress.task_files", func(p *policy.Policy) { p.Progress.TaskFiles = []string{""} }},
		{"rules.protected_path.protected_paths", func(p *policy.Policy) { p.Rules.ProtectedPath.ProtectedPaths = []string{""} }},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			p, err := policy.Builtin("default")
			if err != nil {
				t.Fatal(err)
			}
			tt.set(p)
			_, err = evidence.GitOptions(p, "")
			if err == nil || !strings.Contains(err.Error(), "policy default: "+tt.key+": path pattern") {
				t.Errorf("got error %v, want one naming policy default and %s", err, tt.key)
			}
		})
	}
	t.Run("extra protected path", func(t *testing.T) {
		p, err := policy.Builtin("default")
		if err != nil {
			t.Fatal(err)
		}
		_, err = evidence.GitOptions(p, "", "")
		if err == nil || !strings.Contains(err.Error(), "rules.protected_path.protected_paths") {
			t.Errorf("got error %v, want one naming rules.protected_path.protected_paths", err)
		}
	})
}

func TestFromCommit(t *testing.T) {
	t.Parallel()
	r := newLoopRepo(t)
	r.write("main.go", "package main\n\nfunc main() {}\n").write("AGENTS.md", "# rules\n").write("NOTES.md", "n 1\n").plan(0, 2)
	base := r.commit("start")
	type step struct {
		name  string
		edit  func()
		msg   string
		check func(t *testing.T, it breaker.Iteration)
	}
	steps := []step{
		{
			name: "trailers set the phase and the progress",
			edit: func() { r.write("src/p.go", "package src\n\nvar P = 1\nvar Q = 2\n") },
			msg:  "add p\n\nLoop-Phase:  green \nLoop-Progress: 40%",
			check: func(t *testing.T, it breaker.Iteration) {
				if it.Phase != "GREEN" || it.ProgressPercent == nil || *it.ProgressPercent != 40 {
					t.Errorf("got phase %q progress %v, want GREEN 40", it.Phase, it.ProgressPercent)
				}
				c := it.Change
				if c.MeaningfulFiles != 1 || c.MeaningfulLines != 4 || c.CodeFiles != 1 || !cmp.Equal(c.Files, []string{"src/p.go"}) {
					t.Errorf("got change %+v, want one code file of 4 lines", c)
				}
			},
		},
		{
			name: "the last trailer counts; a percentage out of range is none",
			edit: func() { r.write("src/p.go", "package src\n\nvar P = 1\n") },
			msg:  "trim\n\nLoop-Phase: red\nLoop-Phase: refactor\nLoop-Progress: 150%",
			check: func(t *testing.T, it breaker.Iteration) {
				if it.Phase != "REFACTOR" || it.ProgressPercent != nil {
					t.Errorf("got phase %q progress %v, want REFACTOR and none", it.Phase, it.ProgressPercent)
				}
			},
		},
		{
			name: "a ticked task and notes are no meaningful change",
			edit: func() { r.plan(1, 2).write("NOTES.md", "n 2\n") },
			msg:  "tick",
			check: func(t *testing.T, it breaker.Iteration) {
				c := it.Change
				// "n 1" became "n 2": a counter in notes is churn.
				if c.MeaningfulFiles != 0 || c.ChurnFiles != 1 || c.BusyFiles != 0 || len(c.ProtectedModified) != 0 {
					t.Errorf("got change %+v, want one churned notes file and nothing meaningful", c)
				}
				if it.Tasks == nil || *it.Tasks != (breaker.Tasks{Done: 1, Total: 2}) {
					t.Errorf("got tasks %+v, want 1/2", it.Tasks)
				}
			},
		},
		{
			name: "a subject that claims completion; a test file that grew",
			edit: func() { r.write("src/p_test.go", "package src\n") },
			msg:  "All tasks are done",
			check: func(t *testing.T, it breaker.Iteration) {
				if !it.CompletionClaimed {
					t.Error("completion not claimed")
				}
				c := it.Change
				want := []breaker.FileLines{{Path: "src/p_test.go", Lines: 1, New: true}}
				if c.CodeFiles != 0 || c.TestLines != 1 || !cmp.Equal(c.TestFiles, want) {
					t.Errorf("got change %+v, want test file %+v only", c, want)
				}
			},
		},
		{
			name: "a protected file deleted, the protected task file modified",
			edit: func() { r.remove("AGENTS.md").plan(2, 2) },
			msg:  "clean up",
			check: func(t *testing.T, it breaker.Iteration) {
				c := it.Change
				if !cmp.Equal(c.ProtectedDeleted, []string{"AGENTS.md"}) || len(c.ProtectedModified) != 0 {
					t.Errorf("got protected deleted %q modified %q, want AGENTS.md deleted only", c.ProtectedDeleted, c.ProtectedModified)
				}
				if c.TestFiles == nil || len(c.TestFiles) != 0 {
					t.Errorf("got test files %#v, want an empty list", c.TestFiles)
				}
			},
		},
		{
			name: "a revert",
			edit: func() { r.write("src/p.go", "package src\n\nvar P = 1\nvar Q = 2\n") },
			msg:  "Revert \"trim\"\n\nThis reverts commit " + base + ".",
			check: func(t *testing.T, it breaker.Iteration) {
				if !it.Change.Reverted || it.CompletionClaimed || it.Phase != "" {
					t.Errorf("got reverted %v claimed %v phase %q, want a revert only", it.Change.Reverted, it.CompletionClaimed, it.Phase)
				}
			},
		},
	}
	for _, s := range steps {
		s.edit()
		r.commit(s.msg)
	}
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := evidence.GitOptions(p, base, "fix_plan.md")
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.open().History(opts)
	if err != nil {
		t.Fatalf("History: %v", err)
	}
	if len(h.Commits) != len(steps) {
		t.Fatalf("got %d commits, want %d", len(h.Commits), len(steps))
	}
	for i, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			c := &h.Commits[i]
			it := evidence.FromCommit(c, intp(7), opts.TaskFiles)
			if it.Commit != c.Hash || !it.At.Equal(c.At) || !it.CommitAt.Equal(c.At) || it.Change.Tree != c.Tree {
				t.Errorf("got commit %s at %v/%v tree %s, want %s at %v tree %s", it.Commit, it.At, it.CommitAt, it.Change.Tree, c.Hash, c.At, c.Tree)
			}
			if it.TasksBefore == nil || *it.TasksBefore != 7 {
				t.Errorf("got tasks before %s, want 7", deref(it.TasksBefore))
			}
			s.check(t, it)
		})
	}
}

// synthetic is a history of commits with the given checked-task counts
// (-1: no task file), none checked before the first.
func synthetic(base *gitlog.Tasks, done ...int) *gitlog.History {
	h := &gitlog.History{BaseTasks: base, BaseChecked: []string{"fix_plan.md\x00task 1"}}
	for i, d := range done {
		c := gitlog.Commit{Hash: strings.Repeat(string(rune('a'+i)), 40)}
		if d >= 0 {
			c.Tasks = &gitlog.Tasks{Done: d, Total: 5}
		}
		h.Commits = append(h.Commits, c)
	}
	return h
}

func TestHistoryTaskCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		h           *gitlog.History
		wantBefore  []string
		wantChecked []int // len(TasksCheckedBefore) per iteration
	}{
		{
			name:        "from the base: its count, its checked tasks on the first",
			h:           synthetic(&gitlog.Tasks{Done: 1, Total: 5}, 2, -1, 3),
			wantBefore:  []string{"1", "2", "2"},
			wantChecked: []int{1, 0, 0},
		},
		{
			name:        "from a base without a task file",
			h:           synthetic(nil, 2, 3),
			wantBefore:  []string{"nil", "2"},
			wantChecked: []int{1, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			its := evidence.FromHistory(tt.h, nil)
			var before []string
			var checked []int
			for i, it := range its {
				if it.Commit != tt.h.Commits[i].Hash {
					t.Errorf("iteration %d: got commit %s, want %s", i, it.Commit, tt.h.Commits[i].Hash)
				}
				before = append(before, deref(it.TasksBefore))
				checked = append(checked, len(it.TasksCheckedBefore))
			}
			if diff := cmp.Diff(tt.wantBefore, before); diff != "" {
				t.Errorf("tasks before (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantChecked, checked); diff != "" {
				t.Errorf("tasks checked before (-want +got):\n%s", diff)
			}
		})
	}
}
