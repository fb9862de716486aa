package audit

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// mixed seeds n pull requests: every fifth is stuck (its loop ran four
// more times without a commit, as the sticky comment's digest says), the
// others made one commit per run.
func (e *env) mixed(n int) (stuck []int) {
	for i := 1; i <= n; i++ {
		p := e.pull(i, 3)
		if i%5 == 0 {
			e.stickyComment(i, stuckRecords(p.HeadSHA, 4), t0.Add(5*time.Hour))
			stuck = append(stuck, i)
		}
	}
	return stuck
}

func TestAuditEveryPullOverSeveralPages(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	stuck := e.mixed(250)
	res := e.run()
	if res.StoppedEarly {
		t.Fatalf("stopped early: %s", res.StopReason)
	}
	got := numbersOf(res.Pulls)
	sort.Ints(got)
	if len(got) != 250 || got[0] != 1 || got[249] != 250 {
		t.Fatalf("got %d pull requests evaluated, want all 250 once", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("#%d evaluated twice", got[i])
		}
	}
	if diff := cmp.Diff(stuck, sorted(res.Tripped())); diff != "" {
		t.Errorf("tripped (-want +got):\n%s", diff)
	}
	for _, n := range stuck {
		if l := e.labels(n); len(l) != 1 || l[0] != present.LabelOpen {
			t.Errorf("#%d: got labels %v, want %s", n, l, present.LabelOpen)
		}
	}
	if l := e.labels(1); len(l) != 0 {
		t.Errorf("#1 progressed: got labels %v, want none", l)
	}
	// 3 pages, 250 commit lists and 250 comment lists, one artifact
	// listing; the 200 that progressed only through their commits have
	// their file list read (the benefit of the doubt decides their
	// verdict); the 50 stuck ones lack the open label, so the removals
	// since they opened are looked for (a person may have removed it): one
	// page of the repository's label events answers for all 50. Then the
	// label is added (GitHub creates it), coloured once, and added to the
	// other 49.
	if got, want := res.Operations.Used, 3+250+250+1+200+1+1+50; got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
	if res.Operations.Used != e.fake.Calls() {
		t.Errorf("got %d calls counted, the fake answered %d", res.Operations.Used, e.fake.Calls())
	}
	// Every page is listed before the first label is written: labels bump
	// updated_at, which would shift the pages still to be read.
	lastList, firstWrite := -1, -1
	for i, c := range e.fake.CallLog() {
		if strings.HasPrefix(c, "GET /repos/octo/loop/pulls?") {
			lastList = i
		}
		if firstWrite < 0 && !strings.HasPrefix(c, "GET ") {
			firstWrite = i
		}
	}
	if firstWrite < lastList {
		t.Errorf("a write (call %d) came before the last listing (call %d)", firstWrite, lastList)
	}
	for i := 1; i < len(res.Pulls); i++ {
		a, b := res.Pulls[i-1].LastProgress, res.Pulls[i].LastProgress
		if a != nil && b != nil && b.Before(*a) {
			t.Fatalf("the report is not sorted by last progress: #%d before #%d", res.Pulls[i-1].Number, res.Pulls[i].Number)
		}
	}
}

func TestSecondRunWritesNothing(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	stuck := e.mixed(20)
	e.run()
	e.fake.ResetCalls()
	again := e.run()
	if diff := cmp.Diff(stuck, sorted(again.Tripped())); diff != "" {
		t.Errorf("second run: tripped (-want +got):\n%s", diff)
	}
	if n := e.fake.CallsTo("POST", "") + e.fake.CallsTo("DELETE", "") + e.fake.CallsTo("PATCH", ""); n != 0 {
		t.Errorf("second run: got %d writes, want none", n)
	}
	// The list, one artifact listing, and per pull request its commits
	// and comments; the 16 that progressed through commits alone have
	// their file list read again.
	if got, want := e.fake.Calls(), 1+1+2*20+16; got != want {
		t.Errorf("second run: got %d calls, want %d", got, want)
	}
}

func sorted(s []int) []int {
	out := append([]int(nil), s...)
	sort.Ints(out)
	return out
}

