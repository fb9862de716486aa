package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stopWith feeds the session's recorded hook input for an event to the
// hook installed with args and decodes the answer.
func (s *session) stopWith(event string, args ...string) hookAnswer {
	s.t.Helper()
	s.now = s.now.Add(5 * time.Minute)
	name := map[string]string{"SessionStart": "session_start.json", "Stop": "stop.json"}[event]
	code, out, errOut := callIn(s.now, s.env, s.input(name, false), append([]string{"hook", "claude-code"}, args...)...)
	if code != 0 {
		s.t.Fatalf("hook %s: exit %d\n%s", event, code, errOut)
	}
	a := hookAnswer{raw: out}
	if strings.TrimSpace(out) != "" {
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			s.t.Fatalf("hook %s: not the hook's JSON: %v\n%s", event, err, out)
		}
	}
	return a
}

// spent is what status says the session's breaker holds as spent.
func (s *session) spent() map[string]any {
	s.t.Helper()
	code, out, errOut := callIn(s.now, s.env, "", "status", "--repo", s.dir, "--format", "json")
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		s.t.Fatalf("status: exit %d, not one JSON decision: %v\n%s%s", code, err, out, errOut)
	}
	got := map[string]any{}
	for _, k := range []string{"spent_usd", "spent_since_progress_usd", "spent_tokens", "spent_since_progress_tokens"} {
		if v, ok := d[k]; ok {
			got[k] = v
		}
	}
	return got
}

// TestHookSpendFromTheTranscript: each stop adds the usage of the
// assistant messages the transcript gained since the previous stop (a
// message written as two lines counted once; what was there before the
// session's start not at all), keeps it in the session's records, and the
// spend rule sums it. An older transcript whose lines carry costUSD gives
// dollars, and the session ends on money spent without progress with the
// sum in its stop reason; a transcript of today's Claude Code gives tokens
// only, never dollars, and a session stopped for another reason hears
// what it spent.
func TestHookSpendFromTheTranscript(t *testing.T) {
	t.Parallel()
	const turnTokens = 3 + 1200 + 18000 + 350 + 5 + 800 + 19500 + 420 // two messages of a turn

	t.Run("dollars", func(t *testing.T) {
		t.Parallel()
		s := newSession(t)
		pol := write(t, filepath.Join(t.TempDir(), "spend.toml"), "extends = \"default\"\n\n[rules.spend]\nmax_usd_without_progress = 4.0\n")
		s.turn("turn_costusd.jsonl") // before the hook was there: not this breaker's money
		s.stopWith("SessionStart", "--policy", pol)
		s.turn("turn_costusd.jsonl")
		if a := s.stopWith("Stop", "--policy", pol); a.stops() {
			t.Fatalf("stop 1: got %s, want the session to go on", a.raw)
		}
		want := map[string]any{"spent_usd": 2.05, "spent_since_progress_usd": 2.05, "spent_tokens": float64(turnTokens), "spent_since_progress_tokens": float64(turnTokens)}
		if got := s.spent(); !sameMap(got, want) {
			t.Errorf("after stop 1: spent %v, want %v", got, want)
		}
		s.turn("turn_costusd.jsonl")
		a := s.stopWith("Stop", "--policy", pol)
		if want := "loopbreaker: OPEN: stop the loop (spend): $4.10 spent since the last progress (max_usd_without_progress $4.00). Reset when the cause is fixed: "; !a.stops() || !strings.HasPrefix(a.StopReason, want) {
			t.Fatalf("stop 2: got %s, want the session stopped with %q", a.raw, want)
		}
		if got, want := s.spent()["spent_usd"], 4.1; got != want {
			t.Errorf("after stop 2: spent_usd %v, want %v", got, want)
		}
	})

	t.Run("tokens", func(t *testing.T) {
		t.Parallel()
		s := newSession(t)
		s.hook("SessionStart", false)
		write(t, filepath.Join(s.dir, "config.go"), "package main\n\nfunc parseConfig() {}\n")
		s.turn("turn_usage.jsonl")
		s.hook("Stop", false) // progress: the money since it starts afresh
		var a hookAnswer
		for i := 0; i < 3; i++ {
			s.turn("turn_usage.jsonl")
			a = s.hook("Stop", false)
		}
		want := "Spent: 161,112 tokens since the last reset · 120,834 since the last progress. Reset when the cause is fixed"
		if !a.stops() || !strings.Contains(a.StopReason, "(no_progress)") || !strings.Contains(a.StopReason, want) || strings.Contains(a.StopReason, "$") {
			t.Fatalf("the third stop without progress: got %s, want the session stopped for no_progress with %q and no dollars", a.raw, want)
		}
		wantSpent := map[string]any{"spent_tokens": float64(4 * turnTokens), "spent_since_progress_tokens": float64(3 * turnTokens)}
		if got := s.spent(); !sameMap(got, wantSpent) {
			t.Errorf("spent %v, want %v (tokens only: the transcript carries no dollars)", got, wantSpent)
		}
	})
}

// sameMap compares two decoded JSON objects of numbers.
func sameMap(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
