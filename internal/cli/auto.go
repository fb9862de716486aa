package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
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

// settleAuto points check at the repository's shell loop, kept in its
// store in the state directory: the start (HEAD at its first check), the
// records (one a check) and the person's resets; the store stays locked
// until the caller closes it. Without a state directory check folds the
// commits, with a note. With statusOnly (status, replay) a loop that has
// no store yet is none: g.store stays nil.
func (g *gitFlags) settleAuto(env Env, statusOnly bool) error {
	w := where(env, g.stateDir)
	if _, err := w.Root(); err != nil {
		if !statusOnly {
			g.notes = append(g.notes, note.New(note.NoLocalState, "no local state (%v): the iterations are the commits since the base, and an iteration that made no commit is not seen", err))
		}
		return nil
	}
	repo, err := w.ForRepo(g.repo)
	if err != nil {
		return usagef("%v", err)
	}
	st, err := repo.Open(localstate.LoopCheck, statusOnly)
	if err != nil {
		return err
	}
	if st.File == nil && statusOnly {
		st.Close()
		return nil
	}
	file := st.File
	if file == nil {
		file = &localstate.File{}
	}
	if file.Base == "" {
		head, err := headOf(g.repo)
		if err != nil {
			st.Close()
			return err
		}
		file.Base, file.CreatedAt = head, env.Now().UTC()
		g.notes = append(g.notes, note.New(note.LoopStarted, "the loop starts here: commit %s is its start, and each check from now on is one iteration (state in %s)", loop.ShortHash(head), repo.Dir))
	}
	g.base, g.controls, g.statusOnly = file.Base, controlsOf(file), statusOnly
	if statusOnly && !g.policySet && file.Policy != "" {
		g.policy = file.Policy
	}
	g.store, g.file, g.top = st, file, repo.Top
	return nil
}

// closeStore releases the shell loop's store.
func (g *gitFlags) closeStore() {
	if g.store != nil {
		g.store.Close()
	}
}

// measureWork measures the working tree for the shell loop's record: the
// meaningful files changed since the previous check, committed or not, and
// those of them the commits since then do not hold.
func (g *gitFlags) measureWork(p *policy.Policy) (*ledger.Work, []note.Note, error) {
	s := &session{file: g.file, policy: p}
	changed, baseline, err := s.treeChange(g.top)
	if err != nil || baseline {
		return nil, s.notes, err
	}
	prev := g.file.Base
	if n := len(g.file.Records); n > 0 && g.file.Records[n-1].Commit != "" {
		prev = g.file.Records[n-1].Commit
	}
	committed, err := committedPaths(g.repo, prev, p, g.base)
	if err != nil {
		// History rewritten under the loop: what was committed since is not
		// known, so no change counts as uncommitted work (git's own diff of
		// the records still counts what it can).
		s.notes = append(s.notes, note.New(note.Unreadable, "the commits since the previous check could not be compared (%v): the working tree's changes were taken as committed", err))
		return workOf(changed, []string{}), s.notes, nil
	}
	uncommitted := []string{}
	for _, path := range changed {
		if !committed[path] {
			uncommitted = append(uncommitted, path)
		}
	}
	return workOf(changed, uncommitted), s.notes, nil
}