func TestBudgetRunsOutMidPage(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	e.mixed(250)
	e.opts.Budget = 41
	res := e.run()
	if !res.StoppedEarly || !strings.Contains(res.StopReason, "operations-per-run budget is spent") {
		t.Fatalf("got stopped %v (%q), want a stop for the budget", res.StoppedEarly, res.StopReason)
	}
	// One call lists the first page; each pull request then costs two,
	// and a stuck one two more (creating the label is shared).
	reached := len(res.Pulls)
	if reached < 15 || reached > 20 {
		t.Errorf("got %d pull requests evaluated, want 15 to 20", reached)
	}
	if res.Operations.Used > res.Operations.Budget {
		t.Errorf("used %d calls of a budget of %d", res.Operations.Used, res.Operations.Budget)
	}
	if res.Operations.Remaining != res.Operations.Budget-res.Operations.Used {
		t.Errorf("got remaining %d, want %d", res.Operations.Remaining, res.Operations.Budget-res.Operations.Used)
	}
	if n := len(res.NotReached); n != 100-reached || res.NotReached[0] != reached+1 || res.NotReached[n-1] != 100 {
		t.Errorf("got not reached %v, want #%d to #100 (the rest of the first page)", res.NotReached, reached+1)
	}
	if res.UnreadPages != 2 || !res.UnreadPagesKnown {
		t.Errorf("got %d unread pages (known %v), want 2 known", res.UnreadPages, res.UnreadPagesKnown)
	}
	md := present.AuditSummary(res)
	for _, want := range []string{"> [!WARNING]", "stopped early", fmt.Sprintf("%d selected pull requests were not reached", 100-reached), "2 more pages", "41 budgeted"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
}

func TestListingTakesATenthOfTheBudget(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	for n := 1; n <= 250; n++ {
		e.pull(n, 1, func(p *fakegithub.Pull) { p.User = "alice" })
	}
	e.pull(251, 1) // the one agent pull request, on the third page
	e.opts.Filters.Authors = nil
	e.opts.Budget = 20
	res := e.run()
	if !res.StoppedEarly || !strings.Contains(res.StopReason, "a tenth of operations-per-run") {
		t.Fatalf("got stopped %v (%q), want a stop for the listing share", res.StoppedEarly, res.StopReason)
	}
	if res.UnreadPages != 1 || !res.UnreadPagesKnown || len(res.Skipped) != 200 || len(res.Pulls) != 0 {
		t.Errorf("got %d unread pages, %d skipped, %d evaluated; want 1, 200, 0", res.UnreadPages, len(res.Skipped), len(res.Pulls))
	}
	if n := e.fake.Calls(); n != 2 {
		t.Errorf("got %d calls, want 2 pages", n)
	}
}

func TestBudgetTooSmallForAnyPull(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	e.mixed(3)
	e.opts.Budget = 2
	res := e.run()
	if !res.StoppedEarly || len(res.Pulls) != 0 || res.UnreadPages != 1 || res.UnreadPagesKnown {
		t.Errorf("got stopped %v, %d evaluated, %d unread pages; want a stop before listing", res.StoppedEarly, len(res.Pulls), res.UnreadPages)
	}
	if n := e.fake.Calls(); n != 0 {
		t.Errorf("got %d calls, want none: listing and one pull request do not fit in 2", n)
	}
	if s := present.AuditStop(res); !strings.Contains(s, "Further pages of open pull requests were not listed") {
		t.Errorf("stop text %q does not say what was left out", s)
	}
}

func TestRateLimitInTheMiddleStopsCleanly(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	e.mixed(10)
	e.fake.Inject("GET", "/repos/octo/loop/pulls/6/commits", fakegithub.Fault{Status: 403, RetryAfter: 3600})
	res := e.run()
	if !res.StoppedEarly || !strings.Contains(res.StopReason, "rate limit") {
		t.Fatalf("got stopped %v (%q), want a stop for the rate limit", res.StoppedEarly, res.StopReason)
	}
	if got := numbersOf(res.Pulls); len(got) != 5 {
		t.Errorf("got %v evaluated, want #1 to #5", got)
	}
	if diff := cmp.Diff([]int{6, 7, 8, 9, 10}, res.NotReached); diff != "" {
		t.Errorf("not reached (-want +got):\n%s", diff)
	}
	// The stuck #5 was labelled before the limit hit.
	if l := e.labels(5); len(l) != 1 {
		t.Errorf("#5: got labels %v, want the open label", l)
	}
}

func TestRateLimitReserveStopsBeforeTheLimit(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	e.mixed(30)
	e.fake.SetRateLimit(1000, 120, e.opts.Now.Add(time.Hour))
	e.opts.Reserve = Reserve{Percent: 10}
	res := e.run()
	if !res.StoppedEarly || !strings.Contains(res.StopReason, "rate-limit reserve") {
		t.Fatalf("got stopped %v (%q), want a stop at the reserve", res.StoppedEarly, res.StopReason)
	}
	if r := res.Operations.RateRemaining; r == nil || *r < 100 {
		t.Errorf("got rate remaining %v, want at least the reserve of 100", r)
	}
	if len(res.Pulls) == 0 || len(res.NotReached) == 0 {
		t.Errorf("got %d evaluated and %d not reached, want some of each", len(res.Pulls), len(res.NotReached))
	}
}

func TestShardsCoverEveryPullExactlyOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := 1; i <= 250; i++ {
		user, labels := "Copilot", []string(nil)
		if i%7 == 0 {
			user = "someone" // skipped by the filters: still in exactly one shard
		}
		if i%2 == 0 {
			labels = []string{"hold"} // skipped too, and cheaper to test
		}
		e.pull(i, 1, func(p *fakegithub.Pull) { p.User, p.Labels = user, labels })
	}
	e.opts.Filters.Authors = nil // the default agent accounts
	e.opts.Filters.ExemptLabels = []string{"hold"}
	seen := map[int]int{}
	const count = 4
	for i := 0; i < count; i++ {
		e.opts.Shard = Shard{Index: i, Count: count}
		e.opts.DryRun = true
		res := e.run()
		if res.Shard != fmt.Sprintf("%d of %d", i+1, count) {
			t.Errorf("got shard %q", res.Shard)
		}
		for _, p := range res.Pulls {
			seen[p.Number]++
		}
		for _, s := range res.Skipped {
			seen[s.Number]++
			if s.Number%7 != 0 && s.Number%2 != 0 {
				t.Errorf("#%d skipped: %s", s.Number, s.Reason)
			}
		}
		if res.OtherShards+len(res.Pulls)+len(res.Skipped) != 250 {
			t.Errorf("shard %d: %d others + %d evaluated + %d skipped, want 250", i, res.OtherShards, len(res.Pulls), len(res.Skipped))
		}
	}
	for n := 1; n <= 250; n++ {
		if seen[n] != 1 {
			t.Errorf("#%d seen by %d shards, want 1", n, seen[n])
		}
	}
}

