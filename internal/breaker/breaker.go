package breaker

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/policy"
)

// Bounds on the snapshot, so that memory and state files stay small however
// long the loop runs.
const (
	MaxHistory     = 100           // transition events kept
	MaxRecent      = 10            // status-log steps kept
	MaxErrorCounts = 32            // distinct error signatures counted
	MaxTrees       = 512           // distinct trees remembered for the circular rule
	MaxCompleted   = 4096          // identities of completed tasks remembered
	MaxSeenErrors  = 64            // error signatures remembered with the iteration they were last seen
	MaxClaims      = 64            // claims of done work remembered
	maxTestPaths   = 32            // test files remembered per iteration for the test_only rule
	MaxCount       = 1_000_000_000 // largest count an iteration may report
	trendLen       = 10            // output_trend values
	maxFailing     = 20            // failing test names kept per iteration
	maxSample      = 300           // bytes of an error sample kept
	maxTaskText    = 120           // bytes of the current task's text kept
)

// Snapshot is the breaker's complete state. It is bounded by the rule
// windows, not by the loop's length, and is what a state file stores.
type Snapshot struct {
	State                 State         `json:"state"`
	Iteration             int           `json:"iteration"`
	LastAt                time.Time     `json:"last_at"`
	LastCommit            string        `json:"last_commit,omitempty"`
	SinceReset            int           `json:"since_reset"`
	ConsecutiveNoProgress int           `json:"consecutive_no_progress"`
	Held                  int           `json:"held"`
	LastProgress          *time.Time    `json:"last_progress,omitempty"`
	OpenedAt              *time.Time    `json:"opened_at,omitempty"`
	CooldownUntil         *time.Time    `json:"cooldown_until,omitempty"`
	Cooldown              time.Duration `json:"cooldown,omitempty"`
	Probing               bool          `json:"probing,omitempty"`
	ProbesLeft            int           `json:"probes_left,omitempty"`
	IgnoredOpen           int           `json:"ignored_open"`
	ForcedOpen            bool          `json:"forced_open,omitempty"`
	Trigger               string        `json:"trigger,omitempty"`
	Reason                string        `json:"reason,omitempty"`
	LastTransitionAt      time.Time     `json:"last_transition_at"`
	Opens                 int           `json:"opens"`
	TaskHigh              *int          `json:"task_high,omitempty"`
	// Completed are the identities of the tasks completed since the last
	// reset (and those checked before the loop), oldest first.
	Completed []string `json:"tasks_completed,omitempty"`
	// PercentHigh is the highest reported percentage since the last reset.
	PercentHigh   *float64     `json:"percent_high,omitempty"`
	Prev          *Prev        `json:"prev,omitempty"`
	PrimaryStreak int          `json:"primary_streak"`
	ErrorStreak   int          `json:"error_streak"`
	DenialStreak  int          `json:"denial_streak"`
	ErrorCounts   []ErrorCount `json:"error_counts,omitempty"`
	// Seen are the error signatures of the recent iterations, each with the
	// iteration it was last seen in.
	Seen       []SeenError `json:"errors_seen,omitempty"`
	Window     []Entry     `json:"window,omitempty"`
	OutputBase OutputBase  `json:"output_base"`
	Trees      []string    `json:"trees,omitempty"`
	// ReturnMark is how many of Trees were known at the newest return to
	// an earlier tree (0: none since the reset).
	ReturnMark       int         `json:"return_mark,omitempty"`
	Hour             []time.Time `json:"hour,omitempty"`
	LastWarnings     []string    `json:"last_warnings,omitempty"`
	LastScore        int         `json:"last_score"`
	LastProgressFlag bool        `json:"last_progress_flag"`
	LastPhase        string      `json:"last_phase,omitempty"`
	History          []Event     `json:"history,omitempty"`
	Recent           []Step      `json:"recent,omitempty"`
	// Current is the task the loop is on (the task_stuck rule).
	Current *TaskRun `json:"current_task,omitempty"`
	// TasksLive says the loop completed a task of its lists: until then
	// task_stuck judges only a task a status block names.
	TasksLive bool `json:"tasks_live,omitempty"`
	// WatchLeft counts the iterations left of the watch after recovery.
	WatchLeft int `json:"watch_left,omitempty"`
	// Stagnant says a stagnation rule raised the HALF_OPEN or OPEN the
	// breaker is in: recovering arms the watch.
	Stagnant bool `json:"stagnant,omitempty"`
	// RateFreesAt is when the rolling hour has room again after a rate trip.
	RateFreesAt *time.Time `json:"rate_frees_at,omitempty"`
	// Complete is the evidence that the newest iteration finished the
	// work; nil otherwise.
	Complete *Completion `json:"complete,omitempty"`
	// Journal follows the recent prose and churn files, to learn the journal.
	Journal []TextSeen `json:"journal,omitempty"`
	// WorkSinceTick says the work changed since the last credited tick.
	WorkSinceTick bool `json:"work_since_tick,omitempty"`
	// Spend is what the iterations since the reset reported spending.
	Spend *Spend `json:"spend,omitempty"`
	// Claims are the claims of done work since the reset, oldest first.
	Claims []ClaimSeen `json:"claims,omitempty"`
	// AfterProgress says the newest iteration that was not bookkeeping
	// made progress; Bookkept counts the bookkeeping ones since.
	AfterProgress bool `json:"after_progress,omitempty"`
	Bookkept      int  `json:"bookkept,omitempty"`
	// AgentPhase is the phase the agent chose last, PhaseRun its run.
	AgentPhase string `json:"agent_phase,omitempty"`
	PhaseRun   int    `json:"phase_run,omitempty"`
}

