package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

// hookEnv is a user's environment with its own state directory.
func hookEnv(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{"LOOPBREAKER_STATE_DIR": filepath.Join(t.TempDir(), "state")}
}

// callIn runs the command line with stdin.
func callIn(now time.Time, env map[string]string, stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Main(args, cli.Env{
		Stdin:  strings.NewReader(stdin),
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return now },
	})
	return code, out.String(), errb.String()
}

// session is a Claude Code session in a repository: its transcript grows
// turn by turn, and each stop feeds the recorded hook input to the hook.
type session struct {
	t          *testing.T
	dir        string
	transcript string
	env        map[string]string
	now        time.Time
	turns      int // turns appended, which number a turn's {{n}} ids
}

func newSession(t *testing.T) *session {
	t.Helper()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n\nfunc main() {}\n"}})
	return &session{t: t, dir: dir, transcript: filepath.Join(t.TempDir(), "0d6c2f1e.jsonl"), env: hookEnv(t),
		now: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)}
}

// input is a recorded hook input with this session's paths.
func (s *session) input(name string, active bool) string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hook", name))
	if err != nil {
		s.t.Fatal(err)
	}
	quote := func(v string) string { b, _ := json.Marshal(v); return strings.Trim(string(b), `"`) }
	return strings.NewReplacer("{{transcript}}", quote(s.transcript), "{{cwd}}", quote(s.dir), "{{active}}", map[bool]string{true: "true", false: "false"}[active]).Replace(string(data))
}

// turn appends a recorded turn to the transcript, its {{n}} (the ids of
// its messages) the turn's number.
func (s *session) turn(name string) {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hook", name))
	if err != nil {
		s.t.Fatal(err)
	}
	s.turns++
	data = bytes.ReplaceAll(data, []byte("{{n}}"), []byte(strconv.Itoa(s.turns)))
	f, err := os.OpenFile(s.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		s.t.Fatal(err)
	}
}

// hook runs the breaker's hook (installed with args) on an event and
// decodes its answer.
func (s *session) hook(event string, active bool, args ...string) hookAnswer {
	s.t.Helper()
	s.now = s.now.Add(5 * time.Minute)
	name := map[string]string{"SessionStart": "session_start.json", "Stop": "stop.json"}[event]
	code, out, errOut := callIn(s.now, s.env, s.input(name, active), append([]string{"hook", "claude-code"}, args...)...)
	if code != 0 {
		s.t.Fatalf("hook %s: exit %d, want 0 (a Stop hook's exit 2 would keep the agent going)\n%s", event, code, errOut)
	}
	var a hookAnswer
	if strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			s.t.Fatalf("hook %s: not the hook's JSON: %v\n%s", event, err, out)
		}
	}
	a.raw = out
	return a
}

// hookAnswer is a Stop hook's JSON output as Claude Code reads it.
type hookAnswer struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	SystemMessage string `json:"systemMessage"`
	raw           string
}

func (a hookAnswer) stops() bool { return a.Continue != nil && !*a.Continue }

