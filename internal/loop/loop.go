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
	// Work is what a local loop measured of its working tree for this run's
	// record (nil: not measured). With Runs, the records' work is part of
	// their iterations (ledger.Record.ApplyLocal): only a local loop, whose
	// records the agent cannot write, keeps them.
	Work *ledger.Work
	// Progress, when set, is told how far the fold has come (for long
	// replays on a terminal).
	Progress func(done, total int)
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
	// Visible is the number of iterations.
	Visible int
}

// Final is the newest decision.
func (r *Result) Final() *breaker.Decision { return &r.Decisions[len(r.Decisions)-1] }

// Run reads the evidence and folds every iteration. Nothing stands in
// for an earlier fold (a cache or a checkpoint): the agent can write its
// repository's git directory and the records.
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
		ledgerProblems(l, res)
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
	h, err := history(repo, cfg, eff, opts, res)
	if err != nil {
		return nil, err
	}
	files, err := readFiles(cfg, res)
	if err != nil {
		return nil, err
	}
	var its []breaker.Iteration
	var recs []ledger.Record
	if cfg.Ledger != nil {
		var ev *evidence.Evidence
		if ev, recs, err = fromLedger(repo, h, cfg, opts, res); err != nil {
			return nil, err
		}
		its = ev.Iterations
	} else {
		its = evidence.FromHistory(h, opts.TaskFiles)
		if len(its) == 0 && h.Head != "" {
			res.Notes = append(res.Notes, note.New(note.NoIterations, "no iterations: HEAD has no commits after the base %s", ShortHash(h.Base)))
		}
	}
	applyFiles(its, files, res)
	res.Visible = len(its)
	folded, err := Fold(FoldInput{Policy: cfg.Policy, Profile: cfg.Profile, Phase: cfg.Phase, BaseTree: h.BaseTree,
		Iterations: its, Controls: cfg.Controls, Now: cfg.Now, DryRun: cfg.DryRun, Progress: cfg.Progress})
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

// applyFiles gives the newest iteration its reports and log.
func applyFiles(its []breaker.Iteration, files *evidence.Files, res *Result) {
	if files == nil {
		return
	}
	if len(its) == 0 {
		res.Notes = append(res.Notes, note.New(note.EvidenceUnused, "no commit since the base: the reports and log were read but there is no iteration to apply them to"))
		return
	}
	files.Apply(&its[len(its)-1])
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
	if cfg.Runs {
		for i := range all {
			all[i].ApplyLocal(&ev.Iterations[i])
		}
	}
	res.Notes = append(res.Notes, gitNotes(ev.Notes)...)
	return ev, recs, nil
}

// earlierRecords notes the ledger's problems and returns its records
// without the one this run's record replaces: an earlier attempt's record
// of the same iteration (a re-run does it again). Records of this attempt
// are earlier iterations of the same job, and stay.
func earlierRecords(cfg Config, res *Result) []ledger.Record {
	ledgerProblems(cfg.Ledger, res)
	recs := cfg.Ledger.Records
	if cfg.StatusOnly || cfg.RunID <= 0 {
		return recs
	}
	n := ledger.NextIteration(recs, cfg.RunID, cfg.Attempt)
	return slices.DeleteFunc(slices.Clone(recs), func(r ledger.Record) bool { return r.ReplacedBy(cfg.RunID, cfg.Attempt, n) })
}

// ledgerProblems notes the ledger entries that were skipped.
func ledgerProblems(l *ledger.Ledger, res *Result) {
	for _, p := range l.Problems {
		res.Notes = append(res.Notes, note.New(note.LedgerEntrySkipped, "ledger entry skipped: %s", p))
	}
}

// withRun appends this run's record, for commit head, to the earlier ones:
// at the run's time, or the newest record's when that is later.
func withRun(cfg Config, recs []ledger.Record, head string) []ledger.Record {
	now := cfg.Now.UTC()
	if n := len(recs); n > 0 && now.Before(recs[n-1].At) {
		now = recs[n-1].At
	}
	return append(append(make([]ledger.Record, 0, len(recs)+1), recs...), ledger.Record{Version: ledger.Version, RunID: cfg.RunID, RunAttempt: cfg.Attempt,
		Iteration: ledger.NextIteration(recs, cfg.RunID, cfg.Attempt), Commit: head, At: now, Work: cfg.Work})
}

// records is the cumulative ledger with this run's record, the newest
// iteration's. Without earlier records the iterations were the commits:
// each earlier one becomes a record of its own (run 0, at its commit's
// time), so that the next run, reading this ledger, folds the same
// iterations instead of one that covers them all, and does not lose the
// history that decided this run. A run that is not an iteration
// (StatusOnly) returns the ledger as it was.
func records(cfg Config, its []breaker.Iteration, recs []ledger.Record) []ledger.Record {
	if cfg.StatusOnly {
		if cfg.Ledger == nil {
			return nil
		}
		return append([]ledger.Record{}, recs...)
	}
	newest := its[len(its)-1]
	r := ledger.FromIteration(&newest, cfg.RunID, cfg.Attempt)
	r.Work = cfg.Work
	out := make([]ledger.Record, 0, max(len(recs), len(its))+1)
	if cfg.Ledger == nil {
		r.At = cfg.Now.UTC()
		for i := range its[:len(its)-1] {
			out = append(out, ledger.FromIteration(&its[i], 0, 0))
		}
	} else {
		out = append(out, recs...)
	}
	r.Iteration = ledger.NextIteration(out, cfg.RunID, cfg.Attempt)
	return append(out, r)
}
