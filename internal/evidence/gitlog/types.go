package gitlog

import (
	"time"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

// Options says which commits make up the loop and how to classify paths.
// A nil path set matches nothing.
type Options struct {
	// Base is a revision; "" means the merge base of HEAD with the default
	// branch (origin/HEAD, else main, else master, else origin/main, else
	// origin/master), and the root when there is none.
	Base string
	// IgnorePaths: changes only here are not meaningful (lock files,
	// vendor/, .loopbreaker/, ...).
	IgnorePaths *pathmatch.Set
	// TestPaths matches test files.
	TestPaths *pathmatch.Set
	// DocPaths matches documentation files.
	DocPaths *pathmatch.Set
	// NotesPaths matches notes and scratch files (TODO lists, notes,
	// progress and status logs).
	NotesPaths *pathmatch.Set
	// TestDataPaths matches test data (fixtures, snapshots, testdata): a
	// path matched here is not a test file.
	TestDataPaths *pathmatch.Set
	// ProtectedPaths matches paths the agent must not delete or modify.
	ProtectedPaths *pathmatch.Set
	// TaskFiles matches markdown task lists: their "- [ ]" and "- [x]"
	// checkboxes are counted at each commit.
	TaskFiles *pathmatch.Set
	// MaxFileBytes: files larger than this are diffed by size only
	// (<= 0 means DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxCommits bounds the walk: only the newest MaxCommits commits of a
	// longer chain are iterations (<= 0 means DefaultMaxCommits).
	MaxCommits int
	// Shapes fills FileChange.Churn and FileChange.Prose: the shape of
	// each text change, which the loop's journal is learned from.
	Shapes bool
	// Written, when set, selects among the lines a change added to a text
	// file that is not source code or a test (a log, memory, state, notes
	// or journal file) those kept in FileChange.Written.
	Written func(line string) bool
	// ChainOnly makes History walk the chain and describe its commits but
	// leave their Change, Tasks and CurrentTask (and BaseTasks) empty: for callers that
	// take their iterations from ledger records and diff those with Diff.
	ChainOnly bool
}

// DefaultMaxFileBytes is the size above which a file is compared by size
// only (Options.MaxFileBytes).
const DefaultMaxFileBytes = 8 << 20

// DefaultMaxCommits bounds the first-parent walk (Options.MaxCommits).
const DefaultMaxCommits = 10000

// withDefaults fills the zero limits.
func (o Options) withDefaults() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxCommits <= 0 {
		o.MaxCommits = DefaultMaxCommits
	}
	return o
}

// File change statuses.
const (
	StatusAdded    = "added"
	StatusModified = "modified"
	StatusDeleted  = "deleted"
	StatusRenamed  = "renamed"
)

// FileChange is one changed path.
type FileChange struct {
	// Path is the path after the change (before it, for a deletion);
	// OldPath is set for renames.
	Path, OldPath string
	// Status is "added", "modified", "deleted" or "renamed".
	Status string
	// Added and Deleted are line counts; 0 for binary and large files.
	Added, Deleted int
	// Binary is true when either side has a NUL byte in its first 8000
	// bytes.
	Binary bool
	// Large is true when either side is larger than Options.MaxFileBytes:
	// the file was compared by size only (OldSize, NewSize).
	Large bool
	// OldSize and NewSize are the blob sizes in bytes (0 for a missing side).
	OldSize, NewSize int64
	// WhitespaceOnly is true for a modification that only changes
	// whitespace (both sides equal with all whitespace removed).
	WhitespaceOnly bool
	// DigitsOnly is true for a modification of a text file that only
	// changes digits (both sides equal with all ASCII digits removed): a
	// rewritten timestamp or counter.
	DigitsOnly bool
	// Churn is true for a modification of a text file that only changes
	// digits, hex strings of 7 or more characters and timestamps (a
	// refreshed date, fingerprint or counter); DigitsOnly implies it.
	Churn bool
	// Prose is true when the edited lines of a text file read as prose
	// (words, few code marks) rather than code; never for a file named as
	// source code.
	Prose bool
	// Submodule is true when either side is a submodule commit (a
	// gitlink): the change is the pointer, with no line counts.
	Submodule bool
	// Unreadable is true when a side's object is not in the repository (a
	// partial clone, a copy without large files) or the path lies deeper
	// than the diff descends: the change is counted, its content unknown.
	Unreadable bool
	// Generated is true when the file (the new side; the old side of a
	// deletion) has a "Code generated ... DO NOT EDIT." header.
	Generated bool
	// Ignored: the path (and, for a rename, the old path too) matches
	// Options.IgnorePaths.
	Ignored bool
	// Test and Doc: the path matches Options.TestPaths (and not
	// Options.TestDataPaths) / Options.DocPaths.
	Test, Doc bool
	// TestData: the path matches Options.TestDataPaths.
	TestData bool
	// Notes: the path matches Options.NotesPaths.
	Notes bool
	// Protected: the path or the old path matches Options.ProtectedPaths.
	Protected bool
	// Meaningful is true when the change is not ignored, not
	// whitespace-only and not generated.
	Meaningful bool
	// Written are the lines the change added that Options.Written selected
	// (at most 8, of at most 4 KiB each), in file order.
	Written []string
}

