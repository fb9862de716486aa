package action

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/notify"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Env is everything a run takes from the outside world.
type Env struct {
	Getenv     func(string) string
	Stdout     io.Writer // workflow commands and the log
	Now        func() time.Time
	HTTPClient *http.Client
	// Sleep waits between API retries; tests pass one that records and
	// returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// ExitForError is the exit code of a failed run (nil: exitError): the
	// command line tells internal and transient faults from bad input.
	ExitForError func(error) int
}

// Exit codes of the action (the domain's, as for the CLI).
const (
	exitContinue = breaker.ExitContinue
	exitOpen     = breaker.ExitOpen
	exitError    = breaker.ExitError
)

// MaxArtifactBytes bounds the previous run's artifact download.
const MaxArtifactBytes = 64 << 20

type run struct {
	env    Env
	gha    *githubactions.Action
	files  fileCommands
	in     *Inputs
	ev     *Event
	owner  string
	repo   string
	ws     string
	runID  int64
	try    int
	client github.API
	// notes are the run's facts about the evidence, each with its code:
	// the GitHub side's (note.GitHub) and the fold's.
	notes []note.Note
	// record is where this run's record goes (recordFile checked it).
	record string
	// sticky is loopbreaker's sticky comment; listed says the comments
	// were read, so that its absence is known.
	sticky *github.Comment
	listed bool
	// trust caches who may control the breaker, events the pull request's
	// label events (read at most once: eventsRead, eventsOK).
	trust                map[string]bool
	events               []github.LabelEvent
	eventsRead, eventsOK bool
	// deepenErr says why the clone could not be deepened.
	deepenErr string
	// looseSource names the source of a ledger that is no authority (a
	// digest no key sealed, or one whose freshness could not be checked):
	// it may not loosen the decision (noLooser).
	looseSource string
	// statusOnly says the run is not an iteration of the loop (a comment
	// started it): it reports the breaker's status at its time.
	statusOnly bool
	// hold says why the agent's handover was refused and the loop is held
	// OPEN for a person ("" when it was not).
	hold string
}

// Run runs the action and returns the process exit code: 0 continue, 1 OPEN
// with on-open "fail", 2 when nothing sensible could be decided.
func Run(ctx context.Context, env Env) int {
	if env.Now == nil {
		env.Now = time.Now
	}
	gha := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(env.Stdout))
	r := &run{env: env, gha: gha, files: fileCommands{output: env.Getenv("GITHUB_OUTPUT"), summary: env.Getenv("GITHUB_STEP_SUMMARY")}, trust: map[string]bool{}}
	code, err := r.main(ctx)
	if err != nil {
		gha.Errorf("loopbreaker: %s", render.Clean(err.Error()))
		if env.ExitForError != nil {
			return env.ExitForError(err)
		}
		return exitError
	}
	return code
}

func (r *run) getenv(k string) string { return r.env.Getenv(k) }

// note adds a fact from the GitHub side of the run.
func (r *run) note(text string) { r.notes = append(r.notes, note.Note{Code: note.GitHub, Text: text}) }

func (r *run) main(ctx context.Context) (int, error) {
	if err := r.setup(); err != nil {
		return 0, err
	}
	if r.in.Disabled {
		return r.disabled(r.in.DisabledBy)
	}
	if r.in.Token == "" {
		r.gha.Warningf("loopbreaker: no token: no labels, comment, status or artifacts; the decision is made from git alone")
	} else if r.owner == "" || r.repo == "" {
		r.gha.Warningf("loopbreaker: GITHUB_REPOSITORY is not set: no GitHub side effects")
	} else {
		var err error
		if r.client, err = r.connect(r.owner, r.repo); err != nil {
			return 0, err
		}
	}
	if r.in.Mode == "audit" {
		pol, protect, err := r.policy(ctx)
		if err != nil {
			return 0, err
		}
		return r.audit(ctx, pol, protect)
	}
	return r.check(ctx)
}

// setup reads the inputs, the event and the run's place (repository,
// workspace, run and attempt, record file).
func (r *run) setup() error {
	in, err := readInputs(r.gha.GetInput, r.getenv)
	if err != nil {
		return err
	}
	r.in = in
	if len(in.IgnoredEnv) > 0 {
		line := fmt.Sprintf("%s set in the job's environment: ignored, the Action reads its inputs only (any earlier step can write the environment)", strings.Join(in.IgnoredEnv, ", "))
		r.gha.Noticef("loopbreaker: %s", line)
		r.note(line)
	}
	if r.ev, err = ReadEvent(r.getenv("GITHUB_EVENT_NAME"), r.getenv("GITHUB_EVENT_PATH")); err != nil {
		return err
	}
	if in.Branch != "" && in.Branch == r.ev.DefaultBranch {
		return fmt.Errorf("input branch: %s is the default branch, which is no agent loop's branch: give the loop's own branch", in.Branch)
	}
	r.owner, r.repo, _ = strings.Cut(r.getenv("GITHUB_REPOSITORY"), "/")
	r.ws = orDefault(r.getenv("GITHUB_WORKSPACE"), ".")
	r.runID, _ = strconv.ParseInt(r.getenv("GITHUB_RUN_ID"), 10, 64)
	r.try, _ = strconv.Atoi(r.getenv("GITHUB_RUN_ATTEMPT"))
	if r.runID > 0 && r.try == 0 {
		r.try = 1
	}
	if in.Mode != "audit" {
		r.record, err = recordFile(r.ws, in.RecordPath)
	}
	return err
}

