//go:build unix

package checkout

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Own gives each path (recursively) the owner of workspace when this
// process runs as root: a Docker action does, and a self-hosted runner's
// next checkout cannot remove root's files. Links are changed, not followed.
func Own(workspace string, paths ...string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	fi, err := os.Stat(workspace)
	if err != nil {
		return fmt.Errorf("owner of the workspace %s: %w", workspace, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	uid, gid := int(st.Uid), int(st.Gid)
	for _, p := range paths {
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if s, ok := info.Sys().(*syscall.Stat_t); ok && int(s.Uid) == uid && int(s.Gid) == gid {
				return nil
			}
			return os.Lchown(path, uid, gid)
		})
		if err != nil {
			return fmt.Errorf("give %s the owner of the workspace: %w", p, err)
		}
	}
	return nil
}
