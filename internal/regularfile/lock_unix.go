//go:build unix

package regularfile

import (
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow makes opening a lock file fail on a symbolic link, which
// could otherwise make this program create or lock a file elsewhere.
const openNoFollow = syscall.O_NOFOLLOW

// lockFile takes an exclusive flock on f, waiting for it. The kernel
// drops it when the process dies, so a killed call never leaves the state
// file locked.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// keepOwner gives f the owner and group of the file it replaces, where the
// process may (as root in a container writing a runner's files); else the
// new file stays the process's own.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || (int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid()) {
		return
	}
	_ = f.Chown(int(st.Uid), int(st.Gid))
}
