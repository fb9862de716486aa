//go:build unix

package checkouttest

import (
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
