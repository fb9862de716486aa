package loop

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// A run that goes on from a checkpoint trusts it no further than it can
// check it (SPEC §11: a forged checkpoint can never loosen a decision).
// Before a state is used, the run
//
//   - finds its commit on HEAD's first-parent chain, walking back from HEAD
//     no further than that commit;
//   - folds the iterations after it again from git and the records, at
//     least reach of them (every window a rule looks back over, every
//     streak a rule counts up to), and compares the state after each one
//     with the digest the earlier run wrote for it: one differing bit
//     and the whole loop is folded instead;
//   - checks what lies outside that window against what it can derive
//     without git: the iteration count and time, the iterations since the
//     last reset a person made (since_reset and ignored_open, so that
//     max_iterations counts every record), the person controls applied,
//     the hold a person put on it, the rate rule's hour of iteration
//     times, the error counts and the highest percentage since the reset
//     (from the records), and that the state machine's fields agree with
//     its own history and the policy's cooldown.
//
// What it cannot derive without reading every earlier iteration again —
// which tasks were completed and which trees were seen since the reset,
// and a trip that a person has not reset, older than the window — it
// takes from the state; docs/reliability.md says what that leaves to the
// ledger's keeper. Policies that escalate to other models, or whose
// breaker is OPEN or probing under a cooldown, are always folded whole:
// their counts cannot be checked this way.

// policies are an effective policy (first) and its phases', each with
// the phase's overrides applied.
type policies []*policy.Policy

// policiesOf lists p and its phases.
func policiesOf(p *policy.Policy) policies {
	out := policies{p}
	for _, ph := range p.PhaseNames() {
		out = append(out, p.WithPhase(ph))
	}
	return out
}

// reach is how many iterations before the newest one a run that goes on
// from a checkpoint folds again: the breaker's rule windows and every
// count a rule trips at (no progress, held questions, errors, permission
// denials), in any phase.
func reach(pols policies) int {
	n := 0
	for _, p := range pols {
		n = max(n, breaker.WindowOf(p))
		r := p.Rules
		if r.NoProgress.Enabled {
			held := 0
			if p.Progress.QuestionsHold {
				held = p.Progress.MaxHeld
			}
			n = max(n, r.NoProgress.NoProgressThreshold+held)
		}
		if r.SameError.Enabled {
			n = max(n, r.SameError.SameErrorThreshold+1)
		}
		if r.PermissionDenied.Enabled {
			n = max(n, r.PermissionDenied.PermissionDeniedThreshold)
		}
	}
	return n
}

// unverifiable says why no checkpoint of a policy can be checked ("" when
// one can): escalation resets the breaker on its own and counts models.
func unverifiable(pols policies) string {
	if len(pols[0].Escalation.ModelProgression) > 0 {
		return "the policy escalates through escalation.model_progression"
	}
	for _, q := range pols {
		if q.OnOpen == policy.OnOpenEscalate {
			return "the policy's on_open is escalate"
		}
	}
	return ""
}

// hourSize is how many iteration times the rate rule keeps (0: off in
// every phase).
func hourSize(pols policies) int {
	n := 0
	for _, q := range pols {
		if q.Rules.Rate.Enabled {
			n = max(n, q.Rules.Rate.MaxIterationsPerHour+1)
		}
	}
	return n
}

// past is what a run knows for certain about the iterations up to a
// checkpoint's, without git.
type past struct {
	// iteration is the checkpoint's iteration number; commit its commit.
	iteration int
	commit    string
	// at are the iterations' times as the fold takes them, oldest first,
	// when known (ledger records); commitAt is the checkpoint's commit's
	// own time, when the times are not known.
	at       []time.Time
	commitAt time.Time
	// records are the iterations' records (nil without a ledger).
	records []recordFacts
	// controls are the person controls, oldest first.
	controls []Control
	now      time.Time
}

// recordFacts is what a record says that a state's counts come from.
type recordFacts struct {
	primary string // the first error's hash ("" for none)
	percent *float64
}

