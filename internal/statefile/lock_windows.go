//go:build windows

package statefile

import (
	"io/fs"
	"os"
	"syscall"
	"unsafe"
)

// openNoFollow is 0 on Windows, which has no O_NOFOLLOW; Lock checks what
// it opened instead.
const openNoFollow = 0

// keepOwner does nothing on Windows, where a replaced file's owner is not
// carried by its mode bits.
func keepOwner(*os.File, fs.FileInfo) {}

var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

// lockfileExclusiveLock is LOCKFILE_EXCLUSIVE_LOCK.
const lockfileExclusiveLock = 2

// lockFile takes an exclusive lock on the first byte of f, waiting for it.
// Windows releases it when the process dies.
func lockFile(f *os.File) error {
	var ol syscall.Overlapped
	r, _, err := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r == 0 {
		return err
	}
	return nil
}

func unlockFile(f *os.File) error {
	var ol syscall.Overlapped
	r, _, err := procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r == 0 {
		return err
	}
	return nil
}
