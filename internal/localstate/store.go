package localstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/internal/worktree"
)

// Version is the store format this program writes; it reads version 1
// state files too.
const Version = 2

// Kind marks a file as a loopbreaker store.
const Kind = "loopbreaker-state"

// MaxBytes bounds a store: the newest ledger.MaxRecords records and the
// snapshot of a working tree of worktree.MaxFiles files.
const MaxBytes = 96 << 20

// MaxResets bounds the resets a store keeps (the newest).
const MaxResets = 100

// File is the content of a store.
type File struct {
	Version   int       `json:"version"`
	Kind      string    `json:"kind"`
	Policy    string    `json:"policy,omitempty"`
	Profile   string    `json:"profile,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Base is the commit the shell loop started from.
	Base string `json:"base,omitempty"`
	// Session is the hook session the store is; Transcript and Offset say
	// how far its transcript was read.
	Session    string `json:"session,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	Offset     int64  `json:"offset,omitempty"`
	// Carried is the breaker of a version 1 state file, which kept no
	// records.
	Carried *Carried `json:"carried,omitempty"`
	// Resets are a person's, oldest first; Records the loop's iterations.
	Resets  []Reset         `json:"resets,omitempty"`
	Records []ledger.Record `json:"records"`
	// Tree is the working tree as the newest iteration left it.
	Tree *worktree.Snapshot `json:"tree,omitempty"`
}

