package cli

import (
	"flag"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
)

// measurementFlags are record's per-iteration measurements of progress
// (files, tests, tasks, percentage, phase) and of errors, each optional.
type measurementFlags struct {
	filesChanged, testsPassing, testsFailing, outputLength  optInt
	permissionDenials, filesModified, tasksDone, tasksTotal optInt
	errors, reports                                         strList
	completion, questions                                   bool
	percent                                                 optFloat
	phase, currentTask, log                                 string
}

func (m *measurementFlags) register(fs *flag.FlagSet) {
	fs.Var(&m.filesChanged, "files-changed", "meaningful files changed in this iteration")
	fs.Var(&m.testsPassing, "tests-passing", "tests passing after this iteration")
	fs.Var(&m.testsFailing, "tests-failing", "tests failing after this iteration")
	fs.Var(&m.outputLength, "output-length", "agent output volume (lines, or any unit used consistently)")
	fs.Var(&m.errors, "error", "an error message of this iteration (repeatable; the first is the primary error)")
	fs.Var(&m.permissionDenials, "permission-denials", "tool permission denials in this iteration")
	fs.BoolVar(&m.completion, "completion", false, "the agent claimed it is done")
	fs.Var(&m.filesModified, "files-modified", "the agent's own claim of files modified")
	fs.BoolVar(&m.questions, "asking-questions", false, "the iteration only asked the user questions")
	fs.Var(&m.percent, "progress-percent", "reported completion percentage (0 to 100)")
	fs.Var(&m.tasksDone, "tasks-done", "checked tasks in the task list")
	fs.Var(&m.tasksTotal, "tasks-total", "all tasks in the task list (default: --tasks-done)")
	fs.StringVar(&m.currentTask, "current-task", "", "the task the agent is on (the task_stuck rule counts how long it stays current)")
	fs.StringVar(&m.phase, "phase", "", "the iteration's phase (RED, GREEN, REFACTOR, DOCUMENT or one the policy defines)")
	fs.Var(&m.reports, "reports", "test report glob to measure from (JUnit XML, go test -json, TAP; repeatable)")
	fs.StringVar(&m.log, "log", "", "agent output log to measure from")
}

// iteration builds the iteration, its time unset: files first, then
// explicit flags.
func (m *measurementFlags) iteration() (breaker.Iteration, []note.Note, error) {
	if len(m.phase) > ledger.MaxPhase {
		return breaker.Iteration{}, nil, usagef("--phase is %d bytes long: a phase name has at most %d", len(m.phase), ledger.MaxPhase)
	}
	it := breaker.Iteration{Phase: m.phase}
	var notes []note.Note
	if len(m.reports) > 0 || m.log != "" {
		f, err := evidence.ReadFiles(m.reports, m.log)
		if err != nil {
			return it, nil, err
		}
		f.Apply(&it)
		notes = f.Notes()
	}
	if m.filesChanged.set {
		it.Change = &breaker.Change{MeaningfulFiles: m.filesChanged.v}
	}
	if m.testsPassing.set || m.testsFailing.set {
		t := &breaker.Tests{}
		if it.Tests != nil {
			*t = *it.Tests
		}
		if m.testsPassing.set {
			t.Passed = m.testsPassing.v
		}
		if m.testsFailing.set {
			t.Failed = m.testsFailing.v
		}
		it.Tests = t
		it.ErrorsKnown = true
	}
	if m.outputLength.set {
		it.Output = &breaker.Output{Lines: m.outputLength.v}
	}
	if len(m.errors) > 0 {
		var errs []breaker.Signature
		for _, e := range m.errors {
			s := signature.Of(e)
			errs = append(errs, breaker.Signature{Hash: s.Hash, Sample: s.Sample})
		}
		it.Errors = append(errs, it.Errors...)
		it.ErrorsKnown = true
	}
	if m.permissionDenials.set {
		it.PermissionDenials = m.permissionDenials.v
	}
	it.CompletionClaimed = it.CompletionClaimed || m.completion
	if m.filesModified.set {
		it.ClaimedFiles = m.filesModified.ptr()
	}
	it.QuestionsAsked = it.QuestionsAsked || m.questions
	if m.percent.set {
		it.ProgressPercent = m.percent.ptr()
	}
	if m.tasksDone.set {
		total := m.tasksDone.v
		if m.tasksTotal.set {
			total = m.tasksTotal.v
		}
		if total < m.tasksDone.v {
			return it, nil, usagef("--tasks-done %d exceeds --tasks-total %d", m.tasksDone.v, total)
		}
		it.Tasks = &breaker.Tasks{Done: m.tasksDone.v, Total: total}
	}
	if m.currentTask != "" {
		if len(m.currentTask) > ledger.MaxTask {
			return it, nil, usagef("--current-task is %d bytes long: at most %d", len(m.currentTask), ledger.MaxTask)
		}
		it.CurrentTask = breaker.StatusTask(m.currentTask)
	}
	return it, notes, nil
}
