package worktree

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Bounds on a snapshot: a tree with more files, or a file larger than
// MaxHashBytes, is still measured, with a note.
const (
	MaxFiles       = 100000
	MaxHashBytes   = 32 << 20 // of one file, hashed
	maxIgnoreBytes = 1 << 20  // of a .gitignore file
)

// Entry is one file of a snapshot: the hash of its bytes (a symbolic
// link's target), and of its bytes without whitespace (a change that
// leaves Text equal is whitespace only).
type Entry struct {
	Raw  string `json:"raw"`
	Text string `json:"text"`
}

// Snapshot is the tree's files by slash-separated path.
type Snapshot struct {
	Files map[string]Entry `json:"files"`
}

// Take reads the working tree at top: every file git would see (what
// .gitignore files and .git/info/exclude leave), the .git directory aside.
// Only regular files are opened; a symbolic link is its target's name.
func Take(top string) (*Snapshot, []string, error) {
	s := &Snapshot{Files: map[string]Entry{}}
	var notes []string
	patterns := readIgnore(filepath.Join(top, ".git", "info", "exclude"), nil)
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == top {
				return err
			}
			notes = append(notes, fmt.Sprintf("%s: not read: %v", path, err))
			return nil
		}
		rel, _ := filepath.Rel(top, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				patterns = append(patterns, readIgnore(filepath.Join(path, ".gitignore"), nil)...)
				return nil
			}
			segs := strings.Split(rel, "/")
			if d.Name() == ".git" || gitignore.NewMatcher(patterns).Match(segs, true) {
				return filepath.SkipDir
			}
			patterns = append(patterns, readIgnore(filepath.Join(path, ".gitignore"), segs)...)
			return nil
		}
		if gitignore.NewMatcher(patterns).Match(strings.Split(rel, "/"), false) {
			return nil
		}
		if len(s.Files) >= MaxFiles {
			notes = append(notes, fmt.Sprintf("the working tree has more than %d files: the others were not measured", MaxFiles))
			return filepath.SkipAll
		}
		e, note, err := hashEntry(path, d)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: not read: %v", rel, err))
			return nil
		}
		if note != "" {
			notes = append(notes, rel+": "+note)
		}
		s.Files[rel] = e
		return nil
	})
	if err != nil {
		return nil, notes, fmt.Errorf("read working tree %s: %w", top, err)
	}
	return s, notes, nil
}

// readIgnore reads a .gitignore-style file's patterns for the directory
// domain; a missing or unreadable file has none.
func readIgnore(path string, domain []string) []gitignore.Pattern {
	f, _, err := regularfile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(io.LimitReader(f, maxIgnoreBytes))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// hashEntry hashes one file: a regular file's bytes (at most
// MaxHashBytes), a symbolic link's target; anything else is left out.
func hashEntry(path string, d fs.DirEntry) (Entry, string, error) {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return Entry{}, "", err
		}
		h := sum([]byte(target))
		return Entry{Raw: h, Text: h}, "", nil
	case !d.Type().IsRegular():
		return Entry{}, "", fmt.Errorf("not a regular file")
	}
	// Opened as a regular file only: one the agent swapped for a named
	// pipe since the walk saw it is refused, never waited on.
	f, fi, err := regularfile.Open(path)
	if err != nil {
		return Entry{}, "", err
	}
	defer f.Close()
	raw, text := sha256.New(), sha256.New()
	buf := make([]byte, 32<<10)
	squeezed := make([]byte, 0, len(buf))
	r := io.LimitReader(f, MaxHashBytes)
	for {
		n, err := r.Read(buf)
		raw.Write(buf[:n])
		squeezed = squeezed[:0]
		for _, c := range buf[:n] {
			if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f' {
				squeezed = append(squeezed, c)
			}
		}
		text.Write(squeezed)
		if err == io.EOF {
			break
		}
		if err != nil {
			return Entry{}, "", err
		}
	}
	note := ""
	if fi.Size() > MaxHashBytes {
		fmt.Fprintf(raw, "\x00size %d", fi.Size())
		note = fmt.Sprintf("larger than %d MiB: only its start and size were compared", MaxHashBytes>>20)
	}
	return Entry{Raw: hex.EncodeToString(raw.Sum(nil)[:16]), Text: hex.EncodeToString(text.Sum(nil)[:16])}, note, nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// Change is what changed between two snapshots: the paths added, removed
// or modified, and those of them whose change counts as progress (not only
// whitespace, not a path the policy ignores or counts as notes or task
// lists), both sorted.
type Change struct {
	Changed    []string
	Meaningful []string
}

// Meaning tells meaningful paths from the others, by the policy's lists.
type Meaning struct{ ignore *pathmatch.Set }

// NewMeaning compiles the policy's ignore_paths, notes_paths and
// task_files.
func NewMeaning(p *policy.Policy) (*Meaning, error) {
	set, err := pathmatch.Compile(slices.Concat(p.Progress.IgnorePaths, p.Progress.NotesPaths, p.Progress.TaskFiles))
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", p.Name, err)
	}
	return &Meaning{ignore: set}, nil
}

// Compare lists what changed from prev to cur (a nil prev is an empty
// tree: every file is new).
func (m *Meaning) Compare(prev, cur *Snapshot) Change {
	var c Change
	old := map[string]Entry{}
	if prev != nil {
		old = prev.Files
	}
	add := func(path string, meaningful bool) {
		c.Changed = append(c.Changed, path)
		if meaningful && !m.ignore.Match(path) {
			c.Meaningful = append(c.Meaningful, path)
		}
	}
	for path, e := range cur.Files {
		o, ok := old[path]
		switch {
		case !ok:
			add(path, true)
		case o.Raw != e.Raw:
			add(path, o.Text != e.Text)
		}
	}
	for path := range old {
		if _, ok := cur.Files[path]; !ok {
			add(path, true)
		}
	}
	sort.Strings(c.Changed)
	sort.Strings(c.Meaningful)
	return c
}