// check decides one iteration of the loop (mode check) or whether the
// agent may start one (mode gate), and reports it.
func (r *run) check(ctx context.Context) (int, error) {
	in := r.in
	if err := r.pull(ctx); err != nil {
		return 0, err
	}
	if in.Bundle != "" && in.Mode == "check" {
		if err := r.applyBundle(ctx); err != nil {
			return 0, err
		}
	}
	if r.ev.HasLabel(present.LabelDisabled) {
		if by, _, ok := r.labelledBy(ctx, present.LabelDisabled); ok {
			return r.disabled("the PR has the " + present.LabelDisabled + " label, added by " + by)
		}
	}
	g, err := r.prepareGit(ctx)
	if err != nil {
		return 0, err
	}
	if g.clone != nil {
		defer g.clone.Close()
	}
	pol, protect, err := r.policy(ctx)
	if err != nil {
		return 0, err
	}
	// A comment on the pull request (a person's command) or a label added
	// or removed starts a run that is not an iteration of the loop: it
	// applies the control and reports the breaker's status at the run's
	// time, as the audit does.
	r.statusOnly = r.ev.Control() || in.Mode == "gate"
	cfg := loop.Config{Repo: g.dir, Base: g.base, Policy: pol, ProtectPaths: protect, Profile: in.Profile,
		Phase: in.Phase, Reports: r.inWorkspace(in.Reports), RunID: r.runID, Attempt: r.try, Now: r.env.Now().UTC(), DryRun: in.DryRun,
		StatusOnly: r.statusOnly}
	if in.AgentLog != "" {
		cfg.Log = r.inWorkspace([]string{in.AgentLog})[0]
		if err := noLinks(r.ws, "agent-log", cfg.Log); err != nil {
			return 0, err
		}
	}
	// A glob that matches nothing or too much is reported by the reader.
	if files, err := testreport.Files(cfg.Reports); err == nil {
		if err := noLinks(r.ws, "reports", files...); err != nil {
			return 0, err
		}
	}
	if err := r.gather(ctx, &cfg, g); err != nil {
		return 0, err
	}
	res, err := r.decide(ctx, &cfg)
	if err != nil {
		return 0, err
	}
	r.notes = append(r.notes, res.Notes...)
	if in.Mode == "gate" {
		return r.gate(res)
	}
	return r.report(ctx, res, g)
}

// decide folds the loop once, then again only where a control or a
// source of records asks: without the records that are no authority (an
// unsealed digest, the job's own record file) when they would loosen the
// decision, and once per reset by the open label.
func (r *run) decide(ctx context.Context, cfg *loop.Config) (*loop.Result, error) {
	if r.hold != "" {
		cfg.Controls = append(cfg.Controls, loop.Control{At: cfg.Now, Kind: loop.ControlForceOpen, Reason: r.hold})
	}
	var trusted *ledger.Ledger
	if r.looseSource == "" {
		trusted = cfg.Ledger.Copy()
	}
	fromFile := r.jobRecords(cfg)
	res, err := loop.Run(*cfg)
	if err != nil {
		return nil, err
	}
	if r.looseSource != "" || fromFile {
		if res, err = r.noLooser(*cfg, res, trusted); err != nil {
			return nil, err
		}
	}
	return r.applyLabelResets(ctx, cfg, res)
}

// applyLabelResets folds the resets people made by taking the open label
// off, which only the pull request's label events show. The
// events are read (one call) only when a reset may be missing from res,
// the fold without them: the open label is gone from an OPEN pull
// request, or the ledger's newest record says its run applied such
// resets. A record is evidence, never authority, so what it says is not
// applied: the events are, and a forged claim costs the one read. This
// run's record says which resets it applied, so that a later run, whose
// payload may carry the label again (the loop opened again), does not
// forget them; when the events could not be read it passes on the claims
// it read, for the next run to check.
func (r *run) applyLabelResets(ctx context.Context, cfg *loop.Config, res *loop.Result) (*loop.Result, error) {
	if r.client == nil || r.ev.Number == 0 {
		return res, nil
	}
	var claimed []ledger.LabelReset
	if cfg.Ledger != nil && len(cfg.Ledger.Records) > 0 {
		claimed = cfg.Ledger.Records[len(cfg.Ledger.Records)-1].LabelResets
	}
	d := res.Final()
	// A breaker that opened at this run's own record never had the label:
	// its absence says nothing.
	gone := d.State == breaker.Open && !r.ev.HasLabel(present.LabelOpen) && d.OpenedAt != nil &&
		(cfg.Ledger == nil || cfg.StatusOnly || openedBefore(res))
	if !gone && len(claimed) == 0 {
		return res, nil
	}
	res, applied, read, err := r.labelResets(ctx, cfg, res)
	if err != nil {
		return nil, err
	}
	if !read {
		applied = claimed
	}
	if n := len(res.Records); n > 0 && !cfg.StatusOnly {
		res.Records[n-1].LabelResets = applied
	}
	return res, nil
}