// Change summarises the diff of one iteration.
type Change struct {
	// Files are the changed paths, sorted by path.
	Files []FileChange
	// MeaningfulFiles counts the meaningful changes.
	MeaningfulFiles int
	// MeaningfulLines is added+deleted lines in meaningful files.
	MeaningfulLines int
	// TestLines is the part of MeaningfulLines in test files.
	TestLines int
	// DocFiles counts meaningful changes to documentation files.
	DocFiles int
	// ProtectedDeleted lists protected paths that no longer exist (deleted,
	// or renamed away).
	ProtectedDeleted []string
	// ProtectedModified lists protected paths added, modified or renamed
	// into.
	ProtectedModified []string
	// Unreadable names the objects that could not be read ("path: blob
	// HASH is not in the repository"); their files count as changed.
	Unreadable []string
}

// Tasks are task-list checkbox counts.
type Tasks struct{ Done, Total int }

// TaskChange is what one iteration did to the task lists. A task is
// identified by its file and its normalised text (TaskID); see
// compareTasks for how tasks are followed through edits.
type TaskChange struct {
	// Checked are the identities of the tasks the iteration checked:
	// ticked, ticked with their text edited, or added already checked.
	Checked []string
	// Unchecked counts the tasks it unticked.
	Unchecked int
}

// CurrentTask is the task a loop is on: the first unchecked task of the
// task files in plan order (the files by path, then line by line).
type CurrentTask struct {
	// ID is the task's identity (its file and normalised text, as TaskChange
	// identifies tasks).
	ID string
	// Text is the task's text, spaces collapsed, at most 120 bytes.
	Text string
}

// Range is what a range of history changed (Diff's answer).
type Range struct {
	// Change is the diff between the range's two trees.
	Change Change
	// Tasks are the task counts at the range's end; nil when there is no
	// task file.
	Tasks *Tasks
	// TaskChange is what happened to the tasks between the two ends.
	TaskChange TaskChange
	// CurrentTask is the first unchecked task at the range's end; nil
	// when there is none.
	CurrentTask *CurrentTask
	// Notes say what could not be read.
	Notes []string
}

// Commit is one iteration's commit and its evidence.
type Commit struct {
	// Hash and Tree are full 40-hex hashes.
	Hash, Tree string
	// Parents are the parent hashes, first parent first.
	Parents []string
	// Author and Email are the author's.
	Author, Email string
	// At is the committer time; AuthorAt the author time.
	At       time.Time
	AuthorAt time.Time
	// Message is the full message (at most 64 KiB of it); Subject its first
	// paragraph on one line.
	Message, Subject string
	// Trailers are the git trailers of the message's last paragraph, keys
	// canonical ("Loop-Phase"), values in order.
	Trailers map[string][]string
	// Change is the diff against the first parent (a root commit: against
	// the empty tree).
	Change Change
	// Tasks are the checkbox counts summed over the task files at this
	// commit; nil when no task file exists.
	Tasks *Tasks
	// TaskChange is what the commit did to the task lists; nil when there
	// was no task file before or after it, and outside History.
	TaskChange *TaskChange
	// CurrentTask is the first unchecked task at this commit; nil when
	// there is none, and outside History.
	CurrentTask *CurrentTask
	// Revert is true when the message says "This reverts commit" or the
	// subject starts with `Revert "`.
	Revert bool
	// Reverts is the hash named by "This reverts commit <hash>", if any.
	Reverts string
	// Shallow is true for a commit at a shallow clone's boundary (only
	// from CommitInfo): its parent is not in the clone, so Change is empty
	// and unknown.
	Shallow bool
}

// History is the loop's iterations as found in git.
type History struct {
	// Base is the resolved base hash, "" for the root (or when the base lies
	// beyond a shallow clone's boundary).
	Base string
	// BaseRef names the default branch the base was computed from ("" when
	// Options.Base was given or there was none).
	BaseRef string
	// Head is HEAD's hash ("" in an empty repository).
	Head string
	// Commits is the first-parent chain base (exclusive) .. HEAD, oldest
	// first.
	Commits []Commit
	// BaseTree is the base commit's tree hash ("" for the root, or when the
	// base is unknown).
	BaseTree string
	// BaseTasks are the task counts before the first iteration (at its
	// parent); nil when no task file existed there.
	BaseTasks *Tasks
	// BaseChecked are the identities of the tasks checked before the first
	// iteration.
	BaseChecked []string
	// Shallow is true when the repository is shallow and the walk reached
	// the shallow boundary before the base.
	Shallow bool
	// Truncated is true when the chain was longer than Options.MaxCommits.
	Truncated bool
	// Notes explain what was not visible or how the base was chosen, e.g.
	// "shallow clone: 12 of an unknown number of iterations visible".
	Notes []string
}
