package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
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
	// O_NONBLOCK: a named pipe without a writer must not block the open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("state file %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("state file %s: larger than %d bytes; not a state file this program wrote", path, MaxBytes)
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
	return WriteAtomic(path, data, 0o644)
}

// WriteAtomic replaces path with data through a synced temporary file.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
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
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Lock takes an exclusive advisory lock beside the state file (FILE.lock)
// so that concurrent record calls are serialised, never interleaved. The
// returned function releases it.
func Lock(path string) (func(), error) {
	lf, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock state file %s: %w", path, err)
	}
	if err := lockFile(lf); err != nil {
		lf.Close()
		return nil, fmt.Errorf("lock state file %s: %w", path, err)
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
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+globEscape(filepath.Base(path))+".tmp-*"))
	for _, name := range stale {
		os.Remove(name)
	}
}

// globEscape quotes the pattern characters of a file name.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("*?[\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
