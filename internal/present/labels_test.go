package present

import (
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// TestLabelMoves: the one list of labels the check run and the audit move:
// a state's label as posts ask, the paused label on a paused OPEN breaker
// whatever posts say, the complete label on a loop whose work is done, and
// off whatever no longer holds.
func TestLabelMoves(t *testing.T) {
	t.Parallel()
	both := Posts{Open: []string{"label"}, HalfOpen: []string{"label"}}
	cases := []struct {
		name         string
		posts        Posts
		d            breaker.Decision
		has          []string
		add, removed []string
	}{
		{"aborted", both, breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenAbort}, nil, []string{LabelOpen}, nil},
		{"paused", both, breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenPause}, []string{LabelHalfOpen}, []string{LabelOpen, LabelPaused}, []string{LabelHalfOpen}},
		{"paused, no labels asked", Posts{}, breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenPause}, nil, []string{LabelPaused}, nil},
		{"resumed", both, breaker.Decision{State: breaker.Closed}, []string{LabelOpen, LabelPaused, "agent"}, nil, []string{LabelOpen, LabelPaused}},
		{"complete", both, breaker.Decision{State: breaker.Closed, Complete: true}, []string{LabelHalfOpen}, []string{LabelComplete}, []string{LabelHalfOpen}},
		{"reopened", both, breaker.Decision{State: breaker.HalfOpen}, []string{LabelComplete}, []string{LabelHalfOpen}, []string{LabelComplete}},
		{"nothing changes", both, breaker.Decision{State: breaker.HalfOpen}, []string{LabelHalfOpen}, nil, nil},
	}
	for _, c := range cases {
		add, remove := c.posts.LabelMoves(&c.d, func(name string) bool { return slices.Contains(c.has, name) })
		if got := names(add); !slices.Equal(got, c.add) {
			t.Errorf("%s: add %v, want %v", c.name, got, c.add)
		}
		if got := names(remove); !slices.Equal(got, c.removed) {
			t.Errorf("%s: remove %v, want %v", c.name, got, c.removed)
		}
	}
}

func names(ls []Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}
