package breaker

import (
	"slices"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/policy"
)

// measured is what one iteration shows against the state before it.
type measured struct {
	progress bool
	signals  []string // the progress signals that held
	vetoed   bool     // a reported percentage rose too little
	score    int
	files    int // meaningful files, 0 when the tree returned to an earlier one
	fixed    int
	tasksNew int
	resolved int
	same     bool // primary error equals the previous iteration's
	revert   bool
	returned bool // tree returned to one seen earlier since the reset
	errs     []Signature
	primary  *Signature
}

// measure scores the iteration and decides whether it made progress. It
// reads the snapshot but does not change it.
func measure(pol *policy.Policy, s *Snapshot, it *Iteration) measured {
	var m measured
	prev := s.Prev
	if prev == nil {
		prev = &Prev{}
	}
	m.errs = filterIgnored(it.Errors, pol.Progress.IgnoreTests)
	if len(m.errs) > 0 {
		m.primary = &m.errs[0]
	}
	m.measureChange(s, prev, it)
	tests := m.measureTests(prev, it)
	m.tasksNew = newTasks(s, it)
	m.measureErrors(prev, it)
	percentUp := m.measurePercent(pol, prev, it)
	m.judge(pol, it, tests, percentUp)
	m.score = score(pol.Rules.Score.Weights, &m)
	return m
}

// measureChange finds what the iteration changed: meaningful files, and
// whether it returned to an earlier tree or reverted.
func (m *measured) measureChange(s *Snapshot, prev *Prev, it *Iteration) {
	c := it.Change
	if c == nil {
		return
	}
	// Only a meaningful change can return to an earlier tree: a commit
	// that changed nothing meaningful (such as unticking and re-ticking a
	// task) is "no change", not an alternation of approaches.
	if c.Tree != "" && c.Tree != prev.Tree && c.MeaningfulFiles > 0 {
		m.returned = slices.Contains(s.Trees, c.Tree)
	}
	m.revert = c.Reverted || m.returned
	if !m.returned {
		m.files = c.MeaningfulFiles
	}
}

// testFacts are what the test reports say against the previous ones.
type testFacts struct {
	up          bool // more pass, or fewer fail with the same total
	added       bool // more tests exist, or test-file lines were added
	newFailures bool // more fail, or the build broke
}

// measureTests compares the iteration's test report with the previous one
// and counts the tests fixed. It needs the change measured.
func (m *measured) measureTests(prev *Prev, it *Iteration) testFacts {
	var f testFacts
	cur, old := it.Tests, prev.Tests
	if cur != nil && old != nil {
		dFail := old.Failed - cur.Failed
		dPass := cur.Passed - old.Passed
		m.fixed = max(0, min(dFail, dPass))
		f.up = cur.Passed > old.Passed || (cur.Failed < old.Failed && cur.Total() == old.Total())
		f.added = cur.Total() > old.Total()
		f.newFailures = cur.Failed > old.Failed || (cur.BuildFailed && !old.BuildFailed)
	} else if cur != nil {
		f.newFailures = cur.BuildFailed
	}
	// Without an earlier report to count against, added test-file lines
	// are the evidence that tests were written.
	if old == nil && it.Change != nil && it.Change.TestLines > 0 && m.files > 0 {
		f.added = true
	}
	return f
}

// newTasks counts the tasks checked above the high-water mark.
func newTasks(s *Snapshot, it *Iteration) int {
	if it.Tasks == nil {
		return 0
	}
	high := it.Tasks.Done
	if s.TaskHigh != nil {
		high = *s.TaskHigh
	} else if it.TasksBefore != nil {
		high = *it.TasksBefore
	}
	return max(0, it.Tasks.Done-high)
}

// measureErrors counts the previous iteration's error signatures that are
// gone and whether the primary error repeats.
func (m *measured) measureErrors(prev *Prev, it *Iteration) {
	if it.ErrorsKnown && prev.ErrorsKnown {
		now := map[string]bool{}
		for _, e := range m.errs {
			now[e.Hash] = true
		}
		for _, h := range prev.Errors {
			if !now[h] {
				m.resolved++
			}
		}
	}
	m.same = m.primary != nil && prev.Primary != "" && m.primary.Hash == prev.Primary
}

