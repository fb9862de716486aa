package loop

import (
	"fmt"
	"slices"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Config is one run of the job.
type Config struct {
	// Repo is the repository directory; Base the revision the loop started
	// from ("" for the default).
	Repo, Base string
	// Policy is the loaded policy (without the profile applied).
	Policy *policy.Policy
	// ProtectPaths are extra protected paths (the policy file's own path).
	ProtectPaths []string
	// Profile and Phase select overrides.
	Profile, Phase string
	// Reports and Log describe the newest iteration.
	Reports []string
	Log     string
	// Ledger holds earlier runs' records; nil means iterations are commits.
	Ledger *ledger.Ledger
	// RunID and Attempt identify this run (0 outside GitHub).
	RunID   int64
	Attempt int
	// Now is this run's time (the newest iteration's time with a ledger).
	Now time.Time
	// Controls are resets and holds made by people, in any order.
	Controls []Control
	// DryRun marks the decisions "would open".
	DryRun bool
	// StatusOnly says the run is not an iteration of the loop (a person's
	// command on the pull request started it): the iterations are the
	// ledger's records (or the commits) alone, the reports and log are not
	// read, the final decision is the breaker's status at Now, and Records
	// is the ledger unchanged (nil without one).
	StatusOnly bool
	// Runs says that every run is an iteration even while the ledger is
	// empty (a local loop that keeps its own ledger from its first run):
	// an empty ledger is not read as "the iterations are the commits".
	Runs bool
	// Progress, when set, is told how far the fold has come (for long
	// replays on a terminal).
	Progress func(done, total int)
	// Incremental lets the run go on from a checkpoint of an earlier run,
	// once verified, instead of folding every iteration: for callers that
	// need the newest decisions (check, the Action), not every one
	// (replay). Decisions then starts after the iterations it stood for
	// (Result.Skipped).
	Incremental bool
	// Cache keeps checkpoints in the repository's git directory when the
	// iterations are commits (no ledger), and with Incremental goes on
	// from them. Result.Records is nil when it did.
	Cache bool
	// anyDigest takes every checkpoint digest as matching the fold from
	// git: the tests' forger, who made the digests for a forged state.
	anyDigest bool
}

// Result is what the run decided.
type Result struct {
	// Decisions has one decision per iteration folded (at least one).
	Decisions []breaker.Decision
	// Notes say what was not visible, skipped or assumed, each with its
	// code.
	Notes []note.Note
	// Records is the cumulative ledger including this run's record; nil
	// when there was no iteration.
	Records []ledger.Record
	// Policy is the effective policy (profile applied).
	Policy *policy.Policy
	// Visible is the number of iterations, those a checkpoint stood for
	// included.
	Visible int
	// Skipped is the number of earlier iterations a verified checkpoint
	// stood for: they have no decision in Decisions.
	Skipped int
}

// Final is the newest decision.
func (r *Result) Final() *breaker.Decision { return &r.Decisions[len(r.Decisions)-1] }

// Run reads the evidence and folds it: from a verified checkpoint when
// cfg.Incremental allows one and there is one, else every iteration.
func Run(cfg Config) (*Result, error) {
	if cfg.Policy == nil {
		return nil, fmt.Errorf("loop: no policy")
	}
	eff, err := cfg.Policy.WithProfile(cfg.Profile)
	if err != nil {
		return nil, err
	}
	res := &Result{Policy: eff}
	if l := cfg.Ledger; l != nil && len(l.Records) == 0 && !cfg.Runs {
		// An empty ledger (a new or emptied directory) must not fold every
		// commit since the base into one iteration: the commits are the
		// iterations, as without a ledger.
		for _, p := range l.Problems {
			res.Notes = append(res.Notes, note.New(note.LedgerEntrySkipped, "ledger entry skipped: %s", p))
		}
		res.Notes = append(res.Notes, note.New(note.LedgerEmpty, "the ledger holds no record: the iterations are the commits since the base"))
		cfg.Ledger = nil
	}
	opts, err := evidence.GitOptions(eff, cfg.Base, cfg.ProtectPaths...)
	if err != nil {
		return nil, err
	}
	repo, err := gitlog.Open(cfg.Repo)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	rn := &runner{cfg: cfg, eff: eff, opts: opts, repo: repo, res: res}
	rn.prepare()
	if cfg.Incremental && !cfg.StatusOnly {
		if done := rn.incremental(); done != nil {
			return done, nil
		}
	}
	return rn.full()
}

// runner is one run of the job.
type runner struct {
	cfg  Config
	eff  *policy.Policy
	opts gitlog.Options
	repo *gitlog.Repo
	res  *Result
	// reach is how many iterations before the newest a checkpoint's run
	// folds again (0: none can be written or used); key what its
	// checkpoints depend on, Base aside.
	reach int
	key   Key
	// pols are the effective policy and its phases.
	pols policies
	// cached is the fold cache as read, so that the same one is not
	// written again.
	cached []byte
}

// prepare finds what checkpoints depend on. A policy whose checkpoints
// cannot be checked, or a phase the policy does not have (the fold says
// so), writes and uses none.
func (rn *runner) prepare() {
	if ph := rn.cfg.Phase; ph != "" && !rn.eff.HasPhase(ph) {
		return
	}
	rn.pols = policiesOf(rn.eff)
	if unverifiable(rn.pols) != "" {
		return
	}
	digest, err := policyDigest(rn.eff, rn.cfg.Phase, rn.cfg.ProtectPaths, rn.cfg.Ledger != nil)
	if err != nil {
		return
	}
	rn.reach, rn.key = reach(rn.pols), Key{Program: program(), Policy: digest}
}

// full folds every iteration.
func (rn *runner) full() (*Result, error) {
	cfg, res := rn.cfg, rn.res
	start := len(res.Notes)
	h, err := history(rn.repo, cfg, rn.eff, rn.opts, res)
	if err != nil {
		return nil, err
	}
	histNotes := len(res.Notes)
	files, err := readFiles(cfg, res)
	if err != nil {
		return nil, err
	}
	var its []breaker.Iteration
	var recs []ledger.Record
	var ev *evidence.Evidence
	if cfg.Ledger != nil {
		if ev, recs, err = fromLedger(rn.repo, h, cfg, rn.opts, res); err != nil {
			return nil, err
		}
		its = ev.Iterations
	} else {
		its = evidence.FromHistory(h, rn.opts.TaskFiles)
		if len(its) == 0 && h.Head != "" {
			res.Notes = append(res.Notes, note.New(note.NoIterations, "no iterations: HEAD has no commits after the base %s", short(h.Base)))
		}
	}
	newest := applyFiles(its, files, res)
	res.Visible = len(its)
	keep := 0
	if rn.reach > 0 {
		keep = rn.reach + 2
	}
	folded, err := Fold(FoldInput{Policy: cfg.Policy, Profile: cfg.Profile, Phase: cfg.Phase, BaseTree: h.BaseTree,
		Iterations: its, Controls: cfg.Controls, Now: cfg.Now, DryRun: cfg.DryRun, Progress: cfg.Progress, Keep: keep})
	if err != nil {
		if isIterationError(err) {
			return nil, fmt.Errorf("repository %s: %w", cfg.Repo, err)
		}
		return nil, err
	}
	res.Decisions = folded.Decisions
	res.Notes = append(res.Notes, folded.Notes...)
	if len(its) > 0 {
		res.Records = records(cfg, its, recs)
	}
	if keep > 0 && len(its) > 0 && !cfg.StatusOnly && checkpointable(h) {
		rn.key.Base = baseKey(rn.repo, cfg.Base, h.Base)
		cp := &checkpoints{rn: rn, its: its, first: len(its) - len(folded.States), states: folded.States, newest: newest,
			history: slices.Clone(res.Notes[start:histNotes]), ev: evidenceNotesOf(ev)}
		rn.keep(cp, func(g int) string { return its[g-1].Commit })
	}
	return res, nil
}

// readFiles reads the newest iteration's reports and log, noting what the
// readers skipped; a run that is not an iteration reads none.
func readFiles(cfg Config, res *Result) (*evidence.Files, error) {
	if len(cfg.Reports) == 0 && cfg.Log == "" {
		return nil, nil
	}
	if cfg.StatusOnly {
		res.Notes = append(res.Notes, note.New(note.EvidenceUnused, "this run is not an iteration of the loop: the reports and log were not read"))
		return nil, nil
	}
	files, err := evidence.ReadFiles(cfg.Reports, cfg.Log)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, files.Notes()...)
	return files, nil
}