// TestHookStopsASessionThatMakesNoProgress: the hook fed recorded hook
// input and a transcript: the baseline at SessionStart, then each stop an
// iteration; two stops that change nothing but repeat a tool error are
// HALF_OPEN (the failure context goes to the agent as a block reason while
// a Stop hook keeps it going), the third stops the session with the reason;
// a real change does not reopen it until a person resets; after the reset
// a stop with a change says nothing.
func TestHookStopsASessionThatMakesNoProgress(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	if a := s.hook("SessionStart", false); !strings.Contains(a.SystemMessage, "a fresh breaker watches this session") {
		t.Fatalf("SessionStart: got %q, want the person told of a fresh breaker", a.raw)
	}
	s.turn("turn_error.jsonl")
	if a := s.hook("Stop", false); a.raw != "" {
		t.Fatalf("stop 1: got %q, want no answer (CLOSED)", a.raw)
	}
	s.turn("turn_error.jsonl")
	a := s.hook("Stop", true)
	if a.Decision != "block" || !strings.Contains(a.Reason, "HALF_OPEN") || !strings.Contains(a.Reason, "undefined: parseConfig") || a.stops() {
		t.Fatalf("stop 2: got %s, want a block whose reason is the failure context with the tool error", a.raw)
	}
	s.turn("turn_error.jsonl")
	a = s.hook("Stop", true)
	if !a.stops() || !strings.Contains(a.StopReason, "OPEN: stop the loop (no_progress)") || !strings.Contains(a.StopReason, "loopbreaker reset") || strings.Contains(a.StopReason, "/loopbreaker") {
		t.Fatalf("stop 3: got %s, want continue false with the reason and the local reset", a.raw)
	}
	write(t, filepath.Join(s.dir, "config.go"), "package main\n\nfunc parseConfig() {}\n")
	if a = s.hook("Stop", true); !a.stops() {
		t.Fatalf("stop 4 while OPEN: got %s, want the session stopped until a reset", a.raw)
	}
	code, out, errOut := callIn(s.now, s.env, "", "status", "--repo", s.dir)
	if code != cli.ExitOpen || !strings.HasPrefix(out, "loopbreaker: OPEN") {
		t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = callIn(s.now, s.env, "", "reset", "--repo", s.dir, "--reason", "added parseConfig"); code != 0 || !strings.Contains(out, "CLOSED") {
		t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
	}
	write(t, filepath.Join(s.dir, "config.go"), "package main\n\nfunc parseConfig() error { return nil }\n")
	s.turn("turn_error.jsonl")
	if a = s.hook("Stop", true); a.raw != "" {
		t.Fatalf("stop after the reset with a change: got %s, want no answer", a.raw)
	}
}

// TestHookCountsDenialsAndIgnoresWhitespace: a transcript's permission
// denials open the breaker by their own rule under the ralph policy, and a
// change that is only whitespace is no progress.
func TestHookCountsDenialsAndIgnoresWhitespace(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.hook("SessionStart", false)
	var a hookAnswer
	for i := 0; i < 2; i++ {
		write(t, filepath.Join(s.dir, "main.go"), "package main\n\nfunc main() {}\n"+strings.Repeat("\n", i+1))
		s.turn("turn_denied.jsonl")
		s.now = s.now.Add(time.Minute)
		code, out, errOut := callIn(s.now, s.env, s.input("stop.json", true), "hook", "claude-code", "--policy", "ralph")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		a = hookAnswer{raw: out}
		if out != "" {
			json.Unmarshal([]byte(out), &a)
		}
	}
	if !a.stops() || !strings.Contains(a.StopReason, "permission_denied") {
		t.Fatalf("got %s, want the session stopped for permission denials", a.raw)
	}
}

// ralphWiggum is the ralph-wiggum plugin's Stop hook as its documentation
// describes it: while its loop is active it blocks every stop with the same
// prompt, until the agent writes <promise>TEXT</promise> with the
// completion promise or the iterations reach --max-iterations.
type ralphWiggum struct {
	prompt, promise string
	iteration, max  int
	active          bool
}

var promiseTag = regexp.MustCompile(`<promise>(.*?)</promise>`)

func (r *ralphWiggum) stop(lastText string) hookAnswer {
	if !r.active {
		return hookAnswer{}
	}
	if r.max > 0 && r.iteration >= r.max {
		r.active = false
		return hookAnswer{}
	}
	if m := promiseTag.FindStringSubmatch(lastText); m != nil && m[1] == r.promise {
		r.active = false
		return hookAnswer{}
	}
	r.iteration++
	return hookAnswer{Decision: "block", Reason: r.prompt}
}

// claudeStop is what Claude Code does with the answers of all the Stop
// hooks that matched, as its hooks reference documents: continue false
// ends the session whatever else was answered; else any block keeps the
// agent going with the reasons; else the agent stops.
func claudeStop(answers ...hookAnswer) (goOn bool, reasons []string, stopReason string) {
	for _, a := range answers {
		if a.stops() {
			return false, nil, a.StopReason
		}
	}
	for _, a := range answers {
		if a.Decision == "block" {
			reasons = append(reasons, a.Reason)
		}
	}
	return len(reasons) > 0, reasons, ""
}

// TestHookWithRalphWiggum: the breaker's hook beside ralph-wiggum's, both
// on Stop. An agent that makes no progress: ralph-wiggum would feed the
// prompt back 50 times; the breaker's context joins its prompt at the
// second stop and the breaker ends the session at the third. An agent that
// works and then keeps its promise: ralph-wiggum ends the loop and the
// breaker, CLOSED, says nothing.
func TestHookWithRalphWiggum(t *testing.T) {
	t.Parallel()
	t.Run("stuck", func(t *testing.T) {
		t.Parallel()
		s := newSession(t)
		rw := &ralphWiggum{prompt: "Fix the build.", promise: "COMPLETE", max: 50, active: true}
		s.hook("SessionStart", false)
		active := false
		stops := 0
		for ; stops < 50; stops++ {
			s.turn("turn_error.jsonl")
			ours := s.hook("Stop", active)
			goOn, reasons, stopReason := claudeStop(rw.stop("The build still fails."), ours)
			if stops == 1 && (len(reasons) != 2 || reasons[0] != "Fix the build." || !strings.Contains(reasons[1], "HALF_OPEN")) {
				t.Fatalf("stop 2: reasons %q, want ralph-wiggum's prompt and the breaker's failure context", reasons)
			}
			if !goOn {
				if !strings.Contains(stopReason, "OPEN") {
					t.Fatalf("the session ended at stop %d without the breaker's reason: %q", stops+1, stopReason)
				}
				break
			}
			active = true
		}
		// ralph-wiggum blocked the third stop too; continue false won.
		if stops+1 != 3 || rw.iteration != 3 || !rw.active {
			t.Fatalf("the session ended at stop %d after %d ralph-wiggum blocks, want stop 3 over its third block", stops+1, rw.iteration)
		}
	})
	t.Run("done", func(t *testing.T) {
		t.Parallel()
		s := newSession(t)
		rw := &ralphWiggum{prompt: "Write the config.", promise: "COMPLETE", max: 50, active: true}
		s.hook("SessionStart", false)
		active := false
		for i := 1; ; i++ {
			write(t, filepath.Join(s.dir, "config.go"), "package main\n\n// step "+strings.Repeat("x", i)+"\nfunc parseConfig() {}\n")
			last := "Wrote config.go."
			if i == 3 {
				s.turn("turn_promise.jsonl")
				last = "All done.\n<promise>COMPLETE</promise>"
			}
			ours := s.hook("Stop", active)
			if ours.raw != "" {
				t.Fatalf("stop %d: the breaker answered %s while the agent works", i, ours.raw)
			}
			goOn, _, _ := claudeStop(rw.stop(last), ours)
			if !goOn {
				if i != 3 {
					t.Fatalf("the session ended at stop %d, want 3 (the promise)", i)
				}
				break
			}
			active = true
		}
	})
}

// TestHookInstall: install refuses when loopbreaker is not on PATH (the
// hook would never run); else it writes the binary's absolute path into
// the project's personal settings (.claude/settings.local.json, never the
// committed settings.json), keeps every other setting and hook, changes
// nothing the second time, takes --policy, installs for Codex into
// .codex/hooks.json, and leaves a malformed file untouched with an error
// that names it.
func TestHookInstall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := hookEnv(t)
	settings := filepath.Join(dir, ".claude", "settings.local.json")
	env["PATH"] = t.TempDir()
	if code, _, errOut := callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir); code != cli.ExitUsage || !strings.Contains(errOut, "loopbreaker is not on PATH") {
		t.Fatalf("loopbreaker not on PATH: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Fatalf("a refused install wrote %s", settings)
	}
	env["PATH"] = env["PATH"] + string(os.PathListSeparator) + filepath.Dir(binary)
	command := binary + " hook claude-code"
	code, out, errOut := callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir)
	data, _ := os.ReadFile(settings)
	if code != 0 || !strings.Contains(string(data), `"command": "`+command+`"`) || !strings.Contains(out, settings) {
		t.Fatalf("new file: exit %d\n%s%s\n%s", code, out, errOut, data)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "settings.json")); err == nil {
		t.Errorf("the committed settings.json was written")
	}

	other := `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "./notify.sh", "timeout": 30}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
  },
  "unknownToThisProgram": {"z": 1, "a": 2}
}
`
	write(t, settings, other)
	if code, _, errOut = callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir); code != 0 {
		t.Fatalf("existing file: exit %d: %s", code, errOut)
	}
	var got struct {
		Permissions map[string][]string `json:"permissions"`
		Hooks       map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type, Command string
				Timeout       int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	first, _ := os.ReadFile(settings)
	if err := json.Unmarshal(first, &got); err != nil {
		t.Fatal(err)
	}
	stop := got.Hooks["Stop"]
	if len(got.Permissions["allow"]) != 1 || len(stop) != 2 || stop[0].Hooks[0].Command != "./notify.sh" || stop[0].Hooks[0].Timeout != 30 ||
		stop[1].Hooks[0].Command != command || len(got.Hooks["PreToolUse"]) != 1 || got.Hooks["PreToolUse"][0].Matcher != "Bash" ||
		len(got.Hooks["SessionStart"]) != 1 || !strings.Contains(string(first), `"unknownToThisProgram": {
    "z": 1,
    "a": 2
  }`) || strings.Index(string(first), `"permissions"`) > strings.Index(string(first), `"hooks"`) {
		t.Fatalf("existing file: got\n%s", first)
	}
	if code, out, _ = callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir); code != 0 || !strings.Contains(out, "already") {
		t.Fatalf("second install: exit %d %s", code, out)
	}
	if again, _ := os.ReadFile(settings); !bytes.Equal(again, first) {
		t.Fatalf("second install changed the file:\n%s", again)
	}
	if code, _, errOut = callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir, "--policy", "ralph"); code != 0 {
		t.Fatalf("--policy: exit %d %s", code, errOut)
	}
	if withPolicy, _ := os.ReadFile(settings); strings.Count(string(withPolicy), command+" --policy ralph") != 2 || strings.Count(string(withPolicy), "hook claude-code") != 2 {
		t.Fatalf("--policy ralph: got\n%s", withPolicy)
	}
	if code, _, errOut = callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir, "--policy", "nonesuch"); code != cli.ExitUsage || !strings.Contains(errOut, "nonesuch") {
		t.Errorf("--policy nonesuch: exit %d %s", code, errOut)
	}
	if code, _, errOut = callIn(time.Now(), env, "", "hook", "install", "codex", "--dir", dir); code != 0 {
		t.Fatalf("codex: exit %d %s", code, errOut)
	}
	if codex, _ := os.ReadFile(filepath.Join(dir, ".codex", "hooks.json")); strings.Count(string(codex), binary+" hook codex") != 2 {
		t.Fatalf("codex: got\n%s", codex)
	}

	for _, bad := range []string{"{\"hooks\": [", `{"hooks": {"Stop": {"command": "x"}}}`, `{"hooks": []}`} {
		write(t, settings, bad)
		code, _, errOut = callIn(time.Now(), env, "", "hook", "install", "claude-code", "--dir", dir)
		after, _ := os.ReadFile(settings)
		if code != cli.ExitUsage || !strings.Contains(errOut, settings) || string(after) != bad {
			t.Errorf("malformed %q: exit %d, file now %q\n%s", bad, code, after, errOut)
		}
	}
}

