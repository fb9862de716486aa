package note

import (
	"fmt"
	"slices"
)

// Code is a note's stable, machine-readable name. Codes are lowercase
// snake_case and never change meaning; a new kind of note gets a new code.
type Code string

// The codes of every note loopbreaker writes.
const (
	// EmptyRepository: HEAD has no commit yet; there are 0 iterations.
	EmptyRepository Code = "empty_repository"
	// NoBase: no --base was given and HEAD is on the default branch, so the
	// merge base is HEAD and there are 0 iterations. The command line
	// refuses this (exit 2) and asks for a base.
	NoBase Code = "no_base"
	// NoDefaultBranch: no default branch was found; counting from the root.
	NoDefaultBranch Code = "no_default_branch"
	// UnrelatedHistory: HEAD shares no history with the default branch;
	// counting from the root.
	UnrelatedHistory Code = "unrelated_history"
	// BaseOffChain: the base is not on HEAD's first-parent chain.
	BaseOffChain Code = "base_off_chain"
	// ShallowClone: the clone is shallow and part of the loop may be
	// missing; fetch the full history.
	ShallowClone Code = "shallow_clone"
	// HistoryTruncated: the history is longer than the most commits read;
	// only the newest are iterations.
	HistoryTruncated Code = "history_truncated"
	// GitHistory: any other fact about how the git history was read.
	GitHistory Code = "git_history"
	// NoIterations: HEAD has no commits after the base.
	NoIterations Code = "no_iterations"
	// EvidenceUnused: reports or a log were read but there was no iteration
	// to apply them to.
	EvidenceUnused Code = "evidence_unused"
	// DatesClamped: a commit date before the previous iteration or after
	// the run was taken at that time instead.
	DatesClamped Code = "dates_clamped"
	// LedgerMissing: the --ledger directory does not exist; the iterations
	// are the commits.
	LedgerMissing Code = "ledger_missing"
	// LedgerEmpty: the --ledger directory holds no record; the iterations
	// are the commits.
	LedgerEmpty Code = "ledger_empty"
	// Unreadable: a git object is not in the repository (a partial clone, a
	// copy without large files) or a directory is nested too deep: its
	// file counts as changed, or its task list is left out.
	Unreadable Code = "unreadable"
	// LedgerEntrySkipped: a ledger record or file was corrupt, foreign or
	// over a limit and was skipped.
	LedgerEntrySkipped Code = "ledger_entry_skipped"
	// LedgerCommitMissing: a record's commit is not in the repository
	// (force-pushed or not fetched); it counts as an iteration without
	// change.
	LedgerCommitMissing Code = "ledger_commit_missing"
	// RecordsDropped: a record file holds more records than a ledger
	// keeps; the oldest were dropped from it.
	RecordsDropped Code = "records_dropped"
	// TestReport: the test report reader skipped or cut something.
	TestReport Code = "test_report"
	// AgentLog: the agent log reader skipped or cut something.
	AgentLog Code = "agent_log"
	// PolicyUncommitted: the --policy file differs from its version at
	// HEAD; which one was used is said in the text.
	PolicyUncommitted Code = "policy_uncommitted"
	// PolicyOutsideRepository: the --policy file is a link to a file
	// outside the repository, not under version control.
	PolicyOutsideRepository Code = "policy_outside_repository"
	// PolicyChanged: the state file was created with another policy.
	PolicyChanged Code = "policy_changed"
	// ClockBehind: this machine's clock is behind the state file's newest
	// event; the call was taken at that event's time.
	ClockBehind Code = "clock_behind"
	// ResetTimeAdjusted: a reset's --at was before the state file's newest
	// event and was taken at that event's time.
	ResetTimeAdjusted Code = "reset_time_adjusted"
	// GitHub: a fact from the GitHub side of a run (the Action or the
	// audit): where earlier records came from, an artifact that expired, a
	// person's control that was not trusted.
	GitHub Code = "github"
	// PhaseNotSkipped: a person's skip-phase found no next phase in the
	// policy's phase_order (the loop has no phase, one outside the order,
	// or the last); the breaker was reset, the phase kept.
	PhaseNotSkipped Code = "phase_not_skipped"
	// LoopStarted: a check with no flags kept the loop's start (HEAD) and
	// its ledger in the local state directory; each check is an iteration.
	LoopStarted Code = "loop_started"
	// NoLocalState: there is no local state directory (no HOME), so a check
	// with no flags folds the commits.
	NoLocalState Code = "no_local_state"
	// ReportMissing: a --reports glob matched no file: the iteration is
	// taken as a build that produced no report.
	ReportMissing Code = "report_missing"
	// Cost: a cost the agent log reports was missing, malformed or not
	// read; it counts as no cost, never as an invented one.
	Cost Code = "cost"
	// RecordUnsealed: with a digest key, a record (in an artifact or the
	// job's record file) carried no seal or one that does not verify; it
	// was ignored.
	RecordUnsealed Code = "record_unsealed"
	// RecordStale: with a digest key, a sealed digest or record artifact
	// older than a newer one it would stand for (an artifact whose newest
	// record is not its own run's, a digest behind the loop's newest
	// record artifact, or one whose freshness could not be checked) was
	// ignored, or used only where it cannot loosen the decision.
	RecordStale Code = "record_stale"
)

// Codes lists every code, in the order above.
func Codes() []Code {
	return []Code{EmptyRepository, NoBase, NoDefaultBranch, UnrelatedHistory, BaseOffChain, ShallowClone,
		HistoryTruncated, GitHistory, NoIterations, EvidenceUnused, DatesClamped, LedgerMissing, LedgerEmpty,
		Unreadable, LedgerEntrySkipped, LedgerCommitMissing, RecordsDropped, TestReport, AgentLog, PolicyUncommitted,
		PolicyOutsideRepository, PolicyChanged, ClockBehind, ResetTimeAdjusted, GitHub, PhaseNotSkipped,
		LoopStarted, NoLocalState, ReportMissing, Cost, RecordUnsealed, RecordStale}
}

// Known reports whether c is one of the codes above.
func (c Code) Known() bool { return slices.Contains(Codes(), c) }

// String is the code itself.
func (c Code) String() string { return string(c) }

// Note is one note: its code and its text for people. The text may quote
// agent-controlled names (files, revisions) and is escaped by whoever
// renders it.
type Note struct {
	Code Code   `json:"code"`
	Text string `json:"text"`
}

// New makes a note from a format and its arguments.
func New(code Code, format string, args ...any) Note {
	return Note{Code: code, Text: fmt.Sprintf(format, args...)}
}

// Of gives each text the same code.
func Of(code Code, texts []string) []Note {
	if len(texts) == 0 {
		return nil
	}
	out := make([]Note, len(texts))
	for i, t := range texts {
		out[i] = Note{Code: code, Text: t}
	}
	return out
}

// Texts returns the notes' texts, in order.
func Texts(ns []Note) []string {
	if len(ns) == 0 {
		return nil
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Text
	}
	return out
}

// Find returns the first note with the code.
func Find(ns []Note, c Code) (Note, bool) {
	i := slices.IndexFunc(ns, func(n Note) bool { return n.Code == c })
	if i < 0 {
		return Note{}, false
	}
	return ns[i], true
}