// verify checks a state against what is known for certain (see above),
// under the effective policy p; the error says what does not agree.
func verify(st *State, pols policies, k *past) error {
	s := &st.Breaker
	if why := unverifiable(pols); why != "" {
		return errors.New(why)
	}
	if s.Iteration != k.iteration {
		return fmt.Errorf("it says iteration %d, the ledger has %d iterations up to it", s.Iteration, k.iteration)
	}
	if s.LastCommit != k.commit {
		return fmt.Errorf("it names commit %s, its record %s", short(s.LastCommit), short(k.commit))
	}
	if st.Future > 0 {
		return errors.New("its fold took an iteration at its run's time")
	}
	last := k.commitAt
	if k.at != nil {
		last = k.at[len(k.at)-1]
		if !s.LastAt.Equal(last) {
			return fmt.Errorf("it says its iteration was at %s, the records %s", s.LastAt.Format(time.RFC3339), last.Format(time.RFC3339))
		}
	}
	if s.LastAt.Before(last) || s.LastAt.After(k.now) {
		return fmt.Errorf("its time %s is before its commit's or after this run", s.LastAt.Format(time.RFC3339))
	}
	applied, start, forced, err := k.applied(s.LastAt)
	if err != nil {
		return err
	}
	since := k.iteration - start
	if applied != st.Controls {
		return errors.New("the person controls it applied are not this run's")
	}
	if s.SinceReset+s.IgnoredOpen != since {
		return fmt.Errorf("it counts %d iterations since the last reset (%d measured, %d while OPEN), the ledger %d", s.SinceReset+s.IgnoredOpen, s.SinceReset, s.IgnoredOpen, since)
	}
	if s.ForcedOpen != forced {
		return errors.New("it does not hold the breaker OPEN as the person controls say")
	}
	if err := verifyMachine(s, pols); err != nil {
		return err
	}
	return verifyCounts(st, pols, k, since)
}

// applied goes through the person controls applied up to the
// checkpoint's time (upTo): their digest, the index of the first
// iteration after the last that reset the breaker (0 for none), and
// whether one holds it OPEN since.
func (k *past) applied(upTo time.Time) (digest string, start int, forced bool, err error) {
	for _, c := range k.controls {
		if c.At.After(upTo) {
			break
		}
		if k.at == nil {
			return "", 0, false, errors.New("a person's control applies to it and the iterations' times are not known")
		}
		digest = controlsDigest(digest, c)
		switch c.Kind {
		case ControlForceOpen:
			forced = true
		default: // reset, skip_phase and guide reset the breaker
			start, forced = firstAtOrAfter(k.at, c.At), false
		}
	}
	return digest, start, forced, nil
}

// firstAtOrAfter is the index of the first time at or after t (the
// iteration a control made at t applies before), len(at) when none.
func firstAtOrAfter(at []time.Time, t time.Time) int {
	i, _ := slices.BinarySearchFunc(at, t, func(a, t time.Time) int { return a.Compare(t) })
	return i
}

// verifyMachine checks that the state machine's fields agree with its
// history, with each other and with the policy's cooldown.
func verifyMachine(s *breaker.Snapshot, pols policies) error {
	state, at := breaker.Closed, time.Time{}
	if n := len(s.History); n > 0 {
		state, at = s.History[n-1].To, s.History[n-1].At
	}
	cooldown := pols[0].Breaker.Cooldown.Set
	switch {
	case s.State != state || !s.LastTransitionAt.Equal(at):
		return fmt.Errorf("its state %s is not where its history leads", s.State)
	case s.State == breaker.Open && (s.OpenedAt == nil || !s.OpenedAt.Equal(at)):
		return errors.New("it is OPEN without the time it opened at")
	case s.ForcedOpen && s.State != breaker.Open:
		return errors.New("it is held OPEN but not OPEN")
	case s.Probing && s.State != breaker.HalfOpen:
		return errors.New("it probes outside HALF_OPEN")
	case !cooldown && (s.Probing || s.ProbesLeft != 0 || s.CooldownUntil != nil || s.Cooldown != 0):
		return errors.New("it has a cooldown the policy does not")
	case cooldown && (s.Probing || s.State == breaker.Open && !s.ForcedOpen):
		return errors.New("its cooldown and probes cannot be checked")
	case s.State != breaker.Open && !s.Probing && (s.OpenedAt != nil || s.CooldownUntil != nil || s.Cooldown != 0):
		return errors.New("it is not OPEN but has an opening time or a cooldown")
	case !cooldown && s.IgnoredOpen > 0 && s.State != breaker.Open:
		return errors.New("it counts iterations while OPEN but is not OPEN")
	case cooldown && s.IgnoredOpen > 0 && hourSize(pols) > 0:
		return errors.New("the iterations it measured cannot be told apart for the rate rule")
	}
	return nil
}

