package audit

import (
	"fmt"
	"sort"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/policy"
)

// fold runs the breaker over a pull request's iterations with the
// controls of trusted people interleaved by time, as loop.Run does for a
// check. It never adds an iteration of its own: an audit is not a turn of
// the loop. With no iteration (or a control after the last one) the final
// decision is the breaker's status at now.
func fold(pol *policy.Policy, profile, baseTree string, its []breaker.Iteration, controls []loop.Control, now time.Time, dryRun bool) ([]breaker.Decision, error) {
	b, err := breaker.New(pol, breaker.Options{Profile: profile, BaseTree: baseTree})
	if err != nil {
		return nil, err
	}
	cs := append([]loop.Control(nil), controls...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].At.Before(cs[j].At) })
	apply := func(upTo time.Time, all bool) (bool, error) {
		applied := false
		for len(cs) > 0 && (all || !cs[0].At.After(upTo)) {
			c := cs[0]
			cs = cs[1:]
			at := c.At
			if last := b.Snapshot().LastAt; at.Before(last) {
				at = last
			}
			var err error
			switch c.Kind {
			case loop.ControlReset:
				err = b.Reset(at, c.Reason)
			case loop.ControlForceOpen:
				err = b.ForceOpen(at, c.Reason)
			default:
				err = fmt.Errorf("unknown control %q", c.Kind)
			}
			if err != nil {
				return applied, err
			}
			applied = true
		}
		return applied, nil
	}
	out := make([]breaker.Decision, 0, len(its)+1)
	for i := range its {
		if _, err := apply(its[i].At, false); err != nil {
			return nil, err
		}
		d, err := b.Observe(its[i])
		if err != nil {
			return nil, fmt.Errorf("iteration %d (commit %.12s): %w", i+1, its[i].Commit, err)
		}
		d.DryRun = dryRun
		out = append(out, d)
	}
	applied, err := apply(time.Time{}, true)
	if err != nil {
		return nil, err
	}
	if applied || len(out) == 0 {
		at := now.UTC()
		if last := b.Snapshot().LastAt; at.Before(last) {
			at = last
		}
		d, err := b.Status(at)
		if err != nil {
			return nil, err
		}
		d.DryRun = dryRun
		if applied && len(out) > 0 {
			out[len(out)-1] = d
		} else {
			out = append(out, d)
		}
	}
	return out, nil
}
