//go:build windows

package gitlog

// openNoFollow is 0 on Windows, which has no O_NOFOLLOW; git does not write
// objects as links there.
const openNoFollow = 0
