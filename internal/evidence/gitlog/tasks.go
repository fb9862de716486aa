package gitlog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// maxTaskLine is the longest prefix of a line looked at for a checkbox.
const maxTaskLine = 4096

// maxTaskItems bounds the tasks of one file whose identities are kept; the
// counts stay exact beyond it.
const maxTaskItems = 10000

// maxTaskText bounds the text of the current task kept for display, in
// bytes.
const maxTaskText = 120

// taskItem is one checkbox: a hash of its normalised text and its state.
type taskItem struct {
	text    [16]byte
	checked bool
}

// taskList is the checkboxes of one task file, in order.
type taskList struct {
	items  []taskItem // at most maxTaskItems
	counts Tasks      // exact
	// firstOpen is the first unchecked task, if any.
	firstOpen *openTask
}

// openTask is an unchecked task: its normalised text's hash and its text
// as written (trimmed, bounded).
type openTask struct {
	text    [16]byte
	display string
}

// readTaskListWith reads markdown checkboxes, hashing task texts through
// texts: list items ("-", "*", "+" or "1." / "1)") whose text starts with
// "[ ]" (open) or "[x]" / "[X]" (done). Lines inside fenced code blocks are
// not counted. The input is streamed through a buffer of at most 64 KiB
// (size, when known, fits a smaller file's buffer to it); very long lines
// are looked at by their first 4 KiB.
func readTaskListWith(r io.Reader, size int64, texts taskTexts) (taskList, error) {
	tr := taskReader{texts: texts}
	buf := 64 << 10
	if size >= 0 && size < int64(buf) {
		buf = max(int(size)+1, 16)
	}
	br := bufio.NewReaderSize(r, buf)
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
			return tr.tl, err
		}
		tr.line(line)
		if eof {
			return tr.tl, nil
		}
	}
}

// readTaskListBytes is readTaskListWith for content already in memory:
// the lines are looked at where they are, never copied.
func readTaskListBytes(data []byte, texts taskTexts) taskList {
	tr := taskReader{texts: texts}
	// Every task's line holds a '[' (its box): sized once by them, the
	// list is never copied, nor much larger than the tasks in it (a long
	// file of prose and few tasks is cached too).
	tr.tl.items = make([]taskItem, 0, min(bytes.Count(data, []byte{'['}), maxTaskItems))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		tr.line(line[:min(len(line), maxTaskLine)])
	}
	return tr.tl
}

// taskReader reads a task list line by line.
type taskReader struct {
	tl       taskList
	texts    taskTexts
	fence    byte // '`' or '~' inside a fenced block
	fenceLen int
}

// line reads one line (at most its first maxTaskLine bytes, with its end).
func (tr *taskReader) line(line []byte) {
	if c, n := fenceMark(line); n > 0 {
		switch {
		case tr.fence == 0:
			tr.fence, tr.fenceLen = c, n
		case c == tr.fence && n >= tr.fenceLen:
			tr.fence = 0
		}
	} else if tr.fence == 0 {
		if b, text := checkbox(line); b != boxNone {
			tr.tl.add(b == boxDone, text, tr.texts)
		}
	}
}

// add counts one checkbox and keeps its identity while there is room.
func (tl *taskList) add(done bool, text []byte, texts taskTexts) {
	tl.counts.Total++
	if done {
		tl.counts.Done++
	} else if tl.firstOpen == nil {
		tl.firstOpen = &openTask{text: taskText(text), display: displayText(text)}
	}
	if len(tl.items) < maxTaskItems {
		tl.items = append(tl.items, taskItem{text: texts.of(text), checked: done})
	}
}

// taskTexts remembers taskText's answers by the text as read: a task list
// is read again after each tick, and all its other lines are the same.
type taskTexts map[string][16]byte

// taskTextsMax bounds the texts remembered.
const taskTextsMax = 1 << 16

// of is taskText(text), remembered.
func (c taskTexts) of(text []byte) [16]byte {
	if c == nil {
		return taskText(text)
	}
	if h, ok := c[string(text)]; ok {
		return h
	}
	h := taskText(text)
	if len(c) >= taskTextsMax {
		clear(c)
	}
	c[string(text)] = h
	return h
}

// taskText hashes a task's text normalised as people read it: letters
// lowercased, runs of whitespace one space, none at either end.
func taskText(text []byte) [16]byte {
	var buf [256]byte
	norm, ok := normASCII(text, buf[:0])
	if !ok {
		norm = []byte(strings.Join(strings.Fields(strings.ToLower(string(text))), " "))
	}
	sum := sha256.Sum256(norm)
	var h [16]byte
	copy(h[:], sum[:])
	return h
}

