package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/notify"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// gitFlags are the flags of check and replay.
type gitFlags struct {
	repo, base, policy, profile, phase, format, log string
	ledger, record, stateDir                        string
	reports                                         strList
	dryRun, progress                                bool
	// policySet: the policy was named (flag or environment), else status
	// and replay of the shell loop use the one its last check kept.
	policySet bool
	// controls are a person's local resets; statusOnly folds without
	// taking the run as an iteration.
	controls   []loop.Control
	statusOnly bool
	// store is the shell loop's, locked until closeStore; file its content
	// and top the working tree.
	store *localstate.Store
	file  *localstate.File
	top   string
	notes []note.Note
}

func (g *gitFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.repo, "repo", ".", "the git repository of the loop")
	fs.StringVar(&g.base, "base", "", "revision the loop started from, exclusive (default: merge base with the default branch, else the root)")
	fs.StringVar(&g.policy, "policy", "default", "built-in policy name or TOML file (default: $"+policy.EnvConfig+", else default)")
	fs.StringVar(&g.profile, "profile", "", "policy profile (default: $"+policy.EnvProfile+", else $"+policy.EnvProjectType+")")
	fs.StringVar(&g.phase, "phase", "", "phase for iterations whose commit names none")
	fs.StringVar(&g.format, "format", "text", "output format: text, json, markdown or agent (the block for the agent's next prompt)")
	fs.Var(&g.reports, "reports", "test report glob for the newest iteration (JUnit XML, go test -json, TAP; repeatable)")
	fs.StringVar(&g.log, "log", "", "agent output log of the newest iteration")
	fs.StringVar(&g.ledger, "ledger", "", "directory of earlier iteration records (*.json, artifact *.zip): iterations are runs, not commits")
	fs.StringVar(&g.record, "record", "", "write the cumulative ledger with this iteration's record to FILE (JSON array)")
	fs.BoolVar(&g.dryRun, "dry-run", false, "decide and report, but exit 0 even when OPEN (\"would open\")")
	fs.StringVar(&g.stateDir, "state-dir", "", stateDirUsage)
}

// settle takes the policy from the environment when --policy was not given.
func (g *gitFlags) settle(fs *flag.FlagSet, env Env) {
	named := given(fs, "policy")
	g.policySet = named || policyFrom("", false, env, "") != ""
	g.policy = policyFrom(g.policy, named, env, g.policy)
}

// folded is what a fold decided, and the ledger file it still has to
// write once the decision is out.
type folded struct {
	policy    *policy.Policy // the profile applied
	decisions []breaker.Decision
	steps     []breaker.Step // one per iteration, for replay's chart
	notes     []note.Note
	record    *recordFile // the --record file, locked (nil: none)
	// write keeps the shell loop's store or writes the --record file; it
	// runs after the decision was printed, so that a loop learns it even
	// when this fails.
	write func() error
}

// close releases the --record file's lock.
func (f *folded) close() {
	if f.record != nil {
		f.record.unlock()
	}
}

