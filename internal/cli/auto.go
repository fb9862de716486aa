package cli

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
)

// autoApplies reports whether check keeps the loop's start and ledger by
// itself: no flag names them, and this is not a GitHub Actions run (whose
// iterations are runs with their own records).
func autoApplies(fs *flag.FlagSet, env Env) bool {
	for _, name := range []string{"base", "ledger", "record"} {
		if given(fs, name) {
			return false
		}
	}
	return env.Getenv("GITHUB_ACTIONS") != "true"
}

// settleAuto points check at the repository's own loop in the state
// directory: the start kept from its first check (HEAD then) and its
// ledger, one record a check; the person's resets are controls. Without a
// state directory check folds the commits, with a note.
func (g *gitFlags) settleAuto(env Env, statusOnly bool) error {
	w := where(env, g.stateDir)
	if _, err := w.Root(); err != nil {
		g.notes = append(g.notes, note.New(note.NoLocalState, "no local state (%v): the iterations are the commits since the base, and an iteration that made no commit is not seen", err))
		return nil
	}
	repo, err := w.ForRepo(g.repo)
	if err != nil {
		return usagef("%v", err)
	}
	var l localstate.Loop
	had, err := localstate.ReadJSON(repo.Path(localstate.CheckLoop), localstate.MaxLoopBytes, &l)
	if err != nil {
		return err
	}
	if !had || l.Base == "" {
		head, err := headOf(g.repo)
		if err != nil {
			return err
		}
		l = localstate.Loop{Version: 1, Base: head, Started: env.Now().UTC()}
		if err := localstate.WriteJSON(repo.Path(localstate.CheckLoop), l); err != nil {
			return internal(err)
		}
		g.notes = append(g.notes, note.New(note.LoopStarted, "the loop starts here: commit %s is its start, and each check from now on is one iteration (state in %s)", loop.ShortHash(head), repo.Dir))
	}
	g.base = l.Base
	g.ledger = repo.Path(localstate.CheckLedger)
	if !statusOnly {
		g.record = repo.Path(localstate.CheckRecords)
		if err := os.MkdirAll(g.ledger, 0o700); err != nil {
			return internal(err)
		}
	}
	g.controls = resetControls(l.Resets)
	g.auto = repo
	return nil
}

// headOf is the repository's HEAD commit.
func headOf(dir string) (string, error) {
	r, err := gitlog.Open(dir)
	if err != nil {
		return "", err
	}
	defer r.Close()
	head, err := r.Head()
	if err != nil {
		return "", fmt.Errorf("repository %s: no HEAD commit: %w", dir, err)
	}
	return head, nil
}

// resetControls are a person's resets as the fold's controls.
func resetControls(rs []localstate.Reset) []loop.Control {
	var cs []loop.Control
	for _, r := range rs {
		cs = append(cs, loop.Control{At: r.At, Kind: loop.ControlReset, Reason: r.Reason, By: "local"})
	}
	return cs
}

// ledgerResets reads the resets a person made of a ledger directory the
// user named, kept in the state directory.
func (g *gitFlags) ledgerResets(env Env) error {
	if g.ledger == "" || g.auto != nil {
		return nil
	}
	w := where(env, g.stateDir)
	if _, err := w.Root(); err != nil {
		return nil
	}
	path, err := w.ResetsFile(g.ledger)
	if err != nil {
		return err
	}
	var l localstate.Loop
	if _, err := localstate.ReadJSON(path, localstate.MaxLoopBytes, &l); err != nil {
		return err
	}
	g.controls = append(g.controls, resetControls(l.Resets)...)
	return nil
}

// addReset keeps a person's reset in a loop file of the state directory.
func addReset(path string, at time.Time, reason string) error {
	var l localstate.Loop
	if _, err := localstate.ReadJSON(path, localstate.MaxLoopBytes, &l); err != nil {
		return err
	}
	if l.Version == 0 {
		l.Version = 1
	}
	l.AddReset(localstate.Reset{At: at, Reason: reason})
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return internal(err)
	}
	return internal(localstate.WriteJSON(path, l))
}

