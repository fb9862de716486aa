package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/statefile"
	"github.com/loopbreaker/loopbreaker/policy"
)

// gitFlags are the flags of check and replay.
type gitFlags struct {
	repo, base, policy, profile, phase, format, log string
	ledger, record                                  string
	reports                                         strList
	dryRun, progress                                bool
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
	cfg := loop.Config{Repo: g.repo, Base: g.base, Policy: p, Profile: profileFrom(g.profile, env), Phase: g.phase,
		Reports: g.reports, Log: g.log, DryRun: g.dryRun, Now: env.Now().UTC()}
	cfg.RunID, cfg.Attempt = runIdentity(env)
	if !isBuiltinName(g.policy) {
		if rel, ok := within(g.repo, g.policy); ok {
			cfg.ProtectPaths = append(cfg.ProtectPaths, rel)
		}
	}
	if g.ledger != "" {
		if cfg.Ledger, err = ledger.ReadDir(g.ledger); err != nil {
			return nil, nil, err
		}
	}
	if g.progress && isTerminal(env.Stderr) {
		cfg.Progress = func(done, total int) {
			if total >= 100 && (done%50 == 0 || done == total) {
				fmt.Fprintf(env.Stderr, "\rloopbreaker: folded %d of %d iterations", done, total)
				if done == total {
					fmt.Fprintln(env.Stderr)
				}
			}
		}
	}
	res, err := loop.Run(cfg)
	if err != nil {
		return nil, nil, err
	}
	if g.record != "" && res.Records != nil {
		var buf bytes.Buffer
		if err := ledger.Encode(&buf, res.Records); err != nil {
			return nil, nil, err
		}
		if err := statefile.WriteAtomic(g.record, buf.Bytes(), 0o644); err != nil {
			return nil, nil, err
		}
	}
	ds := res.Decisions
	if g.format != "markdown" {
		// Only the newest decision needs its status log; earlier ones are
		// trimmed to keep replay output proportional.
		for i := 0; i < len(ds)-1; i++ {
			ds[i].Recent = nil
		}
	}
	return ds, res.Notes, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
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
	g := gitFlags{progress: true}
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
