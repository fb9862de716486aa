//go:build unix

package checkout

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOwnGivesTheWorkspaceOwner: files a root process wrote get the
// workspace's owner (it needs root to change owners).
func TestOwnGivesTheWorkspaceOwner(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("changing a file's owner needs root")
	}
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
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil || st.Uid != 1001 || st.Gid != 1002 {
			t.Errorf("%s: got owner %d:%d (%v), want 1001:1002", p, st.Uid, st.Gid, err)
		}
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/etc/passwd", &st); err != nil || st.Uid != 0 {
		t.Errorf("the link's target changed owner: %d", st.Uid)
	}
}
