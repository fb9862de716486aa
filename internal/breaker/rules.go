package breaker

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/policy"
)

// firingKind is what a firing rule asks for.
type firingKind int

const (
	kindWarn  firingKind = iota // a warning in the decision
	kindWatch                   // move CLOSED to HALF_OPEN
	kindTrip                    // open the breaker
)

// firing is one rule's verdict on an iteration.
type firing struct {
	rule   string
	kind   firingKind
	reason string
	// hold makes a watch hold against progress: the breaker stays (or
	// goes) HALF_OPEN although the iteration made progress.
	hold bool
	// frees is, for a rate trip, when the rolling hour has room again.
	frees *time.Time
}

// rule is one trip rule: its trigger name (its keys are rules.NAME.*), its
// switch, and its check of the state after the iteration was counted.
type rule struct {
	name  string
	on    func(r *policy.Rules) bool
	check func(c *ruleCheck)
	// stagnation marks the rules that see the loop going nowhere: only
	// they arm the watch after recovery.
	stagnation bool
}

// rules are the trip rules in trigger priority, causes before caps: the
// first trip is the trigger reported.
var rules = []rule{
	{
		name:  policy.RuleProtectedPath,
		on:    func(r *policy.Rules) bool { return r.ProtectedPath.Enabled },
		check: checkProtectedPath,
	},
	{
		name:  policy.RulePermissionDenied,
		on:    func(r *policy.Rules) bool { return r.PermissionDenied.Enabled },
		check: checkPermissionDenied,
	},
	{
		name:       policy.RuleSameError,
		on:         func(r *policy.Rules) bool { return r.SameError.Enabled },
		check:      checkSameError,
		stagnation: true,
	},
	{
		name:       policy.RuleCircular,
		on:         func(r *policy.Rules) bool { return r.Circular.Enabled },
		check:      checkCircular,
		stagnation: true,
	},
	{
		name:  policy.RuleTestOnly,
		on:    func(r *policy.Rules) bool { return r.TestOnly.Enabled },
		check: checkTestOnly,
	},
	{
		name:  policy.RuleOutputDecline,
		on:    func(r *policy.Rules) bool { return r.OutputDecline.Enabled },
		check: checkOutputDecline,
	},
	{
		name:  policy.RuleCompletionClaim,
		on:    func(r *policy.Rules) bool { return r.CompletionClaim.CompletionClaim != policy.ClaimOff },
		check: checkCompletionClaim,
	},
	{
		name:       policy.RuleNoProgress,
		on:         func(r *policy.Rules) bool { return r.NoProgress.Enabled },
		check:      checkNoProgress,
		stagnation: true,
	},
	{
		name:  policy.RuleTaskStuck,
		on:    func(r *policy.Rules) bool { return r.TaskStuck.Enabled },
		check: checkTaskStuck,
	},
	{
		name:       policy.RuleSpend,
		on:         func(r *policy.Rules) bool { return r.Spend.On() },
		check:      checkSpend,
		stagnation: true,
	},
	{
		name:  policy.RuleScore,
		on:    func(r *policy.Rules) bool { return r.Score.Enabled },
		check: checkScore,
	},
	{
		name:  policy.RuleRate,
		on:    func(r *policy.Rules) bool { return r.Rate.Enabled },
		check: checkRate,
	},
	{
		name:  policy.RuleMaxIterations,
		on:    func(r *policy.Rules) bool { return r.MaxIterations.Enabled },
		check: checkMaxIterations,
	},
}

// stagnationRule reports whether a trigger is a stagnation rule's.
func stagnationRule(name string) bool {
	i := slices.IndexFunc(rules, func(r rule) bool { return r.name == name })
	return i >= 0 && rules[i].stagnation
}

// ruleCheck is what a rule's check reads, and where it adds its firings.
type ruleCheck struct {
	r    *policy.Rules
	s    *Snapshot
	it   *Iteration
	m    *measured
	rule string // the rule being checked
	out  []firing
}

// fire adds a firing of the rule being checked.
func (c *ruleCheck) fire(kind firingKind, format string, args ...any) *firing {
	c.out = append(c.out, firing{rule: c.rule, kind: kind, reason: fmt.Sprintf(format, args...)})
	return &c.out[len(c.out)-1]
}

// evaluate walks the rule table: every rule the policy switches on, in
// trigger order.
func evaluate(pol *policy.Policy, s *Snapshot, it *Iteration, m *measured) []firing {
	c := &ruleCheck{r: &pol.Rules, s: s, it: it, m: m}
	for i := range rules {
		if r := &rules[i]; r.on(c.r) {
			c.rule = r.name
			r.check(c)
		}
	}
	return c.out
}

