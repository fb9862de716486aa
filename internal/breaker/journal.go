package breaker

import (
	"path"
	"slices"

	"github.com/loopbreaker/loopbreaker/policy"
)

// The loop's journal, learned from its own history: a file that the loop
// changed in nearly every recent iteration with prose, counters or
// timestamps, or a folder that grows by one such note an iteration, is the
// loop's state (a board, a progress log, a session note), not its work.
// Only the iterations up to the current one teach, so the fold stays
// causal: the decision at an iteration never depends on later commits.

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
}

// journalKeys are the snapshot keys of a journal candidate: its path, and
// its folder for a new file.
func journalKeys(f TextFile) (file, folder string) {
	file = pathKey(f.Path)
	if f.New {
		folder = pathKey("\x00folder:" + path.Dir(f.Path))
	}
	return file, folder
}

// journalFile reports whether a candidate of the current iteration is the
// loop's journal: with this iteration, the file was changed (or its folder
// grew) in journalHits of the last journalSpan iterations.
func journalFile(s *Snapshot, f TextFile) bool {
	file, folder := journalKeys(f)
	return textHits(s, file)+1 >= journalHits || (folder != "" && textHits(s, folder)+1 >= journalHits)
}

// textHits counts the iterations before the current one, within the span,
// that changed the file or folder key.
func textHits(s *Snapshot, key string) int {
	for _, e := range s.Journal {
		if e.Key != key {
			continue
		}
		n := 0
		for _, i := range e.Iterations {
			if i > s.Iteration-journalSpan && i < s.Iteration {
				n++
			}
		}
		return n
	}
	return 0
}

// measureJournal finds the counted files of the iteration that are its
// journal: their files, lines and documentation files.
func measureJournal(pol *policy.Policy, s *Snapshot, c *Change) (files, lines, docs int) {
	if !pol.Progress.Journal {
		return 0, 0, 0
	}
	for _, f := range c.Text {
		if f.Counted && journalFile(s, f) {
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
		file, folder := journalKeys(f)
		s.Journal = seeText(s.Journal, file, s.Iteration)
		if folder != "" {
			s.Journal = seeText(s.Journal, folder, s.Iteration)
		}
	}
}

// seeText adds an iteration to a key's list, keeping the key's last
// journalSpan iterations and the most recently seen MaxJournal keys.
func seeText(list []TextSeen, key string, iteration int) []TextSeen {
	i := slices.IndexFunc(list, func(e TextSeen) bool { return e.Key == key })
	var e TextSeen
	if i >= 0 {
		e = list[i]
		list = append(list[:i], list[i+1:]...)
	} else {
		e = TextSeen{Key: key}
	}
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
