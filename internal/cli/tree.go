package cli

import (
	"fmt"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/worktree"
)

// maxTreeBytes bounds a kept snapshot read.
const maxTreeBytes = 64 << 20

// measureTree sets the iteration's change to the meaningful files changed
// in the working tree at dir since the previous record of this state file,
// committed or not, and returns what keeps the new snapshot once the
// record is saved. The snapshot lives in the state directory, keyed by the
// state file, out of the agent's reach; the first record has none to
// compare with and takes the baseline, with a note.
func (s *session) measureTree(env Env, dir, stateDir string, it *breaker.Iteration) (func() error, error) {
	top, err := localstate.TopLevel(dir)
	if err != nil {
		return nil, usagef("--repo %s: %v", dir, err)
	}
	path, err := treeFile(env, stateDir, s.target)
	if err != nil {
		return nil, err
	}
	var prev worktree.Snapshot
	had, err := localstate.ReadJSON(path, maxTreeBytes, &prev)
	if err != nil {
		return nil, err
	}
	cur, notes, err := worktree.Take(top)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		s.notes = append(s.notes, note.New(note.Unreadable, "%s", n))
	}
	save := func() error { return localstate.WriteJSON(path, cur) }
	if !had {
		s.notes = append(s.notes, note.New(note.LoopStarted, "first record with --repo: the working tree of %s is the baseline; the next record measures its changes from here", top))
		return save, nil
	}
	meaning, err := worktree.NewMeaning(s.b.Policy())
	if err != nil {
		return nil, err
	}
	it.Change = changeOf(meaning.Compare(&prev, cur))
	return save, nil
}

// changeOf is a working tree's change as the breaker counts it.
func changeOf(c worktree.Change) *breaker.Change {
	return &breaker.Change{MeaningfulFiles: len(c.Meaningful), Files: c.Meaningful[:min(len(c.Meaningful), maxTreeFiles)]}
}

// maxTreeFiles bounds the changed paths an iteration keeps for display.
const maxTreeFiles = 20

// treeFile is where the working tree's snapshot of a state file is kept.
func treeFile(env Env, stateDir, stateFile string) (string, error) {
	w := where(env, stateDir)
	root, err := w.Root()
	if err != nil {
		return "", fmt.Errorf("record --repo keeps the working tree's snapshot in the local state directory: %w", err)
	}
	abs, err := filepath.Abs(stateFile)
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "trees", localstate.Key(abs)+".json"), nil
}
