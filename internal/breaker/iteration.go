package breaker

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Iteration is what is known about one turn of the loop. Pointer fields and
// the *Known flags distinguish "not measured" from zero.
type Iteration struct {
	// At is when the iteration ran (the record's time, else the commit's).
	At time.Time
	// CommitAt is the commit's own time; a run for a commit older than the
	// last transition (a re-run of an old job) is not a probe.
	CommitAt time.Time
	// Commit is the full hash of the iteration's commit, if any.
	Commit string
	// RunID and RunAttempt identify a workflow run (0 outside GitHub).
	RunID      int64
	RunAttempt int
	// Phase is the iteration's phase, if any.
	Phase string
	// PhaseByAgent says the phase came from the agent (a trailer or a
	// status block), not a person: it is bounded (phase_iterations).
	PhaseByAgent bool
	// Admitted says the agent admitted making no progress (idle, no-op,
	// still blocked, ...): it only makes the breaker stricter.
	Admitted bool
	// Blocker is the blocker the agent reported, normalised; nil for none.
	Blocker *Signature

	// Change is the diff against the previous iteration; nil when unknown.
	Change *Change
	// Tests is the test report summary; nil when no report was read.
	Tests *Tests
	// ErrorsKnown says that errors were looked for (a log, a report or an
	// explicit error list was given), so an empty Errors means none.
	ErrorsKnown bool
	// Errors are the iteration's error signatures, primary first.
	Errors []Signature
	// Output is the agent output volume; nil when no output was measured.
	Output *Output
	// PermissionDenials counts tool permission denials in the output.
	PermissionDenials int
	// CompletionClaimed is true when the agent said it is done.
	CompletionClaimed bool
	// Claim identifies what the iteration claimed done (its words,
	// normalised); nil for none. Change.Claim is one written into a file.
	Claim *Signature
	// ClaimedFiles is the agent's own count of files modified, if given.
	ClaimedFiles *int
	// QuestionsAsked is true when the iteration only asked questions.
	QuestionsAsked bool
	// ProgressPercent is a reported completion percentage, if any.
	ProgressPercent *float64
	// Tasks are the task-list checkbox counts after the iteration.
	Tasks *Tasks
	// TasksBefore is the checked-task count before the iteration: the
	// first high-water mark when identities are not known.
	TasksBefore *int
	// TaskChange says which tasks the iteration checked and how many it
	// unchecked; nil when their identities are not known.
	TaskChange *TaskChange
	// TasksCheckedBefore are the tasks checked before the loop (with its
	// first iteration): checking them again is not completing them.
	TasksCheckedBefore []string
	// Cost is what the agent reported the iteration cost; nil when it
	// reported nothing.
	Cost *Cost

	// CurrentTask is the task the loop is on after the iteration: the one
	// its status block names, else the first unchecked; nil for none.
	CurrentTask *CurrentTask
}

// StatusTask is the current task a status block names: identified by its
// text (case and spacing aside), kept at most 120 bytes; nil for an empty
// text.
func StatusTask(text string) *CurrentTask {
	display := bound(strings.Join(strings.Fields(strings.ToValidUTF8(text, "\uFFFD")), " "), maxTaskText)
	if display == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(strings.ToLower(display)))
	return &CurrentTask{ID: statusTaskPrefix + hex.EncodeToString(sum[:8]), Text: display}
}

// CurrentTask is the task a loop is on.
type CurrentTask struct {
	// ID identifies the task: its file and normalised text, or the
	// normalised text a status block gave.
	ID string `json:"id"`
	// Text is the task's text as written (bounded), for a reason.
	Text string `json:"text"`
}

// statusTaskPrefix starts the identity of a task a status block named.
const statusTaskPrefix = "status:"

// FromStatus reports whether a status block named the task (StatusTask),
// rather than the task lists.
func (c *CurrentTask) FromStatus() bool { return strings.HasPrefix(c.ID, statusTaskPrefix) }

// TaskChange is what an iteration did to the task lists. A task is
// identified by its file and its normalised text.
type TaskChange struct {
	// Checked are the identities of the tasks the iteration checked:
	// ticked, ticked with their text edited, or added already checked.
	Checked []string
	// Unchecked counts the tasks it unticked.
	Unchecked int
}

