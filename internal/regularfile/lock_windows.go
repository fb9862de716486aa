//go:build windows

package regularfile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// openNoFollow is 0 on Windows, which has no O_NOFOLLOW; Lock checks what
// it opened instead.
const openNoFollow = 0

// keepOwner does nothing on Windows, where a replaced file's owner is not
// carried by its mode bits.
func keepOwner(*os.File, fs.FileInfo) {}

// lockFile takes an exclusive lock on the first byte of f, waiting for it.
// Windows releases it when the process dies.
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}

func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
