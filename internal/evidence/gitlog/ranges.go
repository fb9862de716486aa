package gitlog

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Ranges diffs a sequence of commits, each against the one before it, as
// Diff does for each pair: ledger records, one range per record. It reads
// each commit's tree and task lists once, where a Diff per pair reads
// every tree twice, as the end of one range and the start of the next.
type Ranges struct {
	r    *Repo
	opts Options
	// from is the commit the next range starts at (zero: the empty
	// tree), with its tree, task lists and the notes reading them gave.
	from      plumbing.Hash
	tree      *object.Tree
	tasks     *taskState
	taskNotes []string
	tracker   *taskTracker
}

// NewRanges starts a sequence of ranges at revision from ("" for the
// empty tree).
func (r *Repo) NewRanges(from string, opts Options) (*Ranges, error) {
	w := &Ranges{r: r, opts: opts.withDefaults()}
	if from != "" {
		h, c, err := r.resolveCommit(from)
		if err != nil {
			return nil, err
		}
		if w.tree, err = r.tree(c.TreeHash); err != nil {
			return nil, err
		}
		w.from = h
	}
	var err error
	if w.tracker, w.tasks, err = r.tasksOf(orEmpty(w.tree), w.opts); err != nil {
		return nil, err
	}
	w.taskNotes = w.tracker.notes
	return w, nil
}

// tasksOf reads the task lists of a whole tree.
func (r *Repo) tasksOf(tree *object.Tree, opts Options) (*taskTracker, *taskState, error) {
	tracker, err := r.newTaskTracker(opts.TaskFiles, tree)
	if err != nil {
		return nil, nil, err
	}
	st, err := tracker.state()
	if err != nil {
		return nil, nil, err
	}
	return tracker, st, nil
}

// Tasks returns the task counts at the commit the next range starts at
// (nil when there is no task file), the identities of its checked tasks
// and its first unchecked task (nil for none).
func (w *Ranges) Tasks() (*Tasks, []string, *CurrentTask) {
	return clone(w.tasks.counts), w.tasks.checked(), clone(w.tasks.current)
}

// Next returns the range from the current commit to revision to, which
// becomes the start of the next range. Its answer is Diff's for the same
// pair.
func (w *Ranges) Next(to string) (*Range, error) {
	r := w.r
	th, tc, err := r.resolveCommit(to)
	if err != nil {
		return nil, err
	}
	toTree, err := r.tree(tc.TreeHash)
	if err != nil {
		return nil, err
	}
	ch, err := r.classifiedChange(w.tree, toTree, w.opts)
	if err != nil {
		return nil, err
	}
	rg := &Range{Change: ch}
	if len(ch.Unreadable) > 0 {
		rg.Notes = append(rg.Notes, unreadableNote(th, ch.Unreadable))
	}
	tracker, err := r.newTaskTracker(w.opts.TaskFiles, toTree)
	if err != nil {
		return nil, err
	}
	after := w.tasks // the same task files: the same tasks, none checked
	if !sameTaskFiles(tracker, w.tracker) {
		if after, err = tracker.state(); err != nil {
			return nil, err
		}
		rg.TaskChange = compareStates(w.tasks, after)
	}
	rg.Notes = append(append(rg.Notes, w.taskNotes...), tracker.notes...)
	rg.Tasks = clone(after.counts)
	rg.CurrentTask = clone(after.current)
	w.from, w.tree, w.tasks, w.taskNotes, w.tracker = th, toTree, after, tracker.notes, tracker
	return rg, nil
}