// TestHookFailsClosed: a hook that cannot decide stops the session and
// says why, with exit 0 (for a Stop hook, exit 2 means "keep going"); a
// session outside a repository is not watched, and says so.
func TestHookFailsClosed(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.hook("SessionStart", false)
	for _, tc := range []struct{ name, input string }{
		{"not JSON", "Stop"},
		{"empty", ""},
	} {
		code, out, _ := callIn(s.now, s.env, tc.input, "hook", "claude-code")
		if code != 0 || !strings.Contains(out, `"continue":false`) || !strings.Contains(out, "could not decide") {
			t.Errorf("%s: exit %d %s", tc.name, code, out)
		}
	}
	// The agent corrupts the breaker's state: the session stops.
	states, _ := filepath.Glob(filepath.Join(s.env["LOOPBREAKER_STATE_DIR"], "*", "session-*.json"))
	if len(states) != 1 {
		t.Fatalf("state files %v, want one", states)
	}
	write(t, states[0], "{broken")
	s.turn("turn_error.jsonl")
	if a := s.hook("Stop", false); !a.stops() || !strings.Contains(a.StopReason, states[0]) {
		t.Fatalf("corrupt state: got %s", a.raw)
	}
	if got, _ := os.ReadFile(states[0]); string(got) != "{broken" {
		t.Fatalf("the corrupt state file was changed: %q", got)
	}
	outside := strings.ReplaceAll(s.input("stop.json", false), `"cwd":"`+s.dir, `"cwd":"`+t.TempDir())
	if code, out, _ := callIn(s.now, s.env, outside, "hook", "claude-code"); code != 0 || !strings.Contains(out, "not watching") {
		t.Fatalf("outside a repository: exit %d %s", code, out)
	}
}