// committedPaths are the paths the commits from prev to HEAD changed.
func committedPaths(dir, prev string, p *policy.Policy, base string) (map[string]bool, error) {
	r, err := gitlog.Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	head, err := r.Head()
	if err != nil || head == prev {
		return map[string]bool{}, nil
	}
	opts, err := evidence.GitOptions(p, base)
	if err != nil {
		return nil, err
	}
	rg, err := r.Diff(prev, head, opts)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, f := range rg.Change.Files {
		out[f.Path] = true
		if f.OldPath != "" {
			out[f.OldPath] = true
		}
	}
	return out, nil
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

// ledgerResets reads the resets a person made of a ledger directory the
// user named, kept in the state directory.
func (g *gitFlags) ledgerResets(env Env) error {
	if g.ledger == "" || g.store != nil {
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
	st, err := localstate.Open(path, true)
	if err != nil {
		return err
	}
	defer st.Close()
	if st.File != nil {
		g.controls = append(g.controls, controlsOf(st.File)...)
	}
	return nil
}

// localFlags are the flags status and reset take to find a loop's local
// state when no --state file is named.
type localFlags struct {
	repo, ledger, stateDir, loop string
}

func (l *localFlags) register(fs *flag.FlagSet, withLedger bool) {
	fs.StringVar(&l.repo, "repo", ".", "without --state: the repository whose local loops (the shell loop's, the hook's sessions, record --repo's) to use")
	fs.StringVar(&l.loop, "loop", "", "without --state: only this loop of the repository (check, record, ralph, session-ID; default: every one)")
	fs.StringVar(&l.stateDir, "state-dir", "", stateDirUsage)
	if withLedger {
		fs.StringVar(&l.ledger, "ledger", "", "reset the loop of this ledger directory (check --ledger DIR); the reset is kept in the state directory")
	}
}

// repoLoops finds the repository's loops: the one --loop names, else
// every one with a store.
func (l *localFlags) repoLoops(env Env) (*localstate.Repo, []string, error) {
	repo, err := where(env, l.stateDir).ForRepo(l.repo)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	if l.loop != "" {
		if err := localstate.CheckLoopName(l.loop); err != nil {
			return nil, nil, usagef("--loop: %v", err)
		}
		return repo, []string{l.loop}, nil
	}
	names, err := repo.Loops()
	return repo, names, err
}

// beginOf is the start of a repository's loop by its name.
func beginOf(name string) start {
	if strings.HasPrefix(name, "session-") {
		return startSession
	}
	return startLoop
}

// autoStatus shows the repository's loops without recording: the shell
// loop's fold of its commits and records, every other loop's fold of its
// records; or says that there is none yet.
func autoStatus(env Env, sf *stateFlags, l *localFlags) (int, error) {
	repo, names, err := l.repoLoops(env)
	if err != nil {
		return 0, err
	}
	var results []loopResult
	for _, name := range names {
		r, ok, err := loopStatus(env, sf, l, repo, name)
		if err != nil {
			return 0, err
		}
		if ok {
			results = append(results, r)
		}
	}
	if len(results) == 0 {
		_, err = fmt.Fprintf(env.Stdout, "loopbreaker: no loop state for %s yet (state directory %s): the first `loopbreaker check`, `loopbreaker record --repo` or the hook's first stop starts it\n", repo.Top, repo.Dir)
		return ExitContinue, err
	}
	return writeLoops(env, sf.format, results)
}

// loopStatus is the status of one loop of the repository (ok false: it
// has no store).
func loopStatus(env Env, sf *stateFlags, l *localFlags, repo *localstate.Repo, name string) (loopResult, bool, error) {
	if name == localstate.LoopCheck {
		g := gitFlags{repo: l.repo, stateDir: l.stateDir, format: sf.format, profile: sf.profile}
		g.policy = policyFrom(sf.policy, sf.policy != "", env, "default")
		g.policySet = policyFrom(sf.policy, sf.policy != "", env, "") != ""
		if err := g.settleAuto(env, true); err != nil || g.store == nil {
			return loopResult{}, false, err
		}
		defer g.closeStore()
		f, err := g.fold(env)
		if err != nil {
			return loopResult{}, false, err
		}
		f.close()
		d := f.decisions[len(f.decisions)-1]
		return loopResult{name: name, code: exitFor(&d), write: func() error { return g.write(env, f, &d) }}, true, nil
	}
	st, err := repo.Open(name, true)
	if err != nil {
		return loopResult{}, false, err
	}
	defer st.Close()
	if st.File == nil && l.loop == "" {
		return loopResult{}, false, nil
	}
	// A loop named with --loop that has no store yet is a fresh breaker, as
	// a state file that does not exist is.
	r, err := storeStatus(env, sf, st, beginOf(name), repoHint(l.repo, name))
	r.name = name
	return r, err == nil, err
}

// autoReset resets every local loop of the repository (or the one --loop
// names), or the loop of the ledger directory named.
func autoReset(env Env, sf *stateFlags, l *localFlags, reason string) (int, error) {
	if l.ledger != "" {
		path, err := where(env, l.stateDir).ResetsFile(l.ledger)
		if err != nil {
			return 0, err
		}
		st, err := localstate.Open(path, false)
		if err != nil {
			return 0, err
		}
		defer st.Close()
		if _, err := resetStore(env, sf, st, startRun, "", reason, false); err != nil {
			return 0, err
		}
		_, err = fmt.Fprintf(env.Stdout, "loopbreaker: reset the loop of ledger %s (kept in %s): the next check starts a new fold\n", l.ledger, path)
		return ExitContinue, err
	}
	repo, names, err := l.repoLoops(env)
	if err != nil {
		return 0, err
	}
	var results []loopResult
	for _, name := range names {
		// A loop named with --loop is reset even before its first
		// iteration, as a state file is.
		st, err := repo.Open(name, l.loop == "")
		if err != nil {
			return 0, err
		}
		if st.File == nil && l.loop == "" {
			st.Close()
			continue
		}
		// The shell loop's decision is the fold of its commits too: below.
		r, err := resetStore(env, sf, st, beginOf(name), repoHint(l.repo, name), reason, name != localstate.LoopCheck)
		r.name = name
		st.Close()
		if err != nil {
			return 0, err
		}
		if name == localstate.LoopCheck {
			if r, _, err = loopStatus(env, sf, l, repo, name); err != nil {
				return 0, err
			}
		}
		results = append(results, r)
	}
	if len(results) == 0 {
		return 0, usagef("nothing to reset: %s has no local loop state in %s (name a state file with --state FILE, or a ledger with --ledger DIR)", repo.Top, repo.Dir)
	}
	return writeLoops(env, sf.format, results)
}