func checkProtectedPath(c *ruleCheck) {
	if c.it.Change == nil {
		return
	}
	del, mod := c.it.Change.ProtectedDeleted, c.it.Change.ProtectedModified
	switch c.r.ProtectedPath.ProtectedMode {
	case policy.ProtectedDelete:
		if len(del) > 0 {
			c.fire(kindTrip, "deleted protected path %s", quoteList(del))
		}
		if len(mod) > 0 {
			c.fire(kindWarn, "modified protected path %s", quoteList(mod))
		}
	case policy.ProtectedDeny:
		if len(del) > 0 {
			c.fire(kindTrip, "deleted protected path %s", quoteList(del))
		} else if len(mod) > 0 {
			c.fire(kindTrip, "modified protected path %s", quoteList(mod))
		}
	case policy.ProtectedWarn:
		if len(del)+len(mod) > 0 {
			c.fire(kindWarn, "touched protected path %s", quoteList(append(append([]string{}, del...), mod...)))
		}
	}
}

func checkPermissionDenied(c *ruleCheck) {
	if n := c.s.DenialStreak; n >= c.r.PermissionDenied.PermissionDeniedThreshold {
		c.fire(kindTrip, "tool permission denials in %d consecutive iterations", n)
	}
}

func checkSameError(c *ruleCheck) {
	primary := c.m.primary
	if primary == nil {
		return
	}
	n := c.r.SameError.SameErrorThreshold
	switch c.r.SameError.SameErrorMode {
	case policy.SameErrorConsecutive:
		if c.s.PrimaryStreak >= n {
			if c.m.same || c.s.PrimaryStreak == 1 {
				c.fire(kindTrip, "same error in %d consecutive iterations: %s", c.s.PrimaryStreak, primary.Sample)
			} else {
				c.fire(kindTrip, "errors that keep coming back in %d consecutive iterations (each seen within the last %d), the last: %s", c.s.PrimaryStreak, n, primary.Sample)
			}
		}
	case policy.SameErrorTotal:
		for _, ec := range c.s.ErrorCounts {
			if ec.Hash == primary.Hash && ec.Count >= n {
				c.fire(kindTrip, "same error %d times since the last reset: %s", ec.Count, primary.Sample)
			}
		}
	case policy.SameErrorAny:
		if c.s.ErrorStreak >= n {
			c.fire(kindTrip, "errors in %d consecutive iterations, the last: %s", c.s.ErrorStreak, primary.Sample)
		}
	}
}

func checkCircular(c *ruleCheck) {
	cr := c.r.Circular
	trees, claims := 0, 0
	for _, e := range tail(c.s.Window, cr.CircularWindow) {
		switch {
		case e.Returned:
			trees++
		case e.Again:
			claims++
		}
	}
	switch n := trees + claims; {
	case n < cr.CircularThreshold:
	case claims == 0:
		c.fire(kindTrip, "the tree returned to an earlier state %d times in the last %d iterations: the agent is alternating or reverting itself", n, cr.CircularWindow)
	case trees == 0:
		c.fire(kindTrip, "the same claim of done work came back %d times in the last %d iterations with no new work: the loop is going round%s", n, cr.CircularWindow, c.m.claimSample())
	default:
		c.fire(kindTrip, "the loop went round %d times in the last %d iterations: the tree returned to an earlier state, or a claim of done work came back with no new work", n, cr.CircularWindow)
	}
}

// checkTestOnly trips on tests rewritten, and on more than
// test_only_percent of the window's changed lines in tests edited while
// nothing else moved (measured.measureTestOnly).
func checkTestOnly(c *ruleCheck) {
	to := c.r.TestOnly
	if n := c.m.rewritten; n > 0 {
		c.fire(kindTrip, "tests rewritten: %d failing %s turned green while only existing tests changed and no code did", n, plural(n, "test", "tests"))
		return
	}
	if !c.m.testOnly {
		return
	}
	w := lastWithLines(c.s.Window, to.TestOnlyWindow)
	if len(w) < to.TestOnlyWindow {
		return
	}
	lines, testLines := 0, 0
	for _, e := range w {
		lines += e.Lines
		testLines += e.TestLines
	}
	if lines == 0 {
		return
	}
	if share := float64(testLines) * 100 / float64(lines); share > to.TestOnlyPercent {
		c.fire(kindTrip, "%.0f%% of the lines changed in the last %d iterations are in test files and no failing test was fixed", share, to.TestOnlyWindow)
	}
}

