package ledger

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// Version is the record schema version this program writes and reads.
const Version = 1

// Bounds on one record.
const (
	MaxFailing     = 100
	MaxErrors      = 64
	MaxSample      = 1024
	MaxName        = 512
	MaxPhase       = 64
	MaxTask        = 512     // bytes of current_task
	MaxRecordLen   = 1 << 20 // bytes of one record's JSON
	MaxWorkPaths   = 20
	MaxLabelResets = 64
)

// Record is one iteration's evidence; docs/cli.md says what each field
// means. Records are evidence, never authority: git facts are recomputed,
// label resets are checked against the label events.
type Record struct {
	Version           int          `json:"version"`
	RunID             int64        `json:"run_id"`
	RunAttempt        int          `json:"run_attempt"`
	Iteration         int          `json:"iteration,omitempty"` // within the run attempt; absent outside GitHub
	Commit            string       `json:"commit"`
	At                time.Time    `json:"at"`
	Phase             string       `json:"phase"`
	Tests             *Tests       `json:"tests"`
	Errors            []Error      `json:"errors"`
	Output            *Output      `json:"output"`
	PermissionDenials int          `json:"permission_denials"`
	CompletionClaimed bool         `json:"completion_claimed"`
	QuestionsAsked    bool         `json:"questions_asked"`
	ProgressPercent   *float64     `json:"progress_percent"`
	Tasks             *Tasks       `json:"tasks"`
	CurrentTask       string       `json:"current_task,omitempty"`
	LabelResets       []LabelReset `json:"label_resets,omitempty"`
	// Admitted and Blocker are kept so that a later fold, which reads only
	// the newest iteration's log, still sees every earlier admission.
	Admitted bool   `json:"admitted,omitempty"`
	Blocker  *Error `json:"blocker,omitempty"`
	// Cost is kept so that every later fold sums the same money, whichever
	// run reads the ledger.
	Cost *Cost  `json:"cost,omitempty"`
	Seal string `json:"seal,omitempty"` // see Sealer
	// Work and FilesModified are a local loop's: on GitHub git alone says
	// what changed.
	Work          *Work `json:"work,omitempty"`
	FilesModified *int  `json:"files_modified,omitempty"`
}

// Output, Tasks and Cost are written as the breaker holds them; a record's
// cost is rounded to the micro-dollar.
type (
	Output = breaker.Output
	Tasks  = breaker.Tasks
	Cost   = breaker.Cost
)

// Work is a local loop's measure of its working tree since the previous
// record: the meaningful files changed, committed or not, those of them
// the record's commits do not hold, and some of their paths.
type Work struct {
	Files       int      `json:"files"`
	Uncommitted int      `json:"uncommitted,omitempty"`
	Paths       []string `json:"paths,omitempty"`
}

// LabelReset is a removal of the open label that a run applied as a
// reset: when, and by whom.
type LabelReset struct {
	At time.Time `json:"at"`
	By string    `json:"by"`
}

// Tests are a record's test totals.
type Tests struct {
	Passed  int      `json:"passed"`
	Failed  int      `json:"failed"`
	Skipped int      `json:"skipped"`
	Failing []string `json:"failing"`
}

// Error is one error signature.
type Error struct {
	Hash   string `json:"hash"`
	Sample string `json:"sample"`
}

