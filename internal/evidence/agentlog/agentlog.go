package agentlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// StatusBlock is Ralph's ---RALPH_STATUS--- ... ---END_RALPH_STATUS--- block:
// enumerated values upper-cased, a pointer nil when absent or unreadable.
type StatusBlock struct {
	Status          string   // STATUS: IN_PROGRESS | COMPLETE | BLOCKED ...
	TasksCompleted  *int     // TASKS_COMPLETED_THIS_LOOP
	FilesModified   *int     // FILES_MODIFIED
	TestsStatus     string   // TESTS_STATUS: PASSING | FAILING | NOT_RUN
	WorkType        string   // WORK_TYPE: IMPLEMENTATION | TESTING | DOCUMENTATION | REFACTORING
	ExitSignal      *bool    // EXIT_SIGNAL: true|false
	ProgressPercent *float64 // PROGRESS: 45% or PROGRESS_PERCENT: 45 (optional, the percentage model)
	Phase           string   // PHASE: GREEN (optional, a test-driven phase)
	Recommendation  string   // RECOMMENDATION: ...
	CurrentTask     string   // CURRENT_TASK: the task the agent is on (optional)
}

// ClaimsCompletion reports whether the block says the work is done:
// STATUS: COMPLETE or EXIT_SIGNAL: true.
func (b *StatusBlock) ClaimsCompletion() bool {
	if b == nil {
		return false
	}
	return b.Status == "COMPLETE" || (b.ExitSignal != nil && *b.ExitSignal)
}

// Log is what one agent output file says.
type Log struct {
	Lines             int          // physical lines read, a last line without '\n' included
	Bytes             int64        // bytes read
	Errors            []string     // error lines in order, trimmed, bounded to MaxErrors, each bounded to 1 KiB
	PermissionDenials int          // tool permission denials: the permission_denials entries when the log has that list, else plain-text denial lines
	CompletionClaimed bool         // the agent said it is done (an explicit status block decides over prose)
	QuestionsAsked    bool         // the agent asked the user something
	Status            *StatusBlock // the last complete status block, nil when none
	Admitted          bool         // the agent admitted no progress (its prose or its status block)
	Blocker           string       // the blocker it reported, normalised (Admits); "" for none
	Notes             []string     // what was skipped/truncated (bounded)
}

// Bounds on what Read keeps and reads.
const (
	// MaxErrors is the most error lines a Log keeps; a Note counts the rest.
	MaxErrors = 50
	// MaxErrorLen is the most bytes kept of one error line.
	MaxErrorLen = 1 << 10
	// MaxNotes is the most notes a Log keeps; a last note counts the rest.
	MaxNotes = 20
	// DefaultMaxLine is the default for Limits.MaxLine: 1 MiB.
	DefaultMaxLine = 1 << 20
	// DefaultMaxBytes is the default for Limits.MaxBytes: 1 GiB.
	DefaultMaxBytes = 1 << 30
	// maxDocument bounds a buffered multi-line JSON document.
	maxDocument = 16 << 20
	// TailBytes is how much of a larger log file ReadFile analyses: its
	// last 32 MiB, from the first line that starts in them (the rules read
	// the end of an iteration's output); the lines before are only counted.
	TailBytes = 32 << 20
	// MaxCountBytes bounds the bytes before the tail whose lines ReadFile
	// counts: 64 GiB. Bytes further back are not read at all.
	MaxCountBytes = 64 << 30
)

// Limits bound how much of a log is read (a Note says what was left); a
// zero field means its default.
type Limits struct {
	MaxBytes int64 // bytes read at most
	MaxLine  int   // bytes of one line analysed; a longer line still counts
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxLine <= 0 {
		l.MaxLine = DefaultMaxLine
	}
	return l
}

// ReadFile reads the agent log at path, only its tail when it is larger
// than TailBytes (lines counted over MaxCountBytes, Bytes the file's size).
// Only a regular file is read: a pipe or a device could block for good.
func ReadFile(path string) (*Log, error) {
	return readFile(path, TailBytes, MaxCountBytes)
}

func readFile(path string, tail, maxCount int64) (*Log, error) {
	f, st, err := regularfile.Open(path)
	if errors.Is(err, regularfile.ErrNotRegular) {
		return nil, fmt.Errorf("read agent log: %w; write the log to a file", err)
	}
	if err != nil {
		return nil, fmt.Errorf("read agent log: %w", err)
	}
	defer f.Close()
	size := st.Size()
	if size <= tail {
		return Read(f, path)
	}
	head := size - tail
	from := max(0, head-maxCount)
	lines, endsLine, err := countLines(f, from, head, path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, head, tail), 64<<10)
	start := head
	if !endsLine {
		// The tail starts inside a line: skip to the next one, and count
		// the line the cut went through.
		n, err := skipLine(br)
		if err != nil {
			return nil, fmt.Errorf("read agent log %s: after %d bytes: %w", path, head+n, err)
		}
		start += n
		lines++
	}
	l, err := readFrom(br, path, Limits{}, start)
	if err != nil {
		return nil, err
	}
	l.Lines += lines
	l.Bytes = size
	counted := "over the whole file"
	if from > 0 {
		counted = fmt.Sprintf("in the last %d, the first %d bytes were not read", size-from, from)
	}
	note := fmt.Sprintf("the log is %d bytes: only its last %d were analysed for errors, denials, claims and the status block; lines were counted %s", size, size-start, counted)
	l.Notes = append([]string{note}, l.Notes...)
	if len(l.Notes) > MaxNotes {
		l.Notes = l.Notes[:MaxNotes]
	}
	return l, nil
}

