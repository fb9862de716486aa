package breaker

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// measured is what one iteration shows against the state before it.
type measured struct {
	progress bool
	signals  []string // the progress signals that held
	vetoed   bool     // a reported percentage rose too little, or tests regressed
	score    int
	files    int // counted files, 0 when the tree returned to an earlier one
	lines    int // counted lines
	busy     bool
	fixed    int
	tasksNew int
	resolved int
	same     bool // primary error equals the previous iteration's
	recurs   bool // primary error was seen within the same_error window
	revert   bool
	returned bool // tree returned to one seen earlier since the reset
	round    bool // ... to one known at the previous return: going round
	errs     []Signature
	primary  *Signature
	// regression says why the tests regressed ("" when they did not).
	regression string
	testOnly   bool // existing tests changed while nothing else moved
	testLines  int  // the lines the test_only rule counts
	rewritten  int  // failing tests turned green by editing only tests
	work       bool // a counted file that is not notes, churn or journal
	// journal and journalDocs count the counted files that are the loop's
	// journal (and of them, documentation files).
	journal, journalDocs int
	retuned              bool // the same files re-tuned again
	// recorded counts first ticks backed by earlier work but none of the
	// iteration's own: bookkeeping, yet completed for task tracking.
	recorded int
	ticked   int  // first ticks, credited or not
	newWork  bool // work beyond prose: code, tests, a task, tests fixed
	claim    *Signature
	again    bool // the same claim as before with no new work since
	// neutral: the iteration only recorded earlier progress (bookkeeping
	// right after it), neither progress nor a step towards opening.
	neutral bool
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
	if it.Change != nil && pol.Progress.Written {
		// What the loop recorded in its own files, after its log's and
		// reports' errors.
		m.errs = appendNew(slices.Clone(m.errs), it.Change.Written)
	}
	if len(m.errs) > 0 {
		m.primary = &m.errs[0]
	}
	if m.primary == nil && it.Blocker != nil && pol.Progress.Admissions {
		// The same blocker reported again counts like a repeated error.
		b := *it.Blocker
		m.primary = &b
	}
	m.tasksNew = newTasks(s, it)
	m.ticked = m.tasksNew
	m.measureChange(pol, s, prev, it)
	tests := m.measureTests(prev, it)
	m.measureErrors(pol, s, prev, it)
	// A reported percentage is a claim: it counts only with work behind it
	// in the same iteration (a rise too small still vetoes).
	percentUp := m.measurePercent(pol, s, it) && m.work
	m.judge(pol, it, tests, percentUp)
	if it.Admitted && pol.Progress.Admissions {
		// The agent said it made no progress: that only makes the breaker
		// stricter.
		m.progress, m.vetoed, m.signals = false, true, nil
	}
	m.measureTestOnly(pol, s, it, tests, percentUp)
	if pol.Progress.Written {
		m.measureClaim(s, it, tests)
	}
	m.score = score(pol.Rules.Score.Weights, &m)
	m.neutral = m.bookkeeping(pol, s, it)
	return m
}

// measureClaim finds the iteration's claim of done work; one repeated with
// no new work since is the loop going round, no progress.
func (m *measured) measureClaim(s *Snapshot, it *Iteration, tests testFacts) {
	m.claim = it.Claim
	if m.claim == nil && it.Change != nil {
		m.claim = it.Change.Claim
	}
	if c := it.Change; c != nil {
		prose := 0
		for _, f := range c.Text {
			if f.Counted {
				prose++
			}
		}
		m.newWork = c.MeaningfulFiles-prose > 0
	}
	m.newWork = m.newWork || m.tasksNew+m.recorded > 0 || m.fixed > 0 || tests.up
	if m.claim == nil || m.newWork {
		return
	}
	i := slices.IndexFunc(s.Claims, func(c ClaimSeen) bool { return c.Hash == m.claim.Hash })
	if i >= 0 && !s.Claims[i].WorkSince {
		m.again = true
		m.progress, m.vetoed, m.signals = false, true, nil
	}
}

// claimSample is the iteration's claim for a reason: ` ("…")`, or "".
func (m *measured) claimSample() string {
	if m.claim == nil {
		return ""
	}
	return fmt.Sprintf(" (%q)", m.claim.Sample)
}

