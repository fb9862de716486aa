package audit

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// Times of resetLife: ten runs of a stuck loop on one commit, an hour
// apart from t0+1h. The breaker opens at the 4th run; a maintainer takes
// the open label off half an hour later, the loop opens again at the 6th
// run (the label back), the maintainer resets it again at 6h30 and it
// opens a third time at the 8th run. Someone who may not reset takes the
// label off at 8h30; the check run puts it back.
var (
	firstOpening = t0.Add(4 * time.Hour)
	lastOpening  = t0.Add(8 * time.Hour)
	resets       = []ledger.LabelReset{{At: t0.Add(4*time.Hour + 30*time.Minute), By: "maintainer"}, {At: t0.Add(6*time.Hour + 30*time.Minute), By: "maintainer"}}
)

// resetLife is that loop as pull request n, carrying the open label. The
// newest record claims claims; with removals, the label events hold the
// maintainer's two removals (else only the check run's labelling and the
// reader's removal).
func (e *env) resetLife(n int, claims []ledger.LabelReset, removals bool) {
	e.t.Helper()
	e.permission("maintainer", "write")
	e.permission("reader", "read")
	p := e.pull(n, 1, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelOpen} })
	recs := stuckRecords(p.HeadSHA, 10)
	recs[len(recs)-1].LabelResets = claims
	e.stickyComment(n, recs, t0.Add(11*time.Hour))
	for _, h := range []time.Duration{4, 6, 8, 9} {
		e.labelEvent(n, "labeled", present.LabelOpen, "github-actions[bot]", "Bot", t0.Add(h*time.Hour))
	}
	if removals {
		for _, r := range resets {
			e.labelEvent(n, "unlabeled", present.LabelOpen, r.By, "User", r.At)
		}
	}
	e.labelEvent(n, "unlabeled", present.LabelOpen, "reader", "User", t0.Add(8*time.Hour+30*time.Minute))
}

// opened checks pull request n's decision: OPEN since at, with ignored
// iterations run while OPEN.
func opened(t *testing.T, pr *present.PullResult, at time.Time, ignored int) {
	t.Helper()
	if pr == nil || pr.Decision == nil {
		t.Fatal("the pull request was not evaluated")
	}
	d := pr.Decision
	if d.State != breaker.Open || d.OpenedAt == nil || !d.OpenedAt.Equal(at) || d.IgnoredOpen != ignored {
		t.Errorf("#%d: got %s opened at %v with %d iterations run while OPEN; want OPEN at %s with %d\nhistory %+v",
			pr.Number, d.State, d.OpenedAt, d.IgnoredOpen, at.Format(time.RFC3339), ignored, d.History)
	}
}

// TestAuditAppliesEveryLabelReset: the check run reset the breaker each
// time the maintainer took the open label off and says so in its records;
// the loop opened again and the label is back. The audit applies both
// resets, as the check run does: OPEN since the third opening, with only
// the two runs since then run while OPEN, not every run since the first
// opening. It reads the label events for it (one page of the repository's
// feed) and looks up each remover once.
func TestAuditAppliesEveryLabelReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.resetLife(1, resets, true)
	res := e.run()
	pr := find(res, 1)
	opened(t, pr, lastOpening, 2)
	if !strings.Contains(pr.Reason, "recurred after recovery") {
		t.Errorf("got reason %q, want the stagnation after the reset", pr.Reason)
	}
	if notes := strings.Join(pr.Notes, "\n"); !strings.Contains(notes, "removed by reader, who cannot reset the breaker") {
		t.Errorf("got notes %q, want one on the reader's removal", pr.Notes)
	}
	for call, want := range map[[2]string]int{{"GET", "/issues/events"}: 1, {"GET", `/issues/\d+/events`}: 0,
		{"GET", "/collaborators/maintainer/permission"}: 1, {"GET", "/collaborators/reader/permission"}: 1,
		{"POST", `/issues/\d+/labels`}: 0, {"DELETE", `/issues/\d+/labels/.*`}: 0} {
		if got := e.calls(call[0], call[1]); got != want {
			t.Errorf("got %d calls %s, want %d", got, call, want)
		}
	}
	if l := e.labels(1); len(l) != 1 || l[0] != present.LabelOpen {
		t.Errorf("got labels %v, want %s kept", l, present.LabelOpen)
	}
}

