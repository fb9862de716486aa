//go:build unix

package regularfile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRefusesWhatIsNotRegular: a named pipe with no writer, a socket,
// a device and a directory are refused at once, naming the path and the
// kind; a regular file opens.
func TestOpenRefusesWhatIsNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	for path, kind := range map[string]string{pipe: "a named pipe", sock: "a socket", "/dev/null": "a device", dir: "a directory"} {
		f, _, err := Open(path)
		if f != nil {
			f.Close()
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), kind) {
			t.Errorf("Open(%s): got %v, want not a regular file (%s)", path, err, kind)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, st, err := Open(file)
	if err != nil || st.Size() != 1 {
		t.Fatalf("Open(regular file): %v", err)
	}
	f.Close()
}

// TestTarget follows links to the file they name, which need not exist,
// and refuses what is not a regular file, or a loop of links.
func TestTarget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "real.json")
	os.WriteFile(file, []byte("{}"), 0o600)
	os.Symlink("real.json", filepath.Join(dir, "one"))
	os.Symlink(filepath.Join(dir, "one"), filepath.Join(dir, "two"))
	os.Symlink("sub/new.json", filepath.Join(dir, "dangling"))
	os.Symlink("loop", filepath.Join(dir, "loop"))
	os.Symlink("/dev/null", filepath.Join(dir, "device"))
	for _, c := range []struct{ path, want, fault string }{
		{file, file, ""},
		{filepath.Join(dir, "two"), file, ""},
		{filepath.Join(dir, "dangling"), filepath.Join(dir, "sub", "new.json"), ""},
		{filepath.Join(dir, "missing.json"), filepath.Join(dir, "missing.json"), ""},
		{filepath.Join(dir, "loop"), "", "symbolic links in a row"},
		{filepath.Join(dir, "device"), "", "not a regular file (a device)"},
		{dir, "", "not a regular file (a directory)"},
	} {
		got, err := Target(c.path)
		switch {
		case c.fault == "" && (err != nil || got != c.want):
			t.Errorf("Target(%s): got %q %v, want %q", c.path, got, err, c.want)
		case c.fault != "" && (err == nil || !strings.Contains(err.Error(), c.fault) || !strings.Contains(err.Error(), c.path)):
			t.Errorf("Target(%s): got %q %v, want an error naming it and %q", c.path, got, err, c.fault)
		}
	}
}

// TestWriteAtomicKeepsTheMode: a new file gets the mode asked for, an
// existing one keeps its own; a link is replaced, and what is not a
// regular file is refused and left alone.
func TestWriteAtomicKeepsTheMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	mode := func() os.FileMode {
		st, _ := os.Stat(path)
		return st.Mode().Perm()
	}
	if err := WriteAtomic(path, []byte("1"), 0o600); err != nil || mode() != 0o600 {
		t.Fatalf("new file: got %v %v, want 0600", mode(), err)
	}
	os.Chmod(path, 0o640)
	if err := WriteAtomic(path, []byte("2"), 0o600); err != nil || mode() != 0o640 {
		t.Errorf("existing file: got %v %v, want 0640 kept", mode(), err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(path, link)
	if err := WriteAtomic(link, []byte("3"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); !st.Mode().IsRegular() {
		t.Errorf("a link given to WriteAtomic: got %v, want it replaced by a file", st.Mode())
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	if err := WriteAtomic(fifo, []byte("4"), 0o600); err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("over a named pipe: got %v, want refused", err)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced")
	}
}

// TestReadIsBounded refuses devices, pipes and files over the
// bound without reading them.
func TestReadIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 101), 0o600)
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	for _, c := range []struct{ path, fault string }{{"/dev/zero", "not a regular file (a device)"}, {fifo, "a named pipe"}, {big, "larger than 100 bytes"}} {
		if _, err := Read(c.path, 100, "test file"); err == nil || !strings.Contains(err.Error(), c.fault) || !strings.Contains(err.Error(), "test file "+c.path) {
			t.Errorf("Read(%s): got %v, want %q naming it", c.path, err, c.fault)
		}
	}
	if _, err := Read(filepath.Join(dir, "none"), 100, "test file"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: got %v, want fs.ErrNotExist", err)
	}
}

// TestLockRefusesWhatIsNotALockFile: a link or a directory in the lock
// file's place is refused; nothing is created where the link points.
func TestLockRefusesWhatIsNotALockFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Symlink(filepath.Join(dir, "planted"), filepath.Join(dir, "a.lock"))
	os.Mkdir(filepath.Join(dir, "b.lock"), 0o700)
	for _, p := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")} {
		if _, err := Lock(p); err == nil || !strings.Contains(err.Error(), p+".lock") {
			t.Errorf("Lock(%s): got %v, want an error naming the lock file", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "planted")); err == nil {
		t.Errorf("the lock was created where the link points")
	}
	unlock, err := Lock(filepath.Join(dir, "new", "deeper", "c"))
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if st, err := os.Stat(filepath.Join(dir, "new", "deeper")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("missing directory: got %v %v, want made with mode 0700", st.Mode(), err)
	}
}
