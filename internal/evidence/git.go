package evidence

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Trailer keys read from commit messages. A trailer may set a phase or
// report a percentage; it can never reset or loosen the breaker.
const (
	TrailerPhase    = "Loop-Phase"
	TrailerProgress = "Loop-Progress"
)

// GitOptions compiles the policy's path lists for the git reader. extra
// protected paths (such as the policy file's own path) are added.
func GitOptions(p *policy.Policy, base string, extraProtected ...string) (gitlog.Options, error) {
	o := gitlog.Options{Base: base, Shapes: true, Written: agentlog.IsWritten}
	sets := []struct {
		key  string
		list []string
		dst  **pathmatch.Set
	}{
		{"progress.ignore_paths", p.Progress.IgnorePaths, &o.IgnorePaths},
		{"progress.test_paths", p.Progress.TestPaths, &o.TestPaths},
		{"progress.test_data_paths", p.Progress.TestDataPaths, &o.TestDataPaths},
		{"progress.notes_paths", p.Progress.NotesPaths, &o.NotesPaths},
		{"progress.doc_paths", p.Progress.DocPaths, &o.DocPaths},
		{"progress.task_files", p.Progress.TaskFiles, &o.TaskFiles},
		{"rules.protected_path.protected_paths", append(append([]string{}, p.Rules.ProtectedPath.ProtectedPaths...), extraProtected...), &o.ProtectedPaths},
	}
	for _, s := range sets {
		set, err := pathmatch.Compile(s.list)
		if err != nil {
			return o, fmt.Errorf("policy %s: %s: %w", p.Name, s.key, err)
		}
		*s.dst = set
	}
	return o, nil
}

var completionRE = lazyre.New(`(?i)\b(all tasks (are )?(done|complete|completed)|task (is )?complete|implementation (is )?complete|project (is )?complete|everything (is )?done)\b`)

// FromCommit turns one commit into an iteration. before is the checked-task
// count before the commit (nil when unknown); tasks matches the task files.
func FromCommit(c *gitlog.Commit, before *int, tasks *pathmatch.Set) breaker.Iteration {
	it := breaker.Iteration{At: c.At.UTC(), CommitAt: c.At.UTC(), Commit: c.Hash}
	it.Change = change(&c.Change, c.Tree, c.Revert, tasks)
	if v := c.Trailers[TrailerPhase]; len(v) > 0 {
		it.Phase = strings.ToUpper(strings.TrimSpace(v[len(v)-1]))
		it.PhaseByAgent = it.Phase != ""
	}
	if ok, blocker := agentlog.Admits(c.Message); ok {
		it.Admitted = true
		if blocker != "" {
			it.Blocker = signatureOf(blocker)
		}
	}
	if v := c.Trailers[TrailerProgress]; len(v) > 0 {
		if p, ok := parsePercent(v[len(v)-1]); ok {
			it.ProgressPercent = &p
		}
	}
	if completionRE().MatchString(c.Subject) {
		it.CompletionClaimed = true
	}
	if k, _ := agentlog.Written(c.Subject); it.CompletionClaimed || k == agentlog.WrittenClaim {
		// The claim's words identify it: the same claim made again with
		// no new work is the loop going round.
		it.Claim = signatureOf(c.Subject)
	}
	if c.Tasks != nil {
		it.Tasks = &breaker.Tasks{Done: c.Tasks.Done, Total: c.Tasks.Total}
	}
	it.TaskChange = taskChange(c.TaskChange)
	it.TasksBefore = before
	it.CurrentTask = currentTask(c.CurrentTask)
	return it
}

// taskChange converts what a commit did to the tasks.
func taskChange(tc *gitlog.TaskChange) *breaker.TaskChange {
	if tc == nil {
		return nil
	}
	return &breaker.TaskChange{Checked: tc.Checked, Unchecked: tc.Unchecked}
}

// currentTask converts the first unchecked task.
func currentTask(c *gitlog.CurrentTask) *breaker.CurrentTask {
	if c == nil {
		return nil
	}
	return &breaker.CurrentTask{ID: c.ID, Text: c.Text}
}

// maxTestFiles bounds the test files an iteration lists for the test_only
// rule.
const maxTestFiles = 64