func TestShardOfIsAPartition(t *testing.T) {
	t.Parallel()
	for count := 1; count <= 8; count++ {
		sizes := make([]int, count)
		for n := 1; n <= 4000; n++ {
			hits := 0
			for i := 0; i < count; i++ {
				if (Shard{Index: i, Count: count}).Has(n) {
					hits++
					sizes[i]++
				}
			}
			if hits != 1 {
				t.Fatalf("count %d: #%d is in %d shards", count, n, hits)
			}
		}
		for i, s := range sizes {
			if s < 4000/count/2 {
				t.Errorf("count %d: shard %d holds only %d of 4000", count, i, s)
			}
		}
	}
	// 32-bit FNV-1a of the decimal digits, worked out apart from the code.
	for _, c := range []struct{ n, count, want int }{{1234, 5, 1}, {17, 3, 1}, {250, 4, 0}} {
		if got := ShardOf(c.n, c.count); got != c.want {
			t.Errorf("ShardOf(%d, %d) = %d, want %d: not the documented FNV-1a hash", c.n, c.count, got, c.want)
		}
	}
}

func TestExpiredAndLiveArtifacts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	zip := func(p fakegithub.Pull) map[string]string {
		return map[string]string{"record.json": recordsJSON(stuckRecords(p.HeadSHA, 4))}
	}
	live := e.pull(1, 2)
	expired := e.pull(2, 2)
	seed := func(runID int64, p fakegithub.Pull, expired bool) {
		data, err := buildZip(zip(p))
		if err != nil {
			t.Fatal(err)
		}
		e.artifact(runID, p.HeadRef, p.HeadSHA, t0.Add(5*time.Hour), data, expired)
	}
	seed(501, live, false)
	seed(502, expired, true)
	res := e.run()
	if got := stateOf(res, 1); got != "OPEN" {
		t.Errorf("#1 with a live artifact: got %s, want OPEN from the artifact's records", got)
	}
	if p := find(res, 1); p == nil || !strings.Contains(p.Ledger, "artifact of run 501") {
		t.Errorf("#1: ledger %q, want the artifact of run 501", p.Ledger)
	}
	p2 := find(res, 2)
	if p2 == nil || p2.State != breaker.Closed || p2.Ledger != "" {
		t.Fatalf("#2 with an expired artifact: got %+v, want CLOSED from its commits alone", p2)
	}
	if !strings.Contains(strings.Join(p2.Notes, "\n"), "has expired") {
		t.Errorf("#2: notes %q do not say the artifact expired", p2.Notes)
	}
	if n := e.calls("GET", "/actions/artifacts") + e.calls("GET", `/actions/artifacts/\d+/zip`); n != 2 {
		t.Errorf("got %d artifact calls (one listing, one download), want 2", n)
	}
}

func TestForkPullsNeverBorrowRecords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The fork's branch is called main, like the base repository's; the
	// base repository's push runs on main left an artifact that says
	// "stuck" for another commit.
	fork := e.pull(1, 3, func(p *fakegithub.Pull) {
		p.Fork = true
		p.HeadRef = "main"
		p.User = "contributor"
		p.UserType = "User"
	})
	data, err := buildZip(map[string]string{"record.json": recordsJSON(stuckRecords(sha(99, 1), 5))})
	if err != nil {
		t.Fatal(err)
	}
	e.artifact(700, "main", sha(99, 1), t0.Add(time.Hour), data, false)
	// A second fork pull request whose own runs (pull_request from the
	// fork) left a stuck record: that one is used.
	stuck := e.pull(2, 2, func(p *fakegithub.Pull) {
		p.Fork = true
		p.HeadRef = "patch-1"
		p.User = "contributor"
		p.UserType = "User"
	})
	data, err = buildZip(map[string]string{"record.json": recordsJSON(stuckRecords(stuck.HeadSHA, 4))})
	if err != nil {
		t.Fatal(err)
	}
	e.artifact(701, "patch-1", stuck.HeadSHA, t0.Add(6*time.Hour), data, false)

	res := e.run()
	if got := stateOf(res, 1); got != "CLOSED" || find(res, 1).Ledger != "" {
		t.Errorf("fork #1: got %s with ledger %q, want CLOSED without another branch's records", got, find(res, 1).Ledger)
	}
	if got := stateOf(res, 2); got != "OPEN" {
		t.Errorf("fork #2: got %s, want OPEN from its own runs' records", got)
	}
	if !find(res, 2).Fork {
		t.Error("#2 is not reported as a fork")
	}
	if l := e.labels(2); len(l) != 1 || l[0] != present.LabelOpen {
		t.Errorf("fork #2: got labels %v, want the open label (the audit's token writes to the base repository)", l)
	}
	_ = fork
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	e.mixed(10)
	e.pull(11, 2, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelHalfOpen} }) // would be cleared
	e.opts.DryRun = true
	e.opts.OnOpen = []string{"label", "comment"}
	before := e.fake.State()
	res := e.run()
	if diff := cmp.Diff(before.Repos, e.fake.State().Repos); diff != "" {
		t.Errorf("a dry run changed the repository (-before +after):\n%s", diff)
	}
	if len(res.Tripped()) != 2 || len(res.Recovered()) != 1 {
		t.Errorf("got tripped %v and recovered %v, want 2 and 1 (would be)", res.Tripped(), res.Recovered())
	}
	if len(res.Planned) == 0 || !strings.Contains(strings.Join(res.Planned, "\n"), "add label") {
		t.Errorf("got planned writes %q, want the labels it would add", res.Planned)
	}
	if md := present.AuditSummary(res); !strings.Contains(md, "writes that were not made") || !strings.Contains(md, "(dry run)") {
		t.Errorf("summary does not show the dry run:\n%s", md)
	}
	if p := find(res, 5); p == nil || p.Decision == nil || !p.Decision.DryRun {
		t.Error("#5's decision is not marked as a dry run")
	}
}

