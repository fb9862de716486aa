package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/statefile"
	"github.com/loopbreaker/loopbreaker/policy"
)

// gitFlags are the flags of check and replay.
type gitFlags struct {
	repo, base, policy, profile, phase, format, log string
	ledger, record                                  string
	reports                                         strList
	dryRun                                          bool
}

func (g *gitFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.repo, "repo", ".", "the git repository of the loop")
	fs.StringVar(&g.base, "base", "", "revision the loop started from, exclusive (default: merge base with the default branch, else the root)")
	fs.StringVar(&g.policy, "policy", "default", "built-in policy name or TOML file")
	fs.StringVar(&g.profile, "profile", "", "policy profile (default: $LOOPBREAKER_PROFILE)")
	fs.StringVar(&g.phase, "phase", "", "phase for iterations whose commit names none")
	fs.StringVar(&g.format, "format", "text", "output format: text, json or markdown")
	fs.Var(&g.reports, "reports", "test report glob for the newest iteration (JUnit XML, go test -json, TAP; repeatable)")
	fs.StringVar(&g.log, "log", "", "agent output log of the newest iteration")
	fs.StringVar(&g.ledger, "ledger", "", "directory of earlier iteration records (*.json, artifact *.zip): iterations are runs, not commits")
	fs.StringVar(&g.record, "record", "", "write the cumulative ledger with this iteration's record to FILE (JSON array)")
	fs.BoolVar(&g.dryRun, "dry-run", false, "decide and report, but exit 0 even when OPEN (\"would open\")")
}

// fold reads the repository and folds every iteration.
func (g *gitFlags) fold(env Env) ([]breaker.Decision, []string, error) {
	if err := render.CheckFormat(g.format); err != nil {
		return nil, nil, usagef("%v", err)
	}
	p, err := policy.Load(g.policy)
	if err != nil {
		return nil, nil, err
	}
	b, err := breaker.New(p, breaker.Options{Profile: profileFrom(g.profile, env), Phase: g.phase})
	if err != nil {
		return nil, nil, err
	}
	var extra []string
	if !isBuiltinName(g.policy) {
		if rel, ok := within(g.repo, g.policy); ok {
			extra = append(extra, rel)
		}
	}
	opts, err := evidence.GitOptions(b.Policy(), g.base, extra...)
	if err != nil {
		return nil, nil, err
	}
	repo, err := gitlog.Open(g.repo)
	if err != nil {
		return nil, nil, err
	}
	h, err := repo.History(opts)
	if err != nil {
		return nil, nil, err
	}
	notes := append([]string{}, h.Notes...)
	if h.Shallow && b.Policy().OnShallow == "fail" {
		return nil, nil, fmt.Errorf("repository %s is a shallow clone and policy %s has on_shallow = \"fail\": fetch the full history (actions/checkout with fetch-depth: 0) or deepen it", g.repo, b.Policy().Name)
	}
	var files *evidence.Files
	if len(g.reports) > 0 || g.log != "" {
		if files, err = evidence.ReadFiles(g.reports, g.log); err != nil {
			return nil, nil, err
		}
		notes = append(notes, files.Notes()...)
	}
	var its []breaker.Iteration
	var recs []ledger.Record
	runID, attempt := runIdentity(env)
	if g.ledger != "" {
		l, err := ledger.ReadDir(g.ledger)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range l.Problems {
			notes = append(notes, "ledger entry skipped: "+p.String())
		}
		recs = l.Records
		if n := len(recs); n > 0 && runID > 0 && recs[n-1].RunID == runID {
			recs = recs[:n-1] // a re-run replaces its own earlier record
		}
		now := env.Now().UTC()
		if n := len(recs); n > 0 && now.Before(recs[n-1].At) {
			now = recs[n-1].At
		}
		all := append(append([]ledger.Record{}, recs...), ledger.Record{Version: ledger.Version, RunID: runID, RunAttempt: attempt, Commit: h.Head, At: now})
		var more []string
		its, more, err = evidence.FromLedger(repo, h.Base, all, opts)
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, more...)
	} else {
		its = evidence.FromHistory(h, opts.TaskFiles)
		if len(its) == 0 {
			notes = append(notes, fmt.Sprintf("no iterations: HEAD has no commits after the base %s", shortHash(h.Base)))
		}
	}
	if files != nil {
		if len(its) == 0 {
			notes = append(notes, "no commit since the base: the reports and log were read but there is no iteration to apply them to")
		} else {
			files.Apply(&its[len(its)-1])
		}
	}
	if g.record != "" && len(its) > 0 {
		newest := its[len(its)-1]
		r := ledger.FromIteration(&newest, runID, attempt)
		if g.ledger == "" {
			r.At = env.Now().UTC()
		}
		var buf bytes.Buffer
		if err := ledger.Encode(&buf, append(recs, r)); err != nil {
			return nil, nil, err
		}
		if err := statefile.WriteAtomic(g.record, buf.Bytes(), 0o644); err != nil {
			return nil, nil, err
		}
	}
	ds := make([]breaker.Decision, 0, len(its))
	for i, it := range its {
		d, err := b.Observe(it)
		if err != nil {
			return nil, nil, fmt.Errorf("repository %s: commit %s: %w", g.repo, it.Commit, err)
		}
		d.DryRun = g.dryRun
		// Only the newest decision needs its full history and log; earlier
		// ones are trimmed to keep replay output proportional.
		if i < len(its)-1 && g.format != "markdown" {
			d.Recent = nil
		}
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		d, err := b.Status(env.Now().UTC())
		if err != nil {
			return nil, nil, err
		}
		d.DryRun = g.dryRun
		ds = append(ds, d)
	}
	return ds, notes, nil
}

