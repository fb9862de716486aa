package gitlog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

// numbered returns n lines "prefix i".
func numbered(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

func TestDiffClassification(t *testing.T) {
	t.Parallel()
	goFile := "package a\n\nfunc F() int {\n\treturn 1\n}\n"
	long := numbered("line", 40)
	tests := []struct {
		name   string
		before map[string]string
		edit   func(r *testRepo)
		maxB   int64
		want   Change
	}{
		{
			name:   "whitespace only",
			before: map[string]string{"a.go": goFile},
			edit:   func(r *testRepo) { r.write("a.go", "package a\n\nfunc F() int {\n        return 1\n}\n\n") },
			want: Change{Files: []FileChange{{
				Path: "a.go", Status: StatusModified, Added: 2, Deleted: 1, OldSize: 38, NewSize: 46, WhitespaceOnly: true,
			}}},
		},
		{
			name:   "lock file only",
			before: map[string]string{"go.sum": "a v1 h1:x\n", "web/package-lock.json": "{}\n"},
			edit: func(r *testRepo) {
				r.write("go.sum", "a v1 h1:x\nb v2 h1:y\n").write("web/package-lock.json", "{\"a\":1}\n")
			},
			want: Change{Files: []FileChange{
				{Path: "go.sum", Status: StatusModified, Added: 1, OldSize: 10, NewSize: 20, Ignored: true},
				{Path: "web/package-lock.json", Status: StatusModified, Added: 1, Deleted: 1, OldSize: 3, NewSize: 8, Ignored: true},
			}},
		},
		{
			name:   "digits only",
			before: map[string]string{"status.json": "{\"run\": 41, \"at\": \"2026-01-04T07:38:50Z\"}\n", "a.go": goFile},
			edit: func(r *testRepo) {
				r.write("status.json", "{\"run\": 42, \"at\": \"2026-01-04T07:44:51Z\"}\n").write("a.go", strings.Replace(goFile, "1", "2", 1))
			},
			want: Change{
				Files: []FileChange{
					{Path: "a.go", Status: StatusModified, Added: 1, Deleted: 1, OldSize: 38, NewSize: 38, DigitsOnly: true, Meaningful: true},
					{Path: "status.json", Status: StatusModified, Added: 1, Deleted: 1, OldSize: 42, NewSize: 42, DigitsOnly: true, Meaningful: true},
				},
				MeaningfulFiles: 2,
				MeaningfulLines: 4,
			},
		},
		{
			name:   "notes, test data and tests",
			before: map[string]string{"a.go": goFile},
			edit: func(r *testRepo) {
				r.write("NOTES.md", "tried x\n").write("tests/fixtures/in.json", "{}\n").write("tests/a_test.py", "def test(): pass\n")
			},
			want: Change{
				Files: []FileChange{
					{Path: "NOTES.md", Status: StatusAdded, Added: 1, NewSize: 8, Doc: true, Notes: true, Meaningful: true},
					{Path: "tests/a_test.py", Status: StatusAdded, Added: 1, NewSize: 17, Test: true, Meaningful: true},
					{Path: "tests/fixtures/in.json", Status: StatusAdded, Added: 1, NewSize: 3, TestData: true, Meaningful: true},
				},
				MeaningfulFiles: 3,
				MeaningfulLines: 3,
				TestLines:       1,
				DocFiles:        1,
			},
		},
		{
			name:   "submodule pointer",
			before: map[string]string{"a.go": goFile},
			edit: func(r *testRepo) {
				r.files["lib/dep"] = testFile{plumbing.NewHash("1111111111111111111111111111111111111111"), filemode.Submodule}
				r.dirty("lib/dep")
			},
			want: Change{
				Files:           []FileChange{{Path: "lib/dep", Status: StatusAdded, Submodule: true, Meaningful: true}},
				MeaningfulFiles: 1,
			},
		},
		{
			name:   "loop state and vendor",
			before: map[string]string{"main.go": goFile},
			edit: func(r *testRepo) {
				r.write(".loopbreaker/record.json", "{}\n").write("vendor/x/x.go", "package x\n")
			},
			want: Change{Files: []FileChange{
				{Path: ".loopbreaker/record.json", Status: StatusAdded, Added: 1, NewSize: 3, Ignored: true},
				{Path: "vendor/x/x.go", Status: StatusAdded, Added: 1, NewSize: 10, Ignored: true},
			}},
		},
		{
			name:   "exact rename",
			before: map[string]string{"old/name.go": goFile},
			edit:   func(r *testRepo) { r.move("old/name.go", "new/name.go") },
			want: Change{
				Files:           []FileChange{{Path: "new/name.go", OldPath: "old/name.go", Status: StatusRenamed, OldSize: 38, NewSize: 38, Meaningful: true}},
				MeaningfulFiles: 1,
			},
		},
		{
			name:   "rename with an edit",
			before: map[string]string{"pkg/util.go": long},
			edit: func(r *testRepo) {
				r.remove("pkg/util.go").write("pkg/strings.go", strings.Replace(long, "line 7\n", "line seven\n", 1))
			},
			want: Change{
				Files:           []FileChange{{Path: "pkg/strings.go", OldPath: "pkg/util.go", Status: StatusRenamed, Added: 1, Deleted: 1, OldSize: 310, NewSize: 314, Meaningful: true}},
				MeaningfulFiles: 1,
				MeaningfulLines: 2,
			},
		},
		{
			name:   "dissimilar delete and add are not a rename",
			before: map[string]string{"a.txt": numbered("alpha", 10)},
			edit:   func(r *testRepo) { r.remove("a.txt").write("b.txt", numbered("beta", 10)) },
			want: Change{
				Files: []FileChange{
					{Path: "a.txt", Status: StatusDeleted, Deleted: 10, OldSize: 80, Meaningful: true},
					{Path: "b.txt", Status: StatusAdded, Added: 10, NewSize: 70, Meaningful: true},
				},
				MeaningfulFiles: 2,
				MeaningfulLines: 20,
			},
		},
		{
			name:   "binary",
			before: map[string]string{"logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"},
			edit:   func(r *testRepo) { r.write("logo.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01") },
			want: Change{
				Files:           []FileChange{{Path: "logo.png", Status: StatusModified, Binary: true, OldSize: 16, NewSize: 18, Meaningful: true}},
				MeaningfulFiles: 1,
			},
		},
		{
			name:   "large file by size only",
			before: map[string]string{"data.csv": numbered("row", 30)},
			edit:   func(r *testRepo) { r.write("data.csv", numbered("row", 31)) },
			maxB:   200,
			want: Change{
				Files:           []FileChange{{Path: "data.csv", Status: StatusModified, Large: true, OldSize: 200, NewSize: 207, Meaningful: true}},
				MeaningfulFiles: 1,
			},
		},
		{
			name:   "generated",
			before: map[string]string{"api.pb.go": "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n"},
			edit: func(r *testRepo) {
				r.write("api.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage api\n\nvar V = 1\n")
			},
			want: Change{Files: []FileChange{{Path: "api.pb.go", Status: StatusModified, Added: 2, OldSize: 62, NewSize: 73, Generated: true}}},
		},
		{
			name:   "protected deletion",
			before: map[string]string{".github/workflows/ci.yml": "on: push\n", "AGENTS.md": "rules\n", "specs/api.md": "# API\n", "src/a.go": goFile},
			edit:   func(r *testRepo) { r.remove(".github/workflows/ci.yml").remove("AGENTS.md").remove("specs/api.md") },
			want: Change{
				Files: []FileChange{
					{Path: ".github/workflows/ci.yml", Status: StatusDeleted, Deleted: 1, OldSize: 9, Protected: true, Meaningful: true},
					{Path: "AGENTS.md", Status: StatusDeleted, Deleted: 1, OldSize: 6, Doc: true, Protected: true, Meaningful: true},
					{Path: "specs/api.md", Status: StatusDeleted, Deleted: 1, OldSize: 6, Doc: true, Meaningful: true},
				},
				MeaningfulFiles:  3,
				MeaningfulLines:  3,
				DocFiles:         2,
				ProtectedDeleted: []string{".github/workflows/ci.yml", "AGENTS.md"},
			},
		},
		{
			name:   "protected file renamed away",
			before: map[string]string{"CLAUDE.md": "be careful\n"},
			edit:   func(r *testRepo) { r.move("CLAUDE.md", "notes/old-claude.md") },
			want: Change{
				Files:            []FileChange{{Path: "notes/old-claude.md", OldPath: "CLAUDE.md", Status: StatusRenamed, OldSize: 11, NewSize: 11, Doc: true, Protected: true, Meaningful: true}},
				MeaningfulFiles:  1,
				DocFiles:         1,
				ProtectedDeleted: []string{"CLAUDE.md"},
			},
		},
		{
			name:   "workflow edit",
			before: map[string]string{".github/workflows/ci.yml": "on: push\njobs: {}\n"},
			edit: func(r *testRepo) {
				r.write(".github/workflows/ci.yml", "on: push\njobs:\n  test: {}\n").write(".github/workflows/new.yml", "on: pull_request\n")
			},
			want: Change{
				Files: []FileChange{
					{Path: ".github/workflows/ci.yml", Status: StatusModified, Added: 2, Deleted: 1, OldSize: 18, NewSize: 26, Protected: true, Meaningful: true},
					{Path: ".github/workflows/new.yml", Status: StatusAdded, Added: 1, NewSize: 17, Protected: true, Meaningful: true},
				},
				MeaningfulFiles:   2,
				MeaningfulLines:   4,
				ProtectedModified: []string{".github/workflows/ci.yml", ".github/workflows/new.yml"},
			},
		},
		{
			name:   "tests and docs",
			before: map[string]string{"a.go": goFile},
			edit: func(r *testRepo) {
				r.write("a_test.go", "package a\n\nfunc TestF(t *testing.T) {}\n").
					write("web/__tests__/x.js", "it()\n").
					write("docs/guide.txt", "read me\n").
					write("README.md", "# a\n")
			},
			want: Change{
				Files: []FileChange{
					{Path: "README.md", Status: StatusAdded, Added: 1, NewSize: 4, Doc: true, Meaningful: true},
					{Path: "a_test.go", Status: StatusAdded, Added: 3, NewSize: 39, Test: true, Meaningful: true},
					{Path: "docs/guide.txt", Status: StatusAdded, Added: 1, NewSize: 8, Doc: true, Meaningful: true},
					{Path: "web/__tests__/x.js", Status: StatusAdded, Added: 1, NewSize: 5, Test: true, Meaningful: true},
				},
				MeaningfulFiles: 4,
				MeaningfulLines: 6,
				TestLines:       4,
				DocFiles:        2,
			},
		},
		{
			name:   "mode change",
			before: map[string]string{"run.sh": "echo hi\n"},
			edit:   func(r *testRepo) { r.writeMode("run.sh", "echo hi\n", filemode.Executable) },
			want: Change{
				Files:           []FileChange{{Path: "run.sh", Status: StatusModified, OldSize: 8, NewSize: 8, Meaningful: true}},
				MeaningfulFiles: 1,
			},
		},
		{
			name:   "nothing changed",
			before: map[string]string{"a.go": goFile},
			edit:   func(r *testRepo) {},
			want:   Change{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRepo(t)
			for p, c := range tt.before {
				r.write(p, c)
			}
			before := r.commit("before\n")
			tt.edit(r)
			after := r.commit("after\n")
			o := defaultOpts(t, "")
			o.MaxFileBytes = tt.maxB
			repo := r.open()
			rg, err := repo.Diff(before.String(), after.String(), o)
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			got := &rg.Change
			if diff := cmp.Diff(&tt.want, got, cmp.Comparer(func(a, b []FileChange) bool {
				return cmp.Equal(a, b) || (len(a) == 0 && len(b) == 0)
			})); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
			// CommitInfo of the after commit sees the same change.
			info, err := repo.CommitInfo(after.String(), o)
			if err != nil {
				t.Fatalf("CommitInfo: %v", err)
			}
			if diff := cmp.Diff(*got, info.Change); diff != "" {
				t.Errorf("CommitInfo change differs from Diff (-diff +info):\n%s", diff)
			}
		})
	}
}

func TestDiffFromEmptyTree(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("fix_plan.md", "- [x] a\n- [ ] b\n").commit("one\n")
	c2 := r.write("b.txt", "b\n").commit("two\n")
	rg, err := r.open().Diff("", c2.String(), defaultOpts(t, ""))
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	ch, tasks := rg.Change, rg.Tasks
	if ch.MeaningfulFiles != 2 || len(ch.Files) != 2 {
		t.Errorf("got %d meaningful of %d files, want 2 of 2", ch.MeaningfulFiles, len(ch.Files))
	}
	if diff := cmp.Diff(&Tasks{Done: 1, Total: 2}, tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
}

func TestDiffLargeFileIsStreamed(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	big := strings.Repeat("0123456789abcdef\n", 1<<16) // 1.1 MB
	before := r.write("big.txt", big).commit("one\n")
	after := r.write("big.txt", big+"tail\n").commit("two\n")
	o := defaultOpts(t, "")
	o.MaxFileBytes = 1 << 20
	rg, err := r.open().Diff(before.String(), after.String(), o)
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	ch := rg.Change
	want := []FileChange{{Path: "big.txt", Status: StatusModified, Large: true, OldSize: int64(len(big)), NewSize: int64(len(big) + 5), Meaningful: true}}
	if diff := cmp.Diff(want, ch.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestDiffManyRenames(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	for i := range 20 {
		r.write(fmt.Sprintf("old/f%02d.txt", i), numbered(fmt.Sprintf("file %d", i), 20))
	}
	before := r.commit("before\n")
	for i := range 20 {
		p := fmt.Sprintf("old/f%02d.txt", i)
		r.remove(p)
		r.write(fmt.Sprintf("new/f%02d.txt", i), numbered(fmt.Sprintf("file %d", i), 20)+"more\n")
	}
	after := r.commit("after\n")
	rg, err := r.open().Diff(before.String(), after.String(), defaultOpts(t, ""))
	if err != nil {
		t.Fatalf("Diff: %v", err)
	}
	ch := rg.Change
	if len(ch.Files) != 20 {
		t.Fatalf("got %d files, want 20 renames", len(ch.Files))
	}
	for i, f := range ch.Files {
		want := FileChange{
			Path: fmt.Sprintf("new/f%02d.txt", i), OldPath: fmt.Sprintf("old/f%02d.txt", i), Status: StatusRenamed,
			Added: 1, OldSize: f.OldSize, NewSize: f.OldSize + 5, Meaningful: true,
		}
		if diff := cmp.Diff(want, f); diff != "" {
			t.Errorf("file %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestCompareEntriesIsGitOrder: compareEntries sorts as go-git's
// TreeEntrySorter (git's order: a directory as "name/").
func TestCompareEntriesIsGitOrder(t *testing.T) {
	t.Parallel()
	var entries []object.TreeEntry
	for _, name := range []string{"a", "a-", "a.b", "a0", "ab", "b", "a_", ""} {
		for _, mode := range []filemode.FileMode{filemode.Regular, filemode.Dir} {
			if name != "" {
				entries = append(entries, object.TreeEntry{Name: name, Mode: mode})
			}
		}
	}
	for i := range entries {
		for j := range entries {
			want := object.TreeEntrySorter(entries).Less(i, j)
			if got := compareEntries(entries[i], entries[j]) < 0; got != want {
				t.Errorf("compareEntries(%q %v, %q %v) < 0 is %v, want %v", entries[i].Name, entries[i].Mode, entries[j].Name, entries[j].Mode, got, want)
			}
		}
	}
}

// TestDiffWritten: the lines a change adds to the loop's own files (not
// source code, not tests) that Options.Written selects are kept, an
// appended line again each time it is added again, a state file's error
// line when it was rewritten; source files and tests are not read.
func TestDiffWritten(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("logs/run.log", "Error: quota exceeded\n").write("state.json", "{\n  \"last_error\": \"quota exceeded\",\n  \"run\": 1\n}\n").
		write("main.go", "package main\n").write("main_test.go", "package main\n")
	before := r.commit("before\n")
	r.write("logs/run.log", "Error: quota exceeded\nretrying\nError: quota exceeded\n").
		write("state.json", "{\n  \"last_error\": \"quota exceeded again\",\n  \"run\": 2\n}\n").
		write("main.go", "package main\n\n// Error: not read in code\n").write("main_test.go", "package main\n\n// Error: not read in tests\n")
	after := r.commit("after\n")
	o := defaultOpts(t, "")
	o.Written = func(line string) bool { return strings.Contains(line, "rror") }
	rg, err := r.open().Diff(before.String(), after.String(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range rg.Change.Files {
		got[f.Path] = f.Written
	}
	want := map[string][]string{"logs/run.log": {"Error: quota exceeded"}, "state.json": {`"last_error": "quota exceeded again",`},
		"main.go": nil, "main_test.go": nil}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("written lines (-want +got):\n%s", diff)
	}
}