func TestOwnLabelsAndCommentsAreNotProgress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// #1 is OPEN and labelled; everything newer than its last run is
	// loopbreaker's own doing: the label (and its event), a fresh edit of
	// the sticky comment, and the updated_at both bumped.
	p := e.pull(1, 2, func(p *fakegithub.Pull) {
		p.Labels = []string{present.LabelOpen}
		p.UpdatedAt = t0.Add(70 * time.Hour)
	})
	recs := stuckRecords(p.HeadSHA, 4)
	e.stickyComment(1, recs, t0.Add(69*time.Hour))
	e.labelEvent(1, "labeled", present.LabelOpen, bot, "Bot", t0.Add(69*time.Hour))
	e.labelEvent(1, "unlabeled", present.LabelHalfOpen, bot, "Bot", t0.Add(69*time.Hour))
	// #2 was HALF_OPEN; a bot removed and re-added its label since.
	q := e.pull(2, 1, func(p *fakegithub.Pull) {
		p.Labels = []string{present.LabelHalfOpen}
		p.UpdatedAt = t0.Add(71 * time.Hour)
	})
	e.stickyComment(2, stuckRecords(q.HeadSHA, 3), t0.Add(70*time.Hour))
	e.labelEvent(2, "unlabeled", present.LabelHalfOpen, bot, "Bot", t0.Add(70*time.Hour))
	e.labelEvent(2, "labeled", present.LabelHalfOpen, bot, "Bot", t0.Add(70*time.Hour))

	for run := 0; run < 2; run++ {
		res := e.run()
		if got := stateOf(res, 1); got != "OPEN" {
			t.Errorf("run %d: #1 got %s, want OPEN: loopbreaker's own label and comment are not progress", run, got)
		}
		if got := stateOf(res, 2); got != "HALF_OPEN" {
			t.Errorf("run %d: #2 got %s, want HALF_OPEN", run, got)
		}
		if len(res.Recovered()) != 0 {
			t.Errorf("run %d: got recovered %v, want none", run, res.Recovered())
		}
		if p := find(res, 1); p.Iterations != 4 || p.LastProgress == nil || !p.LastProgress.Equal(t0.Add(time.Hour)) {
			t.Errorf("run %d: #1 got %d iterations, last progress %v; want 4 and the first run's", run, p.Iterations, p.LastProgress)
		}
	}
	if l := e.labels(1); len(l) != 1 || l[0] != present.LabelOpen {
		t.Errorf("#1: got labels %v", l)
	}
}

func TestRecoveryClearsLabels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// #1 carries the half-open label, but its loop committed since.
	e.pull(1, 3, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelHalfOpen} })
	res := e.run()
	if diff := cmp.Diff([]int{1}, res.Recovered()); diff != "" {
		t.Errorf("recovered (-want +got):\n%s", diff)
	}
	if l := e.labels(1); len(l) != 0 {
		t.Errorf("got labels %v, want none", l)
	}
	if p := find(res, 1); len(p.LabelsRemoved) != 1 {
		t.Errorf("got removed %v", p.LabelsRemoved)
	}
}

func TestTrustedResetsAndHolds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.permission("maintainer", "write")
	e.permission("visitor", "read")
	for n := 1; n <= 4; n++ {
		p := e.pull(n, 1)
		e.stickyComment(n, stuckRecords(p.HeadSHA, 4), t0.Add(5*time.Hour))
	}
	e.comment(1, "maintainer", "User", "/loopbreaker reset", t0.Add(6*time.Hour))
	e.comment(2, "visitor", "User", "/loopbreaker reset", t0.Add(6*time.Hour))
	e.comment(3, "Copilot", "Bot", "/loopbreaker reset", t0.Add(6*time.Hour))
	// #4: the open label was removed by a maintainer after it opened.
	e.labelEvent(4, "unlabeled", present.LabelOpen, "maintainer", "User", t0.Add(6*time.Hour))
	res := e.run()
	want := map[int]string{1: "CLOSED", 2: "OPEN", 3: "OPEN", 4: "CLOSED"}
	for n, w := range want {
		if got := stateOf(res, n); got != w {
			t.Errorf("#%d: got %s, want %s", n, got, w)
		}
	}
	if !strings.Contains(strings.Join(find(res, 2).Notes, "\n"), "only people with write access") {
		t.Errorf("#2: notes %q do not say the reset was ignored", find(res, 2).Notes)
	}
	if n := e.calls("GET", "/collaborators/maintainer/permission"); n != 1 {
		t.Errorf("got %d permission lookups for one person, want 1 (cached for the run)", n)
	}
}