// fold reads the repository and folds every iteration. With --record the
// record file stays locked from before the ledger is read until the caller
// closes the result, so that parallel calls each add their record.
func (g *gitFlags) fold(env Env) (*folded, error) {
	if err := render.CheckFormat(g.format); err != nil {
		return nil, usagef("%v", err)
	}
	if err := checkRevision("base", g.base); err != nil {
		return nil, err
	}
	p, polNotes, err := g.loadPolicy()
	if err != nil {
		return nil, err
	}
	out := &folded{notes: append(append([]note.Note(nil), g.notes...), polNotes...), write: func() error { return nil }}
	ok := false
	defer func() {
		if !ok {
			out.close()
		}
	}()
	// A ledger directory that does not exist holds no records yet; look
	// before the record file's directory (perhaps the same) is made.
	ledgerMissing := false
	if g.ledger != "" && g.store == nil {
		if _, err := os.Stat(g.ledger); errors.Is(err, fs.ErrNotExist) {
			ledgerMissing = true
			out.notes = append(out.notes, note.New(note.LedgerMissing, "ledger %s does not exist: no earlier records, the iterations are the commits", g.ledger))
		}
	}
	if g.record != "" {
		rf, lockErr := lockRecordFile(g.record)
		out.record = rf
		if lockErr != nil {
			out.write = func() error { return lockErr }
		}
	}
	cfg := loop.Config{Repo: g.repo, Base: g.base, Policy: p, Profile: profileFrom(g.profile, env), Phase: g.phase,
		Reports: g.reports, Log: g.log, DryRun: g.dryRun, Now: env.Now().UTC(), Controls: g.controls, StatusOnly: g.statusOnly}
	cfg.RunID, cfg.Attempt = runIdentity(env)
	cfg.ProtectPaths = policyInRepo(g.repo, g.policy)
	if g.ledger != "" && !ledgerMissing {
		if cfg.Ledger, err = ledger.ReadDir(g.ledger); err != nil {
			return nil, err
		}
	}
	if g.store != nil {
		// The shell loop: every check is an iteration, the first one too,
		// measured in the working tree, committed or not.
		cfg.Policy = forStart(p, startLoop)
		cfg.Runs, cfg.Ledger = true, &ledger.Ledger{Records: g.file.Records}
		if !g.statusOnly {
			var more []note.Note
			cfg.Work, more, err = g.measureWork(cfg.Policy)
			out.notes = append(out.notes, more...)
			if err != nil {
				return nil, err
			}
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
		return nil, err
	}
	out.notes = append(out.notes, res.Notes...)
	out.policy = res.Policy
	if g.store != nil && !g.statusOnly {
		g.file.Records, g.file.UpdatedAt, g.file.Policy = res.Records, cfg.Now, policyRef(g.policy)
		out.write = func() error { return internal(g.store.Save(g.file)) }
	}
	if out.record != nil && res.Records != nil {
		recs, more := out.record.keep(res.Records)
		out.notes = append(out.notes, more...)
		out.write = func() error { return out.record.write(recs) }
	}
	if n, ok := note.Find(res.Notes, note.NoBase); ok && g.base == "" && res.Visible == 0 {
		return nil, usagef("%s: --base REV, the commit the loop started from (e.g. --base HEAD~3)", n.Text)
	}
	ds := res.Decisions
	out.steps = render.Steps(ds)
	if g.format != "markdown" {
		// Only the newest decision needs its status log; earlier ones are
		// trimmed to keep replay output proportional.
		for i := 0; i < len(ds)-1; i++ {
			ds[i].Recent = nil
		}
	}
	out.decisions = ds
	ok = true
	return out, nil
}

// checkRevision refuses a revision that names something other than one
// commit, or that go-git would silently read as another (HEAD:path,
// HEAD^{tree} and HEAD^{/text} as HEAD).
func checkRevision(flagName, rev string) error {
	if rev == "" {
		return nil
	}
	bad := func(why string) error {
		return usagef("--%s %q: %s; want a commit: a hash, a branch or tag, HEAD~N", flagName, rev, why)
	}
	switch {
	case strings.HasPrefix(rev, "-"):
		return bad("starts with '-'")
	case strings.IndexFunc(rev, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return bad("holds a space or a control character")
	case strings.Contains(rev, ":"):
		return bad("names a path in a commit (REV:PATH), not a commit")
	case strings.Contains(rev, ".."):
		return bad("is a range of commits (A..B), not one commit")
	case strings.Contains(strings.NewReplacer("^{}", "", "^{commit}", "").Replace(rev), "^{"):
		return bad("^{...} other than ^{} or ^{commit} is not supported")
	}
	return nil
}

// loadPolicy loads --policy. A policy file tracked in the repository that
// differs from HEAD's is said in a note; when either is strict-based HEAD's
// is used, so that an agent's edit cannot loosen a strict breaker.
func (g *gitFlags) loadPolicy() (*policy.Policy, []note.Note, error) {
	if g.policy == "" || policy.IsBuiltin(g.policy) {
		p, err := policy.Load(g.policy)
		return p, nil, err
	}
	work, err := policy.ReadFile(g.policy)
	if err != nil {
		return nil, nil, err
	}
	data, source, notes := g.committedPolicy(work)
	p, err := policy.Parse(data, source)
	if err != nil {
		return nil, nil, err
	}
	nameFromFile(p, g.policy)
	return p, notes, nil
}

// committedPolicy is the policy text to use, its name in errors, and notes.
func (g *gitFlags) committedPolicy(work []byte) ([]byte, string, []note.Note) {
	rel, ok := within(g.repo, g.policy)
	if !ok {
		return work, g.policy, nil
	}
	repo, err := gitlog.Open(g.repo)
	if err != nil {
		return work, g.policy, nil // the fold reports what is wrong with the repository
	}
	defer repo.Close()
	head, err := repo.FileAt("HEAD", rel, policy.MaxFileBytes)
	if err != nil {
		return work, g.policy, nil // not tracked, or no HEAD yet
	}
	if link, err := os.Readlink(g.policy); err == nil && link == string(head) {
		// A committed symbolic link: git holds the link, not the policy.
		var notes []note.Note
		target, err1 := filepath.EvalSymlinks(g.policy)
		repoDir, err2 := filepath.EvalSymlinks(g.repo)
		if err1 == nil && err2 == nil {
			if _, inside := within(repoDir, target); !inside {
				notes = append(notes, note.New(note.PolicyOutsideRepository, "policy %s is a symbolic link to %s, outside the repository: its content is not under version control", g.policy, target))
			}
		}
		return work, g.policy, notes
	}
	if bytes.Equal(work, head) {
		return work, g.policy, nil
	}
	if strictBased(work) || strictBased(head) {
		return head, g.policy + " at HEAD", []note.Note{note.New(note.PolicyUncommitted, "policy %s differs from its version at HEAD: the policy is strict, so HEAD's version was used (commit the change to use it)", g.policy)}
	}
	return work, g.policy, []note.Note{note.New(note.PolicyUncommitted, "policy %s differs from its version at HEAD: the uncommitted version was used (commit it, or restore it if the loop changed it)", g.policy)}
}

// strictBased reports whether policy text is or extends the strict policy.
func strictBased(data []byte) bool {
	var head struct {
		Extends string `toml:"extends"`
		Name    string `toml:"name"`
	}
	if _, err := toml.Decode(string(data), &head); err != nil {
		return false
	}
	return head.Extends == "strict" || head.Name == "strict"
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

// policyRef is how a store names its policy: a file by its absolute path
// (a later command may run elsewhere).
func policyRef(p string) string {
	if abs, err := filepath.Abs(p); err == nil && !policy.IsBuiltin(p) {
		return abs
	}
	return p
}

// policyInRepo is the path of a policy file inside the repository, which
// the loop must not edit.
func policyInRepo(repo, pol string) []string {
	if rel, ok := within(repo, pol); ok && !policy.IsBuiltin(pol) {
		return []string{rel}
	}
	return nil
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

// isLocal reports whether the run is outside GitHub Actions (its output
// offers local commands).
func isLocal(env Env) bool { return env.Getenv("GITHUB_ACTIONS") != "true" }

// resetHint says how a person resets the breaker of a local loop.
func (g *gitFlags) resetHint() string {
	if g.store != nil {
		return fmt.Sprintf("fix the cause, then: loopbreaker reset --repo %s --reason \"...\"", g.repo)
	}
	if g.ledger != "" {
		return fmt.Sprintf("fix the cause, then: loopbreaker reset --ledger %s --reason \"...\"", g.ledger)
	}
	return fmt.Sprintf("fix the cause, then continue from a new base: loopbreaker check --repo %s --base HEAD (or remove the loopbreaker:open label in GitHub)", g.repo)
}

func runCheck(args []string, env Env) (int, error) {
	fs := newFlagSet("check", "[--repo DIR] [flags]", env)
	var g gitFlags
	g.register(fs)
	disabled := registerDisabled(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	g.settle(fs, env)
	if err := render.CheckFormat(g.format); err != nil {
		return 0, usagef("%v", err)
	}
	if off, why, err := disabledFrom(fs, *disabled, env); err != nil || off {
		return writeDisabled(env, g.format, why, err)
	}
	if autoApplies(fs, env) {
		if err := g.settleAuto(env, false); err != nil {
			return 0, err
		}
		defer g.closeStore()
	}
	if err := g.ledgerResets(env); err != nil {
		return 0, err
	}
	f, err := g.fold(env)
	if err != nil {
		return 0, err
	}
	defer f.close()
	d := f.decisions[len(f.decisions)-1]
	if err := render.Write(env.Stdout, g.format, &d, render.Options{ResetHint: g.resetHint(), Notes: f.notes, Local: isLocal(env)}); err != nil {
		return 0, err
	}
	err = f.write()
	postAlert(env, &d, f.policy, notify.Where{Repository: env.Getenv("GITHUB_REPOSITORY")})
	return exitFor(&d), err
}

// write prints a local loop's decision with the fold's notes.
func (g *gitFlags) write(env Env, f *folded, d *breaker.Decision) error {
	return render.Write(env.Stdout, g.format, d, render.Options{ResetHint: g.resetHint(), Notes: f.notes, Local: true})
}

// writeDisabled says that the breaker is off (why names the setting), or
// returns err.
func writeDisabled(env Env, format, why string, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return 0, render.Disabled(env.Stdout, format, why)
}

func runReplay(args []string, env Env) (int, error) {
	fs := newFlagSet("replay", "[--repo DIR] [flags]", env)
	g := gitFlags{progress: true}
	g.register(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	g.settle(fs, env)
	if autoApplies(fs, env) {
		// Where check keeps the shell loop, replay shows its iterations.
		if err := g.settleAuto(env, true); err != nil {
			return 0, err
		}
		defer g.closeStore()
	}
	f, err := g.fold(env)
	if err != nil {
		return 0, err
	}
	defer f.close()
	if g.format == "markdown" {
		if _, err := io.WriteString(env.Stdout, replayHeader); err != nil {
			return 0, err
		}
	}
	last := &f.decisions[len(f.decisions)-1]
	if g.format == "agent" {
		// The block for the agent's next prompt is the final decision's.
		if err := render.Write(env.Stdout, "agent", last, render.Options{ResetHint: g.resetHint(), Local: isLocal(env)}); err != nil {
			return 0, err
		}
		return exitFor(last), f.write()
	}
	subjects := commitSubjects(g.repo, f.decisions, g.format)
	for i := range f.decisions {
		var notes []note.Note
		if i == len(f.decisions)-1 {
			notes = f.notes
		}
		line := replayLine{d: &f.decisions[i], subject: subjects[f.decisions[i].Commit]}
		if i < len(f.steps) {
			line.ignored = f.steps[i].IgnoredOpen
		}
		line.opened = f.decisions[i].State == breaker.Open && (i == 0 || f.decisions[i-1].State != breaker.Open)
		if err := line.write(env.Stdout, g.format, render.Options{ResetHint: g.resetHint(), Notes: notes, Local: isLocal(env)}); err != nil {
			return 0, err
		}
	}
	if g.format == "text" && len(f.steps) > 0 {
		// The chart of the newest iterations, and what its signs mean.
		steps := f.steps[max(0, len(f.steps)-maxReplayChart):]
		if _, err := fmt.Fprintf(env.Stdout, "chart of iterations %d to %d: %s\n  (%s)\n", steps[0].Iteration, steps[len(steps)-1].Iteration,
			render.Sparkline(steps, last.State), render.Legend(steps)); err != nil {
			return 0, err
		}
	}
	for _, n := range f.notes {
		fmt.Fprintf(env.Stderr, "loopbreaker: note: %s\n", render.Clean(n.Text))
	}
	return exitFor(last), f.write()
}

// replayHeader heads replay's markdown table.
const replayHeader = "| iteration | commit | subject | state | score | no progress | why |\n|---|---|---|---|---|---|---|\n"

// maxReplayChart is how many of the newest iterations replay's chart draws.
const maxReplayChart = 60

// replayLine is one decision of the fold as replay prints it.
type replayLine struct {
	d               *breaker.Decision
	subject         string // the commit's subject, agent text ("" unknown)
	ignored, opened bool   // it ran while OPEN; the breaker opened at it
}

// maxSubject is how many characters of a commit subject replay shows.
const maxSubject = 50

// write prints the line: a JSON object, or a text or markdown table line.
func (l *replayLine) write(w io.Writer, format string, o render.Options) error {
	d := l.d
	switch format {
	case "json":
		d.History = nil
		return render.Write(w, "json", d, o)
	case "markdown":
		_, err := fmt.Fprintf(w, "| %d | `%s` | %s | %s | %+d | %d | %s |\n", d.Iteration, loop.ShortHash(d.Commit), render.Markdown(shortSubject(l.subject)),
			d.State, d.ProgressScore, d.ConsecutiveNoProgress, l.why(true))
		return err
	}
	_, err := fmt.Fprintf(w, "%4d  %-12s  %-9s  score %+3d  no-progress %d  %s%s\n", d.Iteration, loop.ShortHash(d.Commit), d.State, d.ProgressScore,
		d.ConsecutiveNoProgress, l.why(false), quotedSubject(l.subject))
	return err
}

// why is the line's reason, marked where the breaker opened; a mark
// replaces it on the iterations that ran while OPEN.
func (l *replayLine) why(md bool) string {
	switch {
	case l.ignored:
		return "ran while OPEN (ignored)"
	case l.opened:
		return "OPENED here: " + reasonOf(l.d, md)
	}
	return reasonOf(l.d, md)
}

// shortSubject is a subject cut to maxSubject characters.
func shortSubject(s string) string {
	return textcut.Runes(strings.Join(strings.Fields(s), " "), maxSubject, textcut.Ellipsis)
}

// quotedSubject is the text line's subject, cleaned and quoted ("" none).
func quotedSubject(s string) string {
	if s = shortSubject(render.Clean(s)); s == "" {
		return ""
	}
	return fmt.Sprintf("  %q", s)
}

// commitSubjects are the subjects of the decisions' commits for text and
// markdown ("" for one that cannot be read).
func commitSubjects(dir string, ds []breaker.Decision, format string) map[string]string {
	out := map[string]string{}
	if format != "text" && format != "markdown" {
		return out
	}
	repo, err := gitlog.Open(dir)
	if err != nil {
		return out
	}
	defer repo.Close()
	for i := range ds {
		h := ds[i].Commit
		if _, seen := out[h]; seen || h == "" {
			continue
		}
		out[h] = ""
		if c, err := repo.Describe(h); err == nil {
			out[h] = c.Subject
		}
	}
	return out
}

func reasonOf(d *breaker.Decision, md bool) string {
	parts := []string{}
	if d.Progress {
		parts = append(parts, "progress")
	}
	if d.Complete {
		parts = append(parts, "done: stop the loop")
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