// measurePercent reports whether a reported percentage rose enough; a rise
// too small vetoes progress when the policy counts percentages.
func (m *measured) measurePercent(pol *policy.Policy, prev *Prev, it *Iteration) bool {
	p := it.ProgressPercent
	if p == nil {
		return false
	}
	base := 0.0
	if prev.Percent != nil {
		base = *prev.Percent
	}
	up := *p-base >= pol.Progress.StagnationPercent
	m.vetoed = !up && pol.HasSignal(policy.SignalPercent)
	return up
}

// judge lists the progress signals that held and decides progress.
func (m *measured) judge(pol *policy.Policy, it *Iteration, tests testFacts, percentUp bool) {
	for _, sig := range pol.Progress.Signals {
		if m.holds(sig, it, tests, percentUp) {
			m.signals = append(m.signals, sig.String())
		}
	}
	m.progress = len(m.signals) > 0 && !m.vetoed
	if m.vetoed {
		m.signals = nil
	}
}

// holds reports whether one progress signal held.
func (m *measured) holds(sig policy.Signal, it *Iteration, tests testFacts, percentUp bool) bool {
	switch sig {
	case policy.SignalFiles:
		return m.files > 0
	case policy.SignalTests:
		return tests.up
	case policy.SignalTestsAdded:
		return tests.added
	case policy.SignalTasks:
		return m.tasksNew > 0
	case policy.SignalErrors:
		return m.resolved > 0
	case policy.SignalPercent:
		return percentUp
	case policy.SignalRefactor:
		return m.files > 0 && !tests.newFailures
	case policy.SignalDocs:
		return it.Change != nil && it.Change.DocFiles > 0 && !m.returned
	case policy.SignalClaims:
		return it.CompletionClaimed || (it.ClaimedFiles != nil && *it.ClaimedFiles > 0)
	}
	return false
}

// score is the iteration's progress score (SPEC §4, §10).
func score(w policy.Weights, m *measured) int {
	n := w.TestFixed*m.fixed + w.TaskCompleted*m.tasksNew + w.FileChanged*m.files + w.ErrorResolved*m.resolved
	if m.same {
		n += w.SameError
	}
	if m.files == 0 {
		n += w.NoChange
	}
	if m.revert {
		n += w.Revert
	}
	return n
}

func filterIgnored(errs []Signature, ignore []string) []Signature {
	if len(ignore) == 0 {
		return errs
	}
	skip := map[string]bool{}
	for _, t := range ignore {
		skip[t] = true
	}
	var out []Signature
	for _, e := range errs {
		if e.Test != "" && skip[e.Test] {
			continue
		}
		out = append(out, e)
	}
	return out
}

// advance updates counters and windows with a measured iteration.
func (b *Breaker) advance(pol *policy.Policy, it *Iteration, m *measured) {
	s := &b.s
	s.SinceReset++
	countProgress(pol, s, it, m)
	countErrors(s, it, m)
	b.pushWindow(it, m)
	rememberTree(s, it)
	b.pushHour(it.At)
	raiseTaskHigh(s, it)
	s.Prev = nextPrev(s.Prev, it, m)
}

// countProgress moves the no-progress counter: progress clears it, a
// question-only iteration holds it (up to max_held in a row), anything
// else raises it.
func countProgress(pol *policy.Policy, s *Snapshot, it *Iteration, m *measured) {
	switch {
	case m.progress:
		s.ConsecutiveNoProgress, s.Held = 0, 0
		t := it.At
		s.LastProgress = &t
		s.SinceProgress = nil
	case pol.Progress.QuestionsHold && it.QuestionsAsked:
		// Held counts the question-only iterations in a row; past max_held
		// they count as no progress until the row is broken.
		s.Held++
		if pol.Progress.MaxHeld > 0 && s.Held > pol.Progress.MaxHeld {
			s.ConsecutiveNoProgress++
		}
	default:
		s.ConsecutiveNoProgress++
		s.Held = 0
	}
}

// countErrors moves the error and denial streaks and counts the primary
// error.
func countErrors(s *Snapshot, it *Iteration, m *measured) {
	if m.primary != nil {
		if m.same {
			s.PrimaryStreak++
		} else {
			s.PrimaryStreak = 1
		}
		s.ErrorStreak++
		s.ErrorCounts = bump(s.ErrorCounts, *m.primary)
		s.SinceProgress = bump(s.SinceProgress, *m.primary)
	} else {
		s.PrimaryStreak, s.ErrorStreak = 0, 0
	}
	if it.PermissionDenials > 0 {
		s.DenialStreak++
	} else {
		s.DenialStreak = 0
	}
}