func checkOutputDecline(c *ruleCheck) {
	od := c.r.OutputDecline
	recent, base, ok := outputMeans(c.s, od.OutputWindow)
	if !ok || base <= 0 {
		return
	}
	if decline := (base - recent) * 100 / base; decline >= od.OutputDeclinePercent {
		c.fire(kindTrip, "agent output fell %.0f%% (%.0f lines per iteration against a baseline of %.0f)", decline, recent, base)
	}
}

func checkCompletionClaim(c *ruleCheck) {
	it := c.it
	if !it.CompletionClaimed {
		return
	}
	var why string
	switch {
	case it.Tests != nil && it.Tests.BuildFailed:
		why = "the build fails"
	case it.Tests != nil && it.Tests.Failed > 0:
		why = fmt.Sprintf("%d tests fail", it.Tests.Failed)
	case it.Tasks != nil && it.Tasks.Done < it.Tasks.Total:
		why = fmt.Sprintf("%d of %d tasks remain", it.Tasks.Total-it.Tasks.Done, it.Tasks.Total)
	default:
		return
	}
	kind := kindWarn
	if c.r.CompletionClaim.CompletionClaim == policy.ClaimTrip {
		kind = kindTrip
	}
	c.fire(kind, "the agent claims completion while %s", why)
}

func checkNoProgress(c *ruleCheck) {
	np, n := c.r.NoProgress, c.s.ConsecutiveNoProgress
	switch {
	case n >= np.NoProgressThreshold:
		c.fire(kindTrip, "no progress in %d consecutive iterations", n)
	case n >= np.HalfOpenAfter:
		c.fire(kindWatch, "no progress in %d consecutive iterations", n)
	}
}

// checkTaskStuck fires on a task current for task_timeout_iterations with
// none completed; its watch holds against progress (files change, the
// task does not move).
func checkTaskStuck(c *ruleCheck) {
	ts, cur := c.r.TaskStuck, c.s.Current
	if cur == nil || cur.Iterations < ts.TaskTimeoutIterations || !(c.s.TasksLive || strings.HasPrefix(cur.ID, statusTaskPrefix)) {
		return
	}
	kind := kindWatch
	if ts.TaskStuckAction == policy.StuckOpen {
		kind = kindTrip
	}
	f := c.fire(kind, "task %q has been the current task for %d iterations with no task completed", cur.Text, cur.Iterations)
	f.hold = true
}

func checkScore(c *ruleCheck) {
	sc := c.r.Score
	sum, ok := windowScore(c.s.Window, sc.ScoreWindow)
	if !ok || sum >= 0 {
		return
	}
	kind := kindWatch
	if sc.ScoreAction == policy.ScoreOpen {
		kind = kindTrip
	}
	c.fire(kind, "progress score %d over the last %d iterations", sum, sc.ScoreWindow)
}

// checkRate opens on more than max_iterations_per_hour in the rolling
// hour and warns from rate_warning_percent.
func checkRate(c *ruleCheck) {
	rt, n := c.r.Rate, len(c.s.Hour)
	most := rt.MaxIterationsPerHour
	switch {
	case n > most:
		frees := rateFrees(c.s.Hour, most)
		f := c.fire(kindTrip, "%d iterations within one hour (at most %d); the window frees up at %s", n, most, frees.UTC().Format(time.RFC3339))
		f.frees = &frees
	case rt.RateWarningPercent > 0 && float64(n)*100 >= rt.RateWarningPercent*float64(most):
		c.fire(kindWarn, "rate: %d of at most %d iterations in the last hour", n, most)
	}
}

// rateFrees is when the next iteration no longer exceeds most in its
// rolling hour.
func rateFrees(hour []time.Time, most int) time.Time {
	return hour[len(hour)-most].Add(time.Hour)
}

func checkMaxIterations(c *ruleCheck) {
	mi, n := c.r.MaxIterations, c.s.SinceReset
	switch {
	case n >= mi.MaxIterations:
		c.fire(kindTrip, "iteration %d reached max_iterations (%d) since the last reset", n, mi.MaxIterations)
	case mi.CriticalIterations > 0 && n >= mi.CriticalIterations:
		c.fire(kindWarn, "critical: iteration %d of at most %d", n, mi.MaxIterations)
	case mi.WarningIterations > 0 && n >= mi.WarningIterations:
		c.fire(kindWarn, "warning: iteration %d of at most %d", n, mi.MaxIterations)
	}
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

// windowScore sums the scores of the newest n entries; ok is false while
// the window holds fewer.
func windowScore(w []Entry, n int) (sum int, ok bool) {
	if len(w) < n {
		return 0, false
	}
	for _, e := range tail(w, n) {
		sum += e.Score
	}
	return sum, true
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