// normASCII is taskText's normalisation of an ASCII text, appended to dst
// (what strings.ToLower, strings.Fields and strings.Join give, without
// their copies); ok is false for a text with other bytes.
func normASCII(text, dst []byte) ([]byte, bool) {
	space := false
	for _, c := range text {
		switch {
		case c >= utf8.RuneSelf:
			return nil, false
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			space = true
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space && len(dst) > 0 {
			dst = append(dst, ' ')
		}
		space = false
		dst = append(dst, c)
	}
	return dst, true
}

// displayText is a task's text for a person: spaces collapsed, at most
// maxTaskText bytes, cut on a rune boundary with "…".
func displayText(text []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(text), "\uFFFD")), " ")
	return textcut.Bytes(s, maxTaskText+len(textcut.Ellipsis), textcut.Ellipsis)
}

// TaskID is a task's identity: its file and its normalised text, as 16 hex
// digits.
func taskID(path string, text [16]byte) string {
	var buf [256]byte
	b := append(append(append(buf[:0], path...), 0), text[:]...)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
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

// checkbox classifies one markdown line and returns the task's text (after
// the box, the line's end included).
func checkbox(line []byte) (box, []byte) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return boxNone, nil
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
			return boxNone, nil
		}
		i++
	default:
		return boxNone, nil
	}
	if i >= len(line) || (line[i] != ' ' && line[i] != '\t') {
		return boxNone, nil
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i+3 > len(line) || line[i] != '[' || line[i+2] != ']' {
		return boxNone, nil
	}
	if i+3 < len(line) && line[i+3] != ' ' && line[i+3] != '\t' && line[i+3] != '\n' && line[i+3] != '\r' {
		return boxNone, nil
	}
	switch line[i+1] {
	case ' ':
		return boxOpen, line[i+3:]
	case 'x', 'X':
		return boxDone, line[i+3:]
	}
	return boxNone, nil
}

// taskBlob reads the checkboxes of one blob, cached by hash.
func (r *Repo) taskBlob(h plumbing.Hash) (*taskList, error) {
	if tl, ok := r.tasks[h]; ok {
		return tl, nil
	}
	b, err := r.blob(h)
	if err != nil {
		return nil, err
	}
	var tl taskList
	if raw, ok := b.(*rawObject); ok {
		tl = readTaskListBytes(raw.data, r.texts)
	} else {
		rd, err := b.Reader()
		if err != nil {
			return nil, r.objectError("blob", h, err)
		}
		tl, err = readTaskListWith(rd, b.Size(), r.texts)
		_ = rd.Close()
		if err != nil {
			return nil, fmt.Errorf("read blob %s in %s: %w", h, r.dir, err)
		}
	}
	// The cache counts the room each list holds, not only its tasks.
	if r.taskN+cap(tl.items) > taskCacheItems {
		clear(r.tasks)
		r.taskN = 0
	}
	r.tasks[h] = &tl
	r.taskN += cap(tl.items)
	return &tl, nil
}

// taskTracker follows the task files through a sequence of trees: the full
// tree is walked once, then each diff updates the set.
type taskTracker struct {
	r     *Repo
	set   *pathmatch.Set
	files map[string]plumbing.Hash // task file path -> blob
	// found are the task files the tree walk found, in walk order.
	found []taskFile
	// last is the state the previous call to state read; dirty says a diff
	// changed a task file since.
	last  *taskState
	dirty bool
	// notes say what could not be read.
	notes []string
}

// taskState is the task lists of a tree: their counts and every task, in
// path order.
type taskState struct {
	counts *Tasks // nil when there is no task file
	// files are the task files read, by path, each with its tasks.
	files []stateFile
	// current is the first unchecked task in plan order (the task files
	// by path, then line by line); nil when every task is checked.
	current *CurrentTask
}

// stateFile is one task file of a state.
type stateFile struct {
	path string
	list *taskList
}

// taskEntry is one task of a state.
type taskEntry struct {
	path string
	taskItem
}

// entries lists the tasks of a state, file by file.
func (st *taskState) entries() []taskEntry {
	n := 0
	for _, f := range st.files {
		n += len(f.list.items)
	}
	out := make([]taskEntry, 0, n)
	for _, f := range st.files {
		for _, it := range f.list.items {
			out = append(out, taskEntry{f.path, it})
		}
	}
	return out
}

