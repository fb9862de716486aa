package gitlog

import (
	"bytes"
	"unicode/utf8"
)

// Bounds on the lines read from what the loop wrote into its files.
const (
	// maxWrittenFile is the largest file whose added lines are read.
	maxWrittenFile = 1 << 20
	// maxWrittenLines is the most lines kept of one file's change, and
	// maxWrittenLine the longest line read.
	maxWrittenLines = 8
	maxWrittenLine  = 4 << 10
)

// readWritten keeps the lines a change added to a text file that is not
// source code or a test (a log, memory, state, notes or journal file) and
// that Options.Written selects: what the loop recorded there. A line
// counts as added as many times as the new side has it more than the old
// side, so a log that appends an error it logged before adds it again,
// and a state file that rewrites its error line (with the cycle's time)
// writes it again.
func (r *Repo) readWritten(c rawChange, fc *FileChange, o Options) error {
	if o.Written == nil || fc.Status == StatusDeleted || fc.Binary || fc.Large || fc.Unreadable || fc.Submodule ||
		fc.Test || fc.Added == 0 || IsSource(fc.Path) || fc.NewSize > maxWrittenFile || !isBlobMode(c.to.mode) {
		return nil
	}
	var oldData, newData []byte
	for _, s := range []struct {
		side side
		dst  *[]byte
	}{{c.from, &oldData}, {c.to, &newData}} {
		if s.side.path == "" || !isBlobMode(s.side.mode) {
			continue
		}
		obj, err := r.blob(s.side.hash)
		if err != nil {
			return err
		}
		if *s.dst, err = r.readBlob(obj, maxWrittenFile); err != nil {
			return err
		}
	}
	oldData, newData = middles(oldData, newData)
	old := map[string]int{}
	for _, l := range bytes.Split(oldData, []byte{'\n'}) {
		old[string(l)]++
	}
	for _, l := range bytes.Split(newData, []byte{'\n'}) {
		if n := old[string(l)]; n > 0 {
			old[string(l)] = n - 1
			continue
		}
		if len(l) > maxWrittenLine || !utf8.Valid(l) {
			continue
		}
		if line := string(bytes.TrimSpace(l)); line != "" && o.Written(line) {
			fc.Written = append(fc.Written, line)
			if len(fc.Written) == maxWrittenLines {
				break
			}
		}
	}
	return nil
}

// middles drops the whole lines that a and b share at their start and end:
// only the lines between can differ.
func middles(a, b []byte) ([]byte, []byte) {
	p := bytes.LastIndexByte(a[:commonPrefix(a, b)], '\n') + 1
	a, b = a[p:], b[p:]
	q := commonSuffix(a, b)
	if i := bytes.IndexByte(a[len(a)-q:], '\n'); i >= 0 {
		q -= i + 1
	} else {
		q = 0
	}
	return a[:len(a)-q], b[:len(b)-q]
}