// noLooser folds again with the trusted records alone (the artifacts or a
// sealed digest; nil: git and the controls alone) and keeps that decision
// when it is stricter: an unsealed digest and the job's record file add
// what git cannot know, never a way out.
func (r *run) noLooser(cfg loop.Config, res *loop.Result, trusted *ledger.Ledger) (*loop.Result, error) {
	cfg.Ledger = trusted
	alt, err := loop.Run(cfg)
	if err != nil {
		return nil, err
	}
	if strictness(alt.Final()) > strictness(res.Final()) {
		what := "the record file " + r.record
		if r.looseSource != "" {
			what = r.looseSource
		}
		r.note(fmt.Sprintf("the records of %s would have loosened the decision to %s: the stricter decision without them stands", what, res.Final().State))
		return alt, nil
	}
	return res, nil
}

// strictness orders decisions from the loosest: CLOSED, HALF_OPEN, then
// OPEN, and a paused or complete loop stops like an OPEN one.
func strictness(d *breaker.Decision) int {
	switch {
	case d.State == breaker.Open:
		return 2
	case !d.AllowContinue:
		return 2
	case d.State == breaker.HalfOpen:
		return 1
	}
	return 0
}

// seal is the digest's authentication for this pull request, written by
// this run.
func (r *run) seal() present.Seal {
	return present.Seal{Key: r.in.DigestKey, Scope: fmt.Sprintf("%s/%s#%d", r.owner, r.repo, r.ev.Number), Run: r.runID, Attempt: r.try}
}

// runAttempt is an attempt of a workflow run; runs are ordered by id, then
// attempt.
type runAttempt struct {
	run     int64
	attempt int
}

func (a runAttempt) after(b runAttempt) bool {
	return a.run > b.run || a.run == b.run && a.attempt > b.attempt
}

// sealer seals and verifies this workflow's records in the file (the
// artifact) of run run with the digest key.
func (r *run) sealer(run int64) ledger.Sealer {
	return ledger.Sealer{Key: r.in.DigestKey, Repository: r.owner + "/" + r.repo, Workflow: r.workflowPath(), Run: run}
}

// sealedOnly keeps the records of l, read from where (the file of run
// run), that carry a seal the digest key verifies, noting how many did
// not; nil when none do. Without a key every record is kept.
func (r *run) sealedOnly(l *ledger.Ledger, run int64, where string) *ledger.Ledger {
	if r.in.DigestKey == "" || l == nil {
		return l
	}
	s := r.sealer(run)
	var kept []ledger.Record
	for i := range l.Records {
		if s.Verify(&l.Records[i]) {
			kept = append(kept, l.Records[i])
		}
	}
	if n := len(l.Records) - len(kept); n > 0 {
		r.notes = append(r.notes, note.New(note.RecordUnsealed, "%d of the %d records in %s carry no seal that verifies with the digest key (written without it, forged or changed): ignored", n, len(l.Records), where))
	}
	if len(kept) == 0 {
		return nil
	}
	c := *l
	c.Records = kept
	return &c
}

// openedBefore reports whether the breaker was already OPEN before the
// newest iteration.
func openedBefore(res *loop.Result) bool {
	n := len(res.Decisions)
	return n >= 2 && res.Decisions[n-2].State == breaker.Open
}

// disabled reports a run the breaker is off for: a notice, no decision.
func (r *run) disabled(why string) (int, error) {
	r.gha.Noticef("loopbreaker is disabled (%s): no decision was made", why)
	js, _ := render.EncodeDisabled(why)
	r.setOutputs(map[string]string{"state": "DISABLED", "allow-continue": "true", "proceed": "true", "decision": string(js)})
	r.summary(present.DisabledSummary(why))
	return exitContinue, nil
}

// connect opens the GitHub seam for owner/repo with the run's token.
func (r *run) connect(owner, repo string) (github.API, error) {
	o := github.Options{Token: r.in.Token, BaseURL: r.getenv("GITHUB_API_URL"), Owner: owner, Repo: repo,
		DryRun: r.in.DryRun, Sleep: r.env.Sleep, Now: r.env.Now, HTTPClient: r.env.HTTPClient}
	return github.New(o)
}