// newTaskTracker finds the task files of tree (nil set: no tracking).
func (r *Repo) newTaskTracker(set *pathmatch.Set, tree *object.Tree) (*taskTracker, error) {
	t := &taskTracker{r: r, set: set, files: map[string]plumbing.Hash{}, dirty: true}
	if set == nil || len(set.Patterns()) == 0 {
		t.set = nil
		return t, nil
	}
	found, err := r.findTaskFiles(set, tree, "", 0, &t.notes)
	if err != nil {
		return nil, err
	}
	t.found = found
	for _, f := range found {
		t.files[f.path] = f.blob
	}
	return t, nil
}

// sameTaskFiles reports whether two trees' task files are the same blobs
// at the same paths, found with the same notes: their task lists are then
// the same.
func sameTaskFiles(a, b *taskTracker) bool {
	return a.set == b.set && slices.Equal(a.found, b.found) && slices.Equal(a.notes, b.notes)
}

// maxTreeDepth bounds recursion on hostile trees.
const maxTreeDepth = 256

// findTaskFiles returns the task files under tree (at prefix). What a
// subtree holds is remembered by its hash and path, so that walking the
// trees of successive commits reads only the directories that changed. A
// directory nested deeper than maxTreeDepth, or one whose tree object is
// not in the repository, is not searched; a note says so.
func (r *Repo) findTaskFiles(set *pathmatch.Set, tree *object.Tree, prefix string, depth int, notes *[]string) ([]taskFile, error) {
	if depth > maxTreeDepth {
		*notes = append(*notes, fmt.Sprintf("task files under %s were not searched: nested deeper than %d directories", strings.TrimSuffix(prefix, "/"), maxTreeDepth))
		return nil, nil
	}
	k := taskKey{set, tree.Hash, prefix}
	if found, ok := r.taskFiles[k]; ok && !tree.Hash.IsZero() {
		return found, nil
	}
	var found []taskFile
	complete := true
	for _, e := range tree.Entries {
		p := prefix + e.Name
		switch {
		case e.Mode == filemode.Dir:
			sub, err := r.tree(e.Hash)
			if isMissing(err) {
				*notes = append(*notes, fmt.Sprintf("task files under %s were not searched: tree %s is not in the repository", p, e.Hash))
				complete = false
				continue
			}
			if err != nil {
				return nil, err
			}
			n := len(*notes)
			in, err := r.findTaskFiles(set, sub, p+"/", depth+1, notes)
			if err != nil {
				return nil, err
			}
			complete = complete && len(*notes) == n
			found = append(found, in...)
		case isFileMode(e.Mode) && set.Match(p): // each path once: not memoized
			found = append(found, taskFile{p, e.Hash})
		}
	}
	if !tree.Hash.IsZero() && complete {
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
			if _, ok := t.files[c.from.path]; ok {
				delete(t.files, c.from.path)
				t.dirty = true
			}
		}
		if c.to.path != "" && isFileMode(c.to.mode) && t.r.match(t.set, c.to.path) {
			t.files[c.to.path] = c.to.hash
			t.dirty = true
		}
	}
}

// state reads the current task files: counts and tasks. A task file whose
// blob is not in the repository is left out, with a note.
func (t *taskTracker) state() (*taskState, error) {
	if !t.dirty && t.last != nil {
		return t.last, nil
	}
	st := &taskState{}
	if len(t.files) > 0 {
		paths := make([]string, 0, len(t.files))
		for p := range t.files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		var sum Tasks
		for _, p := range paths {
			tl, err := t.r.taskBlob(t.files[p])
			if isMissing(err) {
				t.notes = append(t.notes, fmt.Sprintf("task file %s was not read: blob %s is not in the repository", p, t.files[p]))
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("task file %s: %w", p, err)
			}
			sum.Done += tl.counts.Done
			sum.Total += tl.counts.Total
			if o := tl.firstOpen; o != nil && st.current == nil {
				st.current = &CurrentTask{ID: taskID(p, o.text), Text: o.display}
			}
			st.files = append(st.files, stateFile{p, tl})
		}
		st.counts = &sum
	}
	t.last, t.dirty = st, false
	return st, nil
}

// checked lists the identities of the checked tasks of a state.
func (st *taskState) checked() []string {
	var out []string
	for _, f := range st.files {
		for _, it := range f.list.items {
			if it.checked {
				out = append(out, taskID(f.path, it.text))
			}
		}
	}
	return out
}

