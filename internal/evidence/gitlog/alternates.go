package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// Bounds on the alternate object stores (objects/info/alternates), which
// a repository made with git clone --shared or --reference reads its
// history from.
const (
	// maxAlternateDepth bounds the nesting of alternates: the stores the
	// repository names, theirs, and so on, at most this many levels below
	// the repository's own list (git's own bound).
	maxAlternateDepth = 5
	// maxAlternates bounds the alternate stores read in all.
	maxAlternates = 64
	// maxAlternatesBytes bounds one alternates file.
	maxAlternatesBytes = 64 << 10
)

// alternateStores returns the alternate object stores of the objects
// directory objects in the order git searches them: each store's own
// alternates right after it. It follows git's rules: one path a line,
// lines starting with '#' and empty lines skipped, a path in double quotes
// C-unquoted, a relative path taken from the objects directory whose file
// names it. A store that is not a directory, the repository itself or a
// store named already, a file that cannot be read, and stores deeper or
// more than the bounds are left out; skipped says why, each naming the
// store or file.
func alternateStores(objects string) (alternates, skipped []string) {
	var w alternatesWalk
	if st, err := os.Stat(objects); err == nil {
		w.seen = append(w.seen, st)
	}
	w.walk(objects, 0)
	return w.stores, w.skipped
}

// alternatesWalk collects the alternate stores of one repository.
type alternatesWalk struct {
	stores  []string
	skipped []string
	seen    []os.FileInfo // the repository's store and every store taken
}

// walk adds the stores that the alternates file of the objects directory
// dir names, each followed by its own, depth levels below the repository.
func (w *alternatesWalk) walk(dir string, depth int) {
	file := filepath.Join(dir, "info", "alternates")
	data, err := regularfile.Read(file, maxAlternatesBytes, "alternates file")
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		w.skipped = append(w.skipped, err.Error())
		return
	}
	if depth > maxAlternateDepth {
		w.skipped = append(w.skipped, fmt.Sprintf("%s: alternates nested deeper than %d levels", file, maxAlternateDepth))
		return
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		path := string(bytes.TrimRight(line, "\r"))
		if path == "" || path[0] == '#' {
			continue
		}
		if path[0] == '"' {
			if s, err := strconv.Unquote(path); err == nil {
				path = s
			}
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		path = filepath.Clean(path)
		if len(w.stores) == maxAlternates {
			w.skipped = append(w.skipped, fmt.Sprintf("%s: more than %d alternate object stores", file, maxAlternates))
			return
		}
		st, err := os.Stat(path)
		if err != nil || !st.IsDir() {
			w.skipped = append(w.skipped, fmt.Sprintf("%s names %s, which is not a directory", file, path))
			continue
		}
		if w.taken(st) {
			continue
		}
		w.seen = append(w.seen, st)
		w.stores = append(w.stores, path)
		w.walk(path, depth+1)
	}
}

// taken reports whether the store st is the repository's or one already
// taken (a cycle, or one store named twice).
func (w *alternatesWalk) taken(st os.FileInfo) bool {
	for _, s := range w.seen {
		if os.SameFile(s, st) {
			return true
		}
	}
	return false
}