// TaskRun is the current task and how many iterations in a row it has
// been current while no task was completed.
type TaskRun struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	Iterations int    `json:"iterations"`
}

// Prev is what the next iteration is compared with.
type Prev struct {
	Tests       *Tests   `json:"tests,omitempty"`
	ErrorsKnown bool     `json:"errors_known"`
	Errors      []string `json:"errors,omitempty"` // hashes
	Primary     string   `json:"primary,omitempty"`
	Percent     *float64 `json:"percent,omitempty"`
	Tree        string   `json:"tree,omitempty"`
	// TasksDone is the newest checked-task count; a reset starts the
	// high-water mark from it.
	TasksDone *int `json:"tasks_done,omitempty"`
	// TasksTotal is the newest task count, to tell new tasks from new
	// notes in a plan that grew.
	TasksTotal *int `json:"tasks_total,omitempty"`
}

// ClaimSeen is a claim of done work and whether new work followed it.
type ClaimSeen struct {
	Hash      string `json:"hash"`
	WorkSince bool   `json:"work_since,omitempty"`
}

// ErrorCount counts one error signature.
type ErrorCount struct {
	Hash   string `json:"hash"`
	Sample string `json:"sample"`
	Count  int    `json:"count"`
}

// SeenError is an error signature and the iteration it was last seen in.
type SeenError struct {
	Hash      string `json:"hash"`
	Iteration int    `json:"iteration"`
}

// Entry is one iteration in the rule windows.
type Entry struct {
	At    time.Time `json:"at"`
	Score int       `json:"score"`
	Fixed int       `json:"fixed"`
	// Lines are the meaningful lines changed; an entry without lines takes
	// no place in the test_only window.
	Lines int `json:"lines"`
	// TestLines are the lines the test_only rule counts.
	TestLines int `json:"test_lines"`
	// TestPaths identify the test files the iteration changed (bounded).
	TestPaths []string `json:"test_paths,omitempty"`
	// Code says the iteration changed code (not tests, data or journal).
	Code bool `json:"code,omitempty"`
	// Retune is the iteration's Change.Retune.
	Retune string `json:"retune,omitempty"`
	// Returned says the tree went back to one known at the previous
	// return: going round.
	Returned bool `json:"returned,omitempty"`
	// Again says the same claim came back with no new work: going round.
	Again     bool `json:"again,omitempty"`
	HasOutput bool `json:"has_output,omitempty"`
	Output    int  `json:"output"`
	// Passed and Errors (distinct) feed the trends, when known.
	HasTests  bool `json:"has_tests,omitempty"`
	Passed    int  `json:"passed,omitempty"`
	HasErrors bool `json:"has_errors,omitempty"`
	Errors    int  `json:"errors,omitempty"`
}

// OutputBase accumulates output of iterations that left the window.
type OutputBase struct {
	Sum   int64 `json:"sum"`
	Count int   `json:"count"`
}

// Options are the per-run controls of a breaker.
type Options struct {
	// Profile names a policy profile to apply ("" for none).
	Profile string
	// Phase is the phase for iterations that carry none.
	Phase string
	// BaseTree is the tree the loop started from, when known: returning to
	// it is a return to an earlier tree like any other.
	BaseTree string
}

