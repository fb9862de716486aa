package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/hook"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// hookAgents are the agents whose hook schema the breaker speaks, with
// the file `hook install` writes the hook into, in the project: Claude
// Code's personal project settings (never committed: the command names
// this machine's binary), and Codex's project hooks.
var hookAgents = map[string]string{
	"claude-code": filepath.Join(".claude", "settings.local.json"),
	"codex":       filepath.Join(".codex", "hooks.json"),
}

// maxSettingsBytes bounds a settings file read.
const maxSettingsBytes = 4 << 20

func runHook(args []string, env Env) (int, error) {
	if len(args) == 0 {
		return 0, usagef("hook needs an agent: loopbreaker hook claude-code (the Stop hook), or loopbreaker hook install claude-code")
	}
	switch _, known := hookAgents[args[0]]; {
	case args[0] == "install":
		return runHookInstall(args[1:], env)
	case known:
		return runHookAgent(args[0], args[1:], env)
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		fmt.Fprintln(env.Stdout, "usage: loopbreaker hook claude-code|codex [flags]   (the hook itself: reads the hook's JSON on stdin)")
		fmt.Fprintln(env.Stdout, "       loopbreaker hook install claude-code|codex [--dir DIR] [--policy NAME|FILE]")
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
	pol := fs.String("policy", "", "built-in policy name or TOML file (default: the one the session's breaker was created with, else default)")
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

// hookIteration measures one stop of a session and decides, in the
// session's own store: a new session starts a fresh breaker, a resumed one
// goes on with its own.
func hookIteration(env Env, pol string, w localstate.Where) (hook.Output, error) {
	in, err := hook.ReadInput(env.Stdin)
	if err != nil || !in.Answers() {
		return hook.Output{}, err
	}
	dir := in.Cwd
	if dir == "" {
		dir = "."
	}
	repo, err := w.ForRepo(dir)
	if _, noRoot := w.Root(); noRoot != nil || errors.Is(err, localstate.ErrNoRepository) {
		// Nothing to watch, or nowhere to keep it: the session is not ours
		// to stop.
		return hook.Output{SystemMessage: "loopbreaker: not watching this session: " + oneLine(cmp.Or(noRoot, err).Error())}, nil
	}
	if err != nil {
		return hook.Output{}, err
	}
	name := localstate.SessionLoop(in.SessionID)
	st, err := repo.Open(name, false)
	if err != nil {
		return hook.Output{}, err
	}
	defer st.Close()
	sf := stateFlags{policy: pol, format: "json"}
	s, err := openSession(st, &sf, env, startSession, hookResetHint(name))
	if err != nil {
		return hook.Output{}, err
	}
	at := s.now(&sf, env)
	fresh := st.File == nil
	offset := s.file.Offset
	if s.file.Transcript != in.TranscriptPath {
		offset = 0
	}
	tr, err := hook.ReadTranscript(in.TranscriptPath, offset)
	if err != nil {
		return hook.Output{}, err
	}
	s.file.Session, s.file.Transcript, s.file.Offset = in.SessionID, in.TranscriptPath, tr.End
	changed, baseline, err := s.treeChange(repo.Top)
	if err != nil {
		return hook.Output{}, err
	}
	if in.HookEventName == hook.EventSessionStart || baseline {
		// The baseline: the next stop is measured from here.
		if err := s.save(at); err != nil {
			return hook.Output{}, err
		}
		return hookGreeting(s, fresh, at)
	}
	it := breaker.Iteration{At: at}
	(&evidence.Files{Log: tr.Log, Cost: tr.Cost}).Apply(&it)
	tr.Apply(&it)
	rec := ledger.FromIteration(&it, 0, 0)
	rec.Work = workOf(changed, nil)
	if err := s.add(rec); err != nil {
		return hook.Output{}, err
	}
	d, prev, err := s.fold(at, false)
	if err != nil {
		return hook.Output{}, err
	}
	if err := s.save(at); err != nil {
		return hook.Output{}, err
	}
	return hook.Answer(&d, prev, in, s.hint), nil
}

// hookGreeting is the answer to a session's start: a fresh breaker says
// so; a resumed session's breaker says where it stands unless CLOSED.
func hookGreeting(s *session, fresh bool, at time.Time) (hook.Output, error) {
	if fresh {
		caps := ""
		if mi := s.policy.Rules.MaxIterations; mi.Enabled {
			caps = fmt.Sprintf(", at most %d iterations", mi.MaxIterations)
		}
		return hook.Output{SystemMessage: fmt.Sprintf("loopbreaker: a fresh breaker watches this session (policy %s%s); state in %s", s.policy.Name, caps, s.store.Name)}, nil
	}
	d, _, err := s.fold(at, true)
	if err != nil || d.State == breaker.Closed {
		return hook.Output{}, err
	}
	return hook.Output{SystemMessage: fmt.Sprintf("loopbreaker: this session's breaker is %s after %d iterations; reset it when the cause is fixed: %s", d.State, d.Iteration, s.hint)}, nil
}

// hookResetHint is how a person resets a session's breaker.
func hookResetHint(name string) string {
	return fmt.Sprintf(`loopbreaker reset --loop %s --reason "..." in the repository`, name)
}

func runHookInstall(args []string, env Env) (int, error) {
	set := newFlagSet("hook install", "claude-code|codex [--dir DIR] [--policy NAME|FILE]", env)
	dir := set.String("dir", ".", "the project to install the hook into")
	pol := set.String("policy", "", "the policy the hook decides with (a built-in name or a TOML file; default: default)")
	pos, err := parsePositional(set, args, 1)
	if err != nil {
		return 0, err
	}
	file, known := "", false
	if len(pos) == 1 {
		file, known = hookAgents[pos[0]]
	}
	if !known {
		return 0, usagef("hook install takes the agent: loopbreaker hook install claude-code (or codex)")
	}
	bin, err := lookPath(env, "loopbreaker")
	if err != nil {
		return 0, err
	}
	command := shellQuote(bin) + " hook " + pos[0]
	if *pol != "" {
		if _, err := loadNamedPolicy(*pol); err != nil {
			return 0, err
		}
		command += " --policy " + shellQuote(policyRef(*pol))
	}
	path := filepath.Join(*dir, file)
	data, err := regularfile.Read(path, maxSettingsBytes, "settings file")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	out, changed, err := hook.Install(data, path, command)
	if err != nil {
		return 0, err
	}
	if !changed {
		fmt.Fprintf(env.Stdout, "loopbreaker: %s already runs %s on SessionStart and Stop\n", path, command)
		return 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	if err := regularfile.WriteAtomic(path, out, 0o644); err != nil {
		return 0, err
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: %s now runs %s on SessionStart and Stop (one breaker per session); its state is kept in %s\n", path, command, stateRootOrWhy(env))
	return 0, nil
}

// lookPath finds an executable on the environment's PATH, absolute: the
// installed hook names it so, as the agent may run hooks with another
// PATH; one that is not there is refused (the hook would never run).
func lookPath(env Env, name string) (string, error) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && (runtime.GOOS == "windows" || st.Mode()&0o111 != 0) {
			return filepath.Abs(p)
		}
	}
	return "", usagef("%s is not on PATH: install it (go install . in a clone) and put its directory on PATH, then install the hook; a hook that names no binary never runs", name)
}

// shellQuote quotes s for the shell that runs a hook's command, when it
// needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '\\' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// stateRootOrWhy is the state directory, or why there is none.
func stateRootOrWhy(env Env) string {
	root, err := where(env, "").Root()
	if err != nil {
		return err.Error()
	}
	return root
}
