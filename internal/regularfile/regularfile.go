// Package regularfile opens files that the watched agent may have planted
// as something else: a named pipe (whose open or read would wait for a
// writer for good), a socket or a device. Only a regular file is read.
package regularfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by Open's error for a file that is not a regular
// file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading without waiting on a named pipe and returns
// it with its description; a file that is not a regular one (a named pipe,
// a socket, a device, a directory) is an error naming it and what it is,
// wrapping ErrNotRegular.
func Open(path string) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: opening a named pipe without a writer must not block.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() {
			return nil, nil, NotRegular(path, st.Mode()) // a socket cannot be opened at all
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, NotRegular(path, st.Mode())
	}
	return f, st, nil
}

// NotRegular is the error for path, of mode m, not being a regular file:
// "open PATH: not a regular file (a named pipe)".
func NotRegular(path string, m fs.FileMode) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(m))}
}

// Irregular reports whether m is a named pipe, a socket or a device: a file
// that is never read, where a directory or a link may just be skipped.
func Irregular(m fs.FileMode) bool {
	return m&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0
}

// Kind names the type of a file that is not a regular file.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}