// applyFiles gives the newest iteration its reports and log, and returns
// that iteration as it was before: as a later run will read it (from git
// and its record), without them; nil when there were none, and the
// iteration is read alike.
func applyFiles(its []breaker.Iteration, files *evidence.Files, res *Result) *breaker.Iteration {
	if files == nil {
		return nil
	}
	if len(its) == 0 {
		res.Notes = append(res.Notes, note.New(note.EvidenceUnused, "no commit since the base: the reports and log were read but there is no iteration to apply them to"))
		return nil
	}
	before := its[len(its)-1]
	files.Apply(&its[len(its)-1])
	return &before
}

// history walks the loop's commits: each one's evidence, or with a ledger
// only the chain (the records are diffed one by one instead).
func history(repo *gitlog.Repo, cfg Config, eff *policy.Policy, opts gitlog.Options, res *Result) (*gitlog.History, error) {
	opts.ChainOnly = cfg.Ledger != nil
	h, err := repo.History(opts)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, gitNotes(h.Notes)...)
	if h.Shallow && eff.OnShallow == policy.OnShallowFail {
		return nil, fmt.Errorf("repository %s is a shallow clone and policy %s has on_shallow = \"fail\": fetch the full history (actions/checkout with fetch-depth: 0) or deepen it", cfg.Repo, eff.Name)
	}
	return h, nil
}

