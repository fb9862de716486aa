package breaker

import (
	"fmt"
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

	if c := it.Change; c != nil {
		// Only a meaningful change can return to an earlier tree: a commit
		// that changed nothing meaningful (such as unticking and re-ticking
		// a task) is "no change", not an alternation of approaches.
		if c.Tree != "" && c.Tree != prev.Tree && c.MeaningfulFiles > 0 {
			for _, t := range s.Trees {
				if t == c.Tree {
					m.returned = true
					break
				}
			}
		}
		m.revert = c.Reverted || m.returned
		if !m.returned {
			m.files = c.MeaningfulFiles
		}
	}

	cur, old := it.Tests, prev.Tests
	testsUp, testsAdded, newFailures := false, false, false
	if cur != nil && old != nil {
		dFail := old.Failed - cur.Failed
		dPass := cur.Passed - old.Passed
		m.fixed = max(0, min(dFail, dPass))
		testsUp = cur.Passed > old.Passed || (cur.Failed < old.Failed && cur.Total() == old.Total())
		testsAdded = cur.Total() > old.Total()
		newFailures = cur.Failed > old.Failed || (cur.BuildFailed && !old.BuildFailed)
	} else if cur != nil {
		newFailures = cur.BuildFailed
	}
	// Without an earlier report to count against, added test-file lines
	// are the evidence that tests were written.
	if old == nil && it.Change != nil && it.Change.TestLines > 0 && m.files > 0 {
		testsAdded = true
	}

	if it.Tasks != nil {
		high := it.Tasks.Done
		if s.TaskHigh != nil {
			high = *s.TaskHigh
		} else if it.TasksBefore != nil {
			high = *it.TasksBefore
		}
		if it.Tasks.Done > high {
			m.tasksNew = it.Tasks.Done - high
		}
	}

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

	percentUp := false
	if p := it.ProgressPercent; p != nil {
		base := 0.0
		if prev.Percent != nil {
			base = *prev.Percent
		}
		percentUp = *p-base >= pol.Progress.StagnationPercent
		m.vetoed = !percentUp && pol.HasSignal(policy.SignalPercent)
	}

	claimed := it.CompletionClaimed || (it.ClaimedFiles != nil && *it.ClaimedFiles > 0)
	for _, sig := range pol.Progress.Signals {
		held := false
		switch sig {
		case policy.SignalFiles:
			held = m.files > 0
		case policy.SignalTests:
			held = testsUp
		case policy.SignalTestsAdded:
			held = testsAdded
		case policy.SignalTasks:
			held = m.tasksNew > 0
		case policy.SignalErrors:
			held = m.resolved > 0
		case policy.SignalPercent:
			held = percentUp
		case policy.SignalRefactor:
			held = m.files > 0 && !newFailures
		case policy.SignalDocs:
			held = it.Change != nil && it.Change.DocFiles > 0 && !m.returned
		case policy.SignalClaims:
			held = claimed
		}
		if held {
			m.signals = append(m.signals, sig.String())
		}
	}
	m.progress = len(m.signals) > 0 && !m.vetoed
	if m.vetoed {
		m.signals = nil
	}

	w := pol.Rules.Score.Weights
	m.score = w.TestFixed*m.fixed + w.TaskCompleted*m.tasksNew + w.FileChanged*m.files + w.ErrorResolved*m.resolved
	if m.same {
		m.score += w.SameError
	}
	if m.files == 0 {
		m.score += w.NoChange
	}
	if m.revert {
		m.score += w.Revert
	}
	return m
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
func (b *Breaker) advance(pol *policy.Policy, it *Iteration, m measured) {
	s := &b.s
	s.SinceReset++

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

	if m.primary != nil {
		if m.same {
			s.PrimaryStreak++
		} else {
			s.PrimaryStreak = 1
		}
		s.ErrorStreak++
	} else {
		s.PrimaryStreak, s.ErrorStreak = 0, 0
	}
	if it.PermissionDenials > 0 {
		s.DenialStreak++
	} else {
		s.DenialStreak = 0
	}
	if m.primary != nil {
		s.ErrorCounts = bump(s.ErrorCounts, *m.primary)
		s.SinceProgress = bump(s.SinceProgress, *m.primary)
	}

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

	if it.Change != nil && it.Change.Tree != "" {
		seen := false
		for _, t := range s.Trees {
			if t == it.Change.Tree {
				seen = true
				break
			}
		}
		if !seen {
			s.Trees = append(s.Trees, it.Change.Tree)
			if len(s.Trees) > MaxTrees {
				s.Trees = keepLast(s.Trees, MaxTrees)
			}
		}
	}

	cut := it.At.Add(-time.Hour)
	keep := s.Hour[:0]
	for _, t := range s.Hour {
		if t.After(cut) {
			keep = append(keep, t)
		}
	}
	s.Hour = append(keep, it.At)
	if len(s.Hour) > b.hour {
		s.Hour = keepLast(s.Hour, b.hour)
	}

	if it.Tasks != nil {
		high := it.Tasks.Done
		if s.TaskHigh != nil && *s.TaskHigh > high {
			high = *s.TaskHigh
		} else if s.TaskHigh == nil && it.TasksBefore != nil && *it.TasksBefore > high {
			high = *it.TasksBefore // the count before the loop is the first mark
		}
		s.TaskHigh = &high
	}

	next := &Prev{Tests: it.Tests, ErrorsKnown: it.ErrorsKnown}
	if s.Prev != nil {
		next.Tree = s.Prev.Tree
		next.Percent = s.Prev.Percent
		if it.Tests == nil {
			next.Tests = s.Prev.Tests
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
	switch {
	case it.Tasks != nil:
		d := it.Tasks.Done
		next.TasksDone = &d
	case s.Prev != nil:
		next.TasksDone = s.Prev.TasksDone
	}
	s.Prev = next
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

type firingKind int

const (
	kindWarn firingKind = iota
	kindWatch
	kindTrip
)

type firing struct {
	rule   string
	kind   firingKind
	reason string
}

// evaluate runs every enabled rule in trigger order.
func evaluate(pol *policy.Policy, s *Snapshot, it *Iteration, m measured) []firing {
	var out []firing
	add := func(rule string, kind firingKind, format string, args ...any) {
		out = append(out, firing{rule: rule, kind: kind, reason: fmt.Sprintf(format, args...)})
	}
	r := pol.Rules

	if r.ProtectedPath.Enabled && it.Change != nil {
		del, mod := it.Change.ProtectedDeleted, it.Change.ProtectedModified
		switch r.ProtectedPath.ProtectedMode {
		case policy.ProtectedDelete:
			if len(del) > 0 {
				add(policy.RuleProtectedPath, kindTrip, "deleted protected path %s", quoteList(del))
			}
			if len(mod) > 0 {
				add(policy.RuleProtectedPath, kindWarn, "modified protected path %s", quoteList(mod))
			}
		case policy.ProtectedDeny:
			if len(del) > 0 {
				add(policy.RuleProtectedPath, kindTrip, "deleted protected path %s", quoteList(del))
			} else if len(mod) > 0 {
				add(policy.RuleProtectedPath, kindTrip, "modified protected path %s", quoteList(mod))
			}
		case policy.ProtectedWarn:
			if len(del)+len(mod) > 0 {
				add(policy.RuleProtectedPath, kindWarn, "touched protected path %s", quoteList(append(append([]string{}, del...), mod...)))
			}
		}
	}

	if r.PermissionDenied.Enabled && s.DenialStreak >= r.PermissionDenied.PermissionDeniedThreshold {
		add(policy.RulePermissionDenied, kindTrip, "tool permission denials in %d consecutive iterations", s.DenialStreak)
	}

	if r.SameError.Enabled && m.primary != nil {
		n := r.SameError.SameErrorThreshold
		switch r.SameError.SameErrorMode {
		case policy.SameErrorConsecutive:
			if s.PrimaryStreak >= n {
				add(policy.RuleSameError, kindTrip, "same error in %d consecutive iterations: %s", s.PrimaryStreak, m.primary.Sample)
			}
		case policy.SameErrorTotal:
			for _, ec := range s.SinceProgress {
				if ec.Hash == m.primary.Hash && ec.Count >= n {
					add(policy.RuleSameError, kindTrip, "same error %d times since the last progress: %s", ec.Count, m.primary.Sample)
				}
			}
		case policy.SameErrorAny:
			if s.ErrorStreak >= n {
				add(policy.RuleSameError, kindTrip, "errors in %d consecutive iterations, the last: %s", s.ErrorStreak, m.primary.Sample)
			}
		}
	}

	if r.Circular.Enabled {
		n := 0
		for _, e := range tail(s.Window, r.Circular.CircularWindow) {
			if e.Returned {
				n++
			}
		}
		if n >= r.Circular.CircularThreshold {
			add(policy.RuleCircular, kindTrip, "the tree returned to an earlier state %d times in the last %d iterations: the agent is alternating or reverting itself", n, r.Circular.CircularWindow)
		}
	}

	if r.TestOnly.Enabled && len(s.Window) >= r.TestOnly.TestOnlyWindow {
		lines, testLines, fixed := 0, 0, 0
		for _, e := range tail(s.Window, r.TestOnly.TestOnlyWindow) {
			lines += e.Lines
			testLines += e.TestLines
			fixed += e.Fixed
		}
		if lines > 0 && fixed == 0 {
			share := float64(testLines) * 100 / float64(lines)
			if share > r.TestOnly.TestOnlyPercent {
				add(policy.RuleTestOnly, kindTrip, "%.0f%% of the lines changed in the last %d iterations are in test files and no failing test was fixed", share, r.TestOnly.TestOnlyWindow)
			}
		}
	}

	if r.OutputDecline.Enabled {
		if recent, base, ok := outputMeans(s, r.OutputDecline.OutputWindow); ok && base > 0 {
			decline := (base - recent) * 100 / base
			if decline >= r.OutputDecline.OutputDeclinePercent {
				add(policy.RuleOutputDecline, kindTrip, "agent output fell %.0f%% (%.0f lines per iteration against a baseline of %.0f)", decline, recent, base)
			}
		}
	}

	if mode := r.CompletionClaim.CompletionClaim; mode != policy.ClaimOff && it.CompletionClaimed {
		var why string
		switch {
		case it.Tests != nil && it.Tests.BuildFailed:
			why = "the build fails"
		case it.Tests != nil && it.Tests.Failed > 0:
			why = fmt.Sprintf("%d tests fail", it.Tests.Failed)
		case it.Tasks != nil && it.Tasks.Done < it.Tasks.Total:
			why = fmt.Sprintf("%d of %d tasks remain", it.Tasks.Total-it.Tasks.Done, it.Tasks.Total)
		}
		if why != "" {
			kind := kindWarn
			if mode == policy.ClaimTrip {
				kind = kindTrip
			}
			add(policy.RuleCompletionClaim, kind, "the agent claims completion while %s", why)
		}
	}

	if r.NoProgress.Enabled {
		c := s.ConsecutiveNoProgress
		switch {
		case c >= r.NoProgress.NoProgressThreshold:
			add(policy.RuleNoProgress, kindTrip, "no progress in %d consecutive iterations", c)
		case c >= r.NoProgress.HalfOpenAfter:
			add(policy.RuleNoProgress, kindWatch, "no progress in %d consecutive iterations", c)
		}
	}

	if r.Score.Enabled && len(s.Window) >= r.Score.ScoreWindow {
		sum := 0
		for _, e := range tail(s.Window, r.Score.ScoreWindow) {
			sum += e.Score
		}
		if sum < 0 {
			kind := kindWatch
			if r.Score.ScoreAction == policy.ScoreOpen {
				kind = kindTrip
			}
			add(policy.RuleScore, kind, "progress score %d over the last %d iterations", sum, r.Score.ScoreWindow)
		}
	}

	if r.Rate.Enabled && len(s.Hour) > r.Rate.MaxIterationsPerHour {
		add(policy.RuleRate, kindTrip, "%d iterations within one hour (at most %d)", len(s.Hour), r.Rate.MaxIterationsPerHour)
	}

	if mi := r.MaxIterations; mi.Enabled {
		switch {
		case s.SinceReset >= mi.MaxIterations:
			add(policy.RuleMaxIterations, kindTrip, "iteration %d reached max_iterations (%d) since the last reset", s.SinceReset, mi.MaxIterations)
		case mi.CriticalIterations > 0 && s.SinceReset >= mi.CriticalIterations:
			add(policy.RuleMaxIterations, kindWarn, "critical: iteration %d of at most %d", s.SinceReset, mi.MaxIterations)
		case mi.WarningIterations > 0 && s.SinceReset >= mi.WarningIterations:
			add(policy.RuleMaxIterations, kindWarn, "warning: iteration %d of at most %d", s.SinceReset, mi.MaxIterations)
		}
	}
	return out
}

// outputMeans returns the mean output of the last n iterations with output
// and of the ones before them (needs n recent and 2 earlier).
func outputMeans(s *Snapshot, n int) (recent, base float64, ok bool) {
	var withOut []int
	for _, e := range s.Window {
		if e.HasOutput {
			withOut = append(withOut, e.Output)
		}
	}
	if len(withOut) < n {
		return 0, 0, false
	}
	var rs int64
	for _, v := range withOut[len(withOut)-n:] {
		rs += int64(v)
	}
	bs, bc := s.OutputBase.Sum, s.OutputBase.Count
	for _, v := range withOut[:len(withOut)-n] {
		bs += int64(v)
		bc++
	}
	if bc < 2 {
		return 0, 0, false
	}
	return float64(rs) / float64(n), float64(bs) / float64(bc), true
}

func tail(w []Entry, n int) []Entry {
	if len(w) <= n {
		return w
	}
	return w[len(w)-n:]
}

func quoteList(paths []string) string {
	const most = 5
	out := ""
	for i, p := range paths {
		if i == most {
			out += fmt.Sprintf(" and %d more", len(paths)-most)
			break
		}
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", p)
	}
	return out
}
