//go:build !windows

package gitlog

import "syscall"

// openNoFollow makes opening a loose object fail on a symbolic link (which
// is then left to go-git, whose file system keeps links inside .git).
const openNoFollow = syscall.O_NOFOLLOW
