package action

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/control"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/present"
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
	trust                control.Trust
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
	r := &run{env: env, gha: gha, files: fileCommands{output: env.Getenv("GITHUB_OUTPUT"), summary: env.Getenv("GITHUB_STEP_SUMMARY")}, trust: control.Trust{}}
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
		if by, ok := r.labelledBy(ctx, present.LabelDisabled); ok {
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
	// A comment or a label change starts a run that is no iteration: it applies
	// the control and reports the status at its time.
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

// decide folds once, then again only where asked: without the records that
// are no authority when they would loosen the decision, and once per reset
// by the open label.
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
// off. The events are read (one call) only when a reset may be missing from
// res: the label is gone from an OPEN pull request, or the newest record
// claims resets (evidence, never authority: a forged claim costs the read).
// This run's record names the resets it applied, or passes on the claims
// when the events could not be read, for the next run to check.
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

// noLooser folds again with the trusted records alone and keeps that
// decision when stricter: an unsealed digest or the job's record file adds
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
	case d.State == breaker.Open, !d.AllowContinue:
		return 2
	case d.State == breaker.HalfOpen:
		return 1
	}
	return 0
}

// openedBefore reports whether the breaker was already OPEN before the
// newest iteration.
func openedBefore(res *loop.Result) bool {
	n := len(res.Decisions)
	return n >= 2 && res.Decisions[n-2].State == breaker.Open
}

// connect opens the GitHub seam for owner/repo with the run's token.
func (r *run) connect(owner, repo string) (github.API, error) {
	o := github.Options{Token: r.in.Token, BaseURL: r.getenv("GITHUB_API_URL"), Owner: owner, Repo: repo,
		DryRun: r.in.DryRun, Sleep: r.env.Sleep, Now: r.env.Now, HTTPClient: r.env.HTTPClient}
	return github.New(o)
}

// inWorkspace resolves relative paths and globs against the workspace.
func (r *run) inWorkspace(paths []string) []string {
	out := slices.Clone(paths)
	for i, p := range out {
		if !filepath.IsAbs(p) {
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
	if policy.IsBuiltin(name) {
		p, err := policy.Builtin(name)
		return p, nil, err
	}
	rel := filepath.ToSlash(filepath.Clean(name))
	if filepath.IsAbs(name) || strings.HasPrefix(rel, "../") {
		return nil, nil, fmt.Errorf("input policy: %q must be a built-in name or a path inside the repository", name)
	}
	base := cmp.Or(r.ev.BaseSHA, r.in.Base)
	if base == "" && r.ev.DefaultBranch != "" {
		base = "origin/" + r.ev.DefaultBranch
	}
	base = cmp.Or(base, "HEAD")
	var data []byte
	repo, err := gitlog.Open(r.ws)
	if err == nil {
		data, err = repo.FileAt(base, rel, policy.MaxFileBytes)
		repo.Close()
	}
	if err != nil && r.client != nil {
		data, err = r.client.FileAt(ctx, cmp.Or(r.ev.BaseRef, r.ev.DefaultBranch), rel)
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
