//go:build unix

package checkouttest

import (
	"os"
	"syscall"
	"testing"
)

// Owner returns the owner and group of path itself (a link is not
// followed).
func Owner(t testing.TB, path string) (uid, gid uint32) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		t.Fatalf("owner of %s: %v", path, err)
	}
	return st.Uid, st.Gid
}

// NeedRoot skips a test that changes owners unless it runs as root, as a
// Docker action does.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("changing owners needs root, as a Docker action has")
	}
}
