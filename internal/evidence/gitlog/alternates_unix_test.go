//go:build unix

package gitlog

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAlternatesFileIsANamedPipe: an alternates file that is a named pipe
// with no writer is not waited on, by this package or by go-git, when an
// object is not found.
func TestAlternatesFileIsANamedPipe(t *testing.T) {
	t.Parallel()
	src, _ := looseLoop(t)
	dst := sharedClone(t, src, "")
	file := filepath.Join(dst, ".git", "objects", "info", "alternates")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	repo := openDir(t, dst)
	_, err := repo.commit(src.head)
	if err == nil || !strings.Contains(err.Error(), file+": not a regular file") {
		t.Errorf("read HEAD's commit: got error %v, want one naming %s as not a regular file", err, file)
	}
}
