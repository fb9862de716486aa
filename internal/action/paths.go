package action

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// recordFile resolves the record-path input in the workspace and refuses a
// path that leaves it: absolute, through "..", or through a symbolic link
// (a .loopbreaker committed as a link would send the record anywhere).
func recordFile(ws, rel string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if !filepath.IsLocal(clean) {
		return "", fmt.Errorf("input record-path: %q must be a file path inside the workspace", rel)
	}
	p := filepath.Join(ws, clean)
	if l := throughLink(ws, p); l != "" {
		return "", fmt.Errorf("input record-path: %s is a symbolic link (committed in the repository?): refusing to write the record through it, outside the workspace", l)
	}
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return p, nil // created by the write, inside the workspace
	case err != nil:
		return "", fmt.Errorf("input record-path: %s: %w", clean, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("input record-path: %s is not a regular file", clean)
	}
	return p, nil
}

// recordTop is the first path element of the record path in the
// workspace: the directory (or file) a run creates and gives the
// workspace's owner.
func recordTop(ws, recordPath string) string {
	rel, err := filepath.Rel(ws, recordPath)
	if err != nil {
		return recordPath
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return filepath.Join(ws, first)
}

// throughLink returns the first element of p below the workspace ws that
// is a symbolic link, relative to ws; "" when there is none. An agent file
// committed as a link would have the judge read and show a file of its own
// machine. A path outside the workspace is the workflow's own.
func throughLink(ws, p string) string {
	rel, err := filepath.Rel(ws, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	parts := strings.Split(rel, string(filepath.Separator))
	cur := ws
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return ""
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return filepath.Join(parts[:i+1]...)
		}
	}
	return ""
}

// noLinks refuses agent files (the log, the reports the globs match, the
// bundle) reached through a symbolic link in the workspace.
func noLinks(ws, input string, paths ...string) error {
	for _, p := range paths {
		if l := throughLink(ws, p); l != "" {
			return fmt.Errorf("input %s: %s is a symbolic link (committed in the repository?): refusing to read through it", input, l)
		}
	}
	return nil
}
