//go:build unix

package statefile

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesWhatIsNotAFile: a directory or a named pipe where the
// state file should be is an error at once, never a wait for a writer.
func TestLoadRefusesWhatIsNotAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, fifo} {
		done := make(chan error, 1)
		go func() {
			_, err := Load(p)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), p) {
				t.Errorf("Load(%s): got %v, want not a regular file naming it", p, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Load(%s) is still waiting after 10 s", p)
		}
	}
}
