//go:build unix

package regularfile

import (
	"errors"
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
