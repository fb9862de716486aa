package gitlog

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"
)

// testRepo builds a real repository commit by commit with go-git, writing
// objects directly (no work tree, no git binary), at fixed times.
type testRepo struct {
	t     testing.TB
	dir   string
	st    storage.Storer
	files map[string]testFile
	trees map[string]plumbing.Hash // cached tree hash per directory ("" = root)
	head  plumbing.Hash            // the last commit made
	clock time.Time
}

type testFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// t0 is the time of the first commit; each commit is a minute later.
var t0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// newTestRepo initialises a repository in a temporary directory, with HEAD
// on refs/heads/loop.
func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatalf("init %s: %v", dir, err)
	}
	r := &testRepo{t: t, dir: dir, st: g.Storer, files: map[string]testFile{}, trees: map[string]plumbing.Hash{}, clock: t0}
	r.setHead("refs/heads/loop")
	return r
}

// write stores a file's content (mode: regular).
func (r *testRepo) write(path, content string) *testRepo {
	return r.writeMode(path, content, filemode.Regular)
}

func (r *testRepo) writeMode(path, content string, mode filemode.FileMode) *testRepo {
	r.t.Helper()
	obj := r.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := w.Write([]byte(content)); err != nil {
		r.t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		r.t.Fatal(err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	r.files[path] = testFile{h, mode}
	r.dirty(path)
	return r
}

// remove deletes a file.
func (r *testRepo) remove(path string) *testRepo {
	r.t.Helper()
	if _, ok := r.files[path]; !ok {
		r.t.Fatalf("remove %s: no such file", path)
	}
	delete(r.files, path)
	r.dirty(path)
	return r
}

// move renames a file, keeping its content.
func (r *testRepo) move(from, to string) *testRepo {
	r.t.Helper()
	f, ok := r.files[from]
	if !ok {
		r.t.Fatalf("move %s: no such file", from)
	}
	delete(r.files, from)
	r.files[to] = f
	r.dirty(from)
	r.dirty(to)
	return r
}

// dirty forgets the cached trees of the path's directories.
func (r *testRepo) dirty(path string) {
	delete(r.trees, "")
	for i := 0; i < len(path); i++ {
		if path[i] == '/' {
			delete(r.trees, path[:i])
		}
	}
}

// tree writes the tree of dir (and the subtrees it needs).
func (r *testRepo) tree(dir string, paths []string) plumbing.Hash {
	r.t.Helper()
	if h, ok := r.trees[dir]; ok {
		return h
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	var entries []object.TreeEntry
	seen := map[string]bool{}
	// paths is sorted: every path under dir, relative names follow.
	for _, p := range paths {
		rest := strings.TrimPrefix(p, prefix)
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			name := rest[:i]
			if seen[name] {
				continue
			}
			seen[name] = true
			sub := prefix + name
			var subPaths []string
			for _, q := range paths {
				if strings.HasPrefix(q, sub+"/") {
					subPaths = append(subPaths, q)
				}
			}
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: r.tree(sub, subPaths)})
			continue
		}
		f := r.files[p]
		entries = append(entries, object.TreeEntry{Name: rest, Mode: f.mode, Hash: f.hash})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	obj := r.st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		r.t.Fatalf("encode tree %q: %v", dir, err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	r.trees[dir] = h
	return h
}

// rootTree writes the current files as a tree.
func (r *testRepo) rootTree() plumbing.Hash {
	if h, ok := r.trees[""]; ok {
		return h
	}
	paths := make([]string, 0, len(r.files))
	for p := range r.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return r.tree("", paths)
}

// commit commits the current files on top of the last commit and moves the
// branch HEAD names (or HEAD itself when detached).
func (r *testRepo) commit(msg string) plumbing.Hash {
	r.t.Helper()
	var parents []plumbing.Hash
	if !r.head.IsZero() {
		parents = append(parents, r.head)
	}
	return r.commitWithParents(msg, parents...)
}

// commitWithParents commits the current files with the given parents.
func (r *testRepo) commitWithParents(msg string, parents ...plumbing.Hash) plumbing.Hash {
	r.t.Helper()
	sig := object.Signature{Name: "Loop Agent", Email: "agent@example.com", When: r.clock}
	c := &object.Commit{
		Author:       sig,
		Committer:    sig,
		Message:      msg,
		TreeHash:     r.rootTree(),
		ParentHashes: parents,
	}
	r.clock = r.clock.Add(time.Minute)
	obj := r.st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		r.t.Fatal(err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		r.t.Fatal(err)
	}
	r.head = h
	head, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		r.t.Fatal(err)
	}
	target := plumbing.HEAD
	if head.Type() == plumbing.SymbolicReference {
		target = head.Target()
	}
	if err := r.st.SetReference(plumbing.NewHashReference(target, h)); err != nil {
		r.t.Fatal(err)
	}
	return h
}

// setHead points HEAD at a branch (symbolic).
func (r *testRepo) setHead(branch plumbing.ReferenceName) {
	r.t.Helper()
	if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, branch)); err != nil {
		r.t.Fatal(err)
	}
}

// detach points HEAD at a commit.
func (r *testRepo) detach(h plumbing.Hash) {
	r.t.Helper()
	if err := r.st.SetReference(plumbing.NewHashReference(plumbing.HEAD, h)); err != nil {
		r.t.Fatal(err)
	}
}

// ref sets a reference to a commit.
func (r *testRepo) ref(name plumbing.ReferenceName, h plumbing.Hash) {
	r.t.Helper()
	if err := r.st.SetReference(plumbing.NewHashReference(name, h)); err != nil {
		r.t.Fatal(err)
	}
}

// reset makes the next commit's parent h and its files those of h.
func (r *testRepo) reset(h plumbing.Hash) {
	r.t.Helper()
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		r.t.Fatal(err)
	}
	tree, err := c.Tree()
	if err != nil {
		r.t.Fatal(err)
	}
	r.files = map[string]testFile{}
	r.trees = map[string]plumbing.Hash{}
	err = tree.Files().ForEach(func(f *object.File) error {
		r.files[f.Name] = testFile{f.Hash, f.Mode}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	r.head = h
}

// removeObject deletes a loose object file (to cut history like a shallow
// clone).
func (r *testRepo) removeObject(h plumbing.Hash) {
	r.t.Helper()
	s := h.String()
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", s[:2], s[2:])); err != nil {
		r.t.Fatal(err)
	}
}

// goGitOnly makes repo read every object through go-git, as this package
// did before it had readers of its own: the baseline they must agree with.
func goGitOnly(t testing.TB, repo *Repo) *Repo {
	t.Helper()
	repo.st.packs = newPackObjects()
	return repo
}

// open opens the built repository with the package under test.
func (r *testRepo) open() *Repo {
	r.t.Helper()
	repo, err := Open(r.dir)
	if err != nil {
		r.t.Fatalf("Open(%s): %v", r.dir, err)
	}
	r.t.Cleanup(func() { _ = repo.Close() })
	return repo
}