// inWorkspace resolves relative paths and globs against the workspace.
func (r *run) inWorkspace(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if filepath.IsAbs(p) {
			out[i] = p
		} else {
			out[i] = filepath.Join(r.ws, p)
		}
	}
	return out
}

// policy loads the policy (loadPolicy) with the open-action input over
// its on_open, for the check run and the audit alike.
func (r *run) policy(ctx context.Context) (*policy.Policy, []string, error) {
	pol, protect, err := r.loadPolicy(ctx)
	if err != nil || r.in.OpenAction == "" {
		return pol, protect, err
	}
	if pol, err = pol.WithOnOpen(r.in.OpenAction); err != nil {
		return nil, nil, fmt.Errorf("input open-action: %w", err)
	}
	return pol, protect, nil
}

// loadPolicy loads the policy: a built-in by name, else a file read from
// the base branch's git objects (never from the PR head or the work tree),
// or through the API when the base is not in the clone.
func (r *run) loadPolicy(ctx context.Context) (*policy.Policy, []string, error) {
	name := r.in.Policy
	for _, n := range policy.Names() {
		if n == name {
			p, err := policy.Builtin(name)
			return p, nil, err
		}
	}
	rel := filepath.ToSlash(filepath.Clean(name))
	if filepath.IsAbs(name) || strings.HasPrefix(rel, "../") {
		return nil, nil, fmt.Errorf("input policy: %q must be a built-in name or a path inside the repository", name)
	}
	base := r.ev.BaseSHA
	if base == "" {
		base = r.in.Base
	}
	if base == "" && r.ev.DefaultBranch != "" {
		base = "origin/" + r.ev.DefaultBranch
	}
	if base == "" {
		base = "HEAD"
	}
	var data []byte
	repo, err := gitlog.Open(r.ws)
	if err == nil {
		data, err = repo.FileAt(base, rel, policy.MaxFileBytes)
		repo.Close()
	}
	if err != nil && r.client != nil {
		ref := r.ev.BaseRef
		if ref == "" {
			ref = r.ev.DefaultBranch
		}
		data, err = r.client.FileAt(ctx, ref, rel)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("policy %s from the base branch (%s): %w", rel, base, err)
	}
	p, err := policy.Parse(data, rel+" at "+base)
	return p, []string{rel}, err
}

// apiError applies on-api-error: "fail" stops the run, "continue" warns.
func (r *run) apiError(what string, err error) error {
	if err == nil {
		return nil
	}
	if r.in.OnAPIError == "fail" {
		return fmt.Errorf("%s: %w", what, err)
	}
	r.gha.Warningf("loopbreaker: %s: %s (on-api-error: continue)", what, render.Clean(err.Error()))
	r.note(fmt.Sprintf("%s failed: %s", what, err))
	return nil
}