// countLines counts the line ends in f's bytes [from, to) in large reads,
// refusing a binary file as Read does; endsLine reports whether the byte
// before to is a line end (or to is the start of the file).
func countLines(f *os.File, from, to int64, name string) (lines int, endsLine bool, err error) {
	buf := make([]byte, 1<<20)
	endsLine = to == 0
	for off := from; off < to; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), to-off)], off)
		chunk := buf[:n]
		if off == 0 && utf16Mark(chunk) {
			return 0, false, fmt.Errorf("read agent log %s: binary file (UTF-16 text; convert it to UTF-8)", name)
		}
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			return 0, false, fmt.Errorf("read agent log %s: binary file (NUL byte at offset %d)", name, off+int64(i))
		}
		lines += bytes.Count(chunk, []byte{'\n'})
		if n > 0 {
			endsLine = chunk[n-1] == '\n'
		}
		off += int64(n)
		if err != nil && off < to {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF // the file shrank while it was read
			}
			return 0, false, fmt.Errorf("read agent log %s: after %d bytes: %w", name, off, err)
		}
	}
	return lines, endsLine, nil
}

// skipLine reads up to and including the next line end and returns how
// many bytes it read; at the end of the input it returns what it read.
func skipLine(br *bufio.Reader) (int64, error) {
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		switch err {
		case nil, io.EOF:
			return n, nil
		case bufio.ErrBufferFull:
			continue
		}
		return n, err
	}
}

// Read reads one agent log from r with the default limits; name is used in
// errors and notes. A file holding a NUL byte is refused as binary.
func Read(r io.Reader, name string) (*Log, error) {
	return readFrom(r, name, Limits{}, 0)
}

// utf16Mark reports a UTF-16 byte-order mark at the start of b.
func utf16Mark(b []byte) bool {
	return len(b) >= 2 && ((b[0] == 0xff && b[1] == 0xfe) || (b[0] == 0xfe && b[1] == 0xff))
}

// readFrom reads within lim input that starts at byte base of the file
// name: offsets in errors count from the file's start, and only a file's
// start can hold a UTF-16 mark.
func readFrom(r io.Reader, name string, lim Limits, base int64) (*Log, error) {
	lim = lim.withDefaults()
	a := &analyzer{lim: lim}
	lr := lineReader{br: bufio.NewReaderSize(io.LimitReader(r, lim.MaxBytes), 64<<10), max: lim.MaxLine}
	var offset int64 // bytes read before the current line
	for {
		ln, err := lr.next()
		if base+offset == 0 && utf16Mark(ln.text) {
			return nil, fmt.Errorf("read agent log %s: binary file (UTF-16 text; convert it to UTF-8)", name)
		}
		if ln.nul >= 0 {
			return nil, fmt.Errorf("read agent log %s: binary file (NUL byte at offset %d)", name, base+offset+int64(ln.nul))
		}
		if ln.total > 0 {
			a.physical(ln.text, ln.cut)
		}
		offset += int64(ln.total)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read agent log %s: after %d bytes: %w", name, base+offset, err)
		}
	}
	if offset >= lim.MaxBytes {
		var one [1]byte
		if n, _ := io.ReadFull(r, one[:]); n > 0 {
			a.note("stopped reading after %d bytes; the rest was not read", lim.MaxBytes)
		}
	}
	return a.finish(offset), nil
}

// rawLine is one physical line as read.
type rawLine struct {
	text  []byte // the line without its '\n', cut to the line limit
	total int    // bytes the line took in the input, '\n' included
	cut   bool   // text is shorter than the line
	nul   int    // offset of the line's first NUL byte, -1 when none
}

// lineReader splits a stream into lines without holding more than one
// line's first max bytes.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	max int
}

// next returns the next line; its text is valid until the next call. At the
// end of the input it returns io.EOF, with the last line if it had no '\n'.
func (lr *lineReader) next() (rawLine, error) {
	ln := rawLine{nul: -1}
	chunk, err := lr.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		ln.total = len(chunk)
		if n := len(chunk); n > 0 && chunk[n-1] == '\n' {
			chunk = chunk[:n-1]
		}
		ln.nul = bytes.IndexByte(chunk, 0)
		if len(chunk) > lr.max {
			chunk, ln.cut = chunk[:lr.max], true
		}
		ln.text = chunk
		return ln, err
	}
	buf := lr.buf[:0]
	for {
		if i := bytes.IndexByte(chunk, 0); i >= 0 && ln.nul < 0 {
			// A binary file: the caller stops here, so the rest of a line
			// that may run for gigabytes is not read.
			ln.nul = ln.total + i
			if len(buf) == 0 {
				ln.text = chunk[:min(len(chunk), lr.max)]
			}
			return ln, nil
		}
		ln.total += len(chunk)
		if room := lr.max - len(buf); room > 0 {
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		if err != bufio.ErrBufferFull {
			break
		}
		chunk, err = lr.br.ReadSlice('\n')
	}
	content := ln.total
	if err == nil {
		content-- // the '\n'
	}
	if len(buf) > content {
		buf = buf[:content]
	}
	ln.cut = len(buf) < content
	lr.buf = buf
	ln.text = buf
	return ln, err
}
