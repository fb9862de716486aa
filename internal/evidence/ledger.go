package evidence

import (
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// FromLedger turns ledger records into iterations, one per record in run
// order. Each diff is recomputed from git from the previous record's
// commit (the first: the base); a record is never trusted over git, and a
// commit gone from the repository is an iteration without change, noted.
func FromLedger(repo *gitlog.Repo, base string, recs []ledger.Record, opts gitlog.Options) ([]breaker.Iteration, []string, error) {
	ev, err := ContinueLedger(repo, LedgerStart{Commit: base, First: true}, recs, opts)
	if err != nil {
		return nil, nil, err
	}
	return ev.Iterations, ev.Notes, nil
}

// Evidence is iterations with the notes that reading them gave.
type Evidence struct {
	Iterations []breaker.Iteration
	// Notes say what could not be read; NotesAfter[i] is how many of them
	// came with the iterations up to i.
	Notes      []string
	NotesAfter []int
	// StartTasks are the task counts at the start's commit (nil when there
	// is no task file, or it could not be read).
	StartTasks *gitlog.Tasks
}

// LedgerStart is where the ranges of ledger records start: the loop's base,
// or the commit of an earlier record when a fold continues from it.
type LedgerStart struct {
	// Commit is the base or the earlier record's commit ("" for the root);
	// it must be in the repository unless it is the base.
	Commit string
	// First says that Commit is the loop's base: the tasks checked there
	// were done before the loop.
	First bool
	// TasksBefore is the checked-task count before the first record when
	// Commit is not the base (nil when unknown).
	TasksBefore *int
}

// ContinueLedger is FromLedger from a given start.
func ContinueLedger(repo *gitlog.Repo, start LedgerStart, recs []ledger.Record, opts gitlog.Options) (*Evidence, error) {
	w := ledgerWalk{repo: repo, opts: opts, prev: start.Commit}
	// One walker diffs every range, reading each tree's tasks once. A base
	// it cannot start at is an error only once a range needs it.
	w.ranges, w.rangesErr = repo.NewRanges(start.Commit, opts)
	var before *int
	if !start.First && start.TasksBefore != nil {
		v := *start.TasksBefore
		before = &v
	}
	var startTasks *gitlog.Tasks
	var checked []string
	if w.rangesErr == nil {
		var cur *gitlog.CurrentTask
		startTasks, checked, cur = w.ranges.Tasks()
		if !start.First {
			// Going on from an earlier record: its commit's tasks.
			if startTasks != nil {
				w.tasks = &breaker.Tasks{Done: startTasks.Done, Total: startTasks.Total}
			}
			w.current = currentTask(cur)
		}
	}
	// The tasks checked at the base were done before the loop, as for
	// iterations read from git: the first run's ticks are progress.
	var checkedBefore []string
	if start.Commit != "" {
		if c, err := repo.Describe(start.Commit); err == nil {
			w.prevTree = c.Tree
			if start.First && startTasks != nil {
				v := startTasks.Done
				before, checkedBefore = &v, checked
			}
		}
	}
	ev := &Evidence{Iterations: make([]breaker.Iteration, 0, len(recs)), NotesAfter: make([]int, 0, len(recs)), StartTasks: startTasks}
	for i := range recs {
		r := &recs[i]
		it, err := w.next(r)
		if err != nil {
			return nil, err
		}
		it.TasksBefore = before
		if i == 0 && start.First {
			it.TasksCheckedBefore = checkedBefore
		}
		agentPhase := it.Phase
		r.Apply(&it)
		// A phase the record names otherwise was a person's (--phase).
		it.PhaseByAgent = it.PhaseByAgent && it.Phase == agentPhase
		if it.Tasks != nil {
			v := it.Tasks.Done
			before = &v
		}
		ev.Iterations = append(ev.Iterations, it)
		ev.NotesAfter = append(ev.NotesAfter, len(w.notes))
	}
	ev.Notes = w.notes
	return ev, nil
}

// ledgerWalk diffs the records' commits one range after another; tasks
// and current are the task counts and the first unchecked task at prev's
// tree, once a record's commit was read.
type ledgerWalk struct {
	repo           *gitlog.Repo
	opts           gitlog.Options
	ranges         *gitlog.Ranges
	rangesErr      error
	prev, prevTree string
	tasks          *breaker.Tasks
	current        *breaker.CurrentTask
	notes          []string
}

// next is the iteration of one record, before the record is applied.
func (w *ledgerWalk) next(r *ledger.Record) (breaker.Iteration, error) {
	it := breaker.Iteration{Commit: r.Commit}
	if r.Commit == "" || r.Commit == w.prev {
		// The same tree: the same task lists.
		it.Change = &breaker.Change{Tree: w.prevTree}
		it.TaskChange = &breaker.TaskChange{}
		if w.tasks != nil {
			t := *w.tasks
			it.Tasks = &t
		}
		if w.current != nil {
			c := *w.current
			it.CurrentTask = &c
		}
		return it, nil
	}
	c, err := w.repo.Describe(r.Commit)
	if err != nil {
		w.notes = append(w.notes, fmt.Sprintf("run %d: commit %s is not in the repository (force-pushed or not fetched); counted as an iteration without change", r.RunID, textcut.Hash(r.Commit)))
		it.Change = &breaker.Change{Tree: w.prevTree}
		return it, nil
	}
	if w.rangesErr != nil {
		return it, w.rangesErr
	}
	rg, err := w.ranges.Next(r.Commit)
	if err != nil {
		return it, err
	}
	w.notes = append(w.notes, rg.Notes...)
	it.Change = change(&rg.Change, c.Tree, c.Revert, w.opts.TaskFiles)
	it.CommitAt = c.At.UTC()
	from := FromCommit(c, nil, w.opts.TaskFiles)
	it.Phase, it.PhaseByAgent = from.Phase, from.PhaseByAgent
	it.ProgressPercent = from.ProgressPercent
	it.CompletionClaimed, it.Claim = from.CompletionClaimed, from.Claim
	it.Admitted, it.Blocker = from.Admitted, from.Blocker
	if rg.Tasks != nil {
		it.Tasks = &breaker.Tasks{Done: rg.Tasks.Done, Total: rg.Tasks.Total}
	}
	it.TaskChange = taskChange(&rg.TaskChange)
	it.CurrentTask = currentTask(rg.CurrentTask)
	w.tasks, w.current = it.Tasks, it.CurrentTask
	w.prev, w.prevTree = r.Commit, c.Tree
	return it, nil
}