// TestForceOpenAndDisabledLabels: the labels count when a person with
// write access added them; added by the agent (a bot, or an account
// without write access) they are ignored with a note, as every control is.
func TestForceOpenAndDisabledLabels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.permission("maintainer", "write")
	e.permission("agent", "read")
	e.pull(1, 2, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelForceOpen} })
	e.pull(2, 2, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelDisabled} })
	e.pull(3, 2, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelForceOpen} })
	e.pull(4, 2, func(p *fakegithub.Pull) { p.Labels = []string{present.LabelDisabled} })
	e.labelEvent(1, "labeled", present.LabelForceOpen, "maintainer", "User", t0)
	e.labelEvent(2, "labeled", present.LabelDisabled, "maintainer", "User", t0)
	e.labelEvent(3, "labeled", present.LabelForceOpen, "agent", "User", t0)
	e.labelEvent(4, "labeled", present.LabelDisabled, "copilot[bot]", "Bot", t0)
	res := e.run()
	if got := stateOf(res, 1); got != "OPEN" {
		t.Errorf("#1 held open: got %s", got)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Number != 2 || !strings.Contains(res.Skipped[0].Reason, "disabled") || !strings.Contains(res.Skipped[0].Reason, "maintainer") {
		t.Errorf("got skipped %+v, want #2 for its disabled label", res.Skipped)
	}
	if got := stateOf(res, 3); got == "OPEN" {
		t.Errorf("#3 held open by the agent's label: got %s", got)
	}
	for _, n := range []int{3, 4} {
		if pr := find(res, n); pr == nil || !strings.Contains(strings.Join(pr.Notes, "\n"), "cannot control the breaker") {
			t.Errorf("#%d: evaluated %v, want evaluated with a note that the label was ignored", n, pr != nil)
		}
	}
}

func TestFileListSettlesLockFileChurn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Four commits and no ledger: with the benefit of the doubt they are
	// progress, without it the loop is stuck, so the file list decides.
	e.pull(1, 4, func(p *fakegithub.Pull) { p.Files = []string{"package-lock.json", "go.sum"} })
	e.pull(2, 4, func(p *fakegithub.Pull) { p.Files = []string{"go.sum", "server.go"} })
	e.pull(3, 4, func(p *fakegithub.Pull) { p.Files = []string{"server_test.go", ".github/workflows/ci.yml"} })
	res := e.run()
	p1, p2, p3 := find(res, 1), find(res, 2), find(res, 3)
	if p1 == nil || p1.State != breaker.Open || p1.Evidence != "api+files" {
		t.Fatalf("#1 (lock files only): got %+v, want OPEN from the file list", p1)
	}
	if p2 == nil || p2.State != breaker.Closed || p2.Evidence != "api+files" {
		t.Errorf("#2 (a meaningful file): got %+v, want CLOSED from the file list", p2)
	}
	if p3 == nil || p3.Evidence != "api+files" {
		t.Fatalf("#3: got %+v, want its file list read", p3)
	}
	if d := p3.Decision; len(d.Recent) == 0 || len(d.Recent[len(d.Recent)-1].Files) != 2 {
		t.Errorf("#3: the newest iteration does not carry the meaningful files")
	} else if !strings.Contains(strings.Join(d.Warnings, "\n"), ".github/workflows/ci.yml") {
		t.Errorf("#3: got warnings %q, want one for the modified protected path", d.Warnings)
	}
	if n := e.calls("GET", "/pulls/1/files"); n != 1 {
		t.Errorf("got %d file list calls for #1, want 1", n)
	}
}

func TestFileListOnlyWithSpareBudget(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for n := 1; n <= 10; n++ {
		e.pull(n, 4)
	}
	// One call for the list, one for the artifacts and two for each pull
	// request: no room for anything else.
	e.opts.Budget = 1 + 1 + 2*10
	res := e.run()
	if res.StoppedEarly || len(res.Pulls) != 10 || res.Operations.Used != 22 {
		t.Fatalf("got %d evaluated with %d calls (stopped: %s), want all 10 with 22", len(res.Pulls), res.Operations.Used, res.StopReason)
	}
	for _, p := range res.Pulls {
		if p.State != breaker.Closed || p.Evidence != "api" || !strings.Contains(strings.Join(p.Notes, "\n"), "no spare budget") {
			t.Errorf("#%d: got %s from %s (%q), want CLOSED on the benefit of the doubt, saying the file list was not read", p.Number, p.State, p.Evidence, p.Notes)
		}
	}
}