// gather reads the controls of trusted people and the ledger of earlier
// runs: the sticky comment's digest when it holds every record (the
// comments are listed anyway, for the commands), else the newest record
// artifact of the loop. Records of another loop's commits are dropped.
func (r *run) gather(ctx context.Context, cfg *loop.Config, g *gitState) error {
	if r.ev.HasLabel(present.LabelForceOpen) {
		if by, _, ok := r.labelledBy(ctx, present.LabelForceOpen); ok {
			cfg.Controls = append(cfg.Controls, loop.Control{At: cfg.Now, Kind: loop.ControlForceOpen, Reason: "held open by the " + present.LabelForceOpen + " label, added by " + by})
		}
	}
	if r.client == nil {
		r.note("git-only evidence: no token to read earlier records")
		return nil
	}
	var digest *ledger.Ledger
	var wrote runAttempt // the run that wrote a sealed digest
	partial := false
	// The comments are listed even when the payload counts none: a run
	// waits in its concurrency group, and a person's command or another
	// run's sticky comment may have come since its event.
	if r.ev.Number > 0 {
		comments, err := r.client.Comments(ctx, r.ev.Number)
		if err := r.apiError("list PR comments", err); err != nil {
			return err
		}
		r.listed = err == nil
		r.commands(ctx, comments, cfg)
		if r.sticky != nil {
			d, err := present.ReadDigest(r.sticky.Body, r.seal())
			switch {
			case err != nil && r.in.DigestKey != "":
				r.note(fmt.Sprintf("the sticky comment's digest was not used: %s", err))
			case err == nil && len(d.Ledger.Records) > 0:
				digest, partial, wrote = d.Ledger, !d.Complete, runAttempt{d.Run, d.Attempt}
			}
		}
	}
	// A digest stands for the artifacts only when the digest key sealed it
	// (anyone who can comment can write one) and it is current: no run of
	// the loop after the one that wrote it left a record artifact that
	// holds (an old sealed body written back is older than that). A dry
	// run never updates the sticky comment: its digest stops at the last
	// run that wrote.
	sealed := digest != nil && r.in.DigestKey != "" && !r.in.DryRun
	after := runAttempt{run: -1}
	if sealed && !partial {
		after = wrote
		for _, rec := range digest.Records {
			if w := (runAttempt{rec.RunID, rec.RunAttempt}); w.after(after) {
				after = w
			}
		}
	}
	branch := r.ev.HeadRef
	if branch == "" {
		branch = strings.TrimPrefix(r.getenv("GITHUB_REF"), "refs/heads/")
	}
	current := false
	if r.in.UseArtifact && branch != "" {
		l, cur, err := r.artifactLedger(ctx, g, branch, after)
		if err := r.apiError("read the previous record artifact", err); err != nil {
			return err
		}
		if current = cur; current && after.run >= 0 {
			cfg.Ledger = r.ownRecords(g, digest)
			r.note(fmt.Sprintf("earlier records came from the sticky comment's sealed digest (%d records, up to run %d, the loop's newest)", len(digest.Records), after.run))
			return nil
		}
		if l != nil && after.run >= 0 {
			r.notes = append(r.notes, note.New(note.RecordStale, "the sticky comment's sealed digest ends at run %d (attempt %d), and a later run's record artifact holds: the digest was not used", after.run, after.attempt))
		}
		cfg.Ledger = r.ownRecords(g, l)
	}
	if cfg.Ledger == nil && digest != nil {
		cfg.Ledger = r.ownRecords(g, digest)
		switch {
		case r.in.DigestKey == "":
			r.looseSource = "the sticky comment's unsealed digest (set digest-key to seal it)"
		case !sealed || !current:
			r.looseSource = "the sticky comment's sealed digest, which could not be checked against the loop's record artifacts"
			r.notes = append(r.notes, note.New(note.RecordStale, "the sticky comment's sealed digest could not be checked against the loop's record artifacts: it may add records, never loosen the decision"))
		}
		r.note(fmt.Sprintf("earlier records came from the sticky comment's digest (%d records)", len(digest.Records)))
	}
	if cfg.Ledger == nil {
		r.note("no earlier records (artifact missing or expired, no digest): iterations are the commits since the base")
	}
	return nil
}

// jobRecords takes up the records that earlier iterations of this job
// (the action run more than once in one job) left in the record file, and
// reports whether there were any: no artifact or digest holds them yet,
// and the file is written anew. A file that holds no record of this run
// attempt is another job's, and is not read as a ledger.
func (r *run) jobRecords(cfg *loop.Config) bool {
	if r.runID <= 0 {
		return false
	}
	data, err := regularfile.Read(r.record, ledger.MaxFileBytes, "record file")
	if err != nil {
		return false // none yet (a fault in it is the write's to report)
	}
	l := ledger.Decode(data, r.record)
	ofRun := func() (out []ledger.Record) {
		for _, rec := range l.Records {
			if rec.RunID == r.runID && rec.RunAttempt == r.try {
				out = append(out, rec)
			}
		}
		return out
	}
	if len(ofRun()) == 0 {
		return false
	}
	// With the key, this run sealed what it wrote.
	if l = r.sealedOnly(l, r.runID, r.record); l == nil {
		return false
	}
	mine := ofRun()
	switch {
	case len(mine) == 0:
	case cfg.Ledger == nil:
		cfg.Ledger = l
	default:
		cfg.Ledger.Add(mine)
	}
	if len(mine) > 0 {
		r.note(fmt.Sprintf("%d records of earlier iterations of this job came from %s", len(mine), r.record))
	}
	return len(mine) > 0
}

// artifactLedger reads the newest record artifact of the loop's earlier
// runs that holds: with the digest key, records sealed by the key for
// that run's own file (the others are ignored), so that an artifact
// planted in a run by a step holding the runner's runtime token, or an
// older run's written back, never stands for the run's record; the next
// older run's is read instead. It stops at a run (attempt) no newer than
// after (the newest of a sealed digest's writer and records; run -1 for
// none) and then reports current: no record artifact that holds is newer
// than the digest.
func (r *run) artifactLedger(ctx context.Context, g *gitState, branch string, after runAttempt) (l *ledger.Ledger, current bool, err error) {
	current, err = r.recordArtifacts(ctx, g, branch, after, func(a *github.Artifact) (bool, error) {
		l, err = r.readArtifact(ctx, a)
		return l != nil, err
	})
	return l, current && l == nil, err
}

