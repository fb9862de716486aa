package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// maxGitFileBytes bounds the small files that lead to the git directory
// (.git as a file, commondir).
const maxGitFileBytes = 4096

// findGitDir returns the git directory of the repository that contains
// dir: dir/.git (a directory, or a file naming one as a linked work tree
// or a submodule has it), a bare repository at dir, or the .git of the
// nearest parent that has one.
func findGitDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %s (%v)", ErrNotRepository, dir, err)
	}
	for p := abs; ; {
		dotGit := filepath.Join(p, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			if fi.IsDir() {
				return dotGit, nil
			}
			gitDir, err := ReadGitFile(dotGit)
			if err != nil {
				return "", fmt.Errorf("open repository %s: %w", dir, err)
			}
			return gitDir, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("open repository %s: %w", dir, err)
		}
		if p == abs {
			if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
				return p, nil // bare
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", fmt.Errorf("%w: %s", ErrNotRepository, dir)
		}
		p = parent
	}
}

// GitDirs finds the git directory of the repository that contains dir and
// the common directory that holds its objects and refs (they differ in a
// linked worktree).
func GitDirs(dir string) (gitDir, common string, err error) {
	if gitDir, err = findGitDir(dir); err != nil {
		return "", "", err
	}
	common, err = commonDir(gitDir)
	return gitDir, common, err
}

// commonDir is the directory a git directory's commondir file names, the
// git directory itself when it has none.
func commonDir(gitDir string) (string, error) {
	data, err := regularfile.Read(filepath.Join(gitDir, "commondir"), maxGitFileBytes, "commondir file")
	if errors.Is(err, fs.ErrNotExist) {
		return gitDir, nil
	} else if err != nil {
		return "", err
	}
	dir := string(bytes.TrimRight(data, "\r\n"))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return dir, nil
}

// ReadGitFile reads a .git file as git does: "gitdir: PATH" on its first
// line (a trailing CR dropped), PATH relative to the file's directory. It
// says nothing of whether PATH is a git directory.
func ReadGitFile(path string) (string, error) {
	data, err := regularfile.Read(path, maxGitFileBytes, "git file")
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	gitDir, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "gitdir: ")
	if !ok || gitDir == "" {
		return "", fmt.Errorf("git file %s: invalid gitfile format (want \"gitdir: PATH\")", path)
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(filepath.Dir(path), gitDir)
	}
	return gitDir, nil
}

// openStorage returns go-git's storage of the git directory: its files read
// through regularFS (a linked work tree's shared files from its common
// directory), with streaming for large objects (a huge blob is never read
// into memory) and kept pack descriptors, and the storages of its
// alternate object stores (alternates.go). skipped names the alternate
// stores left out.
func openStorage(gitDir string) (st *objectStorer, skipped []string, err error) {
	refused := &refusal{}
	own, err := newRegularFS(gitDir, refused)
	if err != nil {
		return nil, nil, err
	}
	var files billy.Filesystem = own
	objects := filepath.Join(own.root, "objects")
	dir, err := commonDir(own.root)
	if err != nil {
		return nil, nil, err
	}
	if dir != own.root {
		shared, err := newRegularFS(dir, refused)
		if err != nil {
			return nil, nil, fmt.Errorf("common directory (commondir): %w", err)
		}
		files = dotgit.NewRepositoryFilesystem(own, shared)
		objects = filepath.Join(shared.root, "objects")
	}
	// The files go-git reads whatever the walk: refused at once, whether
	// or not this run would have come to read them.
	for _, name := range []string{"HEAD", "config", "packed-refs", "shallow"} {
		if err := touch(files, name); err != nil {
			return nil, nil, err
		}
	}
	opts := filesystem.Options{KeepDescriptors: true, ExclusiveAccess: true, LargeObjectThreshold: DefaultMaxFileBytes}
	c := cache.NewObjectLRUDefault()
	st = &objectStorer{Storage: filesystem.NewStorageWithOptions(noAlternates{files}, c, opts), refused: refused}
	alternates, skipped := alternateStores(objects)
	st.packs = newPackObjects(append([]string{objects}, alternates...)...)
	for _, store := range alternates {
		if filepath.Base(store) != "objects" {
			// go-git reads an objects directory named "objects" only.
			skipped = append(skipped, fmt.Sprintf("%s: an object store not named objects", store))
			continue
		}
		dir, err := newRegularFS(filepath.Dir(store), refused)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		st.alternates = append(st.alternates, filesystem.NewObjectStorageWithOptions(dotgit.NewWithOptions(noAlternates{dir}, dotgit.Options{ExclusiveAccess: true}), c, opts))
	}
	return st, skipped, nil
}

// objectStorer is go-git's storage of the repository, then of its
// alternate object stores (an object the repository lacks is looked for
// in each in turn), with this package's pack reader in front (packed.go).
// go-git's own walks (revision parsing such as HEAD~200, FileAt's path
// lookup) read through it too.
type objectStorer struct {
	*filesystem.Storage
	packs      *packObjects
	alternates []*filesystem.ObjectStorage
	refused    *refusal // the first file of the repository refused (regularFS)
	// damaged is the first object that was there but could not be read:
	// go-git's revision parsing reports such a fault as an unknown
	// revision.
	damaged error
}

