package gitlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

// maxTaskLine is the longest prefix of a line looked at for a checkbox.
const maxTaskLine = 4096

// countTasks counts markdown checkboxes: list items ("-", "*", "+" or
// "1." / "1)") whose text starts with "[ ]" (open) or "[x]" / "[X]"
// (done). Lines inside fenced code blocks are not counted. The input is
// streamed through a buffer of at most 64 KiB (size, when known, fits a
// smaller file's buffer to it); very long lines are looked at by their
// first 4 KiB.
func countTasks(r io.Reader, size int64) (Tasks, error) {
	var t Tasks
	buf := 64 << 10
	if size >= 0 && size < int64(buf) {
		buf = max(int(size)+1, 16)
	}
	br := bufio.NewReaderSize(r, buf)
	var fence byte // '`' or '~' inside a fenced block
	var fenceLen int
	line := make([]byte, 0, 256)
	for {
		line = line[:0]
		eof := false
		for {
			chunk, err := br.ReadSlice('\n')
			if room := maxTaskLine - len(line); room > 0 {
				line = append(line, chunk[:min(len(chunk), room)]...)
			}
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if errors.Is(err, io.EOF) {
				eof = true
				break
			}
			return t, err
		}
		if c, n := fenceMark(line); n > 0 {
			switch {
			case fence == 0:
				fence, fenceLen = c, n
			case c == fence && n >= fenceLen:
				fence = 0
			}
		} else if fence == 0 {
			switch checkbox(line) {
			case boxOpen:
				t.Total++
			case boxDone:
				t.Total++
				t.Done++
			}
		}
		if eof {
			return t, nil
		}
	}
}

// fenceMark returns the fence character and run length when the line opens
// or closes a fenced code block (up to 3 spaces of indent, then 3 or more
// backticks or tildes).
func fenceMark(line []byte) (byte, int) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0
	}
	c, n := line[i], 0
	for i < len(line) && line[i] == c {
		i++
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return c, n
}

type box int

const (
	boxNone box = iota
	boxOpen
	boxDone
)

// checkbox classifies one markdown line.
func checkbox(line []byte) box {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return boxNone
	}
	switch c := line[i]; {
	case c == '-' || c == '*' || c == '+':
		i++
	case c >= '0' && c <= '9':
		j := i
		for i < len(line) && line[i] >= '0' && line[i] <= '9' && i-j < 9 {
			i++
		}
		if i >= len(line) || (line[i] != '.' && line[i] != ')') {
			return boxNone
		}
		i++
	default:
		return boxNone
	}
	if i >= len(line) || (line[i] != ' ' && line[i] != '\t') {
		return boxNone
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i+3 > len(line) || line[i] != '[' || line[i+2] != ']' {
		return boxNone
	}
	if i+3 < len(line) && line[i+3] != ' ' && line[i+3] != '\t' && line[i+3] != '\n' && line[i+3] != '\r' {
		return boxNone
	}
	switch line[i+1] {
	case ' ':
		return boxOpen
	case 'x', 'X':
		return boxDone
	}
	return boxNone
}

// taskBlob counts the checkboxes of one blob, cached by hash.
func (r *Repo) taskBlob(h plumbing.Hash) (Tasks, error) {
	if t, ok := r.tasks[h]; ok {
		return t, nil
	}
	b, err := r.blob(h)
	if err != nil {
		return Tasks{}, err
	}
	rd, err := b.Reader()
	if err != nil {
		return Tasks{}, r.objectError("blob", h, err)
	}
	t, err := countTasks(rd, b.Size())
	_ = rd.Close()
	if err != nil {
		return Tasks{}, fmt.Errorf("read blob %s in %s: %w", h, r.dir, err)
	}
	if len(r.tasks) >= taskCacheMax {
		clear(r.tasks)
	}
	r.tasks[h] = t
	return t, nil
}

// taskTracker follows the task files through a sequence of trees: the full
// tree is walked once, then each diff updates the set.
type taskTracker struct {
	r     *Repo
	set   *pathmatch.Set
	files map[string]plumbing.Hash // task file path -> blob
}

// newTaskTracker finds the task files of tree (nil set: no tracking).
func (r *Repo) newTaskTracker(set *pathmatch.Set, tree *object.Tree) (*taskTracker, error) {
	t := &taskTracker{r: r, set: set, files: map[string]plumbing.Hash{}}
	if set == nil || len(set.Patterns()) == 0 {
		t.set = nil
		return t, nil
	}
	if err := t.walk(tree, "", 0); err != nil {
		return nil, err
	}
	return t, nil
}

// maxTreeDepth bounds recursion on hostile trees.
const maxTreeDepth = 256

func (t *taskTracker) walk(tree *object.Tree, prefix string, depth int) error {
	found, err := t.r.findTaskFiles(t.set, tree, prefix, depth)
	if err != nil {
		return err
	}
	for _, f := range found {
		t.files[f.path] = f.blob
	}
	return nil
}

// findTaskFiles returns the task files under tree (at prefix). What a
// subtree holds is remembered by its hash and path, so that walking the
// trees of successive commits reads only the directories that changed.
func (r *Repo) findTaskFiles(set *pathmatch.Set, tree *object.Tree, prefix string, depth int) ([]taskFile, error) {
	if depth > maxTreeDepth {
		return nil, fmt.Errorf("read tree %s in %s: deeper than %d levels", tree.Hash, r.dir, maxTreeDepth)
	}
	k := taskKey{set, tree.Hash, prefix}
	if found, ok := r.taskFiles[k]; ok && !tree.Hash.IsZero() {
		return found, nil
	}
	var found []taskFile
	for _, e := range tree.Entries {
		p := prefix + e.Name
		switch {
		case e.Mode == filemode.Dir:
			sub, err := r.tree(e.Hash)
			if err != nil {
				return nil, err
			}
			in, err := r.findTaskFiles(set, sub, p+"/", depth+1)
			if err != nil {
				return nil, err
			}
			found = append(found, in...)
		case isFileMode(e.Mode) && r.match(set, p):
			found = append(found, taskFile{p, e.Hash})
		}
	}
	if !tree.Hash.IsZero() {
		if len(r.taskFiles) >= taskMemoMax {
			clear(r.taskFiles)
		}
		r.taskFiles[k] = found
	}
	return found, nil
}

// isFileMode reports whether the mode is a regular (or executable) file.
func isFileMode(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// apply updates the task files with one diff.
func (t *taskTracker) apply(changes []rawChange) {
	if t.set == nil {
		return
	}
	for _, c := range changes {
		if c.from.path != "" {
			delete(t.files, c.from.path)
		}
		if c.to.path != "" && isFileMode(c.to.mode) && t.r.match(t.set, c.to.path) {
			t.files[c.to.path] = c.to.hash
		}
	}
}

// counts sums the checkboxes of the current task files; nil when there are
// none.
func (t *taskTracker) counts() (*Tasks, error) {
	if len(t.files) == 0 {
		return nil, nil
	}
	paths := make([]string, 0, len(t.files))
	for p := range t.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var sum Tasks
	for _, p := range paths {
		c, err := t.r.taskBlob(t.files[p])
		if err != nil {
			return nil, fmt.Errorf("task file %s: %w", p, err)
		}
		sum.Done += c.Done
		sum.Total += c.Total
	}
	return &sum, nil
}
