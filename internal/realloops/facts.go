package realloops

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Change statuses, as git's --name-status letters.
const (
	StatusAdded    = "A"
	StatusModified = "M"
	StatusDeleted  = "D"
	StatusRenamed  = "R"
)

// Trailers kept from commit messages.
const (
	TrailerPhase    = "Loop-Phase"
	TrailerProgress = "Loop-Progress"
)

// Facts is the shape of one repository's first-parent history window.
type Facts struct {
	// Repo is "owner/name".
	Repo string
	// Head is the hash of the window's last commit.
	Head string
	// Base is the parent of the window's first commit; nil when that
	// commit is a root.
	Base *Base
	// Commits is the first-parent chain, oldest first.
	Commits []Commit
}

// Base is what the window starts from.
type Base struct {
	// Hash is the base commit's hash.
	Hash string
	// Files are the files the window changes later, as they were at the
	// base (paths absent at the base are not listed).
	Files []File
	// Tasks are the checkbox lists of the task files at the base, by path.
	Tasks map[string][]Task
}

// File is one file at the base.
type File struct {
	Path string
	// Lines is the line count of a text file.
	Lines int
	// Binary, Generated, Exec and Submodule say what kind of entry it is:
	// a binary blob, a text file with a "Code generated ... DO NOT EDIT."
	// header, an executable file, a submodule commit (gitlink).
	Binary, Generated, Exec, Submodule bool
}

// Commit is one commit of the chain.
type Commit struct {
	// Hash and Parents are full hashes; Parents[0] is the previous commit
	// of the chain (or the base).
	Hash    string
	Parents []string
	// Time is the committer time, with its zone.
	Time time.Time
	// Changes are the changed paths against the first parent, sorted by
	// path.
	Changes []Change
	// Restores is the hash of the earliest earlier commit of the chain (or
	// the base) whose whole tree equals this commit's tree, for a commit
	// that changes something; "" otherwise.
	Restores string
	// FileRestores maps a changed path whose new content equals its content
	// at an earlier commit (or the base) to the earliest such commit.
	FileRestores map[string]string
	// Tasks are the checkbox lists of the task files whose content this
	// commit changed (added or modified), by path.
	Tasks map[string][]Task
	// Trailers are the Loop-Phase and Loop-Progress trailer values.
	Trailers map[string][]string
	// Revert is true when the message says it reverts a commit; Reverts
	// names the reverted commit when the message does.
	Revert  bool
	Reverts string
	// Completion is true when the subject claims the work is complete.
	Completion bool
	// Admitted is true when the message admits no progress (idle, no-op,
	// nothing to do, still blocked, ...), as the engine's detector reads
	// it; Blocker is a 12-hex hash of the blocker it names, normalised, so
	// that the same blocker reported again has the same hash ("" for none).
	Admitted bool
	Blocker  string
	// Claim is the 12-hex key of the claim of done work the engine reads
	// in the message ("" for none): the same claim made again has the same
	// key.
	Claim string
}

// Change is one changed path.
type Change struct {
	// Path is the path after the change (before it, for a deletion); From
	// is the old path of a rename.
	Path, From string
	// Status is StatusAdded, StatusModified, StatusDeleted or StatusRenamed.
	Status string
	// Added and Deleted are line counts (0 for binary files and
	// submodules).
	Added, Deleted int
	// Binary: either side is binary (or too large to compare by lines).
	Binary bool
	// WhitespaceOnly: a modification that only changes whitespace.
	WhitespaceOnly bool
	// DigitsOnly: a modification that only changes digits (a timestamp or
	// counter rewrite): both sides are equal once the digits are removed.
	DigitsOnly bool
	// Churn: a modification that is not digits-only but only changes
	// digits, hex strings of 7 or more characters and timestamps (a new
	// fingerprint); a digits-only change is churn too.
	Churn bool
	// Code: the edited lines of a text file whose name does not say it is
	// source code, nor a task list, read as code rather than prose (a
	// config, a Makefile); only for a change with lines.
	Code bool
	// Generated: the file carries a "Code generated ... DO NOT EDIT."
	// header (the new side; the old side of a deletion).
	Generated bool
	// Submodule: the entry is a submodule commit (gitlink).
	Submodule bool
	// Exec: the new side is an executable file.
	Exec bool
	// Lines is the new side's line count where the counts above cannot
	// tell it: a text file whose old side was binary or a submodule. nil
	// otherwise.
	Lines *int
	// Written are the items the engine read of what the change wrote
	// into the file (WrittenItems), in order.
	Written []string
}