// Reset is a person's reset of a loop.
type Reset struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// Carried is what a version 1 state file's breaker held: its iterations
// were not kept, so an OPEN breaker carries over as held OPEN until a
// reset, and the count of its iterations as a note.
type Carried struct {
	State      string    `json:"state"`
	At         time.Time `json:"at"`
	Trigger    string    `json:"trigger,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Iterations int       `json:"iterations"`
}

// AddReset appends a reset, keeping the newest MaxResets.
func (f *File) AddReset(r Reset) {
	f.Resets = append(f.Resets, r)
	if n := len(f.Resets) - MaxResets; n > 0 {
		f.Resets = f.Resets[n:]
	}
}

// Last is the time of the newest thing the store holds (zero for none).
func (f *File) Last() time.Time {
	var t time.Time
	if n := len(f.Records); n > 0 {
		t = f.Records[n-1].At
	}
	if n := len(f.Resets); n > 0 && f.Resets[n-1].At.After(t) {
		t = f.Resets[n-1].At
	}
	if c := f.Carried; c != nil && c.At.After(t) {
		t = c.At
	}
	return t
}

// Store is one loop's store, open under its lock.
type Store struct {
	Name   string   // as people know it: the path given, or the loop
	Path   string   // the file written: the path given, or the file its links name
	File   *File    // the content; nil when there is none yet
	legacy []string // files of an earlier layout it was read from, removed on Save
	unlock func()
}

// Open locks and reads the store at path, written through its symbolic
// links. A missing store reads as none (File nil), or as what the
// existing legacy files of an earlier layout held; with peek it is neither
// locked nor created. A damaged store is an error naming it, left as it is.
func Open(path string, peek bool, legacy ...string) (*Store, error) {
	target, err := regularfile.Target(path)
	if err != nil {
		return nil, fmt.Errorf("state file %w", err)
	}
	s := &Store{Name: path, Path: target, unlock: func() {}, legacy: legacy}
	if _, err := os.Lstat(target); peek && errors.Is(err, fs.ErrNotExist) && len(s.legacy) == 0 {
		return s, nil
	}
	if s.unlock, err = regularfile.Lock(target); err != nil {
		return nil, fmt.Errorf("state file %s: %w", path, err)
	}
	data, err := regularfile.Read(target, MaxBytes, "state file")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = nil
		for _, l := range s.legacy {
			if s.File, err = merge(s.File, l); err != nil {
				break
			}
		}
	case err == nil:
		s.File, err = Decode(data, path)
		s.legacy = nil
	}
	if err != nil {
		s.unlock()
		return nil, err
	}
	return s, nil
}

// Close releases the store's lock.
func (s *Store) Close() { s.unlock() }

// Save writes f as the store, atomically, into the directory its lock was
// taken in, and removes the files of an earlier layout it was read from.
func (s *Store) Save(f *File) error {
	f.Version, f.Kind = Version, Kind
	if f.Records == nil {
		f.Records = []ledger.Record{}
	}
	if n := len(f.Records) - ledger.MaxRecords; n > 0 {
		f.Records = f.Records[n:]
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("state file %s: encode: %w", s.Name, err)
	}
	// 0600: it may hold what people wrote (reset reasons).
	if err := regularfile.WriteAtomic(s.Path, append(data, '\n'), 0o600); err != nil {
		return err
	}
	s.File = f
	for _, l := range s.legacy {
		os.Remove(l)
	}
	s.legacy = nil
	return nil
}

// Decode parses a store; name is used in errors. A version 1 state file
// reads as a store with its breaker carried; a loop file of the earlier
// layout as a store without records.
func Decode(data []byte, name string) (*File, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("state file %s: empty file; delete it to start a fresh breaker", name)
	}
	var head struct {
		Version *int   `json:"version"`
		Kind    string `json:"kind"`
	}
	if err := json.Unmarshal(trimmed, &head); err != nil {
		return nil, fmt.Errorf("state file %s: %s", name, jsonFault(trimmed, err))
	}
	switch {
	case head.Kind == "" && head.Version != nil && *head.Version == 1:
		return decodeLoop(trimmed, name)
	case head.Kind != Kind:
		return nil, fmt.Errorf("state file %s: not a loopbreaker state file (kind %q, want %q)", name, head.Kind, Kind)
	case head.Version == nil:
		return nil, fmt.Errorf("state file %s: no version field", name)
	case *head.Version > Version:
		return nil, fmt.Errorf("state file %s: version %d was written by a newer loopbreaker (this one reads versions 1 and %d); upgrade loopbreaker", name, *head.Version, Version)
	case *head.Version < 1:
		return nil, fmt.Errorf("state file %s: version %d is not a valid version", name, *head.Version)
	case *head.Version == 1:
		return decodeV1(trimmed, name)
	}
	var f File
	if err := strict(trimmed, &f, name); err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("state file %s: %w; it was left as it is", name, err)
	}
	return &f, nil
}

// strict decodes one JSON object with no unknown field and nothing after it.
func strict(data []byte, v any, name string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("state file %s: %s", name, jsonFault(data, err))
	}
	if dec.More() {
		return fmt.Errorf("state file %s: trailing data after the JSON object", name)
	}
	return nil
}

// check validates what a store holds against the bounds it is written in.
func (f *File) check() error {
	if len(f.Resets) > MaxResets {
		return fmt.Errorf("%d resets: over the bound of %d", len(f.Resets), MaxResets)
	}
	if len(f.Records) > ledger.MaxRecords {
		return fmt.Errorf("%d records: over the bound of %d", len(f.Records), ledger.MaxRecords)
	}
	for i := range f.Records {
		if err := f.Records[i].Validate(); err != nil {
			return fmt.Errorf("records[%d]: %v", i, err)
		}
	}
	if t := f.Tree; t != nil && len(t.Files) > worktree.MaxFiles {
		return fmt.Errorf("a working tree of %d files (at most %d)", len(t.Files), worktree.MaxFiles)
	}
	if f.Offset < 0 {
		return fmt.Errorf("offset %d is negative", f.Offset)
	}
	return nil
}

// decodeV1 reads a version 1 state file: its settings, and whether its
// breaker snapshot was OPEN, when and why.
func decodeV1(data []byte, name string) (*File, error) {
	var v1 struct {
		Version   int             `json:"version"`
		Kind      string          `json:"kind"`
		Policy    string          `json:"policy"`
		Profile   string          `json:"profile"`
		CreatedAt time.Time       `json:"created_at"`
		UpdatedAt time.Time       `json:"updated_at"`
		Breaker   json.RawMessage `json:"breaker"`
	}
	if err := strict(data, &v1, name); err != nil {
		return nil, err
	}
	var b struct {
		State     breaker.State `json:"state"`
		Iteration int           `json:"iteration"`
		LastAt    time.Time     `json:"last_at"`
		OpenedAt  *time.Time    `json:"opened_at"`
		Trigger   string        `json:"trigger"`
		Reason    string        `json:"reason"`
	}
	if len(v1.Breaker) > 0 {
		if err := json.Unmarshal(v1.Breaker, &b); err != nil {
			return nil, fmt.Errorf("state file %s: breaker: %s", name, jsonFault(v1.Breaker, err))
		}
	}
	if b.Iteration < 0 {
		return nil, fmt.Errorf("state file %s: breaker: iteration %d is negative", name, b.Iteration)
	}
	f := &File{Version: Version, Kind: Kind, Policy: v1.Policy, Profile: v1.Profile, CreatedAt: v1.CreatedAt, UpdatedAt: v1.UpdatedAt}
	if b.Iteration > 0 || b.State != breaker.Closed {
		c := &Carried{State: b.State.String(), At: b.LastAt, Trigger: b.Trigger, Reason: b.Reason, Iterations: b.Iteration}
		if b.OpenedAt != nil && b.State == breaker.Open {
			c.At = *b.OpenedAt
		}
		f.Carried = c
	}
	return f, nil
}

// decodeLoop reads a loop file of the earlier layout: where the shell loop
// started and the resets made since.
func decodeLoop(data []byte, name string) (*File, error) {
	var l struct {
		Version int       `json:"version"`
		Base    string    `json:"base"`
		Started time.Time `json:"started"`
		Resets  []Reset   `json:"resets"`
	}
	if err := strict(data, &l, name); err != nil {
		return nil, err
	}
	f := &File{Version: Version, Kind: Kind, Base: l.Base, CreatedAt: l.Started, Resets: l.Resets}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("state file %s: %w", name, err)
	}
	return f, nil
}

// merge adds a file of an earlier layout to the store f (nil: none yet):
// a state or loop file, the shell loop's ledger, or the hook's marks.
func merge(f *File, path string) (*File, error) {
	data, err := regularfile.Read(path, MaxBytes, "state file")
	if err != nil {
		return nil, err
	}
	if f == nil {
		f = &File{Version: Version, Kind: Kind}
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		l := ledger.Decode(trimmed, path)
		if len(l.Problems) > 0 {
			return nil, fmt.Errorf("ledger %s: %s; it was left as it is", path, l.Problems[0].Err)
		}
		f.Records = l.Records
		return f, nil
	}
	var m struct {
		Offset     *int64             `json:"offset"`
		Session    string             `json:"session"`
		Transcript string             `json:"transcript"`
		Tree       *worktree.Snapshot `json:"tree"`
	}
	if err := json.Unmarshal(data, &m); err == nil && m.Offset != nil {
		f.Session, f.Transcript, f.Offset, f.Tree = m.Session, m.Transcript, max(*m.Offset, 0), m.Tree
		return f, nil
	}
	g, err := Decode(data, path)
	if err != nil {
		return nil, err
	}
	g.Records, g.Tree, g.Session, g.Transcript, g.Offset = f.Records, f.Tree, f.Session, f.Transcript, f.Offset
	return g, nil
}

// jsonFault describes a JSON error with its line and column.
func jsonFault(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON (unexpected end of file)"
	case errors.As(err, &se):
		return fmt.Sprintf("%s: not JSON: %v", position(data, se.Offset), err)
	case errors.As(err, &te) && te.Field == "":
		return "want a JSON object, found JSON " + te.Value
	case errors.As(err, &te):
		return fmt.Sprintf("%s: field %q: want %s, found JSON %s", position(data, te.Offset), te.Field, te.Type, te.Value)
	}
	return fmt.Sprintf("invalid JSON: %v", err)
}

func position(data []byte, off int64) string {
	before := data[:min(off, int64(len(data)))]
	return fmt.Sprintf("line %d, column %d", bytes.Count(before, []byte("\n"))+1, len(before)-bytes.LastIndexByte(before, '\n'))
}