// verifyCounts checks the counts the records decide: the iterations
// measured since the last reset are the last since of them, less those
// that ran while OPEN (the newest ones: without a cooldown an OPEN
// breaker stays OPEN until a reset).
func verifyCounts(st *State, pols policies, k *past, since int) error {
	s := &st.Breaker
	if k.records == nil {
		if len(s.ErrorCounts) > 0 {
			return errors.New("it counts errors, and iterations that are commits have none")
		}
		return nil
	}
	c := k.counts(k.iteration-since, k.iteration-s.IgnoredOpen, hourSize(pols))
	if !slices.EqualFunc(c.errors, s.ErrorCounts, func(a, b breaker.ErrorCount) bool { return a.Hash == b.Hash && a.Count == b.Count }) {
		return errors.New("its error counts are not the records'")
	}
	if c.high != nil && (s.PercentHigh == nil || *s.PercentHigh < *c.high) {
		return errors.New("its highest percentage is below the records'")
	}
	if !slices.EqualFunc(c.hour, s.Hour, time.Time.Equal) {
		return errors.New("its hour of iteration times is not the records'")
	}
	return nil
}

// counts are what the records of the measured iterations give.
type counts struct {
	errors []breaker.ErrorCount // the primary errors, counted as the breaker counts them
	high   *float64             // the highest percentage reported
	hour   []time.Time          // the times within an hour of the last, at most hour of them
}

// counts derives the counts of the iterations measured, [from, to) by
// index, the rate rule keeping hour times (0: none).
func (k *past) counts(from, to, hour int) counts {
	var c counts
	for _, r := range k.records[from:to] {
		if r.primary != "" {
			c.errors = countError(c.errors, r.primary)
		}
		if r.percent != nil && (c.high == nil || *r.percent > *c.high) {
			c.high = r.percent
		}
	}
	if hour > 0 && to > from {
		cut := k.at[to-1].Add(-time.Hour)
		for i := to - 1; i >= from && k.at[i].After(cut) && len(c.hour) < hour; i-- {
			c.hour = append(c.hour, k.at[i])
		}
		slices.Reverse(c.hour)
	}
	return c
}

// countError counts one iteration's primary error as the breaker does:
// a signature seen before counts once more; a new one evicts the least
// counted when breaker.MaxErrorCounts are held.
func countError(list []breaker.ErrorCount, hash string) []breaker.ErrorCount {
	for i := range list {
		if list[i].Hash == hash {
			list[i].Count++
			return list
		}
	}
	if len(list) >= breaker.MaxErrorCounts {
		low := 0
		for i := range list {
			if list[i].Count < list[low].Count {
				low = i
			}
		}
		list = append(list[:low], list[low+1:]...)
	}
	return append(list, breaker.ErrorCount{Hash: hash, Count: 1})
}

// guardsDeletions reports whether the policy opens the breaker on every
// deletion of a protected path until a person resets it: the
// protected_path rule on with deletions tripping, in every phase, and no
// cooldown.
func guardsDeletions(pols policies) bool {
	if pols[0].Breaker.Cooldown.Set {
		return false
	}
	for _, q := range pols {
		if r := q.Rules.ProtectedPath; !r.Enabled || r.ProtectedMode == policy.ProtectedWarn {
			return false
		}
	}
	return true
}

// literalPaths are the patterns that each name one path from the root (no
// wildcard, no negation; a trailing slash names a directory).
func literalPaths(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "!") || strings.ContainsAny(p, `*?[\`) {
			continue
		}
		out = append(out, strings.TrimPrefix(p, "/"))
	}
	return out
}

// verifyDeletions checks a state that is not OPEN against git: a
// protected file at the commit the fold since the last reset started from
// (from, "" for the empty tree) that is gone at the checkpoint's commit
// (to) was deleted in between, and a fold under a policy that guards
// deletions would be OPEN. What cannot be read is no evidence either way.
func (rn *runner) verifyDeletions(st *State, from, to string) error {
	if st.Breaker.State == breaker.Open || from == "" || !guardsDeletions(rn.pols) {
		return nil
	}
	paths := literalPaths(append(append([]string(nil), rn.eff.Rules.ProtectedPath.ProtectedPaths...), rn.cfg.ProtectPaths...))
	if len(paths) == 0 {
		return nil
	}
	before, err := rn.repo.Present(from, paths)
	if err != nil {
		return nil
	}
	after, err := rn.repo.Present(to, paths)
	if err != nil {
		return nil
	}
	for _, f := range before {
		if !slices.Contains(after, f) && rn.opts.ProtectedPaths.Match(f) {
			return fmt.Errorf("the protected file %s was deleted since the last reset and it is not OPEN", f)
		}
	}
	return nil
}