// localFlags are the flags status and reset take to find a loop's local
// state when no --state file is named.
type localFlags struct {
	repo, ledger, stateDir string
}

func (l *localFlags) register(fs *flag.FlagSet, withLedger bool) {
	fs.StringVar(&l.repo, "repo", ".", "without --state: the repository whose local loop state (check's and the hook's) to use")
	fs.StringVar(&l.stateDir, "state-dir", "", stateDirUsage)
	if withLedger {
		fs.StringVar(&l.ledger, "ledger", "", "reset the loop of this ledger directory (check --ledger DIR); the reset is kept in the state directory")
	}
}

// autoStatus shows the repository's local loop without recording: check's
// own loop, else the hook's state file (ok false: the caller shows it),
// else says that there is none yet.
func autoStatus(env Env, sf *stateFlags, l *localFlags) (code int, hookState string, err error) {
	repo, err := where(env, l.stateDir).ForRepo(l.repo)
	if err != nil {
		return 0, "", usagef("%v", err)
	}
	if repo.Exists(localstate.CheckLoop) {
		code, err := foldAutoStatus(env, sf, l)
		return code, "", err
	}
	if repo.Exists(localstate.HookState) {
		return 0, repo.Path(localstate.HookState), nil
	}
	_, err = fmt.Fprintf(env.Stdout, "loopbreaker: no loop state for %s yet (state directory %s): the first `loopbreaker check` or the hook's first stop starts it\n", repo.Top, repo.Dir)
	return ExitContinue, "", err
}

// foldAutoStatus folds check's own loop as it stands, without an
// iteration, and prints the decision.
func foldAutoStatus(env Env, sf *stateFlags, l *localFlags) (int, error) {
	g := gitFlags{repo: l.repo, stateDir: l.stateDir, format: sf.format, profile: sf.profile, statusOnly: true}
	g.policy = cmp.Or(policyFrom(sf.policy, sf.policy != "", env, ""), "default")
	if err := g.settleAuto(env, true); err != nil {
		return 0, err
	}
	f, d, err := g.decide(env, true)
	if err != nil {
		return 0, err
	}
	f.close()
	return exitFor(&d), nil
}

// autoReset resets every local state of the repository (check's own loop
// and the hook's state file) or of the ledger directory named; hookState
// is the hook's state file to reset the usual way ("" when none).
func autoReset(env Env, sf *stateFlags, l *localFlags, reason string) (code int, hookState string, err error) {
	at := env.Now().UTC()
	if sf.at.set {
		at = sf.at.t
	}
	reason = boundText(reason, MaxReason)
	w := where(env, l.stateDir)
	if l.ledger != "" {
		path, err := w.ResetsFile(l.ledger)
		if err != nil {
			return 0, "", err
		}
		if err := addReset(path, at, reason); err != nil {
			return 0, "", err
		}
		_, err = fmt.Fprintf(env.Stdout, "loopbreaker: reset the loop of ledger %s (kept in %s): the next check starts a new fold\n", l.ledger, path)
		return ExitContinue, "", err
	}
	repo, err := w.ForRepo(l.repo)
	if err != nil {
		return 0, "", usagef("%v", err)
	}
	check, hook := repo.Exists(localstate.CheckLoop), repo.Exists(localstate.HookState)
	if !check && !hook {
		return 0, "", usagef("nothing to reset: %s has no local loop state in %s (name a state file with --state FILE, or a ledger with --ledger DIR)", repo.Top, repo.Dir)
	}
	if check {
		if err := addReset(repo.Path(localstate.CheckLoop), at, reason); err != nil {
			return 0, "", err
		}
		if _, err := foldAutoStatus(env, sf, l); err != nil {
			return 0, "", err
		}
	}
	if hook {
		return ExitContinue, repo.Path(localstate.HookState), nil
	}
	return ExitContinue, "", nil
}