// runIdentity is GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT, or 0 outside GitHub.
func runIdentity(env Env) (int64, int) {
	id, err := strconv.ParseInt(env.Getenv("GITHUB_RUN_ID"), 10, 64)
	if err != nil || id < 0 {
		id = 0
	}
	attempt, err := strconv.Atoi(env.Getenv("GITHUB_RUN_ATTEMPT"))
	if err != nil || attempt < 0 {
		attempt = 0
	}
	if id > 0 && attempt == 0 {
		attempt = 1
	}
	return id, attempt
}

func shortHash(h string) string {
	if h == "" {
		return "(root)"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func isBuiltinName(name string) bool {
	for _, n := range policy.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// within returns path relative to dir when it lies inside it.
func within(dir, path string) (string, bool) {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(ad, ap)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func resetHint(dir string) string {
	return fmt.Sprintf("fix the cause, then continue from a new base: loopbreaker check --repo %s --base HEAD (or remove the loopbreaker:open label in GitHub)", dir)
}

func runCheck(args []string, env Env) (int, error) {
	fs := newFlagSet("check", "[--repo DIR] [flags]", env)
	var g gitFlags
	g.register(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	ds, notes, err := g.fold(env)
	if err != nil {
		return 0, err
	}
	d := ds[len(ds)-1]
	return d.ExitCode(), render.Write(env.Stdout, g.format, &d, render.Options{ResetHint: resetHint(g.repo), Notes: notes})
}

func runReplay(args []string, env Env) (int, error) {
	fs := newFlagSet("replay", "[--repo DIR] [flags]", env)
	var g gitFlags
	g.register(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	ds, notes, err := g.fold(env)
	if err != nil {
		return 0, err
	}
	for i := range ds {
		if err := writeReplayLine(env.Stdout, g.format, &ds[i]); err != nil {
			return 0, err
		}
	}
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "loopbreaker: note: %s\n", render.Clean(n))
	}
	last := ds[len(ds)-1]
	return last.ExitCode(), nil
}

// writeReplayLine prints one decision of the fold: a JSON object per line,
// or one text line per iteration.
func writeReplayLine(w io.Writer, format string, d *breaker.Decision) error {
	switch format {
	case "json":
		d.History = nil
		return render.JSON(w, d)
	case "markdown":
		_, err := fmt.Fprintf(w, "| %d | `%s` | %s | %+d | %d | %s |\n", d.Iteration, shortHash(d.Commit), d.State, d.ProgressScore, d.ConsecutiveNoProgress, reasonOf(d, true))
		return err
	}
	_, err := fmt.Fprintf(w, "%4d  %-12s  %-9s  score %+3d  no-progress %d  %s\n", d.Iteration, shortHash(d.Commit), d.State, d.ProgressScore, d.ConsecutiveNoProgress, reasonOf(d, false))
	return err
}

func reasonOf(d *breaker.Decision, md bool) string {
	parts := []string{}
	if d.Progress {
		parts = append(parts, "progress")
	}
	if d.Reason != nil {
		r := *d.Trigger + ": " + *d.Reason
		if md {
			r = render.Markdown(r)
		} else {
			r = render.Clean(r)
		}
		parts = append(parts, r)
	}
	return strings.Join(parts, " · ")
}
