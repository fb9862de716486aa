package audit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/control"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

const (
	// maxConsecutiveErrors stops a run that fails pull request after pull
	// request: GitHub (or the token) is not working, and each failure
	// spends budget.
	maxConsecutiveErrors = 5
	// scoreHistory is how many scores a PullResult keeps for its
	// sparkline.
	scoreHistory = 20
	// defaultMaxArtifactBytes bounds one record artifact download.
	defaultMaxArtifactBytes = 64 << 20
)

// GitHub is the roles of the GitHub seam an audit uses: it lists pull
// requests and their commits, reads comments, label events, permissions and
// record artifacts, and writes labels and the sticky comment.
type GitHub interface {
	github.PullService
	github.CommentService
	github.LabelService
	github.EventService
	github.ArtifactService
	github.Accounting
}

type auditor struct {
	c     GitHub
	o     Options
	eff   *policy.Policy
	paths gitlog.Options
	res   *present.AuditResult
	// start and startCalls are the client's charged calls and calls
	// before the run.
	start, startCalls int

	// cost of the pull requests evaluated so far, for the typical cost;
	// shared counts the calls made once for many pull requests (the
	// artifact listing, label creation), which are not a pull request's.
	costSum, costN int
	shared         int
	// queued is how many selected pull requests of the current page come
	// after the one being evaluated.
	queued int

	listed   map[int]bool                // pull requests listed so far
	prEvents map[int][]github.LabelEvent // a pull request's label events, read once
	trust    control.Trust
	ensured  map[string]bool           // labels known to exist
	refused  string                    // why writes stopped (a read-only token)
	apiUsed  bool                      // some commits came from the API (noted once)
	arts     map[string]*artifactIndex // by artifact name
	// unchanged counts the pull requests read from the state's answers.
	unchanged int
	feed      labelFeed // the repository's label events, shared (events.go)
}

