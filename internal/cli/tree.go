package cli

import (
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/worktree"
)

// measureTree measures the meaningful files changed in the working tree at
// dir since the store's snapshot, committed or not; the first takes the
// baseline (nil work), with a note.
func (s *session) measureTree(dir string) (*ledger.Work, error) {
	top, err := localstate.TopLevel(dir)
	if err != nil {
		return nil, usagef("--repo %s: %v", dir, err)
	}
	changed, baseline, err := s.treeChange(top)
	if err != nil || baseline {
		if baseline {
			s.notes = append(s.notes, note.New(note.LoopStarted, "first record with --repo: the working tree of %s is the baseline; the next record measures its changes from here", top))
		}
		return nil, err
	}
	return workOf(changed, nil), nil
}

// treeChange snapshots the working tree at top into the store and returns
// the meaningful paths changed since the previous snapshot (baseline: none).
func (s *session) treeChange(top string) (changed []string, baseline bool, err error) {
	cur, notes, err := worktree.Take(top)
	if err != nil {
		return nil, false, err
	}
	for _, n := range notes {
		s.notes = append(s.notes, note.New(note.Unreadable, "%s", n))
	}
	if s.store != nil {
		// A state file kept in the working tree is not the loop's work.
		if rel, ok := within(top, s.store.Path); ok {
			delete(cur.Files, rel)
			delete(cur.Files, rel+".lock")
		}
	}
	prev := s.file.Tree
	s.file.Tree = cur
	if prev == nil {
		return nil, true, nil
	}
	meaning, err := worktree.NewMeaning(s.policy)
	if err != nil {
		return nil, false, err
	}
	return meaning.Compare(prev, cur).Meaningful, false, nil
}

// workOf is a record's work: the meaningful paths changed and those of
// them no commit holds (nil: no commit; the changed paths are shown).
func workOf(changed, uncommitted []string) *ledger.Work {
	w := &ledger.Work{Files: len(changed), Uncommitted: len(uncommitted)}
	shown := changed
	if uncommitted != nil {
		shown = uncommitted
	}
	w.Paths = shown[:min(len(shown), ledger.MaxWorkPaths)]
	return w
}