// EncodedObject returns object h of type t (or of any type). A packed
// object the pack reader finds damaged is an error naming its pack; go-git
// reads only what the pack reader leaves to it.
func (s *objectStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	obj, err := s.encodedObject(t, h)
	if err != nil && !errors.Is(err, plumbing.ErrObjectNotFound) && s.damaged == nil {
		s.damaged = err
	}
	return obj, err
}

func (s *objectStorer) encodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok, err := s.packs.read(h, t, DefaultMaxFileBytes); err != nil || ok {
		return obj, err
	}
	obj, err := s.Storage.EncodedObject(t, h)
	for _, alt := range s.alternates {
		if !errors.Is(err, plumbing.ErrObjectNotFound) {
			break
		}
		obj, err = alt.EncodedObject(t, h)
	}
	if err == nil && obj.Hash() != h {
		// go-git reads a damaged loose object (its content cut short or
		// its header's size wrong) as whatever it holds; the hash it
		// keys its cache by says so, at no further cost.
		return nil, fmt.Errorf("object %s is damaged: its content hashes to %s", h, obj.Hash())
	}
	return obj, err
}

// HasEncodedObject reports whether object h is in the repository or an
// alternate store (nil when it is).
func (s *objectStorer) HasEncodedObject(h plumbing.Hash) error {
	err := s.Storage.HasEncodedObject(h)
	for _, alt := range s.alternates {
		if !errors.Is(err, plumbing.ErrObjectNotFound) {
			break
		}
		err = alt.HasEncodedObject(h)
	}
	return err
}

// HashesWithPrefix returns the objects whose names start with prefix, in
// the repository and its alternate stores: go-git resolves an abbreviated
// hash with it.
func (s *objectStorer) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	hashes, err := s.Storage.HashesWithPrefix(prefix)
	if err != nil {
		return nil, err
	}
	seen := make(map[plumbing.Hash]bool, len(hashes))
	for _, h := range hashes {
		seen[h] = true
	}
	for _, alt := range s.alternates {
		more, err := alt.HashesWithPrefix(prefix)
		if err != nil {
			return nil, err
		}
		for _, h := range more {
			if !seen[h] {
				seen[h] = true
				hashes = append(hashes, h)
			}
		}
	}
	return hashes, nil
}

// Close closes the files go-git and the pack reader keep open, the
// alternates' included.
func (s *objectStorer) Close() error {
	errs := []error{s.packs.Close(), s.Storage.Close()}
	for _, alt := range s.alternates {
		errs = append(errs, alt.Close())
	}
	return errors.Join(errs...)
}

// noAlternates hides objects/info/alternates from go-git: this package
// resolves the alternate stores itself (alternates.go), bounded and with
// git's rules for relative paths, and gives go-git a storage for each.
// go-git would otherwise read the file on every object it cannot find and
// follow no store it names but the first level's absolute paths.
type noAlternates struct{ billy.Filesystem }

// Open opens a file; the alternates file does not exist.
func (f noAlternates) Open(name string) (billy.File, error) {
	if filepath.ToSlash(filepath.Clean(name)) == "objects/info/alternates" {
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
	}
	return f.Filesystem.Open(name)
}

// maxShallowBytes bounds .git/shallow (a line of 41 bytes a commit).
const maxShallowBytes = 1 << 20

// readShallow reads a shallow clone's list of boundary commits
// (.git/shallow). The repository is shallow when the list names a commit it
// holds; a listed commit is a boundary only when a parent of it is missing:
// a shallow file cannot hide history whose objects are present. (A walk of
// a shallow repository also stops at any other commit whose parent is
// missing.)
func (r *Repo) readShallow() error {
	f, err := r.st.Filesystem().Open("shallow")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read shallow commit list (.git/shallow): %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxShallowBytes+1))
	if err != nil {
		return fmt.Errorf("read shallow commit list (.git/shallow): %w", err)
	}
	if len(data) > maxShallowBytes {
		return fmt.Errorf("read shallow commit list (.git/shallow): larger than %d bytes", maxShallowBytes)
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !plumbing.IsHash(string(line)) {
			return fmt.Errorf("read shallow commit list (.git/shallow): %q is not an object name", line)
		}
		c, err := r.commit(plumbing.NewHash(string(line)))
		if err != nil {
			continue // not in the repository: nothing to cut
		}
		r.shallowFile = true
		if r.parentMissing(c) {
			if r.shallow == nil {
				r.shallow = map[plumbing.Hash]bool{}
			}
			r.shallow[c.Hash] = true
		}
	}
	return nil
}

// parentMissing reports whether a parent of c is not in the repository.
func (r *Repo) parentMissing(c *object.Commit) bool {
	for _, p := range c.ParentHashes {
		if r.st.HasEncodedObject(p) != nil {
			return true
		}
	}
	return false
}

// touch opens and closes a file of the repository, if it exists, so that
// regularFS checks it.
func touch(files billy.Filesystem, name string) error {
	f, err := files.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}
