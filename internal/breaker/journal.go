package breaker

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/loopbreaker/loopbreaker/policy"
)

// The loop's journal (docs/policies.md, progress.journal) is learned from
// the iterations up to the current one only, so the fold stays causal.

const (
	// journalSpan is how many iterations, the current one included, are
	// looked at; journalHits of them must have changed the file or grown
	// the folder.
	journalSpan = 4
	journalHits = 3
	// MaxJournal bounds the files and folders the snapshot follows.
	MaxJournal = 256
)

// TextSeen is a file or folder of journal-shaped changes and the recent
// iterations that made them, oldest first.
type TextSeen struct {
	Key        string `json:"key"`
	Iterations []int  `json:"iterations"`
	// Dir identifies a file's folder ("" for a folder's own entry).
	Dir string `json:"dir,omitempty"`
	// Beside says, for a folder, that an iteration that grew it also
	// changed a file outside it.
	Beside bool `json:"beside,omitempty"`
}

// journalKeys are the snapshot keys of a journal candidate: its path, and
// for a new file its folder and its numbered series ("" for none).
func journalKeys(f TextFile) (file, folder, series string) {
	file = pathKey(f.Path)
	if f.New {
		folder = pathKey("\x00folder:" + path.Dir(f.Path))
		if word := seriesWord(path.Base(f.Path)); word != "" {
			series = pathKey("\x00series:" + path.Dir(f.Path) + "/" + word)
		}
	}
	return file, folder, series
}

// seriesWord is what a numbered series' name starts with before its
// number, in lower case: "session_" of SESSION_412_SUMMARY.md; "" when the
// name starts with a digit or has none.
func seriesWord(name string) string {
	i := strings.IndexAny(name, "0123456789")
	if i <= 0 || !unicode.IsLetter(rune(name[0])) {
		return ""
	}
	return strings.ToLower(name[:i])
}

// journalFile reports whether a candidate of the current iteration is the
// loop's journal: with this iteration, the file was changed (or its folder
// grew) in journalHits of the last journalSpan iterations.
func journalFile(s *Snapshot, c *Change, f TextFile) bool {
	file, folder, series := journalKeys(f)
	n, _ := textHits(s, file)
	if n+1 >= journalHits || (n > 0 && byTurns(s, file, pathKey(path.Dir(f.Path)))) {
		return true
	}
	if series != "" {
		if n, _ := textHits(s, series); n+1 >= journalHits {
			return true
		}
	}
	if folder == "" {
		return false
	}
	n, beside := textHits(s, folder)
	return n+1 >= journalHits && (beside || outsideFolder(c, path.Dir(f.Path)))
}

// textHits counts the iterations before the current one, within the span,
// that changed the file or folder key, and whether the folder grew beside
// other work.
func textHits(s *Snapshot, key string) (n int, beside bool) {
	for _, e := range s.Journal {
		if e.Key != key {
			continue
		}
		for _, i := range e.Iterations {
			if i > s.Iteration-journalSpan && i < s.Iteration {
				n++
			}
		}
		return n, e.Beside
	}
	return 0, false
}

// byTurns reports whether the file and another file of its folder were
// changed, together, in journalHits of the span's iterations (the current
// one included).
func byTurns(s *Snapshot, file, dir string) bool {
	within := func(i int) bool { return i > s.Iteration-journalSpan && i < s.Iteration }
	var mine []int
	for _, e := range s.Journal {
		if e.Key == file {
			mine = e.Iterations
		}
	}
	for _, e := range s.Journal {
		if e.Key == file || e.Dir != dir {
			continue
		}
		seen := map[int]bool{s.Iteration: true}
		for _, i := range append(slices.Clone(mine), e.Iterations...) {
			if within(i) {
				seen[i] = true
			}
		}
		if len(seen) >= journalHits {
			return true
		}
	}
	return false
}

// outsideFolder reports whether the change touched a file outside dir:
// a meaningful file, a journal candidate or a test file.
func outsideFolder(c *Change, dir string) bool {
	out := func(p string) bool { return path.Dir(p) != dir }
	return slices.ContainsFunc(c.Files, out) ||
		slices.ContainsFunc(c.Text, func(f TextFile) bool { return out(f.Path) }) ||
		slices.ContainsFunc(c.TestFiles, func(f FileLines) bool { return out(f.Path) })
}

// measureJournal finds the counted files of the iteration that are its
// journal: their files, lines and documentation files.
func measureJournal(pol *policy.Policy, s *Snapshot, c *Change) (files, lines, docs int) {
	if !pol.Progress.Journal {
		return 0, 0, 0
	}
	for _, f := range c.Text {
		if f.Counted && journalFile(s, c, f) {
			files++
			lines += f.Lines
			if f.Doc {
				docs++
			}
		}
	}
	return files, lines, docs
}

// rememberText records the iteration's journal candidates.
func rememberText(s *Snapshot, it *Iteration) {
	if it.Change == nil {
		return
	}
	for _, f := range it.Change.Text {
		file, folder, series := journalKeys(f)
		s.Journal = seeText(s.Journal, file, s.Iteration, false)
		s.Journal[len(s.Journal)-1].Dir = pathKey(path.Dir(f.Path))
		if series != "" {
			s.Journal = seeText(s.Journal, series, s.Iteration, false)
		}
		if folder != "" {
			s.Journal = seeText(s.Journal, folder, s.Iteration, outsideFolder(it.Change, path.Dir(f.Path)))
		}
	}
}

// seeText adds an iteration to a key's list, keeping the key's last
// journalSpan iterations and the most recently seen MaxJournal keys;
// beside marks the key as grown beside other work for good.
func seeText(list []TextSeen, key string, iteration int, beside bool) []TextSeen {
	i := slices.IndexFunc(list, func(e TextSeen) bool { return e.Key == key })
	var e TextSeen
	if i >= 0 {
		e = list[i]
		list = append(list[:i], list[i+1:]...)
	} else {
		e = TextSeen{Key: key}
	}
	e.Beside = e.Beside || beside
	if n := len(e.Iterations); n == 0 || e.Iterations[n-1] != iteration {
		e.Iterations = append(slices.Clone(e.Iterations), iteration)
	}
	if len(e.Iterations) > journalSpan {
		e.Iterations = keepLast(e.Iterations, journalSpan)
	}
	list = append(list, e)
	if len(list) > MaxJournal {
		list = keepLast(list, MaxJournal)
	}
	return list
}