// Task is one checkbox of a task list.
type Task struct {
	// Key is the first 12 hex digits of the SHA-256 of the task's
	// normalised text (TaskKey).
	Key string
	// Checked is true for "[x]".
	Checked bool
}

// The wire format: see the package documentation.

type wireFacts struct {
	Repo     string       `json:"repo"`
	Head     string       `json:"head"`
	Base     *wireBase    `json:"base,omitempty"`
	TaskKeys []string     `json:"task_keys,omitempty"`
	Commits  []wireCommit `json:"commits"`
}

type wireBase struct {
	Hash  string           `json:"hash"`
	Files []wireFile       `json:"files,omitempty"`
	Tasks map[string][]int `json:"tasks,omitempty"`
}

type wireFile struct {
	Path      string `json:"path"`
	Lines     int    `json:"lines,omitempty"`
	Binary    bool   `json:"binary,omitempty"`
	Generated bool   `json:"generated,omitempty"`
	Exec      bool   `json:"exec,omitempty"`
	Submodule bool   `json:"submodule,omitempty"`
}

type wireCommit struct {
	Hash         string              `json:"hash"`
	Parents      []string            `json:"parents"`
	Time         string              `json:"time"`
	Changes      []wireChange        `json:"changes,omitempty"`
	Restores     string              `json:"restores,omitempty"`
	FileRestores map[string]string   `json:"file_restores,omitempty"`
	Tasks        map[string][]int    `json:"tasks,omitempty"`
	Trailers     map[string][]string `json:"trailers,omitempty"`
	Revert       bool                `json:"revert,omitempty"`
	Reverts      string              `json:"reverts,omitempty"`
	Completion   bool                `json:"completion,omitempty"`
	Admitted     bool                `json:"admitted,omitempty"`
	Blocker      string              `json:"blocker,omitempty"`
	Claim        string              `json:"claim,omitempty"`
}

type wireChange struct {
	Path           string   `json:"path"`
	Status         string   `json:"status"`
	From           string   `json:"from,omitempty"`
	Added          int      `json:"added,omitempty"`
	Deleted        int      `json:"deleted,omitempty"`
	Binary         bool     `json:"binary,omitempty"`
	WhitespaceOnly bool     `json:"whitespace_only,omitempty"`
	DigitsOnly     bool     `json:"digits_only,omitempty"`
	Churn          bool     `json:"churn,omitempty"`
	Code           bool     `json:"code,omitempty"`
	Generated      bool     `json:"generated,omitempty"`
	Submodule      bool     `json:"submodule,omitempty"`
	Exec           bool     `json:"exec,omitempty"`
	Lines          *int     `json:"lines,omitempty"`
	Written        []string `json:"written,omitempty"`
}

// taskTable numbers task keys in the order they are first seen.
type taskTable struct {
	keys  []string
	index map[string]int
}

func (t *taskTable) encode(list []Task) []int {
	if t.index == nil {
		t.index = map[string]int{}
	}
	out := make([]int, len(list))
	for i, task := range list {
		n, ok := t.index[task.Key]
		if !ok {
			n = len(t.keys)
			t.index[task.Key] = n
			t.keys = append(t.keys, task.Key)
		}
		out[i] = 2 * n
		if task.Checked {
			out[i]++
		}
	}
	return out
}

func (t *taskTable) encodeAll(m map[string][]Task) map[string][]int {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]int, len(m))
	for _, path := range sortedKeys(m) {
		out[path] = t.encode(m[path])
	}
	return out
}

