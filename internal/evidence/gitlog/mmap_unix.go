//go:build unix

package gitlog

import (
	"errors"
	"os"
	"syscall"
)

// canMap reports whether pack files can be mapped here.
const canMap = true

// mapFile maps a file read-only; release unmaps it. Git never rewrites a
// pack or an index in place (it writes new ones and renames them), so the
// mapping stays valid while the repository is open.
func mapFile(path string) (data []byte, release func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() || st.Size() == 0 || st.Size() != int64(int(st.Size())) {
		return nil, nil, errors.New("not a regular, non-empty file")
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
