//go:build unix

package checkout_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
)

// TestOpenRefusesNamedPipes: a named pipe, held open by a writer so that a
// read would wait for good, at HEAD, config, packed-refs, shallow,
// commondir, .git (a gitdir file) or a pack index makes Open fail at once,
// naming it: the Action never waits on the agent's .git.
func TestOpenRefusesNamedPipes(t *testing.T) {
	t.Parallel()
	for _, place := range []string{".git/HEAD", ".git/config", ".git/packed-refs", ".git/shallow", ".git/commondir", ".git", ".git/objects/pack/pack-1.idx"} {
		t.Run(strings.ReplaceAll(place, "/", "_"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if _, err := git.PlainInit(dir, false); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, place)
			if place == ".git" {
				if err := os.RemoveAll(path); err != nil {
					t.Fatal(err)
				}
			}
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := os.OpenFile(path, os.O_RDWR, 0) // O_RDWR: does not wait for a reader
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			_, err = checkout.Open(dir)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("a named pipe at %s: got %v, want an error naming it", place, err)
			}
		})
	}
}
