package gitlog

import (
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

// Bounds of the per-repository memos: each is emptied when it is full, so a
// long or hostile history costs time, never unbounded memory.
const (
	matchMemoMax  = 1 << 16 // path-pattern answers
	taskMemoMax   = 1 << 14 // task files found under a subtree
	changeMemoMax = 64      // classified diffs
)

// matchKey is a path looked up in a pattern set.
type matchKey struct {
	set  *pathmatch.Set
	path string
}

// match is set.Match(path), remembered: a loop changes the same few paths
// again and again, and every change is matched against four sets.
func (r *Repo) match(set *pathmatch.Set, path string) bool {
	if set == nil {
		return false
	}
	k := matchKey{set, path}
	if v, ok := r.matches[k]; ok {
		return v
	}
	v := set.Match(path)
	if len(r.matches) >= matchMemoMax {
		clear(r.matches)
	}
	r.matches[k] = v
	return v
}

// taskKey is a subtree at a path, searched for task files of one set.
type taskKey struct {
	set    *pathmatch.Set
	tree   plumbing.Hash
	prefix string
}

// taskFile is a task file found in a tree walk.
type taskFile struct {
	path string
	blob plumbing.Hash
}

// changeKey is a diff between two trees under the options classify reads.
type changeKey struct {
	from, to                                          plumbing.Hash
	ignore, test, testData, doc, notes, protect, task *pathmatch.Set
	maxFileBytes                                      int64
}

func newChangeKey(from, to plumbing.Hash, o Options) changeKey {
	return changeKey{from, to, o.IgnorePaths, o.TestPaths, o.TestDataPaths, o.DocPaths, o.NotesPaths, o.ProtectedPaths, o.TaskFiles, o.MaxFileBytes}
}

// memoChange remembers a classified diff (CommitInfo and Diff of a ledger
// record ask for the same pair of trees).
func (r *Repo) memoChange(k changeKey, ch Change) {
	if len(r.changes) >= changeMemoMax {
		clear(r.changes)
	}
	r.changes[k] = cloneChange(ch)
}

// memoizedChange returns a copy of a remembered diff.
func (r *Repo) memoizedChange(k changeKey) (Change, bool) {
	ch, ok := r.changes[k]
	if !ok {
		return Change{}, false
	}
	return cloneChange(ch), true
}

// cloneChange copies the slices of a Change, so that callers never share
// them with the memo.
func cloneChange(ch Change) Change {
	ch.Files = slices.Clone(ch.Files)
	ch.ProtectedDeleted = slices.Clone(ch.ProtectedDeleted)
	ch.ProtectedModified = slices.Clone(ch.ProtectedModified)
	ch.Unreadable = slices.Clone(ch.Unreadable)
	return ch
}
