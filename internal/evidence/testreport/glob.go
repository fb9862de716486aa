package testreport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// expandGlobs returns the regular files the globs match, each once, in the
// order of the globs and, within one glob, in lexical order. More than
// MaxFiles files, or more than MaxTotalSize bytes in them, is an error
// naming the glob that went past the bound.
func expandGlobs(globs []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	var total int64
	for _, g := range globs {
		matches, err := glob(g, MaxFiles)
		if err != nil {
			return nil, fmt.Errorf("testreport: glob %q: %w", g, err)
		}
		sort.Strings(matches)
		n := 0
		var other string // a match that is a named pipe, socket or device
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err == nil && regularfile.Irregular(fi.Mode()) && other == "" {
				other = fmt.Sprintf("%s: not a regular file (%s)", m, regularfile.Kind(fi.Mode()))
			}
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			n++
			if seen[m] {
				continue
			}
			seen[m] = true
			out = append(out, m)
			if fi.Size() <= MaxFileSize {
				total += fi.Size() // a larger file is refused on its own (ParseFile)
			}
			switch {
			case len(out) > MaxFiles && n > MaxFiles:
				return nil, fmt.Errorf("testreport: glob %q: %w (at most %d are read): narrow the glob", g, ErrTooManyFiles, MaxFiles)
			case len(out) > MaxFiles:
				return nil, fmt.Errorf("testreport: glob %q: with the globs before it, %w (at most %d are read): narrow the globs", g, ErrTooManyFiles, MaxFiles)
			case total > MaxTotalSize:
				return nil, fmt.Errorf("testreport: glob %q: %w (%d bytes in %d files so far): narrow the globs", g, ErrTooMuchReport, total, len(out))
			}
		}
		if n == 0 && other != "" {
			// A named pipe, socket or device is never read as a report.
			return nil, fmt.Errorf("testreport: glob %q matches no regular file: %s", g, other)
		}
		if n == 0 {
			return nil, fmt.Errorf("testreport: glob %q matches no file", g)
		}
	}
	return out, nil
}

// glob is filepath.Glob plus "**", which as a whole path segment matches
// any number of directories, none included. A walk for "**" keeps only
// regular files (and links to them), and stops once it has more than
// limit of them.
func glob(pattern string, limit int) ([]string, error) {
	if pattern == "" {
		return nil, errors.New("empty pattern")
	}
	if !strings.Contains(pattern, "**") {
		if _, err := filepath.Match(pattern, ""); err != nil {
			return nil, err
		}
		return filepath.Glob(pattern)
	}
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	for _, s := range segs {
		if strings.Contains(s, "**") && s != "**" {
			return nil, errors.New(`"**" must be a whole path segment`)
		}
		if _, err := filepath.Match(s, ""); err != nil {
			return nil, err
		}
	}
	// The directory to walk: the leading segments without wildcards.
	i := 0
	for i < len(segs) && !hasMeta(segs[i]) {
		i++
	}
	root := strings.Join(segs[:i], "/")
	switch {
	case root == "" && i > 0:
		root = "/"
	case root == "":
		root = "."
	}
	rest := segs[i:]
	rootFS := filepath.FromSlash(root)
	var out []string
	err := filepath.WalkDir(rootFS, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == rootFS && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil // unreadable below the root: skip it
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(rootFS, path)
		if err != nil {
			return nil
		}
		if !matchSegs(rest, strings.Split(filepath.ToSlash(rel), "/")) || !isRegular(path, d) {
			return nil
		}
		if out = append(out, path); len(out) > limit {
			return fs.SkipAll
		}
		return nil
	})
	return out, err
}

// isRegular reports whether a walked entry is a regular file or a link to
// one.
func isRegular(path string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink == 0 {
		return d.Type().IsRegular()
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// matchSegs matches path segments against pattern segments, "**" matching
// any number of segments.
func matchSegs(pat, path []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for k := 0; k <= len(path); k++ {
				if matchSegs(pat, path[k:]) {
					return true
				}
			}
			return false
		}
		if len(path) == 0 {
			return false
		}
		if ok, _ := filepath.Match(pat[0], path[0]); !ok {
			return false
		}
		pat, path = pat[1:], path[1:]
	}
	return len(path) == 0
}
