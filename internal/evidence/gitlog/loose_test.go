package gitlog

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// looseLoop builds a loop whose commits add, modify, rename and delete
// files, tick tasks and touch a binary file: every kind of object the
// readers see.
func looseLoop(t *testing.T) (*testRepo, plumbing.Hash) {
	t.Helper()
	r := newTestRepo(t)
	base := r.write("main.go", "package main\n").write("fix_plan.md", "- [ ] one\n- [ ] two\n").
		write("pkg/a.go", strings.Repeat("line a\n", 40)).commit("base\n")
	r.write("main.go", "package main\n\nfunc main() {}\n").write("fix_plan.md", "- [x] one\n- [ ] two\n").commit("tick\n")
	r.move("pkg/a.go", "pkg/b.go").write("pkg/b.go", strings.Repeat("line a\n", 39)+"line b\n").commit("rename\n")
	r.write("img.bin", "\x00\x01\x02binary").remove("main.go").commit("binary, delete\n\nLoop-Phase: RED\n")
	return r, base
}

// TestLooseAndPackedAgree: History, CommitInfo and Diff give the same
// answers whether objects are loose (as a loop writes them), read through
// go-git alone, or in a pack read by the pack reader.
func TestLooseAndPackedAgree(t *testing.T) {
	t.Parallel()
	r, base := looseLoop(t)
	opts := defaultOpts(t, base.String())
	type answers struct {
		H    *History
		Info *Commit
		Diff *Range
	}
	read := func(repo *Repo) answers {
		t.Helper()
		h, err := repo.History(opts)
		if err != nil {
			t.Fatal(err)
		}
		info, err := repo.CommitInfo("HEAD~1", opts)
		if err != nil {
			t.Fatal(err)
		}
		rg, err := repo.Diff(base.String(), "HEAD", opts)
		if err != nil {
			t.Fatal(err)
		}
		return answers{h, info, rg}
	}
	loose := read(r.open())
	if len(loose.H.Commits) != 3 || !isLoose(r, base) {
		t.Fatalf("got %d commits, base loose %v: want 3 commits from loose objects", len(loose.H.Commits), isLoose(r, base))
	}
	r.pack()
	if isLoose(r, base) {
		t.Fatal("base is still loose after the repack")
	}
	packed := r.open()
	if diff := cmp.Diff(read(packed), loose); diff != "" {
		t.Errorf("loose vs packed (-packed +loose):\n%s", diff)
	}
	slow := goGitOnly(t, r.open())
	if diff := cmp.Diff(read(slow), loose); diff != "" {
		t.Errorf("loose vs packed through go-git alone (-go-git +loose):\n%s", diff)
	}
}

// isLoose reports whether h is a loose object of the repository.
func isLoose(r *testRepo, h plumbing.Hash) bool {
	name := h.String()
	_, err := os.Stat(filepath.Join(r.dir, ".git", "objects", name[:2], name[2:]))
	return err == nil
}

// deflate compresses a loose object's bytes as git stores them.
func deflate(t *testing.T, raw string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(raw))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestLooseObjectFaults: History over a damaged loose object, or one of
// another type than its tree says, is an error naming the object, never a
// panic.
func TestLooseObjectFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"not zlib", func(*testing.T) []byte { return []byte("plain text, not deflated") }},
		{"empty file", func(*testing.T) []byte { return nil }},
		{"no size", func(t *testing.T) []byte { return deflate(t, "blob\x00abc") }},
		{"bad size", func(t *testing.T) []byte { return deflate(t, "blob 1x\x00abc") }},
		{"negative size", func(t *testing.T) []byte { return deflate(t, "blob -3\x00abc") }},
		{"unknown type", func(t *testing.T) []byte { return deflate(t, "ofs-delta 3\x00abc") }},
		{"wrong type", func(t *testing.T) []byte { return deflate(t, "tree 3\x00abc") }},
		{"header without end", func(t *testing.T) []byte { return deflate(t, "blob "+strings.Repeat("1", 100)) }},
		{"truncated content", func(t *testing.T) []byte { return deflate(t, "blob 100\x00only a little") }},
		{"truncated stream", func(t *testing.T) []byte { d := deflate(t, "blob 40\x00"+strings.Repeat("x", 40)); return d[:len(d)/2] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newTestRepo(t)
			base := r.write("a.txt", "one\n").commit("base\n")
			r.write("a.txt", "two\n").commit("edit\n")
			blob := r.files["a.txt"].hash
			name := blob.String()
			if err := os.WriteFile(filepath.Join(r.dir, ".git", "objects", name[:2], name[2:]), tt.data(t), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := r.open().History(defaultOpts(t, base.String()))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("History over a damaged object: got %v (%v), want an error naming %s", h, err, name)
			}
		})
	}
}
