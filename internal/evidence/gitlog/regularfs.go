package gitlog

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// ErrNotRegular is wrapped by the error for a file in the repository that
// is not a regular file (a named pipe, a socket, a device, a directory
// where a file belongs): bad input, never waited on.
var ErrNotRegular = regularfile.ErrNotRegular

// errLeaves is wrapped by the error for a symbolic link in the repository
// that leads out of it.
var errLeaves = errors.New("a symbolic link that leaves the repository")

// regularFS is a directory of the repository (its git directory, common
// directory or an alternate object store) as go-git reads it, where every
// file is opened without blocking (a named pipe without a writer would
// wait forever), checked to be a regular file before it is read, and
// refused when a symbolic link takes it outside the directory. The agent
// owns .git: nothing in it may hang the run or lead the reader elsewhere.
//
// go-git reads a loose reference that it cannot open as missing and goes
// on to packed-refs, so a refusal would pass unseen: the first one is kept
// in refused, which the Repo checks after each call into go-git.
type regularFS struct {
	billy.Filesystem
	root    string            // the directory's real path
	dirs    map[string]string // real paths of the directories opened from, by their path
	refused *refusal          // shared by the directories of one repository
}

// refusal is the first file a repository's regularFS refused.
type refusal struct{ err error }

// newRegularFS returns the directory dir, whose real path is checked once;
// its refusals are kept in r.
func newRegularFS(dir string, r *refusal) (*regularFS, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	return &regularFS{Filesystem: osfs.New(root), root: root, dirs: map[string]string{}, refused: r}, nil
}

// refuse keeps the first refusal and returns err.
func (f *regularFS) refuse(err error) error {
	if f.refused.err == nil {
		f.refused.err = err
	}
	return err
}

// Open opens a file for reading.
func (f *regularFS) Open(name string) (billy.File, error) {
	return f.OpenFile(name, os.O_RDONLY, 0)
}

// Create is refused: the repository is only read.
func (f *regularFS) Create(name string) (billy.File, error) {
	return f.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// errReadOnlyRepo refuses a write: this package only reads repositories.
var errReadOnlyRepo = errors.New("the repository is opened read-only")

// OpenFile opens a file for reading; it must be a regular one inside the
// directory.
func (f *regularFS) OpenFile(name string, flag int, _ os.FileMode) (billy.File, error) {
	full := filepath.Join(f.root, name)
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND) != 0 {
		return nil, &fs.PathError{Op: "open", Path: full, Err: errReadOnlyRepo}
	}
	if err := f.inside(full); err != nil {
		return nil, f.refuse(err)
	}
	file, fi, err := regularfile.Open(full)
	if errors.Is(err, ErrNotRegular) {
		return nil, f.refuse(err)
	}
	if err != nil {
		return nil, err
	}
	if max := maxGitFile(f.root, full); fi.Size() > max {
		file.Close()
		return nil, f.refuse(&fs.PathError{Op: "open", Path: full, Err: fmt.Errorf("%w: %d bytes, more than %d", errTooLarge, fi.Size(), max)})
	}
	return &regularFile{File: file, name: name}, nil
}

// errTooLarge is wrapped by the error for a file of the git directory far
// larger than git ever writes it.
var errTooLarge = errors.New("larger than git writes it")

// Bounds of the files go-git reads whole: an 8 GiB sparse HEAD, branch
// ref or config (a few seconds for the agent to make) held the run for
// minutes and took tens of GiB of memory. Objects, packs and their
// indexes are read by offset and stay unbounded; packed-refs and the
// index grow with the repository.
const (
	maxGitSmallFile = 1 << 20
	maxGitListFile  = 512 << 20
)

// maxGitFile is the bound of the file at full in the directory root.
func maxGitFile(root, full string) int64 {
	rel, err := filepath.Rel(root, full)
	if err != nil {
		return maxGitSmallFile
	}
	rel = filepath.ToSlash(rel)
	switch {
	case strings.HasPrefix(rel, "objects/"):
		return math.MaxInt64
	case rel == "packed-refs" || rel == "index":
		return maxGitListFile
	}
	return maxGitSmallFile
}

// Stat describes a file, following links that stay inside the directory;
// one that leaves it is refused.
func (f *regularFS) Stat(name string) (os.FileInfo, error) {
	full := filepath.Join(f.root, name)
	if err := f.inside(full); err != nil {
		return nil, f.refuse(err)
	}
	return os.Stat(full)
}

// regularFile is a file of a regularFS, named as it was opened.
type regularFile struct {
	*os.File
	name string
}

// Name is the file's name in its file system.
func (f *regularFile) Name() string { return f.name }

// Lock does nothing: the file is only read, and git takes no lock to read.
func (f *regularFile) Lock() error { return nil }

// Unlock does nothing (see Lock).
func (f *regularFile) Unlock() error { return nil }

// inside refuses a path that a symbolic link takes out of the directory:
// the file itself or the directory it is in. A path that does not exist
// yet is left to the open.
func (f *regularFS) inside(full string) error {
	dir, err := f.realDir(filepath.Dir(full))
	if err != nil {
		return nil
	}
	if !within(dir, f.root) {
		return &fs.PathError{Op: "open", Path: full, Err: errLeaves}
	}
	fi, err := os.Lstat(full)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	real, err := filepath.EvalSymlinks(full)
	if err == nil && !within(real, f.root) {
		return &fs.PathError{Op: "open", Path: full, Err: errLeaves}
	}
	return nil
}

// realDir is a directory's real path, remembered: a walk opens many files
// of few directories.
func (f *regularFS) realDir(dir string) (string, error) {
	if real, ok := f.dirs[dir]; ok {
		return real, nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if len(f.dirs) >= 1<<12 {
		clear(f.dirs)
	}
	f.dirs[dir] = real
	return real, nil
}

// Chroot returns a subdirectory, checked as this one is.
func (f *regularFS) Chroot(path string) (billy.Filesystem, error) {
	return newRegularFS(filepath.Join(f.root, path), f.refused)
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// isLink reports whether path is a symbolic link.
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}
