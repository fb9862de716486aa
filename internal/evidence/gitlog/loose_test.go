package gitlog

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"runtime"
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
// answers whether objects are read loose here, loose through go-git, or
// from a pack.
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
	fast := r.open()
	if len(fast.st.loose.dirs) == 0 {
		t.Fatal("the loose-object reader is disabled for a plain repository")
	}
	loose := read(fast)
	if baseLoose := isLoose(fast, base); len(loose.H.Commits) != 3 || !baseLoose {
		t.Fatalf("got %d commits, base loose %v: want 3 commits from loose objects", len(loose.H.Commits), baseLoose)
	}
	slow := r.open()
	goGitOnly(t, slow)
	if diff := cmp.Diff(read(slow), loose); diff != "" {
		t.Errorf("loose here vs through go-git (-go-git +here):\n%s", diff)
	}
	r.pack()
	packed := r.open()
	if isLoose(packed, base) {
		t.Fatal("base is still loose after the repack")
	}
	if diff := cmp.Diff(read(packed), loose); diff != "" {
		t.Errorf("loose vs packed (-packed +loose):\n%s", diff)
	}
}

// isLoose reports whether the loose-object reader finds h.
func isLoose(repo *Repo, h plumbing.Hash) bool {
	d, f, _, _, err := repo.st.loose.openAny(h)
	if f != nil {
		f.Close()
	}
	return d != nil && err == nil
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

// TestLooseObjectFaults: reading a damaged loose object is an error naming
// its file (never a retry through go-git, never a panic), and History's
// error names the object. A loose object of another type than asked for is
// left to go-git, which does not find it either.
func TestLooseObjectFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		data     func(t *testing.T) []byte
		fallback bool // left to go-git, not an error of this reader
	}{
		{"not zlib", func(*testing.T) []byte { return []byte("plain text, not deflated") }, false},
		{"empty file", func(*testing.T) []byte { return nil }, false},
		{"no size", func(t *testing.T) []byte { return deflate(t, "blob\x00abc") }, false},
		{"bad size", func(t *testing.T) []byte { return deflate(t, "blob 1x\x00abc") }, false},
		{"negative size", func(t *testing.T) []byte { return deflate(t, "blob -3\x00abc") }, false},
		{"unknown type", func(t *testing.T) []byte { return deflate(t, "ofs-delta 3\x00abc") }, false},
		{"wrong type", func(t *testing.T) []byte { return deflate(t, "tree 3\x00abc") }, true},
		{"header without end", func(t *testing.T) []byte { return deflate(t, "blob "+strings.Repeat("1", 100)) }, false},
		{"truncated content", func(t *testing.T) []byte { return deflate(t, "blob 100\x00only a little") }, false},
		{"truncated stream", func(t *testing.T) []byte { d := deflate(t, "blob 40\x00"+strings.Repeat("x", 40)); return d[:len(d)/2] }, false},
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
			repo := r.open()
			file := filepath.Join("objects", name[:2], name[2:])
			obj, ok, err := repo.st.loose.read(blob, plumbing.BlobObject, DefaultMaxFileBytes)
			switch {
			case ok:
				t.Errorf("read a damaged object: got %d bytes", obj.Size())
			case tt.fallback && err != nil:
				t.Errorf("got error %v, want the object left to go-git", err)
			case !tt.fallback && (err == nil || !strings.Contains(err.Error(), file)):
				t.Errorf("got error %v, want one naming %s", err, file)
			}
			h, err := repo.History(defaultOpts(t, base.String()))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("History over a damaged object: got %v (%v), want an error naming %s", h, err, name)
			}
		})
	}
}

// TestLooseReadBounds: an object over the size bound, or of another type
// than asked for, is left to go-git; sizes come from the header alone.
func TestLooseReadBounds(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("big.txt", strings.Repeat("0123456789\n", 100)).commit("one\n")
	blob := r.files["big.txt"].hash
	repo := r.open()
	if _, ok, err := repo.st.loose.read(blob, plumbing.BlobObject, 100); ok || err != nil {
		t.Errorf("a 1100-byte object with a 100-byte bound: ok %v, error %v; want it left to go-git", ok, err)
	}
	if _, ok, err := repo.st.loose.read(blob, plumbing.TreeObject, DefaultMaxFileBytes); ok || err != nil {
		t.Errorf("a blob asked for as a tree: ok %v, error %v; want it left to go-git", ok, err)
	}
	obj, ok, err := repo.st.loose.read(blob, plumbing.BlobObject, DefaultMaxFileBytes)
	if !ok || err != nil || obj.Size() != 1100 || obj.Hash() != blob || obj.Type() != plumbing.BlobObject {
		t.Fatalf("got %v, ok %v, error %v, want the 1100-byte blob", obj, ok, err)
	}
	if n, ok, err := repo.st.loose.size(blob, plumbing.BlobObject); !ok || err != nil || n != 1100 {
		t.Errorf("size: got %d, %v, %v, want 1100", n, ok, err)
	}
	if _, ok, err := repo.st.loose.size(blob, plumbing.CommitObject); ok || err != nil {
		t.Errorf("size of a blob asked for as a commit: ok %v, error %v", ok, err)
	}
	if n, err := repo.blobSize(blob); err != nil || n != 1100 {
		t.Errorf("blobSize: got %d, %v, want 1100", n, err)
	}
	if _, err := obj.Writer(); err == nil {
		t.Error("a read object is writable")
	}
	if _, ok, err := repo.st.loose.read(plumbing.NewHash(strings.Repeat("ab", 20)), plumbing.BlobObject, DefaultMaxFileBytes); ok || err != nil {
		t.Errorf("an object that does not exist: ok %v, error %v", ok, err)
	}
}

// TestLooseObjectLinkNotFollowed: a loose object that is a symbolic link
// (to a copy outside the repository) is not read here but left to go-git,
// and the answers are go-git's.
func TestLooseObjectLinkNotFollowed(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no O_NOFOLLOW on Windows")
	}
	r := newTestRepo(t)
	base := r.write("a.txt", "one\n").commit("base\n")
	r.write("a.txt", "two\n").commit("edit\n")
	blob := r.files["a.txt"].hash
	name := blob.String()
	path := filepath.Join(r.dir, ".git", "objects", name[:2], name[2:])
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "object")
	if err := os.WriteFile(outside, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, path); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	repo := r.open()
	if _, ok, err := repo.st.loose.read(blob, plumbing.BlobObject, DefaultMaxFileBytes); ok || err != nil {
		t.Errorf("a loose object that is a symbolic link: ok %v, error %v; want it left to go-git", ok, err)
	}
	h, err := repo.History(defaultOpts(t, base.String()))
	slow := r.open()
	goGitOnly(t, slow)
	hs, errs := slow.History(defaultOpts(t, base.String()))
	if (err == nil) != (errs == nil) {
		t.Fatalf("got error %v, want go-git's %v", err, errs)
	}
	if diff := cmp.Diff(hs, h); diff != "" {
		t.Errorf("History (-go-git +here):\n%s", diff)
	}
}