// readArtifact downloads one record artifact and returns its records, nil
// (with a note) when it holds none that count.
func (r *run) readArtifact(ctx context.Context, a *github.Artifact) (*ledger.Ledger, error) {
	var data []byte
	err := github.ErrExpired
	if !a.Expired {
		data, err = r.client.DownloadArtifact(ctx, a, MaxArtifactBytes)
	}
	if errors.Is(err, github.ErrExpired) {
		r.note(fmt.Sprintf("the %s artifact of run %d has expired", a.Name, a.RunID))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loopbreaker-ledger-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "artifact.zip"), data, 0o600); err != nil {
		return nil, err
	}
	l, err := ledger.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("run %d's %s artifact", a.RunID, a.Name)
	if l = r.sealedOnly(l, a.RunID, where); l == nil || len(l.Records) == 0 {
		// A corrupt or empty artifact must not stand for the history: an
		// older run's, the digest or git take its place.
		if l != nil {
			for _, p := range l.Problems {
				r.notes = append(r.notes, note.New(note.LedgerEntrySkipped, "artifact entry skipped: %s", p))
			}
		}
		r.note(fmt.Sprintf("%s holds no valid record and was not used", where))
		return nil, nil
	}
	r.note(fmt.Sprintf("earlier records from run %d's artifact (%d records)", a.RunID, len(l.Records)))
	return l, nil
}

// Bounds of the search for the previous record among this workflow's
// runs: the runs listed (one call) and those whose artifacts are listed
// (one call each).
const (
	runsListed = 20
	runsRead   = 3
)