// Write writes f in the facts file format, one commit a line.
func Write(w io.Writer, f *Facts) error {
	var tt taskTable
	wf := wireFacts{Repo: f.Repo, Head: f.Head}
	if f.Base != nil {
		wb := &wireBase{Hash: f.Base.Hash, Tasks: tt.encodeAll(f.Base.Tasks)}
		for _, bf := range f.Base.Files {
			wb.Files = append(wb.Files, wireFile(bf))
		}
		wf.Base = wb
	}
	for i := range f.Commits {
		c := &f.Commits[i]
		wc := wireCommit{
			Hash: c.Hash, Parents: c.Parents, Time: c.Time.Format(time.RFC3339),
			Restores: c.Restores, FileRestores: c.FileRestores, Tasks: tt.encodeAll(c.Tasks),
			Trailers: c.Trailers, Revert: c.Revert, Reverts: c.Reverts, Completion: c.Completion,
			Admitted: c.Admitted, Blocker: c.Blocker, Claim: c.Claim,
		}
		if len(c.FileRestores) == 0 {
			wc.FileRestores = nil
		}
		if len(c.Trailers) == 0 {
			wc.Trailers = nil
		}
		for _, ch := range c.Changes {
			wc.Changes = append(wc.Changes, wireChange{
				Path: ch.Path, Status: ch.Status, From: ch.From, Added: ch.Added, Deleted: ch.Deleted,
				Binary: ch.Binary, WhitespaceOnly: ch.WhitespaceOnly, DigitsOnly: ch.DigitsOnly, Churn: ch.Churn, Code: ch.Code,
				Generated: ch.Generated, Submodule: ch.Submodule, Exec: ch.Exec, Lines: ch.Lines, Written: ch.Written,
			})
		}
		wf.Commits = append(wf.Commits, wc)
	}
	wf.TaskKeys = tt.keys

	// The header (everything but the commits), then one commit a line.
	commits := wf.Commits
	wf.Commits = nil
	head, err := json.Marshal(wf)
	if err != nil {
		return err
	}
	const tail = `"commits":null}`
	if !bytes.HasSuffix(head, []byte(tail)) {
		return fmt.Errorf("encode facts of %s: the header does not end in the commits field", f.Repo)
	}
	bw := bufio.NewWriter(w)
	bw.Write(head[:len(head)-len(tail)])
	bw.WriteString("\"commits\":[\n")
	for i := range commits {
		line, err := json.Marshal(&commits[i])
		if err != nil {
			return err
		}
		bw.Write(line)
		if i < len(commits)-1 {
			bw.WriteByte(',')
		}
		bw.WriteByte('\n')
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// decodeFacts reads a facts file; the errors name the field. Validation
// of the history's consistency is validate's.
func decodeFacts(data []byte) (*Facts, error) {
	var wf wireFacts
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&wf); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decode: data after the facts object")
	}
	tasks := func(field string, m map[string][]int) (map[string][]Task, error) {
		if m == nil {
			return nil, nil
		}
		out := make(map[string][]Task, len(m))
		for path, list := range m {
			ts := make([]Task, len(list))
			for i, v := range list {
				if v < 0 || v/2 >= len(wf.TaskKeys) {
					return nil, fmt.Errorf("%s[%q][%d]: %d names no entry of task_keys (%d keys)", field, path, i, v, len(wf.TaskKeys))
				}
				ts[i] = Task{Key: wf.TaskKeys[v/2], Checked: v%2 == 1}
			}
			out[path] = ts
		}
		return out, nil
	}
	f := &Facts{Repo: wf.Repo, Head: wf.Head}
	if wf.Base != nil {
		b := &Base{Hash: wf.Base.Hash}
		for _, wfile := range wf.Base.Files {
			b.Files = append(b.Files, File(wfile))
		}
		var err error
		if b.Tasks, err = tasks("base.tasks", wf.Base.Tasks); err != nil {
			return nil, err
		}
		f.Base = b
	}
	f.Commits = make([]Commit, len(wf.Commits))
	for i, wc := range wf.Commits {
		c := Commit{
			Hash: wc.Hash, Parents: wc.Parents, Restores: wc.Restores, FileRestores: wc.FileRestores,
			Trailers: wc.Trailers, Revert: wc.Revert, Reverts: wc.Reverts, Completion: wc.Completion,
			Admitted: wc.Admitted, Blocker: wc.Blocker, Claim: wc.Claim,
		}
		t, err := time.Parse(time.RFC3339, wc.Time)
		if err != nil {
			return nil, fmt.Errorf("commits[%d].time: %q is not an RFC 3339 time", i, wc.Time)
		}
		c.Time = t
		if c.Tasks, err = tasks(fmt.Sprintf("commits[%d].tasks", i), wc.Tasks); err != nil {
			return nil, err
		}
		for _, ch := range wc.Changes {
			c.Changes = append(c.Changes, Change{
				Path: ch.Path, Status: ch.Status, From: ch.From, Added: ch.Added, Deleted: ch.Deleted,
				Binary: ch.Binary, WhitespaceOnly: ch.WhitespaceOnly, DigitsOnly: ch.DigitsOnly, Churn: ch.Churn, Code: ch.Code,
				Generated: ch.Generated, Submodule: ch.Submodule, Exec: ch.Exec, Lines: ch.Lines, Written: ch.Written,
			})
		}
		f.Commits[i] = c
	}
	return f, nil
}
