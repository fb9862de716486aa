package evidence

import (
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// FromLedger turns ledger records into iterations, one per record in run
// order, so that a run that made no commit is still an iteration. Each
// iteration's diff is recomputed from git between the previous record's
// commit (the first: the base) and its own; a record is never trusted over
// git. A commit that is no longer in the repository (force-pushed away)
// still counts as an iteration, with no change, and is noted.
func FromLedger(repo *gitlog.Repo, base string, recs []ledger.Record, opts gitlog.Options) ([]breaker.Iteration, []string, error) {
	var notes []string
	out := make([]breaker.Iteration, 0, len(recs))
	prev := base
	prevTree := ""
	// The tasks checked at the base were done before the loop, as for
	// iterations read from git: the first run's ticks are progress.
	var before *int
	var checkedBefore []string
	// tasks and current are the task counts and the first unchecked task
	// at prev's tree, once a record's commit was read.
	var tasks *breaker.Tasks
	var current *breaker.CurrentTask
	if base != "" {
		if c, err := repo.Describe(base); err == nil {
			prevTree = c.Tree
			if tasks, checked, err := repo.TasksAt(base, opts); err == nil && tasks != nil {
				v := tasks.Done
				before, checkedBefore = &v, checked
			}
		}
	}
	for i := range recs {
		r := &recs[i]
		it := breaker.Iteration{Commit: r.Commit}
		switch {
		case r.Commit == "" || r.Commit == prev:
			// The same tree: the same task lists.
			it.Change = &breaker.Change{Tree: prevTree}
			it.TaskChange = &breaker.TaskChange{}
			if tasks != nil {
				t := *tasks
				it.Tasks = &t
			}
			if current != nil {
				c := *current
				it.CurrentTask = &c
			}
		default:
			c, err := repo.Describe(r.Commit)
			if err != nil {
				notes = append(notes, fmt.Sprintf("run %d: commit %s is not in the repository (force-pushed or not fetched); counted as an iteration without change", r.RunID, shortID(r.Commit)))
				it.Change = &breaker.Change{Tree: prevTree}
				break
			}
			rg, err := repo.Diff(prev, r.Commit, opts)
			if err != nil {
				return nil, nil, err
			}
			notes = append(notes, rg.Notes...)
			it.Change = change(&rg.Change, c.Tree, c.Revert, opts.TaskFiles)
			it.CommitAt = c.At.UTC()
			from := FromCommit(c, nil, opts.TaskFiles)
			it.Phase = from.Phase
			it.ProgressPercent = from.ProgressPercent
			it.CompletionClaimed = from.CompletionClaimed
			if rg.Tasks != nil {
				it.Tasks = &breaker.Tasks{Done: rg.Tasks.Done, Total: rg.Tasks.Total}
			}
			it.TaskChange = taskChange(&rg.TaskChange)
			it.CurrentTask = currentTask(rg.CurrentTask)
			tasks, current = it.Tasks, it.CurrentTask
			prev, prevTree = r.Commit, c.Tree
		}
		it.TasksBefore = before
		if i == 0 {
			it.TasksCheckedBefore = checkedBefore
		}
		r.Apply(&it)
		if it.Tasks != nil {
			v := it.Tasks.Done
			before = &v
		}
		out = append(out, it)
	}
	return out, notes, nil
}

func shortID(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