// Change summarises the iteration's diff.
type Change struct {
	// MeaningfulFiles counts changed files that are not whitespace-only,
	// ignored, generated or busywork.
	MeaningfulFiles int `json:"meaningful_files"`
	// Files lists changed meaningful paths (bounded, for display).
	Files []string `json:"files,omitempty"`
	// MeaningfulLines is added plus deleted lines in meaningful files.
	MeaningfulLines int `json:"meaningful_lines"`
	// TestLines is the part of MeaningfulLines in test files (not test
	// data).
	TestLines int `json:"test_lines"`
	// TestFiles are the test files changed with their lines, when known
	// (bounded); nil when the change does not say which files they were.
	TestFiles []FileLines `json:"test_files,omitempty"`
	// CodeFiles counts the meaningful files that are neither test files
	// nor test data.
	CodeFiles int `json:"code_files,omitempty"`
	// DocFiles counts changed documentation files.
	DocFiles int `json:"doc_files"`
	// BusyFiles, BusyLines and BusyDocFiles are the busywork (notes and
	// scratch files): counted only with a task completed, or when the
	// policy counts busywork (the DOCUMENT phase).
	BusyFiles    int `json:"busy_files,omitempty"`
	BusyLines    int `json:"busy_lines,omitempty"`
	BusyDocFiles int `json:"busy_doc_files,omitempty"`
	// ChurnFiles and ChurnLines are changes of only digits, hex strings
	// and timestamps outside code and documentation: never progress.
	ChurnFiles int `json:"churn_files,omitempty"`
	ChurnLines int `json:"churn_lines,omitempty"`
	// HexFiles and HexLines are the churn beyond digits: meaningful under
	// a policy without the churn rule.
	HexFiles int `json:"hex_files,omitempty"`
	HexLines int `json:"hex_lines,omitempty"`
	// Text lists the changed files that may be the loop's journal (prose
	// or churn outside tasks, tests and code; bounded); nil when unknown.
	Text []TextFile `json:"text,omitempty"`
	// PlanLines is the net growth of the task lists that grew.
	PlanLines int `json:"plan_lines,omitempty"`
	// Bookkeeping counts the changed files that record or tidy work
	// rather than do it: task lists, notes, whitespace-only reformatting.
	Bookkeeping int `json:"bookkeeping,omitempty"`
	// Retune identifies the files of an iteration that only re-tuned
	// code, a few lines in place in two files or more ("" otherwise).
	Retune string `json:"retune,omitempty"`
	// Written are the errors and review rejections the iteration wrote
	// into its own files, in order.
	Written []Signature `json:"written,omitempty"`
	// Claim is the first claim of done work it wrote into them.
	Claim *Signature `json:"claim,omitempty"`
	// Tree is the tree hash after the iteration ("" when unknown).
	Tree string `json:"tree,omitempty"`
	// Reverted is true when the commit says it reverts earlier changes.
	Reverted bool `json:"reverted,omitempty"`
	// ProtectedDeleted and ProtectedModified list protected paths touched.
	ProtectedDeleted  []string `json:"protected_deleted,omitempty"`
	ProtectedModified []string `json:"protected_modified,omitempty"`
}

// TextFile is a changed file that may be the loop's journal.
type TextFile struct {
	Path string `json:"path"`
	// Lines are its added plus deleted lines.
	Lines int `json:"lines"`
	// New says the file was added (a note in a folder of notes).
	New bool `json:"new,omitempty"`
	// Doc says it is a documentation file.
	Doc bool `json:"doc,omitempty"`
	// Counted says it is counted in MeaningfulFiles (neither notes nor
	// churn).
	Counted bool `json:"counted,omitempty"`
}

// FileLines is a changed file and its added plus deleted lines.
type FileLines struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
	// Grew says the file existed before and only gained lines.
	Grew bool `json:"grew,omitempty"`
	// New says the file was added.
	New bool `json:"new,omitempty"`
}

// Tests summarises test reports.
type Tests struct {
	Passed      int      `json:"passed"`
	Failed      int      `json:"failed"`
	Skipped     int      `json:"skipped"`
	BuildFailed bool     `json:"build_failed,omitempty"`
	Failing     []string `json:"failing,omitempty"`
}

// Total is passed + failed + skipped.
func (t *Tests) Total() int { return t.Passed + t.Failed + t.Skipped }

// Output is the agent's output volume.
type Output struct {
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
}

// Tasks are checkbox counts.
type Tasks struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Signature is a normalised error: hash of the normalised text and a sample.
type Signature struct {
	Hash   string `json:"hash"`
	Sample string `json:"sample"`
	// Test names the failing test the error came from, if any (for
	// progress.ignore_tests).
	Test string `json:"test,omitempty"`
}
