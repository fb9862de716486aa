package testreport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds one line of a line-oriented report (go test -json, TAP).
const maxLine = 1 << 20

// lineReader reads lines of at most maxLine bytes, skipping longer ones and
// counting them.
type lineReader struct {
	br   *bufio.Reader
	n    int // number of the line last returned, from 1
	long int // lines skipped for being longer than maxLine
	buf  []byte
}

func newLineReader(br *bufio.Reader) *lineReader {
	return &lineReader{br: br, buf: make([]byte, 0, 4<<10)}
}

// next returns the next line without its line ending, and whether it ended
// with a newline (the last line of a file cut short does not). It returns
// io.EOF after the last line. The line is valid until the next call.
func (lr *lineReader) next() (line []byte, complete bool, err error) {
	for {
		line, complete, err = lr.read()
		if err != nil || line != nil {
			return line, complete, err
		}
	}
}

// read returns one line, or a nil line and no error for a line that was too
// long and skipped.
func (lr *lineReader) read() ([]byte, bool, error) {
	lr.buf = lr.buf[:0]
	tooLong := false
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > maxLine+1 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong && cap(lr.buf) < maxLine+1 {
				// A long line: make room for the longest kept at once
				// rather than by repeated growth.
				lr.buf = append(make([]byte, 0, maxLine+1), lr.buf...)
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return nil, false, err
		}
		eof := err != nil
		if eof && len(lr.buf) == 0 && !tooLong {
			return nil, false, io.EOF
		}
		lr.n++
		if tooLong {
			lr.long++
			if eof {
				return nil, false, io.EOF
			}
			return nil, false, nil
		}
		complete := !eof
		line := bytes.TrimSuffix(lr.buf, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, complete, nil
	}
}
