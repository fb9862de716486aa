package worktree

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/policy"
)

func put(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompare: a change that is only whitespace, a lock file, a notes
// file or an ignored file is not meaningful; code added, changed or
// removed is; .git and what .gitignore files leave out are not read.
func TestCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	put(t, dir, ".git/HEAD", "ref: refs/heads/main\n")
	put(t, dir, ".gitignore", "build/\n*.tmp\n")
	put(t, dir, "main.go", "package main\n")
	put(t, dir, "old.go", "package main\n")
	put(t, dir, "sub/.gitignore", "secret.txt\n")
	p, err := policy.Load("default")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMeaning(p)
	if err != nil {
		t.Fatal(err)
	}
	before, _, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	put(t, dir, ".git/HEAD", "ref: refs/heads/other\n")
	put(t, dir, "main.go", "package  main\n\n")
	put(t, dir, "go.sum", "x v1 h1:abc\n")
	put(t, dir, "NOTES.md", "idle\n")
	put(t, dir, "build/out.bin", "binary")
	put(t, dir, "a.tmp", "x")
	put(t, dir, "sub/secret.txt", "x")
	put(t, dir, "parse.go", "package main\n\nfunc parse() {}\n")
	os.Remove(filepath.Join(dir, "old.go"))
	after, _, err := Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Compare(before, after)
	if want := []string{"NOTES.md", "go.sum", "main.go", "old.go", "parse.go"}; !slices.Equal(c.Changed, want) {
		t.Errorf("changed %v, want %v", c.Changed, want)
	}
	if want := []string{"old.go", "parse.go"}; !slices.Equal(c.Meaningful, want) {
		t.Errorf("meaningful %v, want %v", c.Meaningful, want)
	}
	if c := m.Compare(after, after); len(c.Changed) != 0 {
		t.Errorf("a tree against itself changed %v", c.Changed)
	}
}
