package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/hook"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/statefile"
	"github.com/loopbreaker/loopbreaker/internal/worktree"
)

// hookAgents are the agents whose hook schema the breaker speaks.
var hookAgents = map[string]bool{"claude-code": true, "codex": true}

// maxSettingsBytes bounds a settings file read.
const maxSettingsBytes = 4 << 20

func runHook(args []string, env Env) (int, error) {
	if len(args) == 0 {
		return 0, usagef("hook needs an agent: loopbreaker hook claude-code (the Stop hook), or loopbreaker hook install claude-code")
	}
	switch {
	case args[0] == "install":
		return runHookInstall(args[1:], env)
	case hookAgents[args[0]]:
		return runHookAgent(args[0], args[1:], env)
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Fprintln(env.Stdout, "usage: loopbreaker hook claude-code|codex [flags]   (the hook itself: reads the hook's JSON on stdin)")
		fmt.Fprintln(env.Stdout, "       loopbreaker hook install claude-code [--dir DIR]")
		return 0, nil
	}
	return 0, usagef("hook: unknown agent %q: claude-code or codex, or install", args[0])
}

// runHookAgent is the hook: SessionStart takes the baseline, each Stop is
// an iteration. Its answer always goes out as the hook's JSON with exit 0:
// for a Stop hook exit 2 means "keep going", which a failing breaker must
// never say, so a fault stops the session and names itself.
func runHookAgent(agent string, args []string, env Env) (int, error) {
	fs := newFlagSet("hook "+agent, "[flags] < hook-input.json", env)
	pol := fs.String("policy", "", "built-in policy name or TOML file (default: the one the hook's state was created with, else default)")
	stateDir := fs.String("state-dir", "", stateDirUsage)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	out, err := hookIteration(env, *pol, where(env, *stateDir))
	if err != nil {
		fmt.Fprintf(env.Stderr, "loopbreaker: %s\n", oneLine(err.Error()))
		out = hook.Failed(err)
	}
	if err := out.Write(env.Stdout); err != nil {
		return 0, internal(err)
	}
	return ExitContinue, nil
}

// hookIteration measures one stop and decides.
func hookIteration(env Env, pol string, w localstate.Where) (hook.Output, error) {
	in, err := hook.ReadInput(env.Stdin)
	if err != nil {
		return hook.Output{}, err
	}
	dir := in.Cwd
	if dir == "" {
		dir = "."
	}
	repo, err := w.ForRepo(dir)
	if err != nil {
		// Not a repository: nothing to watch, and the session is not ours
		// to stop.
		return hook.Output{SystemMessage: "loopbreaker: not watching this session: " + oneLine(err.Error())}, nil
	}
	sf := stateFlags{state: repo.Path(localstate.HookState), policy: pol, format: "json"}
	s, err := openState(&sf, env, false)
	if err != nil {
		return hook.Output{}, err
	}
	defer s.unlock()
	var marks hook.Marks
	had, err := localstate.ReadJSON(repo.Path(localstate.HookMarks), hook.MaxMarksBytes, &marks)
	if err != nil {
		return hook.Output{}, err
	}
	tree, treeNotes, err := worktree.Take(repo.Top)
	if err != nil {
		return hook.Output{}, err
	}
	for _, n := range treeNotes {
		fmt.Fprintf(env.Stderr, "loopbreaker: note: %s\n", oneLine(n))
	}
	offset := marks.Offset
	if marks.Transcript != in.TranscriptPath {
		offset = 0
	}
	tr, err := hook.ReadTranscript(in.TranscriptPath, offset)
	if err != nil {
		return hook.Output{}, err
	}
	next := hook.Marks{Version: 1, Session: in.SessionID, Transcript: in.TranscriptPath, Offset: tr.End, Tree: tree}
	at := s.now(&sf, env)
	if in.HookEventName == hook.EventSessionStart || !had || marks.Tree == nil {
		// The baseline: the next stop is measured from here.
		if err := s.save(at); err != nil {
			return hook.Output{}, internal(err)
		}
		if err := localstate.WriteJSON(repo.Path(localstate.HookMarks), next); err != nil {
			return hook.Output{}, internal(err)
		}
		d, err := s.b.Status(at)
		if err != nil {
			return hook.Output{}, err
		}
		if d.State == breaker.Open {
			return hook.Output{SystemMessage: "loopbreaker: the breaker of this repository is OPEN; reset it when the cause is fixed: " + hookResetHint}, nil
		}
		return hook.Output{}, nil
	}
	meaning, err := worktree.NewMeaning(s.b.Policy())
	if err != nil {
		return hook.Output{}, err
	}
	it := breaker.Iteration{At: at, Change: changeOf(meaning.Compare(marks.Tree, tree))}
	(&evidence.Files{Log: tr.Log}).Apply(&it)
	tr.Apply(&it)
	d, err := s.b.Observe(it)
	if err != nil {
		return hook.Output{}, fmt.Errorf("record in %s: %w", sf.state, err)
	}
	if err := loop.Settle(s.b, &d, at); err != nil {
		return hook.Output{}, fmt.Errorf("record in %s: %w", sf.state, err)
	}
	if err := s.save(at); err != nil {
		return hook.Output{}, internal(err)
	}
	if err := localstate.WriteJSON(repo.Path(localstate.HookMarks), next); err != nil {
		return hook.Output{}, internal(err)
	}
	return hook.Answer(&d, in, hookResetHint), nil
}

// hookResetHint is how a person resets the hook's breaker.
const hookResetHint = `loopbreaker reset --reason "..." in the repository`

// hookCommand is the command the installed hook runs.
const hookCommand = "loopbreaker hook claude-code"

func runHookInstall(args []string, env Env) (int, error) {
	set := newFlagSet("hook install", "claude-code [--dir DIR]", env)
	dir := set.String("dir", ".", "the project whose .claude/settings.json gets the hook")
	pos, err := parsePositional(set, args, 1)
	if err != nil {
		return 0, err
	}
	if len(pos) != 1 || pos[0] != "claude-code" {
		return 0, usagef("hook install takes the agent: loopbreaker hook install claude-code")
	}
	path := filepath.Join(*dir, ".claude", "settings.json")
	data, err := statefile.ReadRegular(path, maxSettingsBytes, "settings file")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	out, changed, err := hook.Install(data, path, hookCommand)
	if err != nil {
		return 0, err
	}
	if !changed {
		fmt.Fprintf(env.Stdout, "loopbreaker: %s already runs %q on SessionStart and Stop\n", path, hookCommand)
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := statefile.WriteAtomic(path, out, perm); err != nil {
		return 0, err
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: %s now runs %q on SessionStart and Stop; its state is kept in %s\n", path, hookCommand, stateRootOrWhy(env))
	return 0, nil
}

// stateRootOrWhy is the state directory, or why there is none.
func stateRootOrWhy(env Env) string {
	root, err := where(env, "").Root()
	if err != nil {
		return err.Error()
	}
	return root
}
