package testreport

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Files returns the regular files the globs match, as ParseGlobs reads
// them, so that a caller can vet the paths before anything is read: each
// once, in the order of the globs and, within one glob, in lexical order.
// More than MaxFiles files, or more than MaxTotalSize bytes in them, is an
// error naming the glob that went past the bound.
func Files(globs []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	var total int64
	for _, g := range globs {
		matches, other, err := glob(g, MaxFiles)
		if err != nil {
			return nil, fmt.Errorf("testreport: glob %q: %w", g, err)
		}
		sort.Strings(matches)
		n := 0
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil || !fi.Mode().IsRegular() {
				if other == "" {
					other = m
				}
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
			return nil, fmt.Errorf("testreport: glob %q matches %s, which is not a regular file", g, other)
		}
		if n == 0 {
			return nil, &NoMatchError{Glob: g}
		}
	}
	return out, nil
}

// glob is filepath.Glob plus "**", which as a whole path segment matches
// any number of directories, none included. It keeps only regular files
// (and links to them), and stops once it has more than limit of them;
// other is the first match that is not a regular file, for a glob without
// "**".
func glob(pattern string, limit int) (files []string, other string, err error) {
	if pattern == "" {
		return nil, "", errors.New("empty pattern")
	}
	pattern = filepath.ToSlash(pattern)
	for _, s := range strings.Split(pattern, "/") {
		if strings.Contains(s, "**") && s != "**" {
			return nil, "", errors.New(`"**" must be a whole path segment`)
		}
	}
	base, rest := doublestar.SplitPattern(pattern)
	base = filepath.FromSlash(base)
	deep := strings.Contains(rest, "**")
	err = doublestar.GlobWalk(os.DirFS(base), rest, func(p string, d fs.DirEntry) error {
		path := filepath.Join(base, filepath.FromSlash(p))
		switch {
		case isRegular(path, d):
			files = append(files, path)
		case other == "" && !deep:
			other = path
		}
		if len(files) > limit {
			return errEnough
		}
		return nil
	}, doublestar.WithNoFollow())
	if errors.Is(err, errEnough) {
		err = nil
	}
	return files, other, err
}

var errEnough = errors.New("enough files")

// isRegular reports whether a matched entry is a regular file or a link to
// one.
func isRegular(path string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink == 0 {
		return d.Type().IsRegular()
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// NoMatchError is a glob that matched no report file: for a loop, a build
// that produced no report.
type NoMatchError struct{ Glob string }

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("testreport: glob %q %v", e.Glob, ErrNoMatch)
}

// Unwrap is ErrNoMatch.
func (e *NoMatchError) Unwrap() error { return ErrNoMatch }
