package loop

import (
	"fmt"
	"sort"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Control kinds: what a trusted person can do to the breaker.
const (
	ControlReset     = "reset"      // close the circuit and start a new fold
	ControlForceOpen = "force_open" // hold it OPEN until a reset
)

// Control is a person's action at a point in time.
type Control struct {
	At     time.Time
	Kind   string
	Reason string
}

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
	// Progress, when set, is told how far the fold has come (for long
	// replays on a terminal).
	Progress func(done, total int)
}

// Result is what the run decided.
type Result struct {
	// Decisions has one decision per iteration (at least one).
	Decisions []breaker.Decision
	// Notes say what was not visible, skipped or assumed.
	Notes []string
	// Records is the cumulative ledger including this run's record; nil
	// when there was no iteration.
	Records []ledger.Record
	// Policy is the effective policy (profile applied).
	Policy *policy.Policy
	// Visible is the number of iterations folded.
	Visible int
}

// Final is the newest decision.
func (r *Result) Final() *breaker.Decision { return &r.Decisions[len(r.Decisions)-1] }

// Run reads the evidence and folds it.
func Run(cfg Config) (*Result, error) {
	if cfg.Policy == nil {
		return nil, fmt.Errorf("loop: no policy")
	}
	eff, err := cfg.Policy.WithProfile(cfg.Profile)
	if err != nil {
		return nil, err
	}
	res := &Result{Policy: eff}
	opts, err := evidence.GitOptions(eff, cfg.Base, cfg.ProtectPaths...)
	if err != nil {
		return nil, err
	}
	repo, err := gitlog.Open(cfg.Repo)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	// With a ledger the iterations are its records, diffed one by one
	// below: the walk only needs the chain, not each commit's evidence.
	hopts := opts
	hopts.ChainOnly = cfg.Ledger != nil
	h, err := repo.History(hopts)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, h.Notes...)
	if h.Shallow && eff.OnShallow == policy.OnShallowFail {
		return nil, fmt.Errorf("repository %s is a shallow clone and policy %s has on_shallow = \"fail\": fetch the full history (actions/checkout with fetch-depth: 0) or deepen it", cfg.Repo, eff.Name)
	}
	b, err := breaker.New(cfg.Policy, breaker.Options{Profile: cfg.Profile, Phase: cfg.Phase, BaseTree: h.BaseTree})
	if err != nil {
		return nil, err
	}

	var files *evidence.Files
	if len(cfg.Reports) > 0 || cfg.Log != "" {
		if files, err = evidence.ReadFiles(cfg.Reports, cfg.Log); err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, files.Notes()...)
	}

	var its []breaker.Iteration
	var recs []ledger.Record
	if cfg.Ledger != nil {
		for _, p := range cfg.Ledger.Problems {
			res.Notes = append(res.Notes, "ledger entry skipped: "+p.String())
		}
		recs = cfg.Ledger.Records
		if n := len(recs); n > 0 && cfg.RunID > 0 && recs[n-1].RunID == cfg.RunID {
			recs = recs[:n-1] // a re-run replaces its own earlier record
		}
		now := cfg.Now.UTC()
		if n := len(recs); n > 0 && now.Before(recs[n-1].At) {
			now = recs[n-1].At
		}
		all := append(append([]ledger.Record{}, recs...), ledger.Record{Version: ledger.Version, RunID: cfg.RunID, RunAttempt: cfg.Attempt, Commit: h.Head, At: now})
		var more []string
		if its, more, err = evidence.FromLedger(repo, h.Base, all, opts); err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, more...)
	} else {
		its = evidence.FromHistory(h, opts.TaskFiles)
		if len(its) == 0 && h.Head != "" {
			res.Notes = append(res.Notes, fmt.Sprintf("no iterations: HEAD has no commits after the base %s", short(h.Base)))
		}
	}
	if files != nil {
		if len(its) == 0 {
			res.Notes = append(res.Notes, "no commit since the base: the reports and log were read but there is no iteration to apply them to")
		} else {
			files.Apply(&its[len(its)-1])
		}
	}
	res.Visible = len(its)

	controls := append([]Control(nil), cfg.Controls...)
	sort.SliceStable(controls, func(i, j int) bool { return controls[i].At.Before(controls[j].At) })
	apply := func(upTo time.Time, all bool) (bool, error) {
		applied := false
		for len(controls) > 0 && (all || !controls[0].At.After(upTo)) {
			c := controls[0]
			controls = controls[1:]
			at := c.At
			if last := b.Snapshot().LastAt; at.Before(last) {
				at = last // a control recorded before the newest event applies at it
			}
			switch c.Kind {
			case ControlReset:
				err = b.Reset(at, c.Reason)
			case ControlForceOpen:
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

	// Commit times are the agent's to write: one dated before the
	// iteration it follows is taken at that iteration's time (and noted)
	// rather than failing the whole run with no decision, and one dated
	// after this run is taken at this run's time, so that a future date
	// cannot make a cooldown look over.
	var last time.Time
	backdated, future := 0, 0
	now := cfg.Now.UTC()
	for i := range its {
		if !now.IsZero() && its[i].At.After(now) {
			if future++; future == 1 {
				res.Notes = append(res.Notes, fmt.Sprintf("iteration %d (commit %s) is dated %s, after this run; its time was taken as %s",
					i+1, short(its[i].Commit), its[i].At.UTC().Format(time.RFC3339), now.Format(time.RFC3339)))
			}
			its[i].At = now
		}
		if its[i].At.Before(last) {
			if backdated++; backdated == 1 {
				res.Notes = append(res.Notes, fmt.Sprintf("iteration %d (commit %s) is dated %s, before the iteration it follows; its time was taken as %s",
					i+1, short(its[i].Commit), its[i].At.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339)))
			}
			its[i].At = last
		}
		last = its[i].At
		if _, err := apply(its[i].At, false); err != nil {
			return nil, err
		}
		d, err := b.Observe(its[i])
		if err != nil {
			return nil, fmt.Errorf("repository %s: iteration %d (commit %s): %w", cfg.Repo, i+1, short(its[i].Commit), err)
		}
		d.DryRun = cfg.DryRun
		res.Decisions = append(res.Decisions, d)
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(its))
		}
	}
	if backdated > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d iterations in all were dated before the iteration they follow", backdated))
	}
	if future > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d iterations in all were dated after this run", future))
	}
	applied, err := apply(time.Time{}, true)
	if err != nil {
		return nil, err
	}
	if applied || len(res.Decisions) == 0 {
		at := cfg.Now.UTC()
		if last := b.Snapshot().LastAt; at.Before(last) {
			at = last
		}
		d, err := b.Status(at)
		if err != nil {
			return nil, err
		}
		d.DryRun = cfg.DryRun
		if applied && len(res.Decisions) > 0 {
			res.Decisions[len(res.Decisions)-1] = d
		} else {
			res.Decisions = append(res.Decisions, d)
		}
	}

	if len(its) > 0 {
		newest := its[len(its)-1]
		r := ledger.FromIteration(&newest, cfg.RunID, cfg.Attempt)
		if cfg.Ledger == nil {
			r.At = cfg.Now.UTC()
			// Without earlier records the iterations were the commits:
			// each earlier one becomes a record of its own (run 0, at its
			// commit's time), so that the next run, reading this ledger,
			// folds the same iterations instead of one that covers them
			// all, and does not lose the history that decided this run.
			for i := range its[:len(its)-1] {
				recs = append(recs, ledger.FromIteration(&its[i], 0, 0))
			}
		}
		res.Records = append(append([]ledger.Record{}, recs...), r)
	}
	return res, nil
}

func short(h string) string {
	if h == "" {
		return "(root)"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