// change converts a git diff summary. Task files are no meaningful change
// (ticks count through the tasks signal) nor a protected modification;
// busywork and churn are counted apart for the breaker to weigh.
func change(c *gitlog.Change, tree string, revert bool, tasks *pathmatch.Set) *breaker.Change {
	out := &breaker.Change{
		Tree:             tree,
		Reverted:         revert,
		ProtectedDeleted: c.ProtectedDeleted,
		TestFiles:        []breaker.FileLines{}, // listed: none is not unknown
	}
	for _, p := range c.ProtectedModified {
		if !tasks.Match(p) {
			out.ProtectedModified = append(out.ProtectedModified, p)
		}
	}
	var tuned []string
	retune := true
	for _, f := range c.Files {
		if f.Status != gitlog.StatusDeleted && !f.Ignored && (f.WhitespaceOnly || (f.Notes && f.Meaningful) || tasks.Match(f.Path)) {
			// Ticking or adding tasks, a note, a reformatting pass: what
			// records or tidies work rather than doing it.
			out.Bookkeeping++
		}
		if tasks.Match(f.Path) && f.Meaningful && f.Deleted*4 <= f.Added {
			// A plan that grows by new lines is read beside its boxes:
			// findings written into it can be work (see breaker.Change).
			out.PlanLines += f.Added - f.Deleted
		}
		readWritten(out, f.Written)
		if !f.Meaningful || tasks.Match(f.Path) {
			continue
		}
		lines := f.Added + f.Deleted
		// Source code is never the loop's journal, whatever its lines hold.
		text := (f.Prose || f.Churn) && !f.Test && !f.TestData && !f.Binary && !f.Submodule && !gitlog.IsSource(f.Path)
		switch {
		case f.Churn && (f.Notes || !(gitlog.IsSource(f.Path) || f.Doc)):
			// A refreshed date, fingerprint or counter in notes, logs,
			// boards or status files; in code or documentation digits are
			// a real change (an off-by-one fix, a corrected figure).
			out.ChurnFiles++
			out.ChurnLines += lines
			if !f.DigitsOnly {
				out.HexFiles++
				out.HexLines += lines
			}
			out.Text = appendText(out.Text, f, lines, false)
			continue
		case f.Notes:
			out.BusyFiles++
			out.BusyLines += lines
			if f.Doc {
				out.BusyDocFiles++
			}
			continue
		}
		out.MeaningfulFiles++
		out.MeaningfulLines += lines
		if retune = retune && tweak(f); retune {
			tuned = append(tuned, f.Path)
		}
		if text {
			out.Text = appendText(out.Text, f, lines, true)
		}
		switch {
		case f.Test:
			out.TestLines += lines
			if len(out.TestFiles) < maxTestFiles {
				grew := f.Status == gitlog.StatusModified && f.Added > 0 && f.Deleted == 0
				out.TestFiles = append(out.TestFiles, breaker.FileLines{Path: f.Path, Lines: lines, Grew: grew, New: f.Status == gitlog.StatusAdded})
			}
		case !f.TestData:
			out.CodeFiles++
		}
		if f.Doc {
			out.DocFiles++
		}
		if len(out.Files) < 50 {
			out.Files = append(out.Files, f.Path)
		}
	}
	if retune && len(tuned) >= 2 {
		slices.Sort(tuned)
		out.Retune = breaker.PathsKey(tuned)
	}
	return out
}

// readWritten reads the errors, review findings (one error, whatever
// each says) and first claim the loop added to its files.
func readWritten(out *breaker.Change, lines []string) {
	for _, line := range lines {
		switch k, text := agentlog.Written(line); k {
		case agentlog.WrittenError:
			out.Written = append(out.Written, *signatureOf(text))
		case agentlog.WrittenReview:
			s := signatureOf(reviewRejected)
			s.Sample = signature.Of(reviewRejected + ": " + text).Sample
			out.Written = append(out.Written, *s)
		case agentlog.WrittenClaim:
			if out.Claim == nil {
				out.Claim = signatureOf(text)
			}
		}
	}
}

// reviewRejected is the one error a series of review findings counts as.
const reviewRejected = "review rejected the change"

// maxTweakLines bounds the lines a re-tuned file gains and loses.
const maxTweakLines = 6

// tweak reports a file modified in place by a few lines added and a few
// removed: a value re-tuned, not code written.
func tweak(f gitlog.FileChange) bool {
	return f.Status == gitlog.StatusModified && !f.Binary &&
		f.Added >= 1 && f.Added <= maxTweakLines && f.Deleted >= 1 && f.Deleted <= maxTweakLines
}

// maxTextFiles bounds the journal candidates an iteration lists.
const maxTextFiles = 64

// appendText lists a journal candidate.
func appendText(list []breaker.TextFile, f gitlog.FileChange, lines int, counted bool) []breaker.TextFile {
	if len(list) >= maxTextFiles {
		return list
	}
	return append(list, breaker.TextFile{Path: f.Path, Lines: lines, New: f.Status == gitlog.StatusAdded, Doc: f.Doc, Counted: counted})
}

func parsePercent(s string) (float64, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 100 || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// FromHistory turns a first-parent history into iterations, oldest first.
func FromHistory(h *gitlog.History, tasks *pathmatch.Set) []breaker.Iteration {
	var before *int
	if h.BaseTasks != nil {
		v := h.BaseTasks.Done
		before = &v
	}
	out := make([]breaker.Iteration, 0, len(h.Commits))
	for i := range h.Commits {
		c := &h.Commits[i]
		it := FromCommit(c, before, tasks)
		if i == 0 {
			it.TasksCheckedBefore = h.BaseChecked
		}
		out = append(out, it)
		if c.Tasks != nil {
			v := c.Tasks.Done
			before = &v
		}
	}
	return out
}
