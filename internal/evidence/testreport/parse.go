package testreport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// sniffSize is how much of a report is looked at to detect its format.
const sniffSize = 64 << 10

// Parse reads one report from r, detecting its format from the content.
// name is the file name used in errors, notes and Report.Files.
func Parse(r io.Reader, name string) (*Report, error) {
	return parse(r, name, MaxFileSize)
}

// parse is Parse with the size limit as a parameter, for tests.
func parse(r io.Reader, name string, limit int64) (*Report, error) {
	lr := &limitReader{r: r, left: limit}
	br := bufio.NewReaderSize(lr, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &Error{File: name, Err: readErr(err)}
	}
	if len(head) >= 2 && (head[0] == 0xFF && head[1] == 0xFE || head[0] == 0xFE && head[1] == 0xFF) {
		return nil, &Error{File: name, Err: fmt.Errorf("%w: UTF-16 text; write the report as UTF-8", ErrBinary)}
	}
	if bytes.IndexByte(head[:min(len(head), 1024)], 0) >= 0 {
		return nil, &Error{File: name, Err: ErrBinary}
	}
	if bytes.HasPrefix(head, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
		head = head[len(utf8BOM):]
	}
	format, err := detect(head)
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	var rep *Report
	switch format {
	case FormatJUnit:
		rep, err = parseJUnit(br, name, true)
	case FormatGoTest:
		rep, err = parseGoTest(br, name)
	default:
		rep, err = parseTAP(br, name)
	}
	if err != nil {
		return nil, err
	}
	rep.Format = format
	rep.Files = []string{name}
	rep.noteFailingCut()
	return rep, nil
}

// ParseFile reads the report at path. Files larger than MaxFileSize are
// refused before anything is read.
func ParseFile(path string) (*Report, error) {
	// O_NONBLOCK: a named pipe without a writer must not block the open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &Error{File: path, Err: openErr(err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &Error{File: path, Err: openErr(err)}
	}
	switch {
	case fi.IsDir():
		return nil, &Error{File: path, Err: errors.New("is a directory, not a report file")}
	case !fi.Mode().IsRegular():
		// A named pipe with a writer, or a device, could block the read
		// for good or never end.
		return nil, &Error{File: path, Err: errors.New("not a regular file (a named pipe or a device), not a report file")}
	case fi.Size() > MaxFileSize:
		return nil, &Error{File: path, Err: fmt.Errorf("%w (%d bytes); reports that large are refused", ErrTooLarge, fi.Size())}
	}
	return Parse(f, path)
}

// ParseGlobs expands each glob (filepath.Glob syntax, plus "{a,b}" for
// either and "**" as a whole path segment for any number of directories:
// the syntax of doublestar), parses every regular file matched once, in the
// order of the globs and, within a glob, in lexical order, and merges them.
// A glob that matches no file is an error naming the glob, as are globs
// that together match more than MaxFiles files or MaxTotalSize bytes
// (nothing is parsed then); a bad file is an error naming the file. No
// globs give an empty Report.
func ParseGlobs(globs []string) (*Report, error) {
	files, err := Files(globs)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, path := range files {
		one, err := ParseFile(path)
		if err != nil {
			return nil, err
		}
		rep.Merge(one)
	}
	return rep, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// detect tells the format from the first bytes of a report.
func detect(head []byte) (string, error) {
	rest := head
	firstLine := true
scan:
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
			continue
		case firstLine && t[0] == '<':
			return FormatJUnit, nil
		case firstLine && t[0] == '{':
			return FormatGoTest, nil
		case t[0] == '#':
			// A TAP comment, or the "# package" header that go test
			// prints on stderr before compiler errors: look further.
			firstLine = false
			continue
		case tapLine(string(t)):
			return FormatTAP, nil
		default:
			break scan
		}
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return "", ErrEmpty
	}
	// go test -json output with other lines before it (stderr mixed in).
	if bytes.Contains(head, []byte("\n{\"")) && bytes.Contains(head, []byte(`"Action":"`)) {
		return FormatGoTest, nil
	}
	return "", ErrUnknownFormat
}

// limitReader reads from r and fails with ErrTooLarge once more than left
// bytes have been read.
type limitReader struct {
	r    io.Reader
	left int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

// readErr turns an error of the underlying reader into a fault.
func readErr(err error) error {
	if errors.Is(err, ErrTooLarge) {
		return fmt.Errorf("%w; reports that large are refused", ErrTooLarge)
	}
	return fmt.Errorf("read: %w", err)
}

// openErr drops the path that *os.PathError repeats.
func openErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