// rememberClaim marks earlier claims as followed by new work, when there
// was some, and remembers the iteration's claim.
func rememberClaim(s *Snapshot, m *measured) {
	if m.newWork {
		for i := range s.Claims {
			s.Claims[i].WorkSince = true
		}
	}
	if m.claim == nil {
		return
	}
	s.Claims = slices.DeleteFunc(s.Claims, func(c ClaimSeen) bool { return c.Hash == m.claim.Hash })
	s.Claims = append(s.Claims, ClaimSeen{Hash: m.claim.Hash})
	if len(s.Claims) > MaxClaims {
		s.Claims = keepLast(s.Claims, MaxClaims)
	}
}

// appendNew appends the signatures of more that list has not.
func appendNew(list, more []Signature) []Signature {
	for _, e := range more {
		if !slices.ContainsFunc(list, func(x Signature) bool { return x.Hash == e.Hash }) {
			list = append(list, e)
		}
	}
	return list
}

// bookkeeping reports an iteration that only records the progress of the
// one before (ticks, notes, a wrap-up; no work, no step back), within the
// policy's run of them; outside the watch after recovery.
func (m *measured) bookkeeping(pol *policy.Policy, s *Snapshot, it *Iteration) bool {
	c := it.Change
	return s.AfterProgress && s.Bookkept < pol.Progress.BookkeepingIterations && s.WatchLeft == 0 &&
		!m.progress && !m.work && !m.returned && !m.retuned && !m.again && m.regression == "" &&
		!(it.Admitted && pol.Progress.Admissions) &&
		c != nil && (c.Bookkeeping > 0 || m.journal > 0)
}

// measureChange finds the counted files and lines, and whether the tree
// returned to an earlier one or reverted.
func (m *measured) measureChange(pol *policy.Policy, s *Snapshot, prev *Prev, it *Iteration) {
	c := it.Change
	if c == nil {
		return
	}
	jFiles, jLines, jDocs := measureJournal(pol, s, c)
	m.journal, m.journalDocs = jFiles, jDocs
	files, lines := c.MeaningfulFiles-jFiles, c.MeaningfulLines-jLines
	busyFiles, busyLines := c.BusyFiles, c.BusyLines
	if !pol.Progress.Churn {
		// Without the churn rule churn reads as it always did: hex
		// strings and timestamps as a change, digits as busywork.
		files += c.HexFiles
		lines += c.HexLines
		busyFiles += c.ChurnFiles - c.HexFiles
		busyLines += c.ChurnLines - c.HexLines
	}
	if n := planFindings(prev, it); n > 0 {
		// Findings written into the plan (an audit that records what it
		// found as it goes) are work; a tick or the next task is not.
		files++
		lines += n
	}
	if pol.Progress.Retune && retuned(s, c) {
		// The same few files re-tuned a few lines at a time for the third
		// iteration in a row: values moved back and forth, not work done.
		files, lines = 0, 0
		m.retuned = true
	}
	m.work = files > 0
	if m.tasksNew > 0 && pol.Progress.TicksNeedWork && !m.work {
		if s.WorkSinceTick && pol.Progress.BookkeepingIterations > 0 {
			// Ticking the task of work an earlier iteration did records
			// that work: bookkeeping beside it, not progress of its own.
			m.recorded = m.tasksNew
		}
		// Ticking boxes with nothing else done since the last credited
		// tick is bookkeeping, not progress.
		if !s.WorkSinceTick || m.recorded > 0 {
			m.tasksNew = 0
		}
	}
	if busyFiles > 0 && (m.tasksNew > 0 || pol.Progress.BusyworkIsProgress) {
		m.busy = true
		files += busyFiles
		lines += busyLines
	}
	// Only a counted change can return to an earlier tree: a commit that
	// changed nothing meaningful (such as unticking and re-ticking a task)
	// is "no change", not an alternation of approaches.
	if c.Tree != "" && c.Tree != prev.Tree && files > 0 {
		i := slices.Index(s.Trees, c.Tree)
		m.returned = i >= 0
		// Going back to work landed since the previous return undoes one
		// attempt and keeps that work: a loop that drops a feature and
		// moves on is not going round, one that comes back to the same
		// states is.
		m.round = m.returned && (s.ReturnMark == 0 || i < s.ReturnMark)
	}
	m.revert = c.Reverted || m.returned
	m.lines = lines
	if !m.returned {
		m.files = files
	}
}

// planFindingsLines is how many new lines, besides new tasks, a plan must
// gain in one iteration for them to be findings rather than bookkeeping.
const planFindingsLines = 30

