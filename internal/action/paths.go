package action

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// recordFile resolves the record-path input in the workspace and refuses a
// path that leaves it: an absolute one, one through "..", or one through a
// symbolic link. The workspace holds what the agent committed; a
// .loopbreaker committed as a link would make the action write its record
// wherever the link points.
func recordFile(ws, rel string) (string, error) {
	clean := filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("input record-path: %q must be a file path inside the workspace", rel)
	}
	p := ws
	parts := strings.Split(clean, string(filepath.Separator))
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			if os.IsNotExist(err) {
				break // created by the write, inside the workspace
			}
			return "", fmt.Errorf("input record-path: %s: %w", p, err)
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("input record-path: %s is a symbolic link (committed in the repository?): refusing to write the record through it, outside the workspace", filepath.Join(parts[:i+1]...))
		case i < len(parts)-1 && !fi.IsDir():
			return "", fmt.Errorf("input record-path: %s is not a directory", filepath.Join(parts[:i+1]...))
		case i == len(parts)-1 && !fi.Mode().IsRegular():
			return "", fmt.Errorf("input record-path: %s is not a regular file", clean)
		}
	}
	return filepath.Join(ws, clean), nil
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

// throughLink returns the first element of path p, below the workspace
// ws, that is a symbolic link, relative to ws; "" when there is none. The
// workspace holds what the agent committed: a log, report or bundle
// committed as a link (or in a linked folder) would have the judge read a
// file of its own machine, and show it in the log, the summary and the
// comment. A path outside the workspace is the workflow's own and is not
// looked at.
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