// Run audits the repository's open pull requests. It fails only when nothing
// could be audited; every other problem is in the result.
func Run(ctx context.Context, c GitHub, o Options) (*present.AuditResult, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.PerPage <= 0 || o.PerPage > 100 {
		o.PerPage = 100
	}
	if o.MaxArtifactBytes <= 0 {
		o.MaxArtifactBytes = defaultMaxArtifactBytes
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	eff, err := o.Policy.WithProfile(o.Profile)
	if err != nil {
		return nil, err
	}
	paths, err := evidence.GitOptions(eff, "", o.ProtectPaths...)
	if err != nil {
		return nil, err
	}
	a := &auditor{c: c, o: o, eff: eff, paths: paths, start: c.Charged(), startCalls: c.Calls(),
		listed: map[int]bool{}, arts: map[string]*artifactIndex{}, prEvents: map[int][]github.LabelEvent{}, trust: control.Trust{}, ensured: map[string]bool{},
		res: &present.AuditResult{Repository: o.Owner + "/" + o.Repo, Shard: o.Shard.String(), At: o.Now.UTC(), DryRun: o.DryRun,
			Pulls: []present.PullResult{}, Skipped: []present.Skipped{}, NotReached: []int{}, Notes: []string{},
			Marks: map[int]present.Mark{}, Ledgers: map[int64][]ledger.Record{}}}
	if err := a.run(ctx); err != nil {
		return nil, err
	}
	a.finish()
	return a.res, nil
}

// used is the calls the run made that count against the rate limit: a
// conditional request answered 304 Not Modified does not.
func (a *auditor) used() int { return a.c.Charged() - a.start }

// typical is the expected cost of the next pull request: the mean of
// those evaluated so far, rounded up; before any, two calls from the API
// (commits, comments) or one from a clone (comments).
func (a *auditor) typical() int {
	if a.costN == 0 {
		if a.o.Clone != nil {
			return 1
		}
		return 2
	}
	return max(1, (a.costSum+a.costN-1)/a.costN)
}

// stopBefore says why the run must not make need more calls, or "".
func (a *auditor) stopBefore(ctx context.Context, need int) string {
	if err := ctx.Err(); err != nil {
		return "the run was cancelled (" + err.Error() + ")"
	}
	if used := a.used(); used+need > a.o.Budget {
		return fmt.Sprintf("the operations-per-run budget is spent: %d of %d API calls used, and the next step typically needs %d", used, a.o.Budget, need)
	}
	if rem, lim, known := a.c.RateRemaining(); known {
		if floor := a.o.Reserve.Floor(lim); rem-need < floor {
			return fmt.Sprintf("the rate-limit reserve is reached: GitHub reports %d of %d calls left this hour and %d (rate-limit-reserve %s) are kept for other work", rem, lim, floor, a.o.Reserve)
		}
	}
	return ""
}

// errBudget is returned by a step of a pull request's evaluation that the
// budget (or the rate-limit reserve) cannot afford: the pull request is not
// reached, nothing is written for it, and the run stops.
var errBudget = errors.New("budget")

// budgetError carries why the budget stopped a pull request.
type budgetError struct{ why string }

func (e *budgetError) Error() string        { return e.why }
func (e *budgetError) Is(target error) bool { return target == errBudget }

// afford returns a budget error when n more calls do not fit.
func (a *auditor) afford(ctx context.Context, n int) error {
	if why := a.stopBefore(ctx, n); why != "" {
		return &budgetError{why: why}
	}
	return nil
}

func (a *auditor) stop(reason string) {
	if a.res.StoppedEarly {
		return
	}
	a.res.StoppedEarly, a.res.StopReason = true, reason
	a.o.Log("audit: stopping early: %s", reason)
}

// run lists every page first, then evaluates: the labels it writes bump
// updated_at and would shift the pages still to be read.
func (a *auditor) run(ctx context.Context) error {
	queue, cut, err := a.list(ctx)
	if err != nil {
		return err
	}
	queue = resume(queue, a.o.Resume)
	if a.o.Clone != nil && len(queue) > 0 {
		a.res.Notes = append(a.res.Notes, a.o.Clone.fetch(ctx, queue)...)
	}
	consecutive := 0
	for i, p := range queue {
		notReached := func() {
			for _, q := range queue[i:] {
				a.res.NotReached = append(a.res.NotReached, q.Number)
			}
		}
		if why := a.stopBefore(ctx, a.typical()); why != "" {
			a.stop(why)
			notReached()
			break
		}
		a.queued = len(queue) - i - 1
		before, sharedBefore := a.used(), a.shared
		pr, err := a.evaluate(ctx, p)
		cost := a.used() - before - (a.shared - sharedBefore)
		switch {
		case err == nil:
			consecutive = 0
			pr.Calls = cost
			a.costSum += cost
			a.costN++
			a.res.Pulls = append(a.res.Pulls, *pr)
			continue
		case errors.As(err, new(*disabledError)):
			consecutive = 0
			a.res.Skipped = append(a.res.Skipped, present.Skipped{Number: p.Number, Reason: err.Error()})
			continue
		case errors.Is(err, errBudget) || errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil:
			why := "GitHub's rate limit refused a call: " + err.Error()
			switch {
			case ctx.Err() != nil:
				why = "the run was cancelled (" + ctx.Err().Error() + ")"
			case errors.Is(err, errBudget):
				why = err.Error() + " (while evaluating #" + strconv.Itoa(p.Number) + ", which was left as it was)"
			}
			a.stop(why)
			notReached()
		}
		if a.res.StoppedEarly {
			break
		}
		consecutive++
		a.res.Skipped = append(a.res.Skipped, present.Skipped{Number: p.Number, Reason: "not evaluated: " + oneLine(err.Error())})
		if consecutive >= maxConsecutiveErrors {
			a.stop(fmt.Sprintf("%d pull requests in a row could not be evaluated; the last error: %s", consecutive, oneLine(err.Error())))
			i++
			notReached()
			break
		}
	}
	switch {
	case cut == "":
	case a.res.StoppedEarly:
		a.res.Notes = append(a.res.Notes, cut)
	default:
		a.stop(cut)
	}
	return nil
}

// resume puts the pull requests the previous run did not reach (cursor,
// in its order) first, the others after them in listing order: a run cut
// by the quota is followed by one that starts where it stopped.
func resume(queue []*github.Pull, cursor []int) []*github.Pull {
	if len(cursor) == 0 {
		return queue
	}
	at := map[int]*github.Pull{}
	for _, p := range queue {
		at[p.Number] = p
	}
	out := make([]*github.Pull, 0, len(queue))
	first := map[int]bool{}
	for _, n := range cursor {
		if p, ok := at[n]; ok && !first[n] {
			first[n] = true
			out = append(out, p)
		}
	}
	for _, p := range queue {
		if !first[p.Number] {
			out = append(out, p)
		}
	}
	return out
}

// list reads the pages of open pull requests, least recently updated first,
// and selects the shard's that the filters take, until the selected ones
// would spend the budget or listing took a tenth of it (cut says which).
func (a *auditor) list(ctx context.Context) (queue []*github.Pull, cut string, err error) {
	maxPages := max(1, a.o.Budget/10)
	last := 0
	for page, n := 1, 0; page != 0; n++ {
		left := a.o.Budget - a.used()
		switch {
		case n == maxPages:
			a.unread(page, last)
			return queue, fmt.Sprintf("listing the open pull requests may take a tenth of operations-per-run (%d pages of %d)", maxPages, a.o.PerPage), nil
		case n > 0 && len(queue)*a.typical() >= left-1:
			a.unread(page, last)
			return queue, fmt.Sprintf("the %d pull requests listed were expected to use the rest of the budget (%d calls), so further pages were not listed", len(queue), left), nil
		}
		if why := a.stopBefore(ctx, 1+a.typical()); why != "" {
			a.stop(why)
			a.unread(page, last)
			return queue, "", nil
		}
		pp, err := a.c.ListPulls(ctx, github.PullQuery{Sort: "updated", Direction: "asc", Page: page, PerPage: a.o.PerPage})
		if err != nil {
			if page == 1 && !errors.Is(err, github.ErrRateLimited) && ctx.Err() == nil {
				return nil, "", fmt.Errorf("list the open pull requests of %s: %w", a.res.Repository, err)
			}
			a.stop(fmt.Sprintf("listing page %d of the open pull requests failed: %v", page, oneLine(err.Error())))
			a.unread(page, last)
			return queue, "", nil
		}
		last = max(last, pp.Last)
		selected := a.selectPulls(pp.Pulls)
		a.o.Log("audit: page %d: %d open pull requests, %d selected", page, len(pp.Pulls), len(selected))
		queue = append(queue, selected...)
		page = pp.Next
	}
	return queue, "", nil
}

// unread records the pages from page on (up to last, when known) as
// never listed.
func (a *auditor) unread(page, last int) {
	if page <= 0 {
		return
	}
	if last >= page {
		a.res.UnreadPages, a.res.UnreadPagesKnown = last-page+1, true
		return
	}
	a.res.UnreadPages = 1
}

// selectPulls applies the shard and the filters to one page; a pull
// request already listed (one that moved between pages) is left out.
func (a *auditor) selectPulls(pulls []github.Pull) []*github.Pull {
	var out []*github.Pull
	for i := range pulls {
		p := &pulls[i]
		if a.listed[p.Number] {
			continue
		}
		a.listed[p.Number] = true
		if !a.o.Shard.Has(p.Number) {
			a.res.OtherShards++
			continue
		}
		if ok, why := a.o.Filters.Match(p); !ok {
			a.res.Skipped = append(a.res.Skipped, present.Skipped{Number: p.Number, Reason: why})
			continue
		}
		out = append(out, p)
	}
	return out
}

func (a *auditor) finish() {
	ops := &a.res.Operations
	ops.Budget, ops.Used = a.o.Budget, a.used()
	ops.NotModified = a.c.Calls() - a.startCalls - ops.Used
	ops.Remaining = max(0, a.o.Budget-ops.Used)
	if rem, lim, known := a.c.RateRemaining(); known {
		floor := a.o.Reserve.Floor(lim)
		ops.RateRemaining, ops.RateLimit, ops.RateFloor = &rem, &lim, &floor
	}
	if ops.Used > ops.Budget {
		a.res.Notes = append(a.res.Notes, fmt.Sprintf("%d API calls were made against a budget of %d: the last pull request cost more than the typical %d", ops.Used, ops.Budget, a.typical()))
	}
	if a.refused != "" {
		a.res.Notes = append(a.res.Notes, a.refused)
	}
	if a.unchanged > 0 {
		a.res.Notes = append(a.res.Notes, fmt.Sprintf("%d pull requests were unchanged since the last run (the same head and updated_at): their reads came from the audit state, without calls", a.unchanged))
	}
	if n := len(a.res.NotReached); n > 0 {
		done := len(a.res.Pulls) + len(a.res.Skipped)
		a.res.Notes = append(a.res.Notes, fmt.Sprintf("stopped after %d of the %d pull requests selected: %d not reached; a run given this run's cursor (the audit state) starts with #%d",
			done, done+n, n, a.res.NotReached[0]))
	}
	a.res.Planned = a.c.Planned()
	sortByProgress(a.res.Pulls)
}

// disabledError says a trusted person turned the breaker off for a pull
// request.
type disabledError struct{ by string }

func (e *disabledError) Error() string {
	return "the " + present.LabelDisabled + " label, added by " + e.by + ", turns the breaker off"
}

// evaluate gathers one pull request's evidence, decides and acts; an
// unchanged one (its mark) reads from the state's answers, writing as usual.
func (a *auditor) evaluate(ctx context.Context, p *github.Pull) (*present.PullResult, error) {
	pr := &present.PullResult{Number: p.Number, Title: p.Title, Author: p.User, Fork: p.Fork, Draft: p.Draft}
	wctx := ctx
	if m, ok := a.o.Marks[p.Number]; ok && !p.UpdatedAt.IsZero() && m.Head == p.HeadSHA && m.Updated.Equal(p.UpdatedAt) {
		ctx = github.WithStored(ctx, p.Number)
		a.unchanged++
	}
	if hasLabel(p.Labels, present.LabelDisabled) {
		by, ok, err := a.labelledBy(ctx, p, present.LabelDisabled, pr)
		if err != nil {
			return nil, err
		}
		if ok {
			return nil, &disabledError{by: by}
		}
	}
	src, err := a.source(ctx, p, pr)
	if err != nil {
		return nil, err
	}
	defer src.close()
	pr.Evidence = src.kind()

	comments, err := a.c.Comments(ctx, p.Number)
	read := len(comments) // the comments GitHub counts, unless cut
	if err != nil {
		if !errors.Is(err, github.ErrTruncated) {
			return nil, err
		}
		read = -1
		pr.Notes = append(pr.Notes, "the pull request has more comments than are read; commands in the newest ones were not seen")
	}
	controls, sticky, err := a.controls(ctx, p, comments, pr)
	if err != nil {
		return nil, err
	}
	led, err := a.ledger(ctx, p, sticky, src, pr)
	if err != nil {
		return nil, err
	}
	if led != nil {
		for _, prob := range led.Problems {
			pr.Notes = append(pr.Notes, "ledger entry skipped: "+prob.String())
		}
	}

	decide := func() ([]breaker.Decision, []string, error) {
		its, notes, err := src.iterations(led)
		if err != nil {
			return nil, nil, err
		}
		f, err := loop.Fold(loop.FoldInput{Policy: a.o.Policy, Profile: a.o.Profile, BaseTree: src.baseTree(),
			Iterations: its, Controls: controls, Now: a.o.Now, DryRun: a.o.DryRun})
		return f.Decisions, append(notes, note.Texts(f.Notes)...), err
	}
	ds, notes, err := decide()
	if err != nil {
		return nil, err
	}
	if api, ok := src.(*apiSource); ok {
		if ds, notes, err = a.refine(ctx, p, api, ds, notes, decide, pr); err != nil {
			return nil, err
		}
	}
	refold := func(c loop.Control) ([]breaker.Event, error) {
		controls = append(controls, c)
		var err error
		if ds, notes, err = decide(); err != nil {
			return nil, err
		}
		return ds[len(ds)-1].History, nil
	}
	if err := a.labelResets(ctx, p, &ds[len(ds)-1], led, refold, pr); err != nil {
		return nil, err
	}
	pr.Notes = append(notes, pr.Notes...)
	a.describe(pr, ds)
	if err := a.act(wctx, p, pr, sticky, led); err != nil {
		return nil, err
	}
	if pr.Commented && sticky == nil {
		read++ // the comment it posted
	}
	a.mark(wctx, p, pr, read)
	return pr, nil
}

// mark keeps the pull request's mark for the next run: its listed head and
// updated_at, or, after the run's own writes, those of a read-back that
// shows nothing else changed it. Without one the next run reads it again.
func (a *auditor) mark(ctx context.Context, p *github.Pull, pr *present.PullResult, comments int) {
	if !a.o.KeepMarks || comments < 0 {
		return
	}
	m, seen := present.Mark{Head: p.HeadSHA, Updated: p.UpdatedAt}, p.Seen
	if len(pr.LabelsAdded)+len(pr.LabelsRemoved) > 0 || pr.Commented {
		if a.afford(ctx, 1) != nil {
			return
		}
		now, err := a.c.GetPull(ctx, p.Number)
		want := map[string]bool{}
		for _, l := range append(append([]string{}, p.Labels...), pr.LabelsAdded...) {
			want[strings.ToLower(l)] = !slices.ContainsFunc(pr.LabelsRemoved, func(r string) bool { return strings.EqualFold(r, l) })
		}
		maps.DeleteFunc(want, func(_ string, keep bool) bool { return !keep })
		got := map[string]bool{}
		for _, l := range now.Labels {
			got[strings.ToLower(l)] = true
		}
		if err != nil || now.HeadSHA != p.HeadSHA || now.Comments != comments || !maps.Equal(got, want) {
			return
		}
		m, seen = present.Mark{Head: now.HeadSHA, Updated: now.UpdatedAt}, now.Seen
	}
	// updated_at has whole seconds: a change later in its second would
	// leave it as it is. The mark holds only once that second had passed
	// when GitHub answered.
	if m.Updated.Before(seen.Truncate(time.Second)) {
		a.res.Marks[p.Number] = m
	}
}

// source opens the pull request's commits: the clone when its head was
// fetched, else the API.
func (a *auditor) source(ctx context.Context, p *github.Pull, pr *present.PullResult) (source, error) {
	if a.o.Clone != nil {
		s, err := openGit(a.o.Clone, p, a.paths, a.eff.OnShallow)
		if err == nil {
			return s, nil
		}
		pr.Notes = append(pr.Notes, "git: "+oneLine(err.Error())+"; commits from the API instead")
	}
	list, capped, err := a.c.PullCommits(ctx, p.Number)
	if err != nil {
		return nil, err
	}
	if !a.apiUsed {
		a.apiUsed = true
		a.res.Notes = append(a.res.Notes, "commits from the API: a commit whose tree differs from its parent's counts as one meaningful file changed, since listing each commit's files would cost a call per commit; the pull request's file list is read when that assumption decides the verdict and the budget has room")
	}
	return newAPISource(list, capped, p, a.paths), nil
}

// refine decides whether the API source's benefit of the doubt (a commit
// that changed the tree is a meaningful change) decides the verdict; if it
// does and the budget has room, the file list settles it.
func (a *auditor) refine(ctx context.Context, p *github.Pull, s *apiSource, ds []breaker.Decision, notes []string,
	decide func() ([]breaker.Decision, []string, error), pr *present.PullResult) ([]breaker.Decision, []string, error) {
	s.credit = 0
	without, _, err := decide()
	s.credit = 1
	if err != nil {
		return nil, nil, err
	}
	if without[len(without)-1].State == ds[len(ds)-1].State {
		return ds, notes, nil
	}
	spare := a.o.Budget - a.used() - a.typical()*a.queued
	if rem, lim, known := a.c.RateRemaining(); known {
		spare = min(spare, rem-a.o.Reserve.Floor(lim)-a.typical()*a.queued)
	}
	if spare < 1 {
		notes = append(notes, "the verdict rests on counting each commit that changed the tree as a meaningful change: the file list that would check it was not read (no spare budget)")
		return ds, notes, nil
	}
	files, err := a.c.PullFiles(ctx, p.Number, spare)
	if err != nil {
		if errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil {
			return nil, nil, err
		}
		notes = append(notes, "the file list could not be read: "+oneLine(err.Error()))
		return ds, notes, nil
	}
	s.files = classify(files, a.paths)
	pr.Evidence = "api+files"
	return decide()
}

// describe fills the result from the decisions.
func (a *auditor) describe(pr *present.PullResult, ds []breaker.Decision) {
	d := &ds[len(ds)-1]
	pr.Decision = d
	pr.State = d.State
	if d.Trigger != nil {
		pr.Trigger = *d.Trigger
	}
	if d.Reason != nil {
		pr.Reason = *d.Reason
	}
	pr.Iterations = d.Iteration
	pr.LastProgress = d.LastProgress
	pr.WastedUSD, pr.WastedTokens = d.SpentSinceProgressUSD, d.SpentSinceProgressTokens
	start := max(0, len(ds)-scoreHistory)
	pr.Scores = []int{}
	for _, x := range ds[start:] {
		if x.Iteration > 0 {
			pr.Scores = append(pr.Scores, x.ProgressScore)
		}
	}
	pr.Notes = dedupe(pr.Notes)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// controls turns the comments of trusted people into resets and holds,
// adds the force-open label's hold, and finds loopbreaker's sticky comment.
func (a *auditor) controls(ctx context.Context, p *github.Pull, comments []github.Comment, pr *present.PullResult) ([]loop.Control, *github.Comment, error) {
	var out []loop.Control
	if hasLabel(p.Labels, present.LabelForceOpen) {
		by, ok, err := a.labelledBy(ctx, p, present.LabelForceOpen, pr)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			out = append(out, loop.Control{At: a.o.Now.UTC(), Kind: loop.ControlForceOpen, Reason: "held open by the " + present.LabelForceOpen + " label, added by " + by})
		}
	}
	sticky := control.Sticky(comments, present.Marker, p.User)
	cmds, notes, err := control.Commands(comments, present.Marker, a.trusted(ctx, p, pr))
	if err != nil {
		return nil, nil, err
	}
	pr.Notes = append(pr.Notes, notes...)
	out = append(out, cmds...)
	return out, sticky, nil
}

// trusted is the trust rule (control.Trust.Rule) with each permission
// look-up budgeted; a look-up that failed is noted and tried again. The
// pull request's author and the known coding agents never control its
// breaker, as in the Action; the author is refused per pull request (the
// same person may control another's), so before the rule's cache.
func (a *auditor) trusted(ctx context.Context, p *github.Pull, pr *present.PullResult) control.Trusted {
	rule := a.trust.Rule(func(login string) (string, bool, error) {
		if err := a.afford(ctx, 1); err != nil {
			return "", false, err
		}
		perm, err := a.c.Permission(ctx, login)
		if err != nil {
			if errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil {
				return "", false, err
			}
			pr.Notes = append(pr.Notes, "the permission of "+login+" could not be checked: "+oneLine(err.Error()))
			return "", false, nil
		}
		return perm, true, nil
	})
	return func(login, userType string) (bool, error) {
		if why := control.OwnIdentity(login, p.User, "", nil); why != "" {
			pr.Notes = append(pr.Notes, login+" cannot control the breaker: "+why)
			return false, nil
		}
		return rule(login, userType)
	}
}

// labelledBy says who added label to p when that person may control the
// breaker; ok is false, with a note, otherwise.
func (a *auditor) labelledBy(ctx context.Context, p *github.Pull, label string, pr *present.PullResult) (by string, ok bool, err error) {
	events, ok, err := a.pullEvents(ctx, p, pr, fmt.Sprintf("the %s label was ignored: who added it could not be read (%%s)", label))
	if err != nil || !ok {
		return "", false, err
	}
	e, ok, note, err := control.LabelledBy(events, label, a.trusted(ctx, p, pr))
	if err != nil || !ok {
		if note != "" {
			pr.Notes = append(pr.Notes, note)
		}
		return "", false, err
	}
	return e.Actor, true, nil
}

// pullEvents reads p's own label events once (one call, budgeted); ok is
// false, with the note failed (a format of the fault), when they cannot be
// read.
func (a *auditor) pullEvents(ctx context.Context, p *github.Pull, pr *present.PullResult, failed string) ([]github.LabelEvent, bool, error) {
	if events, ok := a.prEvents[p.Number]; ok {
		return events, true, nil
	}
	if err := a.afford(ctx, 1); err != nil {
		return nil, false, err
	}
	events, err := a.c.LabelEvents(ctx, p.Number)
	if err != nil {
		if errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil {
			return nil, false, err
		}
		pr.Notes = append(pr.Notes, fmt.Sprintf(failed, oneLine(err.Error())))
		return nil, false, nil
	}
	a.prEvents[p.Number] = events
	return events, true, nil
}

// labelResets folds the resets people made by taking the open label off
// (control.LabelResets; d is the decision without them). The events are
// read, budgeted, only when a reset may be missing from d: the label is gone
// from an OPEN pull request, or the newest record claims resets (never
// applied itself: a forged claim costs the read only). Otherwise events the
// run already holds are used, at no call.
func (a *auditor) labelResets(ctx context.Context, p *github.Pull, d *breaker.Decision, led *ledger.Ledger, refold control.Refold, pr *present.PullResult) error {
	since, ever := control.ResetsSince(d.History)
	if !ever {
		return nil
	}
	if since.Before(p.CreatedAt) {
		since = p.CreatedAt // no label event is older than its pull request
	}
	gone := d.State == breaker.Open && d.OpenedAt != nil && !hasLabel(p.Labels, present.LabelOpen)
	claimed := led != nil && len(led.Records) > 0 && len(led.Records[len(led.Records)-1].LabelResets) > 0
	events, ok, err := a.labelEvents(ctx, p, since, gone || claimed, pr)
	if err != nil || !ok {
		return err
	}
	_, refused, err := control.LabelResets(events, present.LabelOpen, d.History, a.trusted(ctx, p, pr), refold)
	for _, e := range refused {
		pr.Notes = append(pr.Notes, fmt.Sprintf("the %s label was removed by %s, who cannot reset the breaker", present.LabelOpen, e.Actor))
	}
	return err
}

// oneLine keeps an error on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
