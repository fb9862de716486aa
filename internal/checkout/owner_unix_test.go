//go:build unix

package checkout

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/checkout/checkouttest"
)

// TestOwnGivesTheWorkspaceOwner: files a root process wrote get the
// workspace's owner (it needs root to change owners).
func TestOwnGivesTheWorkspaceOwner(t *testing.T) {
	t.Parallel()
	checkouttest.NeedRoot(t)
	ws := t.TempDir()
	if err := os.Chown(ws, 1001, 1002); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(ws, ".loopbreaker")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "record.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := Own(ws, dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, "record.json"), filepath.Join(dir, "link")} {
		if uid, gid := checkouttest.Owner(t, p); uid != 1001 || gid != 1002 {
			t.Errorf("%s: got owner %d:%d, want 1001:1002", p, uid, gid)
		}
	}
	if uid, _ := checkouttest.Owner(t, "/etc/passwd"); uid != 0 {
		t.Errorf("the link's target changed owner: %d", uid)
	}
}
