package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hookInput is Claude Code's hook input for an event of a session.
func hookInput(id, event, transcript, cwd string) string {
	b, _ := json.Marshal(map[string]any{"session_id": id, "transcript_path": transcript, "cwd": cwd, "hook_event_name": event,
		"permission_mode": "default", "source": "startup", "stop_hook_active": false})
	return string(b)
}

// runHook feeds one event of session id to the hook and decodes the answer.
func (s *session) runHook(id, event, cwd string) hookAnswer {
	s.t.Helper()
	s.now = s.now.Add(5 * time.Minute)
	code, out, errOut := callIn(s.now, s.env, hookInput(id, event, s.transcript, cwd), "hook", "claude-code")
	if code != 0 {
		s.t.Fatalf("hook %s %s: exit %d\n%s", id, event, code, errOut)
	}
	a := hookAnswer{raw: out}
	if strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			s.t.Fatalf("hook %s: not the hook's JSON: %v\n%s", event, err, out)
		}
	}
	return a
}

// TestHookOneBreakerPerSession: a session that opened its breaker does not
// stop the next one, which starts fresh and says so; the first session,
// resumed, keeps its own breaker, OPEN, and hears it at its start.
func TestHookOneBreakerPerSession(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.runHook("first", "SessionStart", s.dir)
	var a hookAnswer
	for i := 0; i < 3; i++ {
		s.turn("turn_error.jsonl")
		a = s.runHook("first", "Stop", s.dir)
	}
	if !a.stops() {
		t.Fatalf("the first session's third stop without progress: got %s, want the session stopped", a.raw)
	}
	if a = s.runHook("second", "SessionStart", s.dir); !strings.Contains(a.SystemMessage, "a fresh breaker watches this session") {
		t.Fatalf("a new session: got %s, want a fresh breaker, said", a.raw)
	}
	write(t, filepath.Join(s.dir, "config.go"), "package main\n\nfunc parseConfig() {}\n")
	s.turn("turn_work.jsonl")
	if a = s.runHook("second", "Stop", s.dir); a.stops() || a.raw != "" {
		t.Fatalf("the new session's stop with progress: got %s, want nothing (CLOSED)", a.raw)
	}
	if a = s.runHook("first", "SessionStart", s.dir); !strings.Contains(a.SystemMessage, "OPEN") {
		t.Fatalf("the first session resumed: got %s, want its breaker OPEN, said", a.raw)
	}
	write(t, filepath.Join(s.dir, "config.go"), "package main\n\nfunc parseConfig() error { return nil }\n")
	if a = s.runHook("first", "Stop", s.dir); !a.stops() {
		t.Fatalf("the first session resumed, a stop: got %s, want it stopped until a reset", a.raw)
	}
}

// TestHookAnswersOnlyItsEvents: an event the hook was not installed for
// (a plausible mis-install on UserPromptSubmit) is answered with nothing,
// and records nothing: the session goes on as if there were no hook.
func TestHookAnswersOnlyItsEvents(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.runHook("s", "SessionStart", s.dir)
	stores, _ := filepath.Glob(filepath.Join(s.env["LOOPBREAKER_STATE_DIR"], "*", "session-s.json"))
	before, _ := os.ReadFile(stores[0])
	for _, event := range []string{"UserPromptSubmit", "PreToolUse", "Notification"} {
		if a := s.runHook("s", event, s.dir); a.raw != "" {
			t.Errorf("%s: got %q, want no answer", event, a.raw)
		}
	}
	if after, _ := os.ReadFile(stores[0]); string(after) != string(before) {
		t.Errorf("an event the hook does not answer changed the session's store")
	}
}

// TestHookWarnsWhileClosed: a warning reaches the person while the session
// runs and the breaker is CLOSED, once: the stop that first warns of it
// says so in a systemMessage, the next stops with the same warning say
// nothing.
func TestHookWarnsWhileClosed(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	pol := write(t, filepath.Join(t.TempDir(), "p.toml"), "extends = \"default\"\n[rules.max_iterations]\nmax_iterations = 50\nwarning_iterations = 2\ncritical_iterations = 40\n")
	s.env["LOOPBREAKER_STATE_DIR"] = filepath.Join(t.TempDir(), "state")
	input := func(event string) string { return hookInput("w", event, s.transcript, s.dir) }
	var answers []string
	for i := 0; i < 4; i++ {
		event := "Stop"
		if i == 0 {
			event = "SessionStart"
		}
		write(t, filepath.Join(s.dir, "work.go"), "package main\n\nconst n = "+strings.Repeat("1", i+1)+"\n")
		s.now = s.now.Add(5 * time.Minute)
		_, out, _ := callIn(s.now, s.env, input(event), "hook", "claude-code", "--policy", pol)
		answers = append(answers, strings.TrimSpace(out))
	}
	if answers[1] != "" || !strings.Contains(answers[2], `"systemMessage"`) || !strings.Contains(answers[2], "Warning: iteration 2 of at most 50") || answers[3] != "" {
		t.Fatalf("answers to stops 1 to 3 (CLOSED, progress): %q, want the warning once, at stop 2", answers[1:])
	}
}

// TestHookEmptyGitFileIsNoRepository: an empty .git file the agent plants
// in a subdirectory is not a repository to git, so a stop with its cwd
// there finds no fresh breaker: the session stops, naming the file.
func TestHookEmptyGitFileIsNoRepository(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.runHook("s", "SessionStart", s.dir)
	for i := 0; i < 3; i++ {
		s.runHook("s", "Stop", s.dir)
	}
	sub := filepath.Join(s.dir, "sub")
	write(t, filepath.Join(sub, ".git"), "")
	a := s.runHook("s", "Stop", sub)
	if !a.stops() || !strings.Contains(a.StopReason, filepath.Join(sub, ".git")) || !strings.Contains(a.StopReason, "not a git repository") {
		t.Fatalf("a stop in sub/ with an empty .git file: got %s, want the session stopped naming the file", a.raw)
	}
}

// TestHookSessionRunsOnWhileItProgresses: an interactive session is not
// stopped at the default policy's 20 iterations (workflow runs) while it
// makes progress: a session's own cap is far above it.
func TestHookSessionRunsOnWhileItProgresses(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.runHook("long", "SessionStart", s.dir)
	for i := 1; i <= 30; i++ {
		write(t, filepath.Join(s.dir, "src", "step"+strings.Repeat("x", i)+".go"), "package src\n")
		s.turn("turn_work.jsonl")
		if a := s.runHook("long", "Stop", s.dir); a.stops() || a.Decision == "block" {
			t.Fatalf("stop %d with progress: got %s, want the session to go on", i, a.raw)
		}
	}
}