// pushWindow adds the iteration to the rule windows; output of iterations
// that leave the window goes into the output baseline.
func (b *Breaker) pushWindow(it *Iteration, m *measured) {
	s := &b.s
	e := Entry{At: it.At, Score: m.score, Fixed: m.fixed, Returned: m.returned}
	if c := it.Change; c != nil {
		e.Lines, e.TestLines = c.MeaningfulLines, c.TestLines
	}
	if it.Output != nil {
		e.HasOutput, e.Output = true, it.Output.Lines
	}
	s.Window = append(s.Window, e)
	if extra := len(s.Window) - b.window; extra > 0 {
		for _, gone := range s.Window[:extra] {
			if gone.HasOutput {
				s.OutputBase.Sum += int64(gone.Output)
				s.OutputBase.Count++
			}
		}
		s.Window = keepLast(s.Window, b.window)
	}
}

// rememberTree adds the iteration's tree to the trees seen since the reset.
func rememberTree(s *Snapshot, it *Iteration) {
	if it.Change == nil || it.Change.Tree == "" || slices.Contains(s.Trees, it.Change.Tree) {
		return
	}
	s.Trees = append(s.Trees, it.Change.Tree)
	if len(s.Trees) > MaxTrees {
		s.Trees = keepLast(s.Trees, MaxTrees)
	}
}

// pushHour keeps the iteration times of the last hour, for the rate rule.
func (b *Breaker) pushHour(at time.Time) {
	s := &b.s
	cut := at.Add(-time.Hour)
	keep := s.Hour[:0]
	for _, t := range s.Hour {
		if t.After(cut) {
			keep = append(keep, t)
		}
	}
	s.Hour = append(keep, at)
	if len(s.Hour) > b.hour {
		s.Hour = keepLast(s.Hour, b.hour)
	}
}

// raiseTaskHigh moves the checked-task high-water mark.
func raiseTaskHigh(s *Snapshot, it *Iteration) {
	if it.Tasks == nil {
		return
	}
	high := it.Tasks.Done
	if s.TaskHigh != nil && *s.TaskHigh > high {
		high = *s.TaskHigh
	} else if s.TaskHigh == nil && it.TasksBefore != nil && *it.TasksBefore > high {
		high = *it.TasksBefore // the count before the loop is the first mark
	}
	s.TaskHigh = &high
}

// nextPrev is what the next iteration is compared with: this one's
// evidence, and the earlier evidence where this one has none.
func nextPrev(old *Prev, it *Iteration, m *measured) *Prev {
	next := &Prev{Tests: it.Tests, ErrorsKnown: it.ErrorsKnown}
	if old != nil {
		next.Tree = old.Tree
		next.Percent = old.Percent
		next.TasksDone = old.TasksDone
		if it.Tests == nil {
			next.Tests = old.Tests
		}
	}
	for i, e := range m.errs {
		if i == 64 {
			break
		}
		next.Errors = append(next.Errors, e.Hash)
	}
	if m.primary != nil {
		next.Primary = m.primary.Hash
	}
	if it.ProgressPercent != nil {
		p := *it.ProgressPercent
		next.Percent = &p
	}
	if it.Change != nil && it.Change.Tree != "" {
		next.Tree = it.Change.Tree
	}
	if it.Tasks != nil {
		d := it.Tasks.Done
		next.TasksDone = &d
	}
	return next
}

// bump counts a signature, evicting the least counted when full.
func bump(list []ErrorCount, sig Signature) []ErrorCount {
	for i := range list {
		if list[i].Hash == sig.Hash {
			list[i].Count++
			return list
		}
	}
	if len(list) >= MaxErrorCounts {
		low := 0
		for i := range list {
			if list[i].Count < list[low].Count {
				low = i
			}
		}
		list = append(list[:low], list[low+1:]...)
	}
	return append(list, ErrorCount{Hash: sig.Hash, Sample: truncate(sig.Sample), Count: 1})
}

// truncate bounds an error sample kept in the snapshot, on a rune boundary.
func truncate(s string) string {
	if len(s) <= maxSample {
		return s
	}
	n := maxSample
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