// Validate checks a record against the schema and its bounds.
func (r *Record) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case r.Version == 0:
		bad("no version")
	case r.Version > Version:
		bad("version %d is newer than this loopbreaker reads (%d); upgrade loopbreaker", r.Version, Version)
	case r.Version < 0:
		bad("version %d is not valid", r.Version)
	}
	for _, n := range []struct {
		field string
		v     int64
	}{{"run_id", r.RunID}, {"run_attempt", int64(r.RunAttempt)}, {"iteration", int64(r.Iteration)}, {"permission_denials", int64(r.PermissionDenials)}} {
		if n.v < 0 {
			bad("%s %d is negative", n.field, n.v)
		}
	}
	if r.Commit != "" && !isHex(r.Commit, 40) {
		bad("commit %q is not a full lowercase 40-hex hash", clip(r.Commit))
	}
	if r.At.IsZero() {
		bad("no time (at)")
	}
	if len(r.Phase) > MaxPhase || !utf8.ValidString(r.Phase) {
		bad("phase is longer than %d bytes or not UTF-8", MaxPhase)
	}
	if t := r.Tests; t != nil {
		if t.Passed < 0 || t.Failed < 0 || t.Skipped < 0 {
			bad("tests has a negative count")
		}
		if len(t.Failing) > MaxFailing {
			bad("tests.failing has %d names (at most %d)", len(t.Failing), MaxFailing)
		}
		if slices.ContainsFunc(t.Failing, func(n string) bool { return len(n) > MaxName }) {
			bad("tests.failing has a name longer than %d bytes", MaxName)
		}
	}
	if len(r.Errors) > MaxErrors {
		bad("errors has %d entries (at most %d)", len(r.Errors), MaxErrors)
	}
	for i, e := range r.Errors {
		e.check(fmt.Sprintf("errors[%d]", i), bad)
	}
	if b := r.Blocker; b != nil {
		if !r.Admitted {
			bad("blocker without admitted: a blocker is reported only in an admission")
		}
		b.check("blocker", bad)
	}
	if o := r.Output; o != nil && (o.Lines < 0 || o.Bytes < 0) {
		bad("output has a negative count")
	}
	if p := r.ProgressPercent; p != nil && (math.IsNaN(*p) || *p < 0 || *p > 100) {
		bad("progress_percent %v is out of range 0 to 100", *p)
	}
	if len(r.CurrentTask) > MaxTask || !utf8.ValidString(r.CurrentTask) {
		bad("current_task is longer than %d bytes or not UTF-8", MaxTask)
	}
	if t := r.Tasks; t != nil && (t.Done < 0 || t.Total < 0 || t.Done > t.Total) {
		bad("tasks {done %d, total %d} is not valid", t.Done, t.Total)
	}
	if c := r.Cost; c != nil {
		if v := c.USD; v != nil && !(*v >= 0 && *v <= breaker.MaxUSD) {
			bad("cost.usd %v is out of range 0 to %d", *v, breaker.MaxUSD)
		}
		if n := c.Tokens; n != nil && (*n < 0 || *n > breaker.MaxTokens) {
			bad("cost.tokens %d is out of range 0 to %d", *n, int64(breaker.MaxTokens))
		}
	}
	if w := r.Work; w != nil && (w.Files < 0 || w.Uncommitted < 0 || w.Uncommitted > w.Files || len(w.Paths) > MaxWorkPaths) {
		bad("work {files %d, uncommitted %d, %d paths} is not valid (at most %d paths)", w.Files, w.Uncommitted, len(w.Paths), MaxWorkPaths)
	}
	if f := r.FilesModified; f != nil && *f < 0 {
		bad("files_modified %d is negative", *f)
	}
	if len(r.LabelResets) > MaxLabelResets {
		bad("label_resets has %d entries (at most %d)", len(r.LabelResets), MaxLabelResets)
	}
	if r.Seal != "" && !isHex(r.Seal, 64) {
		bad("seal is not a lowercase 64-hex HMAC-SHA256")
	}
	if i := slices.IndexFunc(r.LabelResets, func(x LabelReset) bool {
		return x.At.IsZero() || x.By == "" || len(x.By) > MaxName || !utf8.ValidString(x.By)
	}); i >= 0 {
		bad("label_resets[%d] needs a time (at) and a login (by) of at most %d bytes of UTF-8", i, MaxName)
	}
	return errors.Join(errs...)
}