// TestHookCodex: Codex CLI's Stop hook input (its documented fields, the
// transcript path null) through `hook codex`: the first stop takes the
// baseline, and stops that change nothing open the breaker with the same
// answer as for Claude Code.
func TestHookCodex(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
	env := hookEnv(t)
	quoted, _ := json.Marshal(dir)
	input := `{"session_id":"019a","turn_id":"t1","transcript_path":null,"cwd":` + string(quoted) +
		`,"hook_event_name":"Stop","model":"gpt-5-codex","permission_mode":"default","stop_hook_active":false,"last_assistant_message":"Nothing to change."}`
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var out string
	for i := 0; i < 4; i++ {
		now = now.Add(time.Minute)
		var code int
		var errOut string
		if code, out, errOut = callIn(now, env, input, "hook", "codex"); code != 0 {
			t.Fatalf("stop %d: exit %d %s", i+1, code, errOut)
		}
		if i == 0 && !strings.Contains(out, "a fresh breaker watches this session") {
			t.Fatalf("the first stop takes the baseline and says so, got %s", out)
		}
	}
	if !strings.Contains(out, `"continue":false`) || !strings.Contains(out, "OPEN: stop the loop (no_progress)") {
		t.Fatalf("the fourth stop: got %s", out)
	}
}

// TestHookReadsAdmissionsInTheTranscript: the agent changes code at every
// stop, but where its own words since the previous stop admit that there
// was nothing to do, the stop is no progress; the prompt's words (the
// person's) and an admission before the previous stop do not count. Three
// admitting stops in a row end the session.
func TestHookReadsAdmissionsInTheTranscript(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.hook("SessionStart", false)
	var got []string
	for i, turn := range []string{"turn_idle.jsonl", "turn_work.jsonl", "turn_idle.jsonl", "turn_idle.jsonl", "turn_idle.jsonl"} {
		write(t, filepath.Join(s.dir, "status.go"), "package main\n\nconst status = "+strings.Repeat("1", i+1)+"\n")
		s.turn(turn)
		a := s.hook("Stop", i > 0)
		switch {
		case a.stops():
			got = append(got, "stop")
		case a.Decision == "block":
			got = append(got, "block")
		default:
			got = append(got, "-")
		}
	}
	if want := "- - - block stop"; strings.Join(got, " ") != want {
		t.Fatalf("answers %q, want %q (the admissions are no progress, the work turn is)", strings.Join(got, " "), want)
	}
}
