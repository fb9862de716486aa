package breaker

import (
	"errors"
	"fmt"

	"github.com/loopbreaker/loopbreaker/policy"
)

// hourCap is how many iteration times a restored snapshot may hold.
const hourCap = 100001

// Restore returns a breaker that continues from a snapshot: the tests
// start a breaker in a given state with it.
func Restore(p *policy.Policy, opts Options, s Snapshot) (*Breaker, error) {
	b, err := New(p, opts)
	if err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	b.s = s.clone()
	return b, nil
}

// check rejects snapshots no breaker could have written.
func (s *Snapshot) check() error {
	if s.State < Closed || s.State > Open {
		return fmt.Errorf("state %d is not a breaker state", int(s.State))
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"iteration", s.Iteration}, {"since_reset", s.SinceReset}, {"consecutive_no_progress", s.ConsecutiveNoProgress},
		{"held", s.Held}, {"ignored_open", s.IgnoredOpen}, {"opens", s.Opens}, {"probes_left", s.ProbesLeft},
		{"watch_left", s.WatchLeft}, {"phase_run", s.PhaseRun}, {"bookkept", s.Bookkept}} {
		if n.v < 0 {
			return fmt.Errorf("%s is negative (%d)", n.name, n.v)
		}
	}
	if s.SinceReset > s.Iteration {
		return fmt.Errorf("since_reset (%d) is above iteration (%d)", s.SinceReset, s.Iteration)
	}
	if s.Cooldown < 0 {
		return fmt.Errorf("cooldown is negative")
	}
	if err := s.Spend.check(); err != nil {
		return err
	}
	if c := s.Current; c != nil && (c.Iterations < 0 || len(c.ID) > maxTaskText+len("…") || len(c.Text) > maxTaskText+len("…")) {
		return errors.New("current_task is negative or longer than its bound")
	}
	if s.ReturnMark < 0 || s.ReturnMark > len(s.Trees) {
		return errors.New("return_mark is negative or beyond the trees remembered")
	}
	if len(s.History) > MaxHistory || len(s.Recent) > MaxRecent || len(s.Trees) > MaxTrees ||
		len(s.ErrorCounts) > MaxErrorCounts || len(s.Window) > 1100 || len(s.Hour) > hourCap ||
		len(s.Completed) > MaxCompleted || len(s.Seen) > MaxSeenErrors || len(s.Journal) > MaxJournal || len(s.Claims) > MaxClaims {
		return errors.New("a bounded list is longer than its bound")
	}
	for _, e := range s.Journal {
		if len(e.Iterations) > journalSpan {
			return errors.New("journal: a file's iterations are longer than their bound")
		}
	}
	return nil
}

// check rejects sums no breaker could have kept.
func (s *Spend) check() error {
	if s != nil && (s.Micros < 0 || s.MicrosSinceProgress < 0 || s.Tokens < 0 || s.TokensSinceProgress < 0) {
		return fmt.Errorf("spend has a negative sum")
	}
	return nil
}