// check reports what is wrong with an error signature named field.
func (e *Error) check(field string, bad func(format string, args ...any)) {
	if !isHex(e.Hash, 64) {
		bad("%s.hash is not a lowercase 64-hex SHA-256", field)
	}
	if len(e.Sample) > MaxSample {
		bad("%s.sample is longer than %d bytes", field, MaxSample)
	}
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool { return len(s) == n && strings.Trim(s, "0123456789abcdef") == "" }

// clip cuts s to 60 bytes and the ellipsis, never splitting a rune.
func clip(s string) string { return textcut.Bytes(s, 60+len(textcut.Ellipsis), textcut.Ellipsis) }

// FromIteration makes the record of a measured iteration.
func FromIteration(it *breaker.Iteration, runID int64, attempt int) Record {
	r := Record{Version: Version, RunID: runID, RunAttempt: attempt, Commit: it.Commit, At: it.At.UTC(),
		Phase: it.Phase, PermissionDenials: it.PermissionDenials, CompletionClaimed: it.CompletionClaimed,
		QuestionsAsked: it.QuestionsAsked, Errors: []Error{}}
	r.Phase = fit(r.Phase, MaxPhase)
	if t := it.Tests; t != nil {
		r.Tests = &Tests{Passed: t.Passed, Failed: t.Failed, Skipped: t.Skipped, Failing: []string{}}
		for _, n := range t.Failing[:min(len(t.Failing), MaxFailing)] {
			r.Tests.Failing = append(r.Tests.Failing, fit(n, MaxName))
		}
	}
	for _, e := range it.Errors[:min(len(it.Errors), MaxErrors)] {
		r.Errors = append(r.Errors, errorOf(e))
	}
	if it.Admitted {
		r.Admitted = true
		if b := it.Blocker; b != nil {
			e := errorOf(*b)
			r.Blocker = &e
		}
	}
	r.Output = clone(it.Output)
	r.ProgressPercent = clone(it.ProgressPercent)
	r.Tasks = clone(it.Tasks)
	if c := it.CurrentTask; c != nil && c.FromStatus() {
		r.CurrentTask = fit(c.Text, MaxTask)
	}
	if c := it.Cost; c != nil && (c.USD != nil || c.Tokens != nil) {
		r.Cost = &Cost{Tokens: clone(c.Tokens)}
		if c.USD != nil {
			v := math.Round(*c.USD*1e6) / 1e6
			r.Cost.USD = &v
		}
	}
	return r
}

// fit cuts the agent's text s to the record's bound of n bytes of UTF-8,
// so that the record the run writes is one the next run reads: a field
// over its bound (a failing test named with 600 bytes) makes the reader
// skip the whole record, and with it the iteration that opened the
// breaker.
func fit(s string, n int) string { return textcut.Bytes(strings.ToValidUTF8(s, ""), n, "") }

// clone is a copy of *p (nil for nil).
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// errorOf is the record of a signature, its sample bounded.
func errorOf(e breaker.Signature) Error {
	return Error{Hash: e.Hash, Sample: fit(e.Sample, MaxSample)}
}

// Apply copies the record's non-git evidence into an iteration. Git facts
// (the diff, the tree, task counts at a known commit) are not taken from
// the record: the caller recomputes them.
func (r *Record) Apply(it *breaker.Iteration) {
	it.At = r.At.UTC()
	it.RunID, it.RunAttempt = r.RunID, r.RunAttempt
	if r.Phase != "" {
		it.Phase = r.Phase
	}
	if t := r.Tests; t != nil {
		it.Tests = &breaker.Tests{Passed: t.Passed, Failed: t.Failed, Skipped: t.Skipped, Failing: append([]string(nil), t.Failing...)}
	}
	it.ErrorsKnown = r.Tests != nil || r.Output != nil || len(r.Errors) > 0
	for _, e := range r.Errors {
		it.Errors = append(it.Errors, breaker.Signature{Hash: e.Hash, Sample: e.Sample})
	}
	if r.Output != nil {
		it.Output = clone(r.Output)
	}
	it.PermissionDenials = r.PermissionDenials
	it.CompletionClaimed = it.CompletionClaimed || r.CompletionClaimed
	it.QuestionsAsked = r.QuestionsAsked
	if p := r.ProgressPercent; p != nil {
		it.ProgressPercent = clone(p)
	}
	if it.Tasks == nil {
		it.Tasks = clone(r.Tasks)
	}
	if t := breaker.StatusTask(r.CurrentTask); t != nil {
		it.CurrentTask = t
	}
	if c := r.Cost; c != nil {
		it.Cost = &breaker.Cost{USD: clone(c.USD), Tokens: clone(c.Tokens)}
	}
	// An admission only makes the breaker stricter: the record's adds to
	// what the commit message admitted.
	if r.Admitted {
		it.Admitted = true
		if b := r.Blocker; b != nil && it.Blocker == nil {
			it.Blocker = &breaker.Signature{Hash: b.Hash, Sample: b.Sample}
		}
	}
}

// ApplyLocal adds what only a local loop measures to an iteration whose
// other evidence Apply gave: the agent's claimed file count, and the
// working tree's change. Without a commit that change is the iteration's.
// With one (the shell loop's check), git's change of the committed work
// stays and the uncommitted files are added to it; a working tree that did
// not change at all since the previous record made no change, whatever
// was committed (work committed now was counted when it was written).
func (r *Record) ApplyLocal(it *breaker.Iteration) {
	if f := r.FilesModified; f != nil {
		it.ClaimedFiles = clone(f)
	}
	w := r.Work
	switch {
	case w == nil:
	case it.Change == nil:
		it.Change = &breaker.Change{MeaningfulFiles: w.Files, Files: append([]string(nil), w.Paths...)}
	case w.Files == 0:
		it.Change = &breaker.Change{Tree: it.Change.Tree}
	case w.Uncommitted > 0:
		c := *it.Change
		c.MeaningfulFiles += w.Uncommitted
		c.Files = append(append([]string(nil), c.Files...), w.Paths...)
		it.Change = &c
	}
}

// NextIteration is the iteration number of a new record of run runID,
// attempt attempt, that follows recs: one after the highest of that run
// attempt's records (a record without a number counts as the first), or
// 0 outside GitHub (run 0).
func NextIteration(recs []Record, runID int64, attempt int) int {
	if runID <= 0 {
		return 0
	}
	n := 0
	for i := range recs {
		if recs[i].RunID == runID && recs[i].RunAttempt == attempt {
			n = max(n, recs[i].number())
		}
	}
	return n + 1
}

// number is the record's iteration within its run attempt; a record
// written before records were numbered was its run's only one.
func (r *Record) number() int { return max(r.Iteration, 1) }

// ReplacedBy reports whether the record of run runID, attempt attempt and
// iteration n replaces r: a re-run's record replaces the record of the
// same iteration that an earlier attempt of the run wrote, and no other.
func (r *Record) ReplacedBy(runID int64, attempt, n int) bool {
	return runID > 0 && r.RunID == runID && r.RunAttempt < attempt && r.number() == n
}
