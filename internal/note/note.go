package note

import (
	"fmt"
	"slices"
)

// Code is a note's stable, machine-readable name: lowercase snake_case,
// never changing meaning (a new kind of note gets a new code).
// docs/cli.md says what each one means.
type Code string

// The codes of every note loopbreaker writes.
const (
	EmptyRepository         Code = "empty_repository"          // HEAD has no commit yet
	NoBase                  Code = "no_base"                   // no --base and HEAD is on the default branch
	NoDefaultBranch         Code = "no_default_branch"         // counting from the root
	UnrelatedHistory        Code = "unrelated_history"         // HEAD shares no history with the default branch
	BaseOffChain            Code = "base_off_chain"            // the base is not on HEAD's first-parent chain
	ShallowClone            Code = "shallow_clone"             // part of the loop may be missing
	HistoryTruncated        Code = "history_truncated"         // only the newest commits are iterations
	GitHistory              Code = "git_history"               // any other fact about reading the history
	NoIterations            Code = "no_iterations"             // HEAD has no commits after the base
	EvidenceUnused          Code = "evidence_unused"           // reports or a log but no iteration
	DatesClamped            Code = "dates_clamped"             // a commit date out of order was clamped
	LedgerMissing           Code = "ledger_missing"            // the --ledger directory does not exist
	LedgerEmpty             Code = "ledger_empty"              // the --ledger directory holds no record
	Unreadable              Code = "unreadable"                // a git object or directory could not be read
	LedgerEntrySkipped      Code = "ledger_entry_skipped"      // a corrupt, foreign or oversized record
	LedgerCommitMissing     Code = "ledger_commit_missing"     // a record's commit is not in the repository
	RecordsDropped          Code = "records_dropped"           // the oldest records of a record file were dropped
	TestReport              Code = "test_report"               // the test report reader skipped or cut something
	AgentLog                Code = "agent_log"                 // the agent log reader skipped or cut something
	PolicyUncommitted       Code = "policy_uncommitted"        // the --policy file differs from HEAD's
	PolicyOutsideRepository Code = "policy_outside_repository" // the --policy file links outside the repository
	PolicyChanged           Code = "policy_changed"            // the state file was created with another policy
	ClockBehind             Code = "clock_behind"              // the clock is behind the state file's newest event
	ResetTimeAdjusted       Code = "reset_time_adjusted"       // a reset's --at was before the newest event
	GitHub                  Code = "github"                    // a fact from the GitHub side of a run
	PhaseNotSkipped         Code = "phase_not_skipped"         // skip-phase found no next phase
	LoopStarted             Code = "loop_started"              // a check with no flags started the loop here
	NoLocalState            Code = "no_local_state"            // no local state directory: the commits are folded
	ReportMissing           Code = "report_missing"            // a --reports glob matched no file
	Cost                    Code = "cost"                      // a reported cost was missing, malformed or not read
	RecordUnsealed          Code = "record_unsealed"           // a record's seal was missing or wrong: ignored
	RecordStale             Code = "record_stale"              // a sealed digest or record artifact was stale
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
