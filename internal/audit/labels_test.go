package audit

import (
	"slices"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

// TestAuditLabelsCompleteAndPausedLoops: the audit moves the presenter's
// labels as the check run does: loopbreaker:complete on a loop whose work
// is done (and off one whose work reopened), loopbreaker:paused beside
// loopbreaker:open when the policy's on_open is "pause". A paused loop is
// not aborted: it never fails the run.
func TestAuditLabelsCompleteAndPausedLoops(t *testing.T) {
	t.Parallel()
	o := newOrigin(t, map[int]pullSteps{
		1: {{"fix_plan.md": "- [x] parser\n- [ ] lexer\n", "parser.go": "package main\n"}, {"fix_plan.md": "- [x] parser\n- [x] lexer\n", "lexer.go": "package main\n"}},
		2: {{"a.go": "package main\n// a\n"}, nil, nil, nil},
		3: {{"fix_plan.md": "- [x] parser\n- [ ] docs\n", "parser.go": "package main\n"}},
	})
	e := newHTTPEnv(t)
	pol, err := e.opts.Policy.WithOnOpen(policy.OnOpenPause)
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Policy = pol
	e.gitPull(o, 1)
	e.gitPull(o, 2)
	e.gitPull(o, 3, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelComplete} })
	// #1's last run: the tests green and the agent's claim.
	done := ledger.Record{Version: 1, RunID: 501, RunAttempt: 1, Commit: o.heads[1], At: t0.Add(time.Hour), Errors: []ledger.Error{},
		Tests: &ledger.Tests{Passed: 3}, CompletionClaimed: true}
	e.stickyComment(1, []ledger.Record{done}, t0.Add(2*time.Hour))
	e.cloneOf(o)
	res := e.run()

	if p := find(res, 1); p == nil || p.Decision == nil || !p.Decision.Complete {
		t.Fatalf("#1: got %+v, want a complete decision", p)
	}
	if got := e.labels(1); !slices.Equal(got, []string{present.LabelComplete}) {
		t.Errorf("#1 (done): got labels %v, want %s", got, present.LabelComplete)
	}
	if p := find(res, 2); p == nil || p.State != breaker.Open || p.Decision.OpenAction != policy.OnOpenPause {
		t.Fatalf("#2: got %+v, want OPEN and paused", p)
	}
	if got := e.labels(2); !slices.Contains(got, present.LabelOpen) || !slices.Contains(got, present.LabelPaused) {
		t.Errorf("#2 (paused): got labels %v, want %s and %s", got, present.LabelOpen, present.LabelPaused)
	}
	if got := e.labels(3); slices.Contains(got, present.LabelComplete) {
		t.Errorf("#3 (a task left): the %s label stayed on: %v", present.LabelComplete, got)
	}
	if got := res.Aborted(); len(got) != 0 || len(res.Tripped()) != 1 {
		t.Errorf("got aborted %v and tripped %v: a paused loop is OPEN, not aborted", got, res.Tripped())
	}
}
