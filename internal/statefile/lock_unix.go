//go:build unix

package statefile

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for it. The kernel
// drops it when the process dies, so a killed call never leaves the state
// file locked.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