// TestAuditReadsLabelEventsOnlyWhenAResetMayBeMissing: with the open label
// on the pull request and no record saying a reset by the label was
// applied, the audit reads no label event; a forged claim costs that one
// read and changes nothing; events the run read for another pull request
// are used at no call.
func TestAuditReadsLabelEventsOnlyWhenAResetMayBeMissing(t *testing.T) {
	t.Parallel()
	t.Run("no claim", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.resetLife(1, nil, true)
		opened(t, find(e.run(), 1), firstOpening, 6)
		if n := e.calls("GET", "/issues/events") + e.calls("GET", `/issues/\d+/events`) + e.calls("GET", "/collaborators/.*"); n != 0 {
			t.Errorf("got %d reads of label events and permissions, want none", n)
		}
	})
	t.Run("forged claim", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.resetLife(1, resets, false)
		opened(t, find(e.run(), 1), firstOpening, 6)
		if f, p := e.calls("GET", "/issues/events"), e.calls("GET", `/issues/\d+/events`); f+p != 1 {
			t.Errorf("got %d feed pages and %d reads of the pull request's events, want one read", f, p)
		}
		if n := e.calls("GET", "/collaborators/maintainer/permission"); n != 0 {
			t.Errorf("got %d lookups of the maintainer, who removed no label", n)
		}
	})
	t.Run("events at hand", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		// #1 is newly stuck, its label never added: the run reads the
		// feed for it, and that page holds #2's removals too.
		p := e.pull(1, 1)
		e.stickyComment(1, stuckRecords(p.HeadSHA, 4), t0.Add(5*time.Hour))
		e.resetLife(2, nil, true)
		res := e.run()
		if got := stateOf(res, 1); got != "OPEN" {
			t.Errorf("#1: got %s, want OPEN", got)
		}
		opened(t, find(res, 2), lastOpening, 2)
		if f, p := e.calls("GET", "/issues/events"), e.calls("GET", `/issues/\d+/events`); f != 1 || p != 0 {
			t.Errorf("got %d feed pages and %d reads of a pull request's events, want the one page", f, p)
		}
	})
}

// TestLabelResetReadsFitTheBudget: the reads a claimed reset needs count
// against operations-per-run like every other: a budget one call short
// leaves the pull request as it was, not reached, and is never exceeded.
func TestLabelResetReadsFitTheBudget(t *testing.T) {
	t.Parallel()
	full := newEnv(t)
	full.resetLife(1, resets, true)
	need := full.run().Operations.Used

	e := newEnv(t)
	e.resetLife(1, resets, true)
	e.opts.Budget = need - 1
	res := e.run()
	if !res.StoppedEarly || len(res.NotReached) != 1 || res.NotReached[0] != 1 || res.Operations.Used > e.opts.Budget {
		t.Errorf("a budget of %d (the run needs %d): got stopped %v, not reached %v, %d calls used",
			e.opts.Budget, need, res.StoppedEarly, res.NotReached, res.Operations.Used)
	}
	if got := fmt.Sprint(e.labels(1)); got != fmt.Sprint([]string{present.LabelOpen}) {
		t.Errorf("got labels %s, want the pull request left as it was", got)
	}
}

// TestAuthorCannotResetTheBreaker: a loop run under a person's account
// (the pull request's author, with write access) takes the open label off
// and its records claim the reset; the audit refuses the author, as the
// Action does, without asking GitHub, and the loop stays OPEN since its
// first opening.
func TestAuthorCannotResetTheBreaker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.permission("dev", "write")
	p := e.pull(1, 1, func(p *fakegithub.Pull) {
		p.User, p.UserType = "dev", "User"
		p.Labels = []string{present.LabelOpen}
	})
	claim := []ledger.LabelReset{{At: t0.Add(4*time.Hour + 30*time.Minute), By: "dev"}}
	recs := stuckRecords(p.HeadSHA, 10)
	recs[len(recs)-1].LabelResets = claim
	e.stickyComment(1, recs, t0.Add(11*time.Hour))
	e.labelEvent(1, "labeled", present.LabelOpen, "github-actions[bot]", "Bot", t0.Add(4*time.Hour))
	e.labelEvent(1, "unlabeled", present.LabelOpen, "dev", "User", claim[0].At)

	pr := find(e.run(), 1)
	opened(t, pr, firstOpening, 6)
	if notes := strings.Join(pr.Notes, "\n"); !strings.Contains(notes, "dev cannot control the breaker: the pull request's author") {
		t.Errorf("got notes %q, want the author refused", pr.Notes)
	}
	if got := e.calls("GET", "/collaborators/dev/permission"); got != 0 {
		t.Errorf("the author's permission was looked up %d times, want none", got)
	}
}
