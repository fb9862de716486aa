package gitlog

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// sharedClone makes a repository with no objects of its own, HEAD on
// src's loop branch, and an alternates file holding text: what git clone
// --shared makes.
func sharedClone(t *testing.T, src *testRepo, text string) string {
	t.Helper()
	dir := t.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/loop")); err != nil {
		t.Fatal(err)
	}
	if err := g.Storer.SetReference(plumbing.NewHashReference("refs/heads/loop", src.head)); err != nil {
		t.Fatal(err)
	}
	writeAlternates(t, filepath.Join(dir, ".git", "objects"), text)
	return dir
}

// objectStore makes an empty objects directory whose alternates file
// holds text.
func objectStore(t *testing.T, text string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "objects")
	writeAlternates(t, dir, text)
	return dir
}

func writeAlternates(t *testing.T, objects, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(objects, "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(objects, "info", "alternates"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openDir opens dir with the package under test.
func openDir(t *testing.T, dir string) *Repo {
	t.Helper()
	repo, err := Open(dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = repo.Close() })
	return repo
}

// readersOff leaves every object to go-git, the alternates' storages
// included: the fallback the readers must agree with.
func readersOff(t *testing.T, repo *Repo) *Repo {
	t.Helper()
	repo.st.packs = newPackObjects()
	return repo
}

// TestAlternateObjectStores: a repository that keeps its objects in
// alternate stores (git clone --shared, --reference) reads the same
// history as the repository that holds them, through this package's
// readers and through go-git alone, whatever way the alternates file
// names the stores.
func TestAlternateObjectStores(t *testing.T) {
	t.Parallel()
	for _, packed := range []bool{false, true} {
		t.Run(fmt.Sprintf("packed=%v", packed), func(t *testing.T) {
			t.Parallel()
			src, base := looseLoop(t)
			if packed {
				src.pack()
			}
			opts := defaultOpts(t, base.String())
			want, err := src.open().History(opts)
			if err != nil {
				t.Fatal(err)
			}
			objects := filepath.Join(src.dir, ".git", "objects")
			cases := map[string]func(t *testing.T) string{
				"absolute": func(t *testing.T) string { return sharedClone(t, src, objects+"\n") },
				"no final newline, comments and blank lines": func(t *testing.T) string {
					return sharedClone(t, src, "# shared with the source\n\n"+objects)
				},
				"quoted": func(t *testing.T) string { return sharedClone(t, src, strconv.Quote(objects)+"\n") },
				"relative to the objects directory": func(t *testing.T) string {
					dst := sharedClone(t, src, "")
					rel, err := filepath.Rel(filepath.Join(dst, ".git", "objects"), objects)
					if err != nil {
						t.Skip("no relative path between the temporary directories")
					}
					writeAlternates(t, filepath.Join(dst, ".git", "objects"), rel+"\n")
					return dst
				},
				"nested five levels": func(t *testing.T) string {
					store := objects
					for range maxAlternateDepth {
						store = objectStore(t, store+"\n")
					}
					return sharedClone(t, src, store+"\n")
				},
				"a store named twice, and a cycle back": func(t *testing.T) string {
					dst := sharedClone(t, src, "")
					own := filepath.Join(dst, ".git", "objects")
					mid := objectStore(t, own+"\n"+objects+"\n")
					writeAlternates(t, own, mid+"\n"+objects+"\n"+mid+"\n")
					return dst
				},
				"a missing store beside the one that holds them": func(t *testing.T) string {
					return sharedClone(t, src, filepath.Join(t.TempDir(), "gone")+"\n"+objects+"\n")
				},
			}
			for name, mk := range cases {
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
					t.Parallel()
					dst := mk(t)
					repo := openDir(t, dst)
					got, err := repo.History(opts)
					if err != nil {
						t.Fatalf("History through the alternates: %v", err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("History through the alternates (-source +clone):\n%s", diff)
					}
					if n := len(repo.st.packs.dirs); packed && n == 0 {
						t.Error("the pack reader reads no directory: the alternate's packs are left to go-git")
					}
					got, err = readersOff(t, openDir(t, dst)).History(opts)
					if err != nil {
						t.Fatalf("History through go-git's storages of the alternates: %v", err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("History through go-git's storages of the alternates (-source +clone):\n%s", diff)
					}
					short := base.String()[:10]
					if h, err := repo.Resolve(short); err != nil || h != base.String() {
						t.Errorf("Resolve(%s), an abbreviated hash of an alternate's object: got %q, %v, want %s", short, h, err, base)
					}
				})
			}
		})
	}
}

// TestAlternatesLeftOut: stores past the bounds, or that cannot be read,
// are left out, and an object not found says which and why.
func TestAlternatesLeftOut(t *testing.T) {
	t.Parallel()
	src, _ := looseLoop(t)
	objects := filepath.Join(src.dir, ".git", "objects")
	cases := []struct {
		name string
		mk   func(t *testing.T) string
		want string
	}{
		{"nested six levels", func(t *testing.T) string {
			store := objects
			for range maxAlternateDepth + 1 {
				store = objectStore(t, store+"\n")
			}
			return sharedClone(t, src, store+"\n")
		}, fmt.Sprintf("alternates nested deeper than %d levels", maxAlternateDepth)},
		{"a store that is gone", func(t *testing.T) string {
			return sharedClone(t, src, filepath.Join(t.TempDir(), "gone", "objects")+"\n")
		}, "gone" + string(filepath.Separator) + "objects, which is not a directory"},
		{"a store that is a file", func(t *testing.T) string {
			file := filepath.Join(t.TempDir(), "objects")
			if err := os.WriteFile(file, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return sharedClone(t, src, file+"\n")
		}, "which is not a directory"},
		{"more stores than the bound", func(t *testing.T) string {
			var b strings.Builder
			for range maxAlternates {
				b.WriteString(t.TempDir() + "\n")
			}
			b.WriteString(objects + "\n")
			return sharedClone(t, src, b.String())
		}, fmt.Sprintf("more than %d alternate object stores", maxAlternates)},
		{"an alternates file over its bound", func(t *testing.T) string {
			return sharedClone(t, src, objects+"\n"+strings.Repeat("#", maxAlternatesBytes))
		}, fmt.Sprintf("larger than %d bytes", maxAlternatesBytes)},
		{"an alternates file that is a directory", func(t *testing.T) string {
			dst := sharedClone(t, src, "")
			file := filepath.Join(dst, ".git", "objects", "info", "alternates")
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(file, 0o755); err != nil {
				t.Fatal(err)
			}
			return dst
		}, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			repo := openDir(t, c.mk(t))
			_, err := repo.commit(src.head)
			if err == nil || !strings.Contains(err.Error(), "alternate object stores left out") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("read HEAD's commit: got error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// TestLinkedWorkTreeReadsTheCommonObjects: a linked work tree (git
// worktree add) reads the main repository's objects, found through its
// commondir file, with this package's readers.
func TestLinkedWorkTreeReadsTheCommonObjects(t *testing.T) {
	t.Parallel()
	src, base := looseLoop(t)
	src.pack()
	opts := defaultOpts(t, base.String())
	want, err := src.open().History(opts)
	if err != nil {
		t.Fatal(err)
	}
	admin := filepath.Join(src.dir, ".git", "worktrees", "linked")
	work := filepath.Join(t.TempDir(), "linked")
	files := map[string]string{
		filepath.Join(admin, "HEAD"):      src.head.String() + "\n",
		filepath.Join(admin, "commondir"): filepath.Join("..", "..") + "\n",
		filepath.Join(admin, "gitdir"):    filepath.Join(work, ".git") + "\n",
		filepath.Join(work, ".git"):       "gitdir: " + admin + "\n",
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo := openDir(t, work)
	if len(repo.st.packs.dirs) != 1 {
		t.Errorf("a pack reader of %d directories, want 1: the common objects", len(repo.st.packs.dirs))
	}
	got, err := repo.History(opts)
	if err != nil {
		t.Fatalf("History of the linked work tree: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("History of the linked work tree (-main +linked):\n%s", diff)
	}
}

// TestGitDirsFindsWhatGitReads: a .git file is read as git reads it (an
// empty one or one with no path is refused), a relative path is the .git
// file's directory's; unlike localstate.TopLevel, any .git directory is
// taken and a bare repository is found at its own directory.
func TestGitDirsFindsWhatGitReads(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(rel, gitFile string) string {
		d := filepath.Join(root, rel)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if gitFile != "" {
			if err := os.WriteFile(filepath.Join(d, ".git"), []byte(gitFile), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	bare := mk("bare.git", "")
	if err := os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := mk("plain/sub", "")
	if err := os.Mkdir(filepath.Join(root, "plain", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, want, fault string
	}{
		{bare, bare, ""},
		{plain, filepath.Join(root, "plain", ".git"), ""},
		{mk("rel", "gitdir: ../bare.git\r\n"), bare, ""},
		{mk("abs", "gitdir: "+bare+"\n"), bare, ""},
		{mk("empty", "\n"), "", "invalid gitfile format"},
		{mk("nopath", "gitdir: \n"), "", "invalid gitfile format"},
	} {
		got, common, err := GitDirs(c.dir)
		switch {
		case c.fault == "" && (err != nil || got != c.want || common != c.want):
			t.Errorf("GitDirs(%s) = %q, %q, %v; want %q", c.dir, got, common, err, c.want)
		case c.fault != "" && (err == nil || !strings.Contains(err.Error(), c.fault) || !strings.Contains(err.Error(), c.dir)):
			t.Errorf("GitDirs(%s) = %q, %v; want an error naming the directory and %q", c.dir, got, err, c.fault)
		}
	}
}