func TestStickyCommentWrittenOnceAndKeepsTheDigest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.pull(1, 1)
	e.opts.OnOpen = []string{"label", "comment"}
	data, err := buildZip(map[string]string{"record.json": recordsJSON(stuckRecords(p.HeadSHA, 4))})
	if err != nil {
		t.Fatal(err)
	}
	e.artifact(900, p.HeadRef, p.HeadSHA, t0.Add(5*time.Hour), data, false)
	first := e.run()
	cs := e.fake.Comments(owner, repo, 1)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, present.Marker) || !strings.Contains(cs[0].Body, "<!-- loopbreaker-digest:") {
		t.Fatalf("got %d comments, want one sticky comment with the digest", len(cs))
	}
	if !find(first, 1).Commented {
		t.Error("the result does not say the comment was written")
	}
	e.fake.ResetCalls()
	second := e.run()
	if got := stateOf(second, 1); got != "OPEN" || !strings.Contains(find(second, 1).Ledger, "sticky comment digest") {
		t.Errorf("second run: got %s from %q, want OPEN from the digest", got, find(second, 1).Ledger)
	}
	if cs := e.fake.Comments(owner, repo, 1); len(cs) != 1 || cs[0].UpdatedAt.After(cs[0].CreatedAt) {
		t.Errorf("second run: the unchanged comment was written again")
	}
	// list + commits + comments: no artifact, no write.
	if n := e.fake.Calls(); n != 3 {
		t.Errorf("second run: got %d calls (%v), want 3", n, e.fake.CallLog())
	}
}

func TestForgedStickyFromTheAuthorIsIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Copilot, the pull request's author and a bot, posts a marked
	// comment whose digest claims steady progress; the loopbreaker bot's
	// real one says it is stuck.
	p := e.pull(1, 1)
	e.stickyComment(1, stuckRecords(p.HeadSHA, 4), t0.Add(5*time.Hour))
	e.comment(1, "Copilot", "Bot", stickyBody(stuckRecords(p.HeadSHA, 1)), t0.Add(9*time.Hour))
	res := e.run()
	if got := stateOf(res, 1); got != "OPEN" {
		t.Errorf("got %s, want OPEN: the author's own marked comment is not loopbreaker's", got)
	}
}

func TestFiltersSelect(t *testing.T) {
	t.Parallel()
	start := t0.Add(24 * time.Hour)
	tests := []struct {
		name   string
		f      Filters
		user   string
		labels []string
		draft  bool
		at     time.Time
		want   bool
		why    string
	}{
		{"default authors take Copilot", Filters{}, "Copilot", nil, false, t0, true, ""},
		{"default authors take the Devin app", Filters{}, "devin-ai-integration[bot]", nil, false, t0, true, ""},
		{"default authors skip people", Filters{}, "alice", nil, false, t0, false, "not an audited author"},
		{"a name matches its app", Filters{Authors: []string{"claude"}}, "claude[bot]", nil, false, t0, true, ""},
		{"an app name does not match a person", Filters{Authors: []string{"claude[bot]"}}, "claude", nil, false, t0, false, "not an audited author"},
		{"star takes anyone", Filters{Authors: []string{"*"}}, "alice", nil, false, t0, true, ""},
		{"only-labels needs all", Filters{Authors: []string{"*"}, OnlyLabels: []string{"agent", "loop"}}, "a", []string{"Agent"}, false, t0, false, "lacks label loop"},
		{"only-labels met", Filters{Authors: []string{"*"}, OnlyLabels: []string{"agent", "loop"}}, "a", []string{"loop", "AGENT"}, false, t0, true, ""},
		{"any-of-labels needs one", Filters{Authors: []string{"*"}, AnyOfLabels: []string{"x", "y"}}, "a", []string{"z"}, false, t0, false, "none of the any-of-labels"},
		{"any-of-labels met", Filters{Authors: []string{"*"}, AnyOfLabels: []string{"x", "y"}}, "a", []string{"y"}, false, t0, true, ""},
		{"exempt label", Filters{Authors: []string{"*"}, ExemptLabels: []string{"keep"}}, "a", []string{"Keep"}, false, t0, false, "exempt label keep"},
		{"drafts audited by default", Filters{Authors: []string{"*"}}, "a", nil, true, t0, true, ""},
		{"exempt-draft", Filters{Authors: []string{"*"}, ExemptDraft: true}, "a", nil, true, t0, false, "draft"},
		{"before start-date", Filters{Authors: []string{"*"}, StartDate: start}, "a", nil, false, t0, false, "start-date"},
		{"on start-date", Filters{Authors: []string{"*"}, StartDate: start}, "a", nil, false, start, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &github.Pull{}
			p.User, p.Labels, p.Draft, p.CreatedAt = tt.user, tt.labels, tt.draft, tt.at
			ok, why := tt.f.Match(p)
			if ok != tt.want || !strings.Contains(why, tt.why) {
				t.Errorf("got %v (%q), want %v (%q)", ok, why, tt.want, tt.why)
			}
		})
	}
}

func TestReadOnlyTokenStopsWritingOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mixed(15)
	e.fake.SetReadOnly(fakegithub.DefaultToken)
	res := e.run()
	if res.StoppedEarly || len(res.Pulls) != 15 {
		t.Fatalf("got %d evaluated (stopped %v: %s), want all 15: a refused write does not stop the audit", len(res.Pulls), res.StoppedEarly, res.StopReason)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "writes were refused") {
		t.Errorf("notes %q do not say writes were refused", res.Notes)
	}
	// One refused attempt (adding the label); no more writes after it.
	writes := 0
	for _, m := range []string{"POST", "PATCH", "PUT", "DELETE"} {
		writes += e.calls(m, ".*")
	}
	if writes != 1 || e.calls("POST", `/issues/\d+/labels`) != 1 {
		t.Errorf("got %d write attempts (%v), want 1 (the label's addition)", writes, e.fake.CallLog())
	}
}

func TestCancelledRunStopsEarly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mixed(3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, e.client(false), e.opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.StoppedEarly || !strings.Contains(res.StopReason, "cancelled") {
		t.Errorf("got stopped %v (%q), want a cancelled stop", res.StoppedEarly, res.StopReason)
	}
}

func TestOptionsAreChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bad := []func(*Options){
		func(o *Options) { o.Budget = 0 },
		func(o *Options) { o.Shard = Shard{Index: 4, Count: 4} },
		func(o *Options) { o.Shard = Shard{Index: 1, Count: 0} },
		func(o *Options) { o.OnOpen = []string{"fail"} },
		func(o *Options) { o.Policy = nil },
	}
	for i, edit := range bad {
		o := e.opts
		edit(&o)
		if _, err := Run(context.Background(), e.client(false), o); err == nil {
			t.Errorf("case %d: bad options were accepted", i)
		}
	}
	if n := e.fake.Calls(); n != 0 {
		t.Errorf("bad options made %d calls", n)
	}
}

func TestParseReserve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		want  Reserve
		floor int // of a limit of 5000
		bad   bool
	}{
		{"", DefaultReserve, 500, false},
		{"10%", Reserve{Percent: 10}, 500, false},
		{" 2.5 % ", Reserve{Percent: 2.5}, 125, false},
		{"300", Reserve{Count: 300}, 300, false},
		{"0", Reserve{}, 0, false},
		{"120%", Reserve{}, 0, true},
		{"-1", Reserve{}, 0, true},
		{"lots", Reserve{}, 0, true},
	}
	for _, tt := range tests {
		got, err := ParseReserve(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("%q: got error %v, want bad %v", tt.in, err, tt.bad)
			continue
		}
		if tt.bad {
			continue
		}
		if got != tt.want || got.Floor(5000) != tt.floor {
			t.Errorf("%q: got %+v (floor %d), want %+v (floor %d)", tt.in, got, got.Floor(5000), tt.want, tt.floor)
		}
	}
}

// TestLabelFeedServesEveryPullRequest: the removals since a breaker opened
// come from one page of the repository's label events for all the pull
// requests that need them; where that page does not reach back far enough
// (a busy repository) or cannot be read, each asks for its own, and the
// answers are the same.
func TestLabelFeedServesEveryPullRequest(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, busy bool) *env {
		e := newEnv(t)
		e.permission("maintainer", "write")
		for n := 1; n <= 3; n++ {
			p := e.pull(n, 1)
			e.stickyComment(n, stuckRecords(p.HeadSHA, 4), t0.Add(5*time.Hour))
		}
		// #2: a maintainer removed the open label after it opened.
		e.labelEvent(2, "unlabeled", present.LabelOpen, "maintainer", "User", t0.Add(6*time.Hour))
		if busy {
			for i := range 150 { // newer events of other issues fill the first page
				e.labelEvent(900+i%7, "labeled", "triage", "someone", "User", t0.Add(7*time.Hour+time.Duration(i)*time.Minute))
			}
		}
		return e
	}
	const feed = "/issues/events"
	perPRCalls := func(e *env) int { return e.calls("GET", "/issues/[1-3]/events") }
	check := func(t *testing.T, res *present.AuditResult) {
		t.Helper()
		for n, want := range map[int]string{1: "OPEN", 2: "CLOSED", 3: "OPEN"} {
			if got := stateOf(res, n); got != want {
				t.Errorf("#%d: got %s, want %s", n, got, want)
			}
		}
	}
	cases := []struct {
		name        string
		busy, fails bool
		feed, perPR int // -1: any
	}{
		{"one page for all", false, false, 1, 0},
		{"busy repository", true, false, 1, 3}, // the page does not reach back
		{"feed refused", false, true, -1, 3},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			e := setup(t, c.busy)
			if c.fails {
				e.fake.Inject("GET", "/repos/"+owner+"/"+repo+feed, fakegithub.Fault{Status: 500})
			}
			check(t, e.run())
			f, p := e.calls("GET", feed), perPRCalls(e)
			if (c.feed >= 0 && f != c.feed) || p != c.perPR {
				t.Errorf("got %d feed pages and %d per-PR reads, want %d and %d", f, p, c.feed, c.perPR)
			}
		})
	}
}