// Breaker folds iterations into decisions. It is not safe for concurrent use.
type Breaker struct {
	base   *policy.Policy
	phases map[string]*policy.Policy
	opts   Options
	window int // iterations kept in Snapshot.Window
	hour   int // times kept in Snapshot.Hour: what the strictest rate rule needs
	s      Snapshot
}

// New returns a fresh CLOSED breaker for the policy.
func New(p *policy.Policy, opts Options) (*Breaker, error) {
	if p == nil {
		return nil, errors.New("breaker: nil policy")
	}
	base, err := p.WithProfile(opts.Profile)
	if err != nil {
		return nil, err
	}
	if opts.Phase != "" && !base.HasPhase(opts.Phase) {
		return nil, fmt.Errorf("policy %s has no phase %q (known: %s)", base.Name, opts.Phase, list(base.PhaseNames()))
	}
	b := &Breaker{base: base, phases: map[string]*policy.Policy{}, opts: opts}
	b.window, b.hour = windowSize(base), hourSize(base)
	for _, ph := range base.PhaseNames() {
		eff := base.WithPhase(ph)
		b.phases[ph] = eff
		b.window = max(b.window, windowSize(eff))
		b.hour = max(b.hour, hourSize(eff))
	}
	if opts.BaseTree != "" {
		b.s.Trees = []string{opts.BaseTree}
		b.s.Prev = &Prev{Tree: opts.BaseTree}
	}
	return b, nil
}