// compareStates is compareTasks for the tasks of two states. When both
// have the same task files, each with the same tasks in the same order
// (a box ticked or unticked, the common case), the tasks pair with
// themselves file by file, and a file read from the same blob in both is
// skipped: nothing in it changed.
func compareStates(old, cur *taskState) TaskChange {
	if !sameTaskTexts(old.files, cur.files) {
		return compareTasks(old.entries(), cur.entries())
	}
	var tc TaskChange
	for i, f := range cur.files {
		if f.list == old.files[i].list {
			continue
		}
		for j, n := range f.list.items {
			tc.pair(old.files[i].list.items[j], taskEntry{f.path, n})
		}
	}
	return tc
}

// pair counts what happened to task o, now n: ticked or unticked.
func (tc *TaskChange) pair(o taskItem, n taskEntry) {
	switch {
	case !o.checked && n.checked:
		tc.Checked = append(tc.Checked, taskID(n.path, n.text))
	case o.checked && !n.checked:
		tc.Unchecked++
	}
}

// sameTaskTexts reports whether two states' files are the same paths with
// the same task texts in the same order.
func sameTaskTexts(a, b []stateFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].path != b[i].path {
			return false
		}
		if a[i].list == b[i].list {
			continue
		}
		x, y := a[i].list.items, b[i].list.items
		if len(x) != len(y) {
			return false
		}
		for j := range x {
			if x[j].text != y[j].text {
				return false
			}
		}
	}
	return true
}

// compareTasks says what happened to the tasks from one state to the next.
// Tasks are matched by their text, in all task files together (a task
// moved to another file, or a renamed task file, is the same task): equal
// texts in order first; then what is left pairs up in order within the
// same gap between matched tasks that kept their order, which pairs a task
// with its edited self. Of each pair an open task now checked was ticked,
// a checked one now open unticked; a task added already checked counts as
// ticked too. Ticked tasks are identified by their new file and text.
func compareTasks(old, cur []taskEntry) TaskChange {
	var tc TaskChange
	// Equal texts, in order.
	waiting := map[[16]byte][]int{} // text -> unmatched old indexes
	for i, o := range old {
		waiting[o.text] = append(waiting[o.text], i)
	}
	matchOld := make([]int, len(cur)) // old index of each new task, or -1
	usedOld := make([]bool, len(old))
	for j, n := range cur {
		matchOld[j] = -1
		if q := waiting[n.text]; len(q) > 0 {
			waiting[n.text] = q[1:]
			matchOld[j], usedOld[q[0]] = q[0], true
			tc.pair(old[q[0]].taskItem, n)
		}
	}
	// The matched tasks that kept their order (a longest increasing run of
	// old indexes) divide both lists into gaps.
	anchorsOld, anchorsNew := keptOrder(matchOld)
	gap := func(anchors []int, i int) int { return sort.SearchInts(anchors, i) }
	restOld := map[int][]int{} // gap -> unmatched old indexes, in order
	for i := range old {
		if !usedOld[i] {
			g := gap(anchorsOld, i)
			restOld[g] = append(restOld[g], i)
		}
	}
	for j, n := range cur {
		if matchOld[j] >= 0 {
			continue
		}
		g := gap(anchorsNew, j)
		if q := restOld[g]; len(q) > 0 {
			restOld[g] = q[1:]
			tc.pair(old[q[0]].taskItem, n)
		} else {
			tc.pair(taskItem{}, n) // added, perhaps already checked
		}
	}
	return tc
}

// keptOrder picks, from the new tasks' matched old indexes (-1: none), a
// longest run increasing in both lists, and returns its old and new
// indexes, each ascending.
func keptOrder(matchOld []int) (olds, news []int) {
	// Patience sorting: tails[k] is the new index ending the best run of
	// length k+1; prev links a run back.
	var tails []int
	prev := make([]int, len(matchOld))
	for j, o := range matchOld {
		if o < 0 {
			continue
		}
		k := sort.Search(len(tails), func(k int) bool { return matchOld[tails[k]] >= o })
		if k > 0 {
			prev[j] = tails[k-1]
		} else {
			prev[j] = -1
		}
		if k == len(tails) {
			tails = append(tails, j)
		} else {
			tails[k] = j
		}
	}
	n := len(tails)
	olds, news = make([]int, n), make([]int, n)
	for k, j := n-1, -1; k >= 0; k-- {
		if k == n-1 {
			j = tails[n-1]
		} else {
			j = prev[j]
		}
		olds[k], news[k] = matchOld[j], j
	}
	return olds, news
}
