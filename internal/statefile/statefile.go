package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// Version is the state file format this program writes and reads.
const Version = 1

// Kind marks a file as a loopbreaker state file.
const Kind = "loopbreaker-state"

// MaxBytes bounds a state file; a larger one is refused as corrupt.
const MaxBytes = 16 << 20

// File is the JSON content of a state file.
type File struct {
	Version   int              `json:"version"`
	Kind      string           `json:"kind"`
	Policy    string           `json:"policy"`
	Profile   string           `json:"profile,omitempty"`
	CreatedAt time.Time        `json:"created_at"`
	UpdatedAt time.Time        `json:"updated_at"`
	Breaker   breaker.Snapshot `json:"breaker"`
}

// Load reads a state file. A missing file returns (nil, nil): a fresh
// breaker. Anything else that is not a complete state file of a version
// this program knows is an error naming the file and the fault.
func Load(path string) (*File, error) {
	data, err := ReadRegular(path, MaxBytes, "state file")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Decode(data, path)
}

// Decode parses state file content; name is used in errors.
func Decode(data []byte, name string) (*File, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("state file %s: empty file; delete it to start a fresh breaker", name)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("state file %s: want a JSON object, found %s", name, describe(trimmed))
	}
	var head struct {
		Version *int   `json:"version"`
		Kind    string `json:"kind"`
	}
	if err := json.Unmarshal(trimmed, &head); err != nil {
		return nil, fmt.Errorf("state file %s: %s", name, jsonFault(trimmed, err))
	}
	if head.Kind != Kind {
		return nil, fmt.Errorf("state file %s: not a loopbreaker state file (kind %q, want %q)", name, head.Kind, Kind)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("state file %s: no version field", name)
	}
	if *head.Version > Version {
		return nil, fmt.Errorf("state file %s: version %d was written by a newer loopbreaker (this one reads version %d); upgrade loopbreaker", name, *head.Version, Version)
	}
	if *head.Version < 1 {
		return nil, fmt.Errorf("state file %s: version %d is not a valid version", name, *head.Version)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("state file %s: %s", name, jsonFault(trimmed, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("state file %s: trailing data after the JSON object", name)
	}
	return &f, nil
}

func describe(b []byte) string {
	switch b[0] {
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON boolean"
	case 'n':
		return "null"
	}
	if b[0] == '-' || (b[0] >= '0' && b[0] <= '9') {
		return "a JSON number"
	}
	return "text that is not JSON"
}

// jsonFault describes a JSON error with its line and column.
func jsonFault(data []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			return fmt.Sprintf("%s: field %q: want %s, found JSON %s", position(data, off), te.Field, te.Type, te.Value)
		}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "truncated JSON (unexpected end of file)"
	}
	if off >= 0 {
		return fmt.Sprintf("%s: %v", position(data, off), err)
	}
	return fmt.Sprintf("invalid JSON: %v", err)
}

func position(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

// FileMode is the mode of a new state file: it may hold what people wrote
// (reset reasons), so only its owner reads it. An existing file keeps its
// mode (WriteAtomic).
const FileMode = 0o600

// Save writes the state atomically: a temporary file in the same
// directory, fsync, rename over the old file, fsync of the directory. A
// reader sees the old or the new complete file, never a mix.
func Save(path string, f *File) error {
	f.Version = Version
	f.Kind = Kind
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("state file %s: encode: %w", path, err)
	}
	data = append(data, '\n')
	return WriteAtomic(path, data, FileMode)
}

// WriteAtomic replaces path with data through a synced temporary file in
// its directory. A new file gets perm; an existing one keeps its mode (and,
// where the process may, its owner). A symbolic link at path is replaced,
// not followed (see Target for writing through one). Anything else that is
// not a regular file (a directory, a named pipe, a device) is refused and
// left alone. Errors name path, never the temporary file.
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
		return fmt.Errorf("write %s: not a regular file (%s); not replaced", path, regularfile.Kind(old.Mode()))
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
// replace: path itself when it is not a link, else the file the links name
// in the end, which need not exist yet (a relative link is read from the
// link's directory). A link is kept and the file it names is written, so a
// state file kept elsewhere and linked into a work tree stays one file. A
// target that exists but is not a regular file is refused: nothing is then
// locked, created or written beside it.
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
				return "", fmt.Errorf("%s: not a regular file (%s)", linked(path, p), regularfile.Kind(st.Mode()))
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

// linked names path, and the file it links to when that differs.
func linked(path, target string) string {
	if path == target {
		return path
	}
	return fmt.Sprintf("%s (a link to %s)", path, target)
}

// ReadRegular reads the regular file at path, at most max bytes: a named
// pipe is refused without waiting for a writer, a device or directory
// without reading it, and a larger file without reading more than max+1
// bytes. A missing file is an error wrapping fs.ErrNotExist. what names the
// file in errors ("state file", "record file").
func ReadRegular(path string, max int64, what string) ([]byte, error) {
	// O_NONBLOCK: opening a named pipe without a writer must not block.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, bare(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, bare(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file (%s)", what, path, regularfile.Kind(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s %s: larger than %d bytes; not a file this program wrote", what, path, max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, bare(err))
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s %s: larger than %d bytes; not a file this program wrote", what, path, max)
	}
	return data, nil
}

// Lock takes an exclusive advisory lock beside the file at path
// (FILE.lock) so that the read-modify-write cycles of concurrent calls on
// it are serialised, never interleaved; the directory is created (0700)
// when missing. The returned function releases it. A lock file that is a
// symbolic link, a directory or anything but a regular file is refused:
// the lock is this program's own file.
func Lock(path string) (func(), error) {
	name := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: create its directory: %w", name, bare(err))
	}
	lf, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR|syscall.O_NONBLOCK|openNoFollow, 0o600)
	if err != nil {
		if st, serr := os.Lstat(name); serr == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("lock %s: %s, not a lock file this program made; remove it", name, regularfile.Kind(st.Mode()))
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

// removeStaleTemps deletes the temporary files of WriteAtomic that a
// process killed while writing path left behind. Only the holder of the
// lock writes path, so under the lock every such file is an orphan.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), "."+filepath.Base(path)+".tmp-"
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
