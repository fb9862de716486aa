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
// the project file `hook install` writes (Claude Code's personal settings:
// the command names this machine's binary).
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
// an iteration. It always exits 0 (exit 2 tells a Stop hook's agent to keep
// going): a fault stops the session and names itself.
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
// session's own store.
func hookIteration(env Env, pol string, w localstate.Where) (hook.Output, error) {
	in, err := hook.ReadInput(env.Stdin)
	if err != nil || !in.Answers() {
		return hook.Output{}, err
	}
	repo, err := w.ForRepo(cmp.Or(in.Cwd, "."))
	if _, noRoot := w.Root(); noRoot != nil || errors.Is(err, localstate.ErrNoRepository) {
		// Nothing to watch, or nowhere to keep it: not ours to stop.
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
	s, err := openSession(st, &sf, env, startSession, fmt.Sprintf(`loopbreaker reset --loop %s --reason "..." in the repository`, name))
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
	it.CompletionClaimed = it.CompletionClaimed || tr.Promise != ""
	rec := ledger.FromIteration(&it, 0, 0)
	rec.Work = workOf(changed, nil)
	d, prev, err := s.add(rec, at)
	if err != nil {
		return hook.Output{}, err
	}
	if err := s.save(at); err != nil {
		return hook.Output{}, err
	}
	return hook.Answer(&d, prev, in, s.hint), nil
}

// hookGreeting answers a session's start: a fresh breaker says so, a
// resumed one where it stands unless CLOSED.
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
	root, err := where(env, "").Root()
	if err != nil {
		root = err.Error()
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: %s now runs %s on SessionStart and Stop (one breaker per session); its state is kept in %s\n", path, command, root)
	return 0, nil
}

// lookPath finds an executable on the environment's PATH, absolute (the
// agent may run hooks with another PATH).
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

// shellQuote quotes s for the shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '\\' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