// planFindings returns the new lines besides new tasks written into the
// task lists, when at least planFindingsLines.
func planFindings(prev *Prev, it *Iteration) int {
	c := it.Change
	boxes := 0
	if it.Tasks != nil && prev.TasksTotal != nil {
		boxes = max(0, it.Tasks.Total-*prev.TasksTotal)
	}
	if n := c.PlanLines - boxes; n >= planFindingsLines {
		return n
	}
	return 0
}

// retunedRow is how many iterations in a row, the current one included,
// re-tune the same files before it is no progress.
const retunedRow = 3

// retuned reports that the iteration re-tuned the same files as each of
// the iterations just before it, retunedRow in a row.
func retuned(s *Snapshot, c *Change) bool {
	if c.Retune == "" || len(s.Window) < retunedRow-1 {
		return false
	}
	for _, e := range s.Window[len(s.Window)-(retunedRow-1):] {
		if e.Retune != c.Retune {
			return false
		}
	}
	return true
}

// testFacts are what the test reports say against the previous ones.
type testFacts struct {
	known       bool // both this iteration and an earlier one have a report
	up          bool // more pass, or fewer fail with none fewer passing
	added       bool // more tests exist, or test-file lines were added
	newFailures bool // more fail, or the build broke
}

// measureTests compares the test report with the previous one: tests
// fixed, and a regression. It needs the change measured.
func (m *measured) measureTests(prev *Prev, it *Iteration) testFacts {
	var f testFacts
	cur, old := it.Tests, prev.Tests
	if cur != nil && old != nil {
		f.known = true
		dFail := old.Failed - cur.Failed
		dPass := cur.Passed - old.Passed
		m.fixed = max(0, min(dFail, dPass))
		f.up = cur.Passed > old.Passed || (cur.Failed < old.Failed && cur.Total() == old.Total())
		f.added = cur.Total() > old.Total()
		f.newFailures = cur.Failed > old.Failed || (cur.BuildFailed && !old.BuildFailed)
		m.regression = regression(old, cur)
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

// regression says how the tests regressed from old to cur ("" when they
// did not): fewer pass, or failing tests were turned skipped.
func regression(old, cur *Tests) string {
	turned := min(max(0, old.Failed-cur.Failed-max(0, cur.Passed-old.Passed)), cur.Skipped-old.Skipped)
	switch {
	case cur.Passed < old.Passed:
		what := fmt.Sprintf("tests regressed: %d passing, %d before", cur.Passed, old.Passed)
		if names := missingFrom(cur.Failing, old.Failing); len(names) > 0 {
			what += "; failing now: " + quoteList(names)
		}
		return what
	case turned > 0:
		what := fmt.Sprintf("tests regressed: %d failing %s turned skipped", turned, plural(turned, "test", "tests"))
		if names := missingFrom(old.Failing, cur.Failing); len(names) > 0 {
			what += ": " + quoteList(names)
		}
		return what
	}
	return ""
}

// missingFrom lists the names of a that are not in b.
func missingFrom(a, b []string) []string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// newTasks counts the tasks checked for the first time since the reset,
// less those unchecked; without identities, the count above its mark.
func newTasks(s *Snapshot, it *Iteration) int {
	if tc := it.TaskChange; tc != nil {
		n := 0
		for i, id := range tc.Checked {
			if !slices.Contains(s.Completed, id) && !slices.Contains(it.TasksCheckedBefore, id) && !slices.Contains(tc.Checked[:i], id) {
				n++
			}
		}
		return max(0, n-tc.Unchecked)
	}
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

// measureErrors counts the previous errors that are gone (none when an
// error of the same_error window came back: an alternation, not a fix)
// and whether the primary error repeats.
func (m *measured) measureErrors(pol *policy.Policy, s *Snapshot, prev *Prev, it *Iteration) {
	window := pol.Rules.SameError.SameErrorThreshold
	if it.ErrorsKnown && prev.ErrorsKnown {
		for _, h := range prev.Errors {
			if !slices.ContainsFunc(m.errs, func(e Signature) bool { return e.Hash == h }) {
				m.resolved++
			}
		}
		for _, e := range m.errs {
			if !slices.Contains(prev.Errors, e.Hash) && seenWithin(s, e.Hash, window) {
				m.resolved = 0
				break
			}
		}
		// An error that went away while nothing changed resolved nothing:
		// the run was flaky, or the log tells another story.
		if it.Change != nil && !m.work {
			m.resolved = 0
		}
	}
	if m.primary != nil {
		m.same = prev.Primary != "" && m.primary.Hash == prev.Primary
		m.recurs = m.same || seenWithin(s, m.primary.Hash, window)
	}
}

// seenWithin reports whether an error signature was seen in one of the
// last n iterations before this one.
func seenWithin(s *Snapshot, hash string, n int) bool {
	for _, e := range s.Seen {
		if e.Hash == hash {
			return e.Iteration >= s.Iteration-n
		}
	}
	return false
}

// measurePercent reports whether a reported percentage rose enough above
// its high since the reset; too small a rise vetoes when counted.
func (m *measured) measurePercent(pol *policy.Policy, s *Snapshot, it *Iteration) bool {
	p := it.ProgressPercent
	if p == nil {
		return false
	}
	high := 0.0
	if s.PercentHigh != nil {
		high = *s.PercentHigh
	}
	up := *p-high >= pol.Progress.StagnationPercent
	m.vetoed = !up && pol.HasSignal(policy.SignalPercent)
	return up
}

// judge lists the progress signals that held and decides progress. A test
// regression vetoes progress as a percentage that rose too little does.
func (m *measured) judge(pol *policy.Policy, it *Iteration, tests testFacts, percentUp bool) {
	for _, sig := range pol.Progress.Signals {
		if m.holds(sig, it, tests, percentUp) {
			m.signals = append(m.signals, sig.String())
		}
	}
	if m.regression != "" {
		m.vetoed = true
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
		docs := 0
		if c := it.Change; c != nil {
			docs = c.DocFiles - m.journalDocs
			if m.busy {
				docs += c.BusyDocFiles
			}
		}
		return docs > 0 && !m.returned
	case policy.SignalClaims:
		// A claim counts only with work behind it, as a percentage does.
		return m.work && (it.CompletionClaimed || (it.ClaimedFiles != nil && *it.ClaimedFiles > 0))
	}
	return false
}

// measureTestOnly decides whether the iteration changed existing tests
// while nothing else moved, and which of its test lines the test_only rule
// counts (docs/policies.md): edited or deleted tests, not new ones; without
// test reports on both sides, only in files an earlier iteration of the
// window changed too.
func (m *measured) measureTestOnly(pol *policy.Policy, s *Snapshot, it *Iteration, tests testFacts, percentUp bool) {
	c := it.Change
	if c == nil || c.TestLines == 0 || c.CodeFiles-m.journal > 0 || (m.busy && c.BusyFiles > 0) ||
		m.tasksNew > 0 || m.resolved > 0 || percentUp {
		return
	}
	edited := c.TestLines
	if c.TestFiles != nil {
		edited = 0
		for _, f := range c.TestFiles {
			if !f.New && !f.Grew {
				edited += f.Lines
			}
		}
	}
	switch {
	case edited == 0:
		return
	case m.fixed > 0 && tests.known && pol.Rules.TestOnly.Enabled:
		// The failures went away because their tests changed.
		m.rewritten = m.fixed
		m.progress, m.vetoed, m.signals = false, true, nil
		return
	case tests.up:
		return
	}
	m.testOnly = true
	if tests.known || c.TestFiles == nil {
		m.testLines = edited
		return
	}
	earlier := map[string]bool{}
	for _, e := range lastWithLines(s.Window, pol.Rules.TestOnly.TestOnlyWindow) {
		for _, p := range e.TestPaths {
			earlier[p] = true
		}
	}
	for _, f := range c.TestFiles {
		if !f.New && !f.Grew && earlier[pathKey(f.Path)] {
			m.testLines += f.Lines
		}
	}
}

// lastWithLines returns the newest n entries that changed lines, oldest
// first (the test_only window).
func lastWithLines(w []Entry, n int) []Entry {
	var out []Entry
	for i := len(w) - 1; i >= 0 && len(out) < n; i-- {
		if w[i].Lines > 0 {
			out = append(out, w[i])
		}
	}
	slices.Reverse(out)
	return out
}

// pathKey is a short, fixed-size identity of a path for the snapshot.
func pathKey(p string) string {
	h := fnv.New64a()
	h.Write([]byte(p))
	return fmt.Sprintf("%016x", h.Sum64())
}

// PathsKey is a short, fixed-size identity of a sorted list of paths.
func PathsKey(paths []string) string {
	return pathKey(strings.Join(paths, "\x00"))
}

// score is the iteration's progress score. A test
// regression scores its penalties only, with test_regression on top.
func score(w policy.Weights, m *measured) int {
	n := 0
	if m.regression == "" {
		n = w.TestFixed*m.fixed + w.TaskCompleted*m.tasksNew + w.FileChanged*m.files + w.ErrorResolved*m.resolved
	} else {
		n = w.TestRegression
	}
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
	return slices.DeleteFunc(slices.Clone(errs), func(e Signature) bool {
		return e.Test != "" && slices.Contains(ignore, e.Test)
	})
}

// advance updates counters and windows with a measured iteration.
func (b *Breaker) advance(pol *policy.Policy, it *Iteration, m *measured) {
	s := &b.s
	s.SinceReset++
	countProgress(pol, s, it, m)
	s.addSpend(it.Cost, m.progress)
	countErrors(s, it, m)
	b.pushWindow(it, m)
	rememberTree(s, it, m)
	rememberText(s, it)
	rememberClaim(s, m)
	s.WorkSinceTick = (s.WorkSinceTick || m.work) && m.tasksNew+m.recorded == 0
	b.pushHour(it.At)
	raiseTaskHigh(s, it)
	rememberTasks(s, it)
	followTask(s, it, m)
	if p := it.ProgressPercent; p != nil && (s.PercentHigh == nil || *p > *s.PercentHigh) {
		v := *p
		s.PercentHigh = &v
	}
	s.Prev = nextPrev(s.Prev, it, m)
}

// countProgress moves the no-progress counter: progress clears it,
// questions hold it (max_held in a row), anything else raises it.
func countProgress(pol *policy.Policy, s *Snapshot, it *Iteration, m *measured) {
	if m.neutral {
		s.Bookkept++
		return
	}
	// Bookkeeping held back after progress counts once the run goes on
	// without work: the whole run is no progress.
	held := s.Bookkept
	s.AfterProgress, s.Bookkept = m.progress, 0
	if !m.progress {
		s.ConsecutiveNoProgress += held
	}
	switch {
	case m.progress:
		s.ConsecutiveNoProgress, s.Held = 0, 0
		t := it.At
		s.LastProgress = &t
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

// countErrors moves the error and denial streaks (an error back within
// the same_error window goes on with its streak) and counts the errors.
func countErrors(s *Snapshot, it *Iteration, m *measured) {
	if m.primary != nil {
		if m.recurs {
			s.PrimaryStreak++
		} else {
			s.PrimaryStreak = 1
		}
		s.ErrorStreak++
		s.ErrorCounts = bump(s.ErrorCounts, *m.primary)
	} else {
		s.PrimaryStreak, s.ErrorStreak = 0, 0
	}
	for _, e := range m.errs {
		s.Seen = see(s.Seen, e.Hash, s.Iteration)
	}
	if it.PermissionDenials > 0 {
		s.DenialStreak++
	} else {
		s.DenialStreak = 0
	}
}

// see records that an error signature was seen in an iteration, keeping
// the most recently seen MaxSeenErrors.
func see(list []SeenError, hash string, iteration int) []SeenError {
	list = slices.DeleteFunc(list, func(e SeenError) bool { return e.Hash == hash })
	list = append(list, SeenError{Hash: hash, Iteration: iteration})
	if len(list) > MaxSeenErrors {
		list = keepLast(list, MaxSeenErrors)
	}
	return list
}

// pushWindow adds the iteration to the rule windows; output of iterations
// that leave the window goes into the output baseline.
func (b *Breaker) pushWindow(it *Iteration, m *measured) {
	s := &b.s
	e := Entry{At: it.At, Score: m.score, Fixed: m.fixed, Returned: m.round, Again: m.again, Lines: m.lines, TestLines: min(m.testLines, m.lines)}
	if c := it.Change; c != nil {
		e.Code = c.CodeFiles-m.journal > 0
		e.Retune = c.Retune
		for _, f := range c.TestFiles {
			if len(e.TestPaths) == maxTestPaths {
				break
			}
			e.TestPaths = append(e.TestPaths, pathKey(f.Path))
		}
	}
	if it.Output != nil {
		e.HasOutput, e.Output = true, it.Output.Lines
	}
	if it.Tests != nil {
		e.HasTests, e.Passed = true, it.Tests.Passed
	}
	if it.ErrorsKnown {
		e.HasErrors, e.Errors = true, distinctErrors(m.errs)
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

// distinctErrors counts the distinct error signatures.
func distinctErrors(errs []Signature) int {
	seen := map[string]bool{}
	for _, e := range errs {
		seen[e.Hash] = true
	}
	return len(seen)
}

// followTask counts the iterations in a row the current task has been
// current with no task completed (a completion restarts it at 0).
func followTask(s *Snapshot, it *Iteration, m *measured) {
	// Any first tick shows the loop moving along its list, whether or not
	// it is credited as progress (that is the progress rules' question).
	completed := m.ticked
	if completed > 0 {
		s.TasksLive = true
	}
	cur := it.CurrentTask
	switch {
	case cur == nil || cur.ID == "":
		s.Current = nil
	case completed > 0:
		s.Current = &TaskRun{ID: bound(cur.ID, maxTaskText), Text: bound(cur.Text, maxTaskText)}
	case s.Current != nil && s.Current.ID == bound(cur.ID, maxTaskText):
		s.Current.Iterations++
	default:
		s.Current = &TaskRun{ID: bound(cur.ID, maxTaskText), Text: bound(cur.Text, maxTaskText), Iterations: 1}
	}
}

// rememberTree adds the iteration's tree to the trees seen since the reset,
// and marks a return.
func rememberTree(s *Snapshot, it *Iteration, m *measured) {
	if m.returned {
		s.ReturnMark = len(s.Trees)
	}
	if it.Change == nil || it.Change.Tree == "" || slices.Contains(s.Trees, it.Change.Tree) {
		return
	}
	s.Trees = append(s.Trees, it.Change.Tree)
	if extra := len(s.Trees) - MaxTrees; extra > 0 {
		s.Trees = keepLast(s.Trees, MaxTrees)
		s.ReturnMark = max(0, s.ReturnMark-extra)
	}
}

// pushHour keeps the iteration times of the last hour, for the rate rule.
func (b *Breaker) pushHour(at time.Time) {
	s := &b.s
	cut := at.Add(-time.Hour)
	s.Hour = append(slices.DeleteFunc(s.Hour, func(t time.Time) bool { return !t.After(cut) }), at)
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

// rememberTasks adds the tasks checked before the loop and by the
// iteration to the completed ones, keeping the newest MaxCompleted.
func rememberTasks(s *Snapshot, it *Iteration) {
	lists := [2][]string{it.TasksCheckedBefore, taskChecked(it)}
	// The tasks checked before the loop can be thousands: a set keeps
	// adding them linear.
	var known map[string]bool
	if n := len(lists[0]) + len(lists[1]); n > 8 {
		known = make(map[string]bool, len(s.Completed)+n)
		for _, id := range s.Completed {
			known[id] = true
		}
	}
	for _, list := range lists {
		for _, id := range list {
			if known != nil {
				if known[id] {
					continue
				}
				known[id] = true
			} else if slices.Contains(s.Completed, id) {
				continue
			}
			s.Completed = append(s.Completed, id)
		}
	}
	if len(s.Completed) > MaxCompleted {
		s.Completed = keepLast(s.Completed, MaxCompleted)
	}
}

func taskChecked(it *Iteration) []string {
	if it.TaskChange == nil {
		return nil
	}
	return it.TaskChange.Checked
}

// nextPrev is what the next iteration is compared with: this one's
// evidence, and the earlier evidence where this one has none.
func nextPrev(old *Prev, it *Iteration, m *measured) *Prev {
	next := &Prev{Tests: it.Tests, ErrorsKnown: it.ErrorsKnown}
	if old != nil {
		next.Tree = old.Tree
		next.Percent = old.Percent
		next.TasksDone = old.TasksDone
		next.TasksTotal = old.TasksTotal
		if it.Tests == nil {
			next.Tests = old.Tests
		}
	}
	for _, e := range m.errs[:min(len(m.errs), 64)] {
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
		d, n := it.Tasks.Done, it.Tasks.Total
		next.TasksDone, next.TasksTotal = &d, &n
	}
	return next
}

// bump counts a signature, evicting the least counted when full.
func bump(list []ErrorCount, sig Signature) []ErrorCount {
	if i := slices.IndexFunc(list, func(e ErrorCount) bool { return e.Hash == sig.Hash }); i >= 0 {
		list[i].Count++
		return list
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
func truncate(s string) string { return bound(s, maxSample) }

// bound cuts s to at most n bytes on a rune boundary, marking the cut
// with "…".
func bound(s string, n int) string {
	return textcut.Bytes(s, n+len(textcut.Ellipsis), textcut.Ellipsis)
}
