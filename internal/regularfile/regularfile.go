// Package regularfile is the one way this program reads and writes files
// that the watched agent may have planted as something else: a named pipe
// (whose open or read would wait for a writer for good), a socket or a
// device. Only a regular file is read, and never more than a bound; a
// write replaces the file atomically; a lock serialises the
// read-modify-write of one file by several calls.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrNotRegular is wrapped by Open's error for a file that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading, never waiting on a named pipe, and returns
// it with its description; what is not a regular file is an error naming
// it and what it is, wrapping ErrNotRegular.
func Open(path string) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: opening a named pipe without a writer must not block.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() {
			return nil, nil, NotRegular(path, st.Mode()) // a socket cannot be opened at all
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, NotRegular(path, st.Mode())
	}
	return f, st, nil
}

// Read reads the regular file at path, at most max bytes (a larger one is
// refused); a missing file is an error wrapping fs.ErrNotExist. what names
// the file in errors ("state file").
func Read(path string, max int64, what string) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, bare(err))
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s %s: larger than %d bytes", what, path, max)
	if st.Size() > max {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, bare(err))
	}
	if int64(len(data)) > max {
		return nil, tooLarge
	}
	return data, nil
}

// NotRegular is the error for path, of mode m, not being a regular file.
func NotRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(m))}
}

// Irregular reports whether m is a named pipe, a socket or a device: never
// read, where a directory or a link may just be skipped.
func Irregular(m fs.FileMode) bool {
	return m&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0
}

// Kind names the type of a file that is not a regular file.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// WriteAtomic replaces path with data through a synced temporary file in
// its directory. A new file gets perm; an existing one keeps its mode (and,
// where the process may, its owner). A symbolic link at path is replaced,
// not followed (see Target); anything else that is not a regular file is
// refused. Errors name path, never the temporary file.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	old, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fmt.Errorf("write %s: %w", path, bare(err))
	case old.Mode()&fs.ModeSymlink != 0:
		old = nil
	case !old.Mode().IsRegular():
		return fmt.Errorf("write %s: not a regular file (%s); not replaced", path, Kind(old.Mode()))
	default:
		perm = old.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: create a temporary file in %s: %w", path, dir, bare(err))
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	if old != nil {
		keepOwner(tmp, old)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, bare(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// bare drops the path of a *fs.PathError or *os.LinkError, which would
// name the temporary file instead of the file being written.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// maxLinks bounds how many symbolic links Target follows.
const maxLinks = 40

// Target is the file that writing path through its symbolic links should
// replace: path itself, or the file the links name in the end, which need
// not exist yet; so a state file linked into a work tree stays one file. A
// target that exists but is not a regular file is refused.
func Target(path string) (string, error) {
	p := path
	for i := 0; ; i++ {
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, bare(err))
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			if !st.Mode().IsRegular() {
				where := path
				if p != path {
					where = fmt.Sprintf("%s (a link to %s)", path, p)
				}
				return "", fmt.Errorf("%s: not a regular file (%s)", where, Kind(st.Mode()))
			}
			return p, nil
		}
		if i == maxLinks {
			return "", fmt.Errorf("%s: more than %d symbolic links in a row", path, maxLinks)
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, bare(err))
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
}

// Lock takes an exclusive advisory lock beside the file at path
// (FILE.lock), so that concurrent read-modify-write cycles on it are
// serialised; the directory is created (0700) when missing. The returned
// function releases it. A lock file that is not a regular file (a link
// included) is refused.
func Lock(path string) (func(), error) {
	name := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: create its directory: %w", name, bare(err))
	}
	lf, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR|syscall.O_NONBLOCK|openNoFollow, 0o600)
	if err != nil {
		if st, serr := os.Lstat(name); serr == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("lock %s: %s, not a lock file this program made; remove it", name, Kind(st.Mode()))
		}
		return nil, fmt.Errorf("lock %s: %w", name, bare(err))
	}
	if st, err := lf.Stat(); err != nil || !st.Mode().IsRegular() {
		lf.Close()
		return nil, fmt.Errorf("lock %s: not a regular file, not a lock file this program made; remove it", name)
	}
	if err := lockFile(lf); err != nil {
		lf.Close()
		return nil, fmt.Errorf("lock %s: %w", name, bare(err))
	}
	removeStaleTemps(path)
	return func() {
		unlockFile(lf)
		lf.Close()
	}, nil
}

// removeStaleTemps deletes the temporary files of WriteAtomic that a killed
// writer of path left: under the lock, every such file is an orphan.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)+".tmp-"
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