// recordArtifacts hands the record artifacts of the loop's earlier runs to
// try, newest first, until try takes one. Only runs of this workflow
// (GITHUB_WORKFLOW_REF) on the loop's branch and head repository count:
// another workflow's records, or a fork's branch of the same name, are
// another loop's. It costs a constant number of calls: the runs, then the
// artifacts of the newest few. It stops at a run no newer than after, and
// reports whether it got there, or to the end of the runs, with none taken
// (current). Without the workflow's name (a run outside Actions), or for a
// loop whose runs are all dispatched on the default branch (an artifact
// name per loop branch), the newest artifact of that name is the one
// candidate.
func (r *run) recordArtifacts(ctx context.Context, g *gitState, branch string, after runAttempt, try func(*github.Artifact) (bool, error)) (current bool, err error) {
	name := r.artifactName(branch)
	wf := r.workflowPath()
	if wf == "" || name != r.in.Artifact {
		belongs := g.belongs(branch)
		if name != r.in.Artifact {
			// The loop's runs are the default branch's, dispatched there for
			// the loop's branch: the name tells its records from other loops'.
			belongs = func(a github.Artifact) bool {
				return r.ev.DefaultBranch != "" && a.HeadBranch == r.ev.DefaultBranch
			}
		}
		a, err := r.client.LatestArtifact(ctx, name, r.runID, belongs)
		if err != nil || a == nil || a.RunID <= after.run {
			if err == nil && a == nil {
				r.note(fmt.Sprintf("no %s artifact from an earlier run on %s", name, branch))
			}
			return err == nil, err
		}
		_, err = try(a)
		return false, err
	}
	runs, err := r.client.WorkflowRuns(ctx, wf, branch, runsListed)
	if err != nil {
		return false, err
	}
	head := r.ev.HeadRepo
	if head == "" {
		head = r.owner + "/" + r.repo
	}
	read := 0
	for _, run := range runs {
		if run.ID == r.runID || (r.runID > 0 && run.ID > r.runID) || !strings.EqualFold(run.HeadRepo, head) ||
			!g.belongs(branch)(github.Artifact{HeadBranch: run.HeadBranch, HeadSHA: run.HeadSHA}) {
			continue
		}
		if !(runAttempt{run.ID, max(run.Attempt, 1)}).after(after) {
			return true, nil
		}
		if read == runsRead {
			return false, nil
		}
		read++
		arts, err := r.client.RunArtifacts(ctx, run.ID, r.in.Artifact)
		if err != nil {
			return false, err
		}
		for i := range arts {
			a := arts[i]
			a.HeadBranch, a.HeadSHA = run.HeadBranch, run.HeadSHA
			if took, err := try(&a); took || err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// artifactName is the record artifact's name: the artifact-name input
// with {branch} replaced by the loop's branch, escaped (an artifact's name
// holds no "/"), so that loops whose runs all run on the default branch
// keep their records apart.
func (r *run) artifactName(branch string) string {
	return strings.ReplaceAll(r.in.Artifact, "{branch}", url.PathEscape(branch))
}

// workflowPath is this workflow's file, from GITHUB_WORKFLOW_REF
// ("owner/repo/.github/workflows/loop.yml@refs/heads/main"); "" when unset.
func (r *run) workflowPath() string {
	ref, _, _ := strings.Cut(r.getenv("GITHUB_WORKFLOW_REF"), "@")
	i := strings.Index(ref, "/.github/workflows/")
	if i < 0 {
		return ""
	}
	return ref[i+1:]
}

// report writes outputs, the record, the summary, annotations and the
// GitHub side effects, and picks the exit code.
func (r *run) report(ctx context.Context, res *loop.Result, g *gitState) (int, error) {
	d := res.Final()
	recordPath := r.record
	if res.Records != nil {
		// With the key every record of the file is sealed for this run:
		// its own and the earlier ones, which came from a sealed source.
		if r.in.DigestKey != "" {
			s := r.sealer(r.runID)
			for i := range res.Records {
				s.Seal(&res.Records[i])
			}
		}
		var buf bytes.Buffer
		if err := ledger.Encode(&buf, res.Records); err != nil {
			return 0, err
		}
		if err := os.MkdirAll(filepath.Dir(recordPath), 0o755); err != nil {
			return 0, fmt.Errorf("record %s: %w", recordPath, err)
		}
		if err := regularfile.WriteAtomic(recordPath, buf.Bytes(), 0o644); err != nil {
			return 0, err
		}
		if err := checkout.Own(r.ws, recordTop(r.ws, recordPath)); err != nil {
			r.gha.Warningf("loopbreaker: %s", render.Clean(err.Error()))
		}
	}

	if g.shallow {
		r.gha.WithFieldsMap(map[string]string{"title": "loopbreaker: shallow clone"}).Warningf("%s", render.Clean(fmt.Sprintf(
			"the clone's history is cut before the loop's start and could not be deepened with the token: the decision rests on the %d iterations visible; check out with fetch-depth: 0 (%s)",
			d.Iteration, orDefault(r.deepenErr, "no fetch was possible"))))
		r.notes = append(r.notes, note.New(note.ShallowClone, "the clone is shallow and could not be deepened: %s", orDefault(r.deepenErr, "its history is cut")))
	}
	r.annotate(present.Annotations(res.Decisions, r.in.DryRun))
	if err := r.sideEffects(ctx, res, g); err != nil {
		return 0, err
	}
	out, err := outputs(d, r.notes, recordPath)
	if err != nil {
		return 0, err
	}
	out["shallow"] = strconv.FormatBool(g.shallow)
	out["artifact-name"] = r.artifactName(r.ev.HeadRef)
	r.setOutputs(out)
	o := present.SummaryOptions{Notes: r.notes}
	if r.client != nil {
		o.API, o.Calls, o.Planned = true, r.client.Calls(), r.client.Planned()
	}
	r.summary(present.Summary(res.Decisions, o))

	// An alert goes out once, from the iteration that opened the breaker.
	if !r.statusOnly {
		r.alert(ctx, res)
	}
	// Only an abort fails the step: a paused loop waits, an alert or an
	// escalation lets it go on.
	if d.ExitCode() == exitOpen && Has(r.in.OnOpen, "fail") && !r.in.DryRun {
		return exitOpen, nil
	}
	return exitContinue, nil
}

// alert posts the alert of on_open = "alert" to the policy's webhook when
// the breaker opened at this run's iteration, and says where it went (the
// host only) or why it was not posted; it never changes the decision.
func (r *run) alert(ctx context.Context, res *loop.Result) {
	d := res.Final()
	if !loop.AlertDue(d) {
		return
	}
	where := notify.Where{Repository: r.owner + "/" + r.repo, PullRequest: r.ev.Number, RunURL: r.runURL()}
	line, warn := notify.Send(ctx, res.Policy.WithPhase(d.Phase).Alert, r.getenv, notify.Webhook{Client: r.env.HTTPClient, Sleep: r.env.Sleep}, notify.NewPayload(d, where))
	switch {
	case line == "":
	case warn:
		r.gha.Warningf("loopbreaker: %s", render.Clean(line))
		r.note(line)
	default:
		r.gha.Noticef("loopbreaker: %s", render.Clean(line))
	}
}

// outputs are the action's outputs for a decision; decision is the
// command line's --format json object, notes included.
func outputs(d *breaker.Decision, notes []note.Note, recordPath string) (map[string]string, error) {
	js, err := render.EncodeJSON(d, notes)
	if err != nil {
		return nil, err
	}
	o := map[string]string{
		"state":             d.State.String(),
		"allow-continue":    strconv.FormatBool(d.AllowContinue || d.DryRun),
		"reason":            "",
		"trigger":           "",
		"iteration":         strconv.Itoa(d.Iteration),
		"progress-score":    strconv.Itoa(d.ProgressScore),
		"decision":          string(js),
		"record-path":       recordPath,
		"escalate":          strconv.FormatBool(d.Escalate),
		"next-model":        "",
		"failure-context":   FailureContext(d),
		"window-score":      "",
		"ignored-open":      strconv.Itoa(d.IgnoredOpen),
		"consecutive-stuck": strconv.Itoa(d.ConsecutiveNoProgress),
		"open-action":       string(d.OpenAction),
		"signal":            d.Signal,
		"complete":          strconv.FormatBool(d.Complete),
	}
	if d.Reason != nil {
		o["reason"] = render.Clean(*d.Reason)
		o["trigger"] = *d.Trigger
	}
	if d.NextModel != nil {
		o["next-model"] = render.Clean(*d.NextModel)
	}
	if d.WindowScore != nil {
		o["window-score"] = strconv.Itoa(*d.WindowScore)
	}
	return o, nil
}

// FailureContext is a short text for the agent's next prompt: the
// command line's failure_context too (render.FailureContext).
func FailureContext(d *breaker.Decision) string { return render.FailureContext(d) }

func (r *run) setOutputs(o map[string]string) {
	names := make([]string, 0, len(o))
	for k := range o {
		names = append(names, k)
	}
	sort.Strings(names)
	if err := r.files.SetOutputs(names, o); err != nil {
		r.gha.Warningf("loopbreaker: %s", err)
	}
}

func (r *run) summary(md string) {
	if err := r.files.AddSummary(md); err != nil {
		r.gha.Debugf("loopbreaker: %s", err)
	}
}

// annotate writes annotations to the log.
func (r *run) annotate(as []present.Annotation) {
	for _, a := range as {
		gha := r.gha
		if a.Title != "" {
			gha = gha.WithFieldsMap(map[string]string{"title": a.Title})
		}
		switch a.Level {
		case present.Error:
			gha.Errorf("%s", a.Message)
		case present.Warning:
			gha.Warningf("%s", a.Message)
		default:
			gha.Noticef("%s", a.Message)
		}
	}
}

// sideEffects sets labels, the sticky comment and the commit status.
func (r *run) sideEffects(ctx context.Context, res *loop.Result, g *gitState) error {
	if r.client == nil {
		return nil
	}
	d := res.Final()
	if r.ev.Number > 0 && r.in.Labels {
		if err := r.apiError("update labels", r.labels(ctx, d)); err != nil {
			return err
		}
	}
	if r.ev.Number > 0 {
		// An alert calls its people in the sticky comment, whatever
		// on-open says.
		alert := d.State == breaker.Open && d.OpenAction == policy.OnOpenAlert
		want := r.posts().Wants(d.State, "comment") || alert
		if want || r.sticky != nil {
			var known int64
			if r.sticky != nil {
				known = r.sticky.ID
			}
			o := present.CommentOptions{Seal: r.seal()}
			if alert {
				o.Mentions = res.Policy.WithPhase(d.Phase).Alert.Mentions
			}
			body := present.StickyComment(d, res.Records, o)
			sticky := github.Sticky{Marker: present.Marker, Author: r.ev.Author, Absent: r.listed && r.sticky == nil}
			_, err := r.client.UpsertComment(ctx, r.ev.Number, known, sticky, body)
			if err := r.apiError("update the sticky comment", err); err != nil {
				return err
			}
		}
	}
	// The commit evaluated: the pull request's head (or commits the run
	// added on top of it), never GitHub's test merge.
	sha := g.head
	if r.ev.GroupSHA != "" {
		sha = r.ev.GroupSHA // the merge queue waits for the check on its own commit
	}
	if sha == "" {
		sha = r.ev.HeadSHA
	}
	if sha == "" {
		sha = r.getenv("GITHUB_SHA")
	}
	if sha != "" && r.in.Status != "none" {
		var err error
		if r.in.Status == "check-run" {
			conclusion, title, summary := present.CheckRun(d, r.in.DryRun)
			err = r.client.CreateCheckRun(ctx, sha, conclusion, title, summary)
		} else {
			state, desc := present.Status(d, r.in.DryRun)
			err = r.client.SetStatus(ctx, sha, state, desc, r.runURL())
		}
		if err := r.apiError("set the commit status", err); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) runURL() string {
	server := orDefault(r.getenv("GITHUB_SERVER_URL"), "https://github.com")
	if r.runID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", server, r.owner, r.repo, r.runID)
}

// labels moves the PR's loopbreaker labels to match the decision (the
// presenter's list), with calls only for labels that change (the event
// payload lists the current ones).
func (r *run) labels(ctx context.Context, d *breaker.Decision) error {
	add, remove := r.posts().LabelMoves(d, r.ev.HasLabel)
	var errs []error
	for _, l := range add {
		errs = append(errs, r.client.AddLabel(ctx, r.ev.Number, github.LabelSpec{Name: l.Name, Color: l.Color, Description: l.Description}))
	}
	for _, l := range remove {
		errs = append(errs, r.client.RemoveLabel(ctx, r.ev.Number, l.Name))
	}
	return errors.Join(errs...)
}

// posts is what the on-open and on-half-open inputs ask to post.
func (r *run) posts() present.Posts {
	return present.Posts{Open: r.in.OnOpen, HalfOpen: r.in.OnHalfOpen}
}