// TestNewestArtifactOnAnyPage: GitHub lists artifacts in no documented
// order; among many other loops' artifacts, a pull request's newest record
// is found on whatever page it is, not its older one found first.
func TestNewestArtifactOnAnyPage(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	p := e.pull(1, 2)
	for i := int64(1); i <= 230; i++ {
		e.artifact(i, fmt.Sprintf("other-%d", i), sha(9, int(i)), t0.Add(time.Duration(i)*time.Minute), []byte("zip"), false)
	}
	for _, a := range []struct {
		run  int64
		at   time.Duration
		runs int
	}{{300, 2 * time.Hour, 1}, {301, 5 * time.Hour, 4}} {
		data, err := buildZip(map[string]string{"record.json": recordsJSON(stuckRecords(p.HeadSHA, a.runs))})
		if err != nil {
			t.Fatal(err)
		}
		e.artifact(a.run, p.HeadRef, p.HeadSHA, t0.Add(a.at), data, false)
	}
	res := e.run()
	if pr := find(res, 1); pr == nil || !strings.Contains(pr.Ledger, "artifact of run 301") {
		t.Errorf("#1: got ledger %q, want the newest artifact (run 301)", find(res, 1).Ledger)
	}
	if n := e.fake.CallsTo("GET", "/repos/octo/loop/actions/artifacts"); n != 3+1 {
		t.Errorf("got %d artifact calls, want 3 pages read once and one download", n)
	}
}

// TestStuckPullsRankByMoneyWasted: the audit folds each pull request's
// records (here from the sticky comment's digest) with their costs, and
// ranks the stuck ones by what their agent spent since the last progress
// (the three iterations after the first, which progressed): dollars
// first, most first, then a loop that reported only tokens, then the rest
// by last progress and number.
func TestStuckPullsRankByMoneyWasted(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	costly := func(recs []ledger.Record, usd float64, tokens int64) []ledger.Record {
		for i := range recs {
			recs[i].Cost = &ledger.Cost{Tokens: &tokens}
			if usd > 0 {
				recs[i].Cost.USD = &usd
			}
		}
		return recs
	}
	for n := 1; n <= 5; n++ {
		e.pull(n, 3)
	}
	e.stickyComment(2, costly(stuckRecords(sha(2, 2), 4), 1.10, 90000), t0.Add(5*time.Hour))
	e.stickyComment(3, stuckRecords(sha(3, 2), 4), t0.Add(5*time.Hour))
	e.stickyComment(4, costly(stuckRecords(sha(4, 2), 4), 3.25, 10000), t0.Add(5*time.Hour))
	e.stickyComment(5, costly(stuckRecords(sha(5, 2), 4), 0, 800000), t0.Add(5*time.Hour))
	res := e.run()
	var order []int
	for _, p := range res.Pulls {
		order = append(order, p.Number)
	}
	if diff := cmp.Diff([]int{4, 2, 5, 1, 3}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if p := res.Pulls[0]; p.State != breaker.Open || p.WastedUSD == nil || *p.WastedUSD != 3*3.25 {
		t.Errorf("#4: %s, wasted %v; want OPEN and $9.75 since the last progress", p.State, p.WastedUSD)
	}
	if s := present.AuditSummary(res); !strings.Contains(s, "| \\$9.75 |") || !strings.Contains(s, "| 2,400,000 tokens |") {
		t.Errorf("the summary does not show the money wasted:\n%s", s)
	}
}

// TestRecordsNamedPerLoop: loops whose every run is on the default branch
// (dispatched there for the loop's branch) upload their records as
// loopbreaker-record-{branch}; the audit reads a pull request's by that
// name from the default branch's runs, never a fork's, and never one a run
// on another branch uploaded under the name.
func TestRecordsNamedPerLoop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.Artifact = "loopbreaker-record-{branch}"
	e.opts.DefaultBranch = "main"
	upload := func(runID int64, branch, name string, recs []ledger.Record) {
		t.Helper()
		data, err := buildZip(map[string]string{"record.json": recordsJSON(recs)})
		if err != nil {
			t.Fatal(err)
		}
		e.fake.AddRun(owner, repo, fakegithub.Run{ID: runID, HeadBranch: branch, HeadSHA: sha(0, 0), CreatedAt: t0.Add(time.Hour)})
		e.fake.AddArtifact(owner, repo, runID, name, data, false)
	}
	loop := e.pull(1, 2)
	upload(700, "main", github.ArtifactName(e.opts.Artifact, loop.HeadRef), stuckRecords(loop.HeadSHA, 4))
	fork := e.pull(2, 2, func(p *fakegithub.Pull) {
		p.Fork = true
		p.HeadRef = "agent/fork"
		p.User = "contributor"
		p.UserType = "User"
	})
	upload(701, "main", github.ArtifactName(e.opts.Artifact, fork.HeadRef), stuckRecords(fork.HeadSHA, 4))
	planted := e.pull(3, 2)
	upload(702, planted.HeadRef, github.ArtifactName(e.opts.Artifact, planted.HeadRef), stuckRecords(planted.HeadSHA, 4))

	res := e.run()
	if got := stateOf(res, 1); got != "OPEN" || !strings.Contains(find(res, 1).Ledger, "run 700") {
		t.Errorf("#1: got %s with ledger %q, want OPEN from the records of run 700 on main", got, find(res, 1).Ledger)
	}
	for _, n := range []int{2, 3} {
		if got := stateOf(res, n); got != "CLOSED" || find(res, n).Ledger != "" {
			t.Errorf("#%d: got %s with ledger %q, want CLOSED without records (a fork's, or a run on another branch)", n, got, find(res, n).Ledger)
		}
	}
}
