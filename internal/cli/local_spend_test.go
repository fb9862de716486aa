package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

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
// what it spent. A reset starts the sums afresh.
func TestHookSpendFromTheTranscript(t *testing.T) {
	t.Parallel()
	const turnTokens = 3 + 1200 + 18000 + 350 + 5 + 800 + 19500 + 420 // two messages of a turn

	t.Run("dollars", func(t *testing.T) {
		t.Parallel()
		s := newSession(t)
		pol := write(t, filepath.Join(t.TempDir(), "spend.toml"), "extends = \"default\"\n\n[rules.spend]\nmax_usd_without_progress = 4.0\n")
		s.turn("turn_costusd.jsonl") // before the hook was there: not this breaker's money
		s.hook("SessionStart", false, "--policy", pol)
		s.turn("turn_costusd.jsonl")
		if a := s.hook("Stop", false, "--policy", pol); a.stops() {
			t.Fatalf("stop 1: got %s, want the session to go on", a.raw)
		}
		want := map[string]any{"spent_usd": 2.05, "spent_since_progress_usd": 2.05, "spent_tokens": float64(turnTokens), "spent_since_progress_tokens": float64(turnTokens)}
		if got := s.spent(); !maps.Equal(got, want) {
			t.Errorf("after stop 1: spent %v, want %v", got, want)
		}
		s.turn("turn_costusd.jsonl")
		a := s.hook("Stop", false, "--policy", pol)
		if want := "loopbreaker: OPEN: stop the loop (spend): $4.10 spent since the last progress (max_usd_without_progress $4.00). Reset when the cause is fixed: "; !a.stops() || !strings.HasPrefix(a.StopReason, want) {
			t.Fatalf("stop 2: got %s, want the session stopped with %q", a.raw, want)
		}
		if got, want := s.spent()["spent_usd"], 4.1; got != want {
			t.Errorf("after stop 2: spent_usd %v, want %v", got, want)
		}
		// A reset starts the session's sums afresh.
		s.now = s.now.Add(time.Hour)
		if code, out, errOut := callIn(s.now, s.env, "", "reset", "--repo", s.dir, "--reason", "a smaller task"); code != 0 {
			t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
		}
		s.turn("turn_costusd.jsonl")
		if a := s.hook("Stop", false, "--policy", pol); a.stops() {
			t.Fatalf("the stop after the reset: got %s, want the session to go on", a.raw)
		}
		if got := s.spent(); !maps.Equal(got, want) {
			t.Errorf("after the reset and a stop: spent %v, want %v", got, want)
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
		if got := s.spent(); !maps.Equal(got, wantSpent) {
			t.Errorf("spent %v, want %v (tokens only: the transcript carries no dollars)", got, wantSpent)
		}
	})
}

// claudeResult is what `claude -p --output-format json` prints at the end
// of a run that cost usd and read and wrote these tokens.
func claudeResult(text string, usd float64, input, cacheWrite, cacheRead, output int) string {
	return fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"duration_ms":48210,"num_turns":7,"result":%q,"session_id":"4f1c2a9e","total_cost_usd":%g,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d}}`+"\n",
		text, usd, input, cacheWrite, cacheRead, output)
}

// TestShellLoopSpendAcrossIterations is the README's shell loop with
// Claude's JSON output as each iteration's log and a policy that stops on
// $4.00 spent without progress: check --log --policy keeps each
// iteration's cost in the loop's records, so the sums cover every
// iteration, not the newest log. The first check takes the baseline (its
// money is spent without progress), the second lands work (the money since
// progress starts afresh), the next two change nothing at $2.50 each (the
// score window makes the third HALF_OPEN) and the fourth opens on spend
// before no_progress would. status and replay with no flags decide under
// the policy the checks used and say what was spent; a reset starts the
// sums afresh.
func TestShellLoopSpendAcrossIterations(t *testing.T) {
	t.Parallel()
	l := newShellLoop(t)
	files := t.TempDir()
	log := filepath.Join(files, "claude.json")
	pol := write(t, filepath.Join(files, "spend.toml"), "extends = \"default\"\n\n[rules.spend]\nmax_usd_without_progress = 4.0\n")
	check := func() map[string]any {
		t.Helper()
		l.now = l.now.Add(10 * time.Minute)
		code, out, errOut := call(l.now, l.env, "check", "--repo", l.dir, "--log", log, "--policy", pol, "--format", "json")
		var d map[string]any
		if err := json.Unmarshal([]byte(out), &d); err != nil || (code != cli.ExitContinue && code != cli.ExitOpen) {
			t.Fatalf("check: exit %d %v\n%s%s", code, err, out, errOut)
		}
		return d
	}
	var states []string
	var d map[string]any
	for i, wrote := range []bool{true, true, false, false} {
		if wrote {
			write(t, filepath.Join(l.dir, "src", fmt.Sprintf("step%d.go", i)), fmt.Sprintf("package src\n\nconst Step%d = %d\n", i, i))
		}
		write(t, log, claudeResult("Worked on the parser.", 2.5, 12, 4000, 196000, 3988))
		d = check()
		states = append(states, d["state"].(string))
	}
	if got, want := strings.Join(states, " "), "CLOSED CLOSED HALF_OPEN OPEN"; got != want {
		t.Fatalf("states %s, want %s", got, want)
	}
	if d["trigger"] != "spend" || d["reason"] != "$5.00 spent since the last progress (max_usd_without_progress $4.00)" {
		t.Errorf("got trigger %v, reason %v; want spend, $5.00 since the last progress", d["trigger"], d["reason"])
	}
	want := map[string]any{"spent_usd": 10.0, "spent_since_progress_usd": 5.0, "spent_tokens": 4 * 204000.0, "spent_since_progress_tokens": 2 * 204000.0}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %v, want %v", k, d[k], v)
		}
	}
	code, out, _ := call(l.now, l.env, "status", "--repo", l.dir)
	if line := "  spent:      $10.00 since the last reset · $5.00 since the last progress · 816,000 tokens (408,000 since the last progress)\n"; code != cli.ExitOpen || !strings.Contains(out, line) {
		t.Errorf("status: exit %d, want 1 and the line %q:\n%s", code, line, out)
	}
	code, out, errOut := call(l.now, l.env, "replay", "--repo", l.dir, "--format", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || len(lines) != 4 || last["trigger"] != "spend" || last["spent_usd"] != 10.0 {
		t.Errorf("replay: exit %d, want its four iterations, the last opened by spend with $10.00 spent (%v)\n%s%s", code, err, out, errOut)
	}
	l.now = l.now.Add(time.Hour)
	if code, out, errOut := call(l.now, l.env, "reset", "--repo", l.dir, "--reason", "a smaller task"); code != 0 || strings.Contains(out, "spent:") {
		t.Fatalf("reset: exit %d, want 0 and nothing spent since it\n%s%s", code, out, errOut)
	}
	write(t, filepath.Join(l.dir, "src", "parser.go"), "package src\n\nfunc Parse() {}\n")
	if d = check(); d["state"] != "CLOSED" || d["spent_usd"] != 2.5 {
		t.Errorf("the check after the reset: %v, spent_usd %v; want CLOSED, $2.50", d["state"], d["spent_usd"])
	}
}