// fromLedger makes the iterations of the ledger's records followed by this
// run's (a re-run replaces its own earlier record), each diffed against
// the one before. It returns the earlier records this run's ledger
// continues.
func fromLedger(repo *gitlog.Repo, h *gitlog.History, cfg Config, opts gitlog.Options, res *Result) (*evidence.Evidence, []ledger.Record, error) {
	recs := earlierRecords(cfg, res)
	all := recs // a run that is not an iteration folds the records alone
	if !cfg.StatusOnly {
		all = withRun(cfg, recs, h.Head)
	}
	ev, err := evidence.ContinueLedger(repo, evidence.LedgerStart{Commit: h.Base, First: true}, all, opts)
	if err != nil {
		return nil, nil, err
	}
	res.Notes = append(res.Notes, gitNotes(ev.Notes)...)
	return ev, recs, nil
}

// earlierRecords notes the ledger's problems and returns its records
// without this run's own (a re-run replaces it).
func earlierRecords(cfg Config, res *Result) []ledger.Record {
	for _, p := range cfg.Ledger.Problems {
		res.Notes = append(res.Notes, note.New(note.LedgerEntrySkipped, "ledger entry skipped: %s", p))
	}
	recs := cfg.Ledger.Records
	if n := len(recs); n > 0 && !cfg.StatusOnly && cfg.RunID > 0 && recs[n-1].RunID == cfg.RunID {
		recs = recs[:n-1]
	}
	return recs
}

// withRun appends this run's record, for commit head, to the earlier ones:
// at the run's time, or the newest record's when that is later.
func withRun(cfg Config, recs []ledger.Record, head string) []ledger.Record {
	now := cfg.Now.UTC()
	if n := len(recs); n > 0 && now.Before(recs[n-1].At) {
		now = recs[n-1].At
	}
	return append(append(make([]ledger.Record, 0, len(recs)+1), recs...), ledger.Record{Version: ledger.Version, RunID: cfg.RunID, RunAttempt: cfg.Attempt, Commit: head, At: now})
}

// records is the cumulative ledger with this run's record, the newest
// iteration's. Without earlier records the iterations were the commits:
// each earlier one becomes a record of its own (run 0, at its commit's
// time), so that the next run, reading this ledger, folds the same
// iterations instead of one that covers them all, and does not lose the
// history that decided this run. The records keep no checkpoint of an
// earlier run. A run that is not an iteration (StatusOnly) returns the
// ledger as it was.
func records(cfg Config, its []breaker.Iteration, recs []ledger.Record) []ledger.Record {
	if cfg.StatusOnly {
		if cfg.Ledger == nil {
			return nil
		}
		return append([]ledger.Record{}, recs...)
	}
	newest := its[len(its)-1]
	r := ledger.FromIteration(&newest, cfg.RunID, cfg.Attempt)
	out := make([]ledger.Record, 0, max(len(recs), len(its))+1)
	if cfg.Ledger == nil {
		r.At = cfg.Now.UTC()
		for i := range its[:len(its)-1] {
			out = append(out, ledger.FromIteration(&its[i], 0, 0))
		}
	} else {
		out = append(out, recs...)
		for i := range out {
			out[i].Checkpoint = nil
		}
	}
	return append(out, r)
}