// hourSize is how many iteration times the rate rule needs: one more than
// it allows, or none when it is off.
func hourSize(p *policy.Policy) int {
	if !p.Rules.Rate.Enabled {
		return 0
	}
	return p.Rules.Rate.MaxIterationsPerHour + 1
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func windowSize(p *policy.Policy) int {
	r := p.Rules
	return max(trendLen, r.Score.ScoreWindow, r.TestOnly.TestOnlyWindow, r.Circular.CircularWindow, r.OutputDecline.OutputWindow+2,
		p.Trends.TrendIterations+1)
}

// Snapshot returns a copy of the breaker's state that shares no memory
// with the breaker.
func (b *Breaker) Snapshot() Snapshot { return b.s.clone() }

// clone deep-copies a snapshot, so that a breaker and the snapshots taken
// from it (or restored into it) never write to each other's lists.
func (s Snapshot) clone() Snapshot {
	c := s
	c.LastProgress = clonePtr(s.LastProgress)
	c.OpenedAt = clonePtr(s.OpenedAt)
	c.CooldownUntil = clonePtr(s.CooldownUntil)
	c.RateFreesAt = clonePtr(s.RateFreesAt)
	c.Current = clonePtr(s.Current)
	c.Complete = s.Complete.clone()
	c.Spend = clonePtr(s.Spend)
	c.TaskHigh = clonePtr(s.TaskHigh)
	c.PercentHigh = clonePtr(s.PercentHigh)
	if s.Prev != nil {
		p := *s.Prev
		p.Tests = cloneTests(s.Prev.Tests)
		p.Errors = slices.Clone(s.Prev.Errors)
		p.Percent = clonePtr(s.Prev.Percent)
		p.TasksDone = clonePtr(s.Prev.TasksDone)
		p.TasksTotal = clonePtr(s.Prev.TasksTotal)
		c.Prev = &p
	}
	c.Completed = slices.Clone(s.Completed)
	c.Claims = slices.Clone(s.Claims)
	c.ErrorCounts = slices.Clone(s.ErrorCounts)
	c.Seen = slices.Clone(s.Seen)
	c.Window = slices.Clone(s.Window)
	for i := range c.Window {
		c.Window[i].TestPaths = slices.Clone(c.Window[i].TestPaths)
	}
	c.Trees = slices.Clone(s.Trees)
	c.Journal = slices.Clone(s.Journal)
	for i := range c.Journal {
		c.Journal[i].Iterations = slices.Clone(c.Journal[i].Iterations)
	}
	c.Hour = slices.Clone(s.Hour)
	c.LastWarnings = slices.Clone(s.LastWarnings)
	c.History = slices.Clone(s.History)
	c.Recent = slices.Clone(s.Recent)
	for i := range c.Recent {
		st := &c.Recent[i]
		st.Signals = slices.Clone(st.Signals)
		st.Files = slices.Clone(st.Files)
		st.Errors = slices.Clone(st.Errors)
		st.Tests = cloneTests(st.Tests)
		st.Cost = cloneCost(st.Cost)
	}
	return c
}

// keepLast drops all but the newest n elements, in place: the breaker's
// lists are its own (Snapshot and Restore copy them).
func keepLast[T any](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	k := copy(s, s[len(s)-n:])
	clear(s[k:])
	return s[:k]
}

// clonePtr copies the value p points to; nil stays nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneTests copies a test summary, keeping at most maxFailing names.
func cloneTests(t *Tests) *Tests {
	if t == nil {
		return nil
	}
	c := *t
	c.Failing = slices.Clone(t.Failing[:min(len(t.Failing), maxFailing)])
	return &c
}

// lastTime is the time of the newest thing the breaker recorded: an
// iteration, or a transition made by Status, Reset or ForceOpen. Time may
// not go back past it.
func (s *Snapshot) lastTime() time.Time {
	if s.LastTransitionAt.After(s.LastAt) {
		return s.LastTransitionAt
	}
	return s.LastAt
}

// Policy returns the effective policy (with the profile applied).
func (b *Breaker) Policy() *policy.Policy { return b.base }

func (b *Breaker) effective(phase string) *policy.Policy {
	if phase == "" {
		phase = b.opts.Phase
	}
	if p, ok := b.phases[phase]; ok {
		return p
	}
	return b.base
}

// validate rejects measurements no honest evidence produces.
func (it *Iteration) validate(last time.Time) error {
	if it.At.IsZero() {
		return errors.New("iteration has no time")
	}
	if !last.IsZero() && it.At.Before(last) {
		return fmt.Errorf("iteration time %s is earlier than the last recorded event (%s)", it.At.Format(time.RFC3339), last.Format(time.RFC3339))
	}
	var errs []error
	fault := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	count := func(name string, v int) {
		switch {
		case v < 0:
			fault(fmt.Errorf("%s is negative (%d)", name, v))
		case v > MaxCount:
			fault(fmt.Errorf("%s is %d, above %d", name, v, MaxCount))
		}
	}
	count("permission denials", it.PermissionDenials)
	if c := it.Change; c != nil {
		count("files changed", c.MeaningfulFiles)
		count("lines changed", c.MeaningfulLines)
		count("test lines", c.TestLines)
		count("doc files", c.DocFiles)
		count("code files", c.CodeFiles)
		count("busy files", c.BusyFiles)
		count("busy lines", c.BusyLines)
		count("busy doc files", c.BusyDocFiles)
		if c.TestLines > c.MeaningfulLines {
			fault(fmt.Errorf("test lines (%d) exceed lines changed (%d)", c.TestLines, c.MeaningfulLines))
		}
		for _, f := range c.TestFiles {
			count("test file lines", f.Lines)
		}
	}
	if t := it.Tests; t != nil {
		count("tests passing", t.Passed)
		count("tests failing", t.Failed)
		count("tests skipped", t.Skipped)
	}
	if o := it.Output; o != nil {
		count("output lines", o.Lines)
		if o.Bytes < 0 {
			fault(fmt.Errorf("output bytes is negative (%d)", o.Bytes))
		}
	}
	if it.ClaimedFiles != nil {
		count("files modified", *it.ClaimedFiles)
	}
	if t := it.Tasks; t != nil {
		count("tasks done", t.Done)
		count("tasks total", t.Total)
		if t.Total > 0 && t.Done > t.Total {
			fault(fmt.Errorf("tasks done (%d) exceed tasks total (%d)", t.Done, t.Total))
		}
	}
	if it.TasksBefore != nil {
		count("tasks before", *it.TasksBefore)
	}
	if tc := it.TaskChange; tc != nil {
		count("tasks unchecked", tc.Unchecked)
	}
	if p := it.ProgressPercent; p != nil && (math.IsNaN(*p) || *p < 0 || *p > 100) {
		fault(fmt.Errorf("progress percent %v is out of range: want 0 to 100", *p))
	}
	fault(it.Cost.check())
	return errors.Join(errs...)
}

// Observe folds one iteration and returns the decision after it.
func (b *Breaker) Observe(it Iteration) (Decision, error) {
	if err := it.validate(b.s.lastTime()); err != nil {
		return Decision{}, err
	}
	// The snapshot keeps the test summary: copy it, bounded, so that the
	// caller's Iteration is never retained.
	it.Tests = cloneTests(it.Tests)
	s := &b.s
	s.Iteration++
	s.LastAt = it.At
	s.LastCommit = it.Commit
	phase := it.Phase
	if it.PhaseByAgent && phase != "" {
		phase = b.agentPhase(phase)
	}
	if phase == "" {
		phase = b.opts.Phase
	}
	s.LastPhase = phase
	pol := b.effective(phase)
	if b.passOver(pol, &it, phase) {
		return b.decision(pol, nil), nil
	}

	m := measure(pol, s, &it)
	b.advance(pol, &it, &m)
	trip, watch, hold := b.sortFirings(evaluate(pol, s, &it, &m))
	if m.regression != "" {
		s.LastWarnings = append(s.LastWarnings, m.regression)
	}
	trends := trendWarnings(pol, s, &it)
	s.LastWarnings = append(s.LastWarnings, trends...)
	b.settle(&it, &m, trip, watch, hold)
	s.Complete = nil
	if s.State != Open {
		s.Complete = completion(&it, s.Prev)
	}
	b.pushRecent(Step{Iteration: s.Iteration, At: it.At, Commit: it.Commit, Phase: phase, State: s.State,
		Progress: m.progress, Signals: m.signals, Score: m.score, TasksCompleted: m.tasksNew,
		FilesChanged: m.files, Files: changedFiles(it.Change), Tests: it.Tests, Errors: samples(m.errs), Risk: b.risk(pol),
		Trend: len(trends) > 0, Cost: cloneCost(it.Cost)})
	return b.decision(pol, &m), nil
}

// agentPhase bounds a phase the agent chose: it may stay, move on along
// the phase order or restart at the first phase, for phase_iterations
// iterations in a row at most ("" once spent).
func (b *Breaker) agentPhase(want string) string {
	s := &b.s
	order := b.base.PhaseOrder
	at := func(ph string) int { return slices.Index(order, ph) }
	next := s.AgentPhase
	switch {
	case next == "" || want == next:
		next = want
	case at(want) >= 0 && (at(want) > at(next) || at(want) == 0):
		next = want
	}
	if next == s.AgentPhase {
		s.PhaseRun++
	} else {
		s.AgentPhase, s.PhaseRun = next, 1
	}
	if s.PhaseRun > b.base.Breaker.PhaseIterations {
		return ""
	}
	return next
}

// passOver reports and records an iteration that is not measured: one
// run while OPEN (unless the cooldown is due: then it is the probe), or,
// while probing, a re-run of a commit older than the last transition.
func (b *Breaker) passOver(pol *policy.Policy, it *Iteration, phase string) bool {
	s := &b.s
	rerun := !it.CommitAt.IsZero() && it.CommitAt.Before(s.LastTransitionAt)
	switch {
	case s.State == Open && !s.ForcedOpen && b.cooldownDue(it.At) && !rerun:
		b.startProbe(it.At)
		return false
	case s.State == Open:
		s.IgnoredOpen++
		s.addSpend(it.Cost, false)
		s.LastScore, s.LastProgressFlag = 0, false
		s.LastWarnings = []string{fmt.Sprintf("iteration %d ran while the breaker was OPEN (%d ignored so far)", s.Iteration, s.IgnoredOpen)}
		b.pushRecent(Step{Iteration: s.Iteration, At: it.At, Commit: it.Commit, Phase: phase, State: Open,
			Risk: "HIGH", IgnoredOpen: true, Cost: cloneCost(it.Cost)})
		return true
	case s.Probing && rerun:
		s.addSpend(it.Cost, false)
		s.LastScore, s.LastProgressFlag = 0, false
		s.LastWarnings = []string{fmt.Sprintf("iteration %d re-ran a commit older than the last transition: not counted as a probe", s.Iteration)}
		b.pushRecent(Step{Iteration: s.Iteration, At: it.At, Commit: it.Commit, Phase: phase, State: s.State, Risk: b.risk(pol)})
		return true
	}
	return false
}

// sortFirings returns the first trip and watch in trigger order, whether a
// watch holds against progress, and keeps the warnings.
func (b *Breaker) sortFirings(firings []firing) (trip, watch *firing, hold bool) {
	var warnings []string
	for i := range firings {
		f := &firings[i]
		switch f.kind {
		case kindTrip:
			if trip == nil {
				trip = f
			}
		case kindWatch:
			// A holding watch goes first: it is the one that applies to an
			// iteration with progress.
			if watch == nil || (f.hold && !watch.hold) {
				watch = f
			}
			hold = hold || f.hold
		case kindWarn:
			warnings = append(warnings, f.reason)
		}
	}
	b.s.LastWarnings = warnings
	return trip, watch, hold
}

// recurred heads the reason of an opening in the watch after recovery.
const recurred = "stagnation recurred after recovery: "

// settle makes the transition the iteration calls for (docs/policies.md):
// a probe closes or re-opens, a trip opens, progress closes unless a watch
// holds, a watch half-opens; the watch after recovery is stricter.
func (b *Breaker) settle(it *Iteration, m *measured, trip, watch *firing, hold bool) {
	s := &b.s
	watching := s.WatchLeft > 0 && !s.Probing
	if s.WatchLeft > 0 {
		s.WatchLeft--
	}
	reason := func(f *firing) string {
		if watching {
			return recurred + f.reason
		}
		return f.reason
	}
	switch {
	case s.Probing && trip != nil:
		b.open(it.At, trip.rule, "probe failed: "+trip.reason, true)
		b.waitForRate(trip.frees)
	case s.Probing && !m.progress:
		b.open(it.At, policy.RuleNoProgress, fmt.Sprintf("probe iteration %d made no progress", s.Iteration), true)
	case s.Probing:
		s.ProbesLeft--
		if s.ProbesLeft <= 0 {
			b.close(it.At, "probe", fmt.Sprintf("probe iteration %d made progress (%s)", s.Iteration, strings.Join(m.signals, ", ")))
			s.Cooldown = 0
		}
	case trip != nil:
		b.open(it.At, trip.rule, reason(trip), false)
		b.waitForRate(trip.frees)
	case m.progress && !hold:
		if s.State != Closed {
			b.close(it.At, "progress", fmt.Sprintf("progress resumed (%s)", strings.Join(m.signals, ", ")))
		}
	case watch != nil && watching && s.State == HalfOpen:
		b.open(it.At, watch.rule, reason(watch), false)
	case watch != nil:
		if s.State == Closed {
			b.transition(it.At, HalfOpen, watch.rule, watch.reason)
		} else {
			s.Trigger, s.Reason = watch.rule, watch.reason
			s.Stagnant = s.Stagnant || stagnationRule(watch.rule)
		}
	case watching && !m.progress && s.State == Closed:
		b.transition(it.At, HalfOpen, policy.RuleNoProgress, fmt.Sprintf("no progress in iteration %d, in the watch after recovery", s.Iteration))
	case watching && !m.progress:
		b.open(it.At, policy.RuleNoProgress, fmt.Sprintf("%sno progress in iteration %d", recurred, s.Iteration), false)
	}
}

// waitForRate keeps when the rolling hour frees up after a rate trip; with
// a cooldown the probe waits for it.
func (b *Breaker) waitForRate(frees *time.Time) {
	if frees == nil {
		return
	}
	s := &b.s
	t := *frees
	s.RateFreesAt = &t
	if s.CooldownUntil != nil {
		u := t
		s.CooldownUntil = &u
	}
}

func changedFiles(c *Change) []string {
	if c == nil || len(c.Files) == 0 {
		return nil
	}
	return upTo(c.Files, 20)
}

func samples(sigs []Signature) []string {
	var out []string
	for _, s := range sigs {
		out = append(out, truncate(s.Sample))
	}
	return upTo(out, 5)
}

// upTo keeps the first n of list and says how many more there were.
func upTo(list []string, n int) []string {
	if len(list) <= n {
		return slices.Clone(list)
	}
	return append(slices.Clone(list[:n]), fmt.Sprintf("… %d more", len(list)-n))
}

func (b *Breaker) cooldownDue(at time.Time) bool {
	return b.s.CooldownUntil != nil && !at.Before(*b.s.CooldownUntil)
}

// startProbe moves a cooled-down OPEN breaker to HALF_OPEN, the windows
// afresh so that the probe is judged on its own evidence.
func (b *Breaker) startProbe(at time.Time) {
	s := &b.s
	b.transition(at, HalfOpen, "cooldown", fmt.Sprintf("cooldown of %s elapsed; probing", s.Cooldown))
	s.Probing = true
	s.ProbesLeft = b.base.Breaker.ProbeIterations
	s.restartWindows()
}

// restartWindows starts the rule windows and streaks afresh.
func (s *Snapshot) restartWindows() {
	s.ConsecutiveNoProgress, s.Held = 0, 0
	s.PrimaryStreak, s.ErrorStreak, s.DenialStreak = 0, 0, 0
	s.Window, s.OutputBase, s.Seen = nil, OutputBase{}, nil
	s.Current, s.RateFreesAt = nil, nil
}

// Status returns the decision as of at, first applying a due cooldown
// transition (OPEN to HALF_OPEN). It records no iteration.
func (b *Breaker) Status(at time.Time) (Decision, error) {
	if last := b.s.lastTime(); at.Before(last) {
		return Decision{}, fmt.Errorf("status time %s is earlier than the last recorded event (%s)", at.Format(time.RFC3339), last.Format(time.RFC3339))
	}
	if b.s.State == Open && !b.s.ForcedOpen && b.cooldownDue(at) {
		b.startProbe(at)
	}
	return b.decision(b.effective(b.s.LastPhase), nil), nil
}

// Reset closes the circuit on a person's word and starts a new fold. The
// history survives and gains a reset event; iterations are not renumbered.
// A person can always reset: a time before the newest recorded event is
// taken as that event's time.
func (b *Breaker) Reset(at time.Time, reason string) error {
	s := &b.s
	if at.IsZero() {
		return errors.New("reset has no time")
	}
	if last := s.lastTime(); at.Before(last) {
		at = last
	}
	if strings.TrimSpace(reason) == "" {
		reason = "reset by a person"
	}
	b.event(at, s.State, Closed, "reset", reason)
	s.State = Closed
	s.restartWindows()
	s.SinceReset, s.IgnoredOpen = 0, 0
	s.OpenedAt, s.CooldownUntil, s.Cooldown = nil, nil, 0
	s.Probing, s.ProbesLeft, s.ForcedOpen = false, 0, false
	s.Trigger, s.Reason = "", ""
	s.ErrorCounts, s.Claims, s.Trees, s.ReturnMark = nil, nil, nil, 0
	s.Hour, s.LastWarnings, s.Complete, s.Spend = nil, nil, nil, nil
	s.WatchLeft, s.Stagnant = b.base.Breaker.WatchIterations, false
	s.AfterProgress, s.Bookkept = false, 0
	// Tasks count from the reset: each identity once more, and the count's
	// high-water mark from the newest count.
	s.Completed = nil
	s.PercentHigh = nil
	s.TaskHigh = nil
	if s.Prev != nil {
		s.Prev.Tree = ""
		if s.Prev.TasksDone != nil {
			v := *s.Prev.TasksDone
			s.TaskHigh = &v
		}
	}
	return nil
}

// ForceOpen holds the breaker OPEN on a person's word (an abort or a
// force-open label): no automatic transition leaves it until a reset.
func (b *Breaker) ForceOpen(at time.Time, reason string) error {
	s := &b.s
	if at.IsZero() {
		return errors.New("force-open has no time")
	}
	if last := s.lastTime(); at.Before(last) {
		return fmt.Errorf("force-open time %s is earlier than the last recorded event (%s)", at.Format(time.RFC3339), last.Format(time.RFC3339))
	}
	if strings.TrimSpace(reason) == "" {
		reason = "held open by a person"
	}
	if s.State != Open {
		b.open(at, "force_open", reason, false)
	} else {
		s.Trigger, s.Reason = "force_open", reason
	}
	s.ForcedOpen = true
	s.CooldownUntil = nil
	return nil
}

func (b *Breaker) event(at time.Time, from, to State, trigger, reason string) {
	s := &b.s
	s.History = append(s.History, Event{At: at, Iteration: s.Iteration, From: from, To: to, Trigger: trigger, Reason: reason})
	if len(s.History) > MaxHistory {
		s.History = keepLast(s.History, MaxHistory)
	}
	s.LastTransitionAt = at
}

func (b *Breaker) transition(at time.Time, to State, trigger, reason string) {
	s := &b.s
	b.event(at, s.State, to, trigger, reason)
	s.State = to
	s.Trigger, s.Reason = trigger, reason
	s.Stagnant = to != Closed && (s.Stagnant || stagnationRule(trigger))
}

func (b *Breaker) open(at time.Time, trigger, reason string, failedProbe bool) {
	s := &b.s
	cb := b.base.Breaker
	switch {
	case failedProbe:
		next := time.Duration(float64(s.Cooldown) * cb.CooldownMultiplier)
		if cb.CooldownMax.Set && next > cb.CooldownMax.D {
			next = cb.CooldownMax.D
		}
		s.Cooldown = next
		reason = fmt.Sprintf("%s; cooldown now %s", reason, next)
	case cb.Cooldown.Set:
		s.Cooldown = cb.Cooldown.D
	default:
		s.Cooldown = 0
	}
	b.transition(at, Open, trigger, reason)
	s.Probing, s.ProbesLeft = false, 0
	s.WatchLeft = 0
	s.RateFreesAt, s.Complete = nil, nil
	t := at
	s.OpenedAt = &t
	s.Opens++
	if cb.Cooldown.Set || failedProbe {
		u := at.Add(s.Cooldown)
		s.CooldownUntil = &u
	} else {
		s.CooldownUntil = nil
	}
}

func (b *Breaker) close(at time.Time, trigger, reason string) {
	s := &b.s
	stagnant := s.Stagnant
	b.transition(at, Closed, trigger, reason)
	s.Trigger, s.Reason = "", ""
	s.ConsecutiveNoProgress, s.Held = 0, 0
	s.Probing, s.ProbesLeft = false, 0
	s.OpenedAt, s.CooldownUntil, s.RateFreesAt = nil, nil, nil
	// Only stagnation is watched for after a recovery: a HALF_OPEN a score
	// window or a stuck task raised while work was landing is no reason.
	s.WatchLeft = 0
	if stagnant {
		s.WatchLeft = b.base.Breaker.WatchIterations
	}
}

func (b *Breaker) pushRecent(st Step) {
	s := &b.s
	s.Recent = append(s.Recent, st)
	if len(s.Recent) > MaxRecent {
		s.Recent = keepLast(s.Recent, MaxRecent)
	}
}

func (b *Breaker) risk(pol *policy.Policy) string {
	s := &b.s
	switch {
	case s.State == Open || s.ConsecutiveNoProgress+1 >= pol.Rules.NoProgress.NoProgressThreshold && s.ConsecutiveNoProgress > 0:
		return "HIGH"
	case s.State == HalfOpen || s.ConsecutiveNoProgress > 0:
		return "MEDIUM"
	}
	return "LOW"
}

// decision renders the snapshot as a Decision.
func (b *Breaker) decision(pol *policy.Policy, m *measured) Decision {
	s := &b.s
	if m != nil {
		s.LastScore, s.LastProgressFlag = m.score, m.progress
	}
	d := Decision{
		State:                 s.State,
		AllowContinue:         s.State != Open,
		Iteration:             s.Iteration,
		Commit:                s.LastCommit,
		Phase:                 s.LastPhase,
		Policy:                b.base.Name,
		ConsecutiveNoProgress: s.ConsecutiveNoProgress,
		ErrorCounts:           map[string]int{},
		OutputTrend:           []int{},
		LastProgress:          clonePtr(s.LastProgress),
		OpenedAt:              clonePtr(s.OpenedAt),
		CooldownUntil:         clonePtr(s.CooldownUntil),
		IgnoredOpen:           s.IgnoredOpen,
		RateFreesAt:           clonePtr(s.RateFreesAt),
		Warnings:              append([]string{}, s.LastWarnings...),
		ForcedOpen:            s.ForcedOpen,
		History:               append([]Event{}, s.History...),
		Recent:                append([]Step{}, s.Recent...),
		ProgressScore:         s.LastScore,
		Progress:              s.LastProgressFlag,
	}
	if !s.LastAt.IsZero() {
		d.At = clonePtr(&s.LastAt)
	}
	if s.State != Closed && s.Trigger != "" {
		tr, rs := s.Trigger, s.Reason
		d.Trigger, d.Reason = &tr, &rs
	}
	if s.State != Open {
		d.RateFreesAt = nil
	}
	if s.Complete != nil && s.State != Open {
		d.Complete, d.Completion = true, s.Complete.clone()
		d.AllowContinue = false
	}
	for _, ec := range s.ErrorCounts {
		d.ErrorCounts[ec.Sample] += ec.Count
	}
	d.spent(s.Spend)
	for _, e := range tail(s.Window, trendLen) {
		if e.HasOutput {
			d.OutputTrend = append(d.OutputTrend, e.Output)
		}
	}
	if sum, ok := windowScore(s.Window, pol.Rules.Score.ScoreWindow); ok && pol.Rules.Score.Enabled {
		d.WindowScore = &sum
	}
	// Iterations that ran while OPEN are a reason to escalate until the
	// breaker has closed again.
	d.Escalate = s.State == Open || (s.State == HalfOpen && s.IgnoredOpen > 0)
	if mp := b.base.Escalation.ModelProgression; d.Escalate && len(mp) > 0 {
		next := mp[min(s.Opens, len(mp)-1)]
		d.NextModel = &next
	}
	return d
}
