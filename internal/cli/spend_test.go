package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// writeText writes a file and returns its path.
func writeText(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// claudeJSON is what `claude -p --output-format json` prints at the end of
// a run that cost usd and read and wrote the given tokens.
func claudeJSON(usd float64, input, cacheRead, output int) string {
	return fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"num_turns":4,"result":"Worked on the parser.","session_id":"s","total_cost_usd":%g,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":%d,"output_tokens":%d}}`+"\n",
		usd, input, cacheRead, output)
}

// TestShellLoopStopsOnMoneyWithoutProgress is the shell loop of
// integrations.md with Claude's JSON output as the log: each iteration
// runs check --log claude.json with the ledger of the earlier ones. The
// first iteration lands code, the next two change nothing at $2.50 each:
// $5.00 spent since the last progress passes max_usd_without_progress
// ($4.00) before no_progress's threshold, so spend opens the breaker, and
// every report says what was spent. The records keep each iteration's
// cost, so the sums come from the ledger, not from the newest log alone.
func TestShellLoopStopsOnMoneyWithoutProgress(t *testing.T) {
	t.Parallel()
	r := newScnRepo(t, "loop")
	r.buildBase(nil)
	files := t.TempDir()
	ledgerDir := filepath.Join(files, "ledger")
	record := filepath.Join(ledgerDir, "records.json")
	logPath := filepath.Join(files, "claude.json")
	pol := writeText(t, filepath.Join(files, "policy.toml"), "extends = \"default\"\n\n[rules.spend]\nmax_usd_without_progress = 4.0\n")
	steps := []*scnStep{code(1), empty("chore: retry"), empty("chore: retry again")}
	var states []string
	var d map[string]any
	for n, s := range steps {
		r.apply(s, fmt.Sprintf("c%d", n+1))
		writeText(t, logPath, claudeJSON(2.5, 1000, 200000, 3000))
		code, out, errs := run(t, nil, "check", "--repo", r.dir, "--base", "main", "--ledger", ledgerDir, "--record", record,
			"--log", logPath, "--policy", pol, "--format", "json")
		if code != 0 && code != 1 {
			t.Fatalf("iteration %d: exit %d: %s", n+1, code, errs)
		}
		d = decode(t, out)
		states = append(states, d["state"].(string))
	}
	if got, want := strings.Join(states, " "), "CLOSED CLOSED OPEN"; got != want {
		t.Errorf("states %s, want %s", got, want)
	}
	if d["trigger"] != "spend" || d["reason"] != "$5.00 spent since the last progress (max_usd_without_progress $4.00)" {
		t.Errorf("got trigger %v, reason %v; want spend, $5.00 since the last progress", d["trigger"], d["reason"])
	}
	for key, want := range map[string]float64{"spent_usd": 7.5, "spent_since_progress_usd": 5, "spent_tokens": 3 * 204000, "spent_since_progress_tokens": 2 * 204000} {
		if d[key] != want {
			t.Errorf("%s = %v, want %v", key, d[key], want)
		}
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	recs := ledger.Decode(data, record).Records
	if len(recs) != 3 {
		t.Fatalf("the ledger holds %d records, want 3", len(recs))
	}
	for i, rec := range recs {
		if rec.Cost == nil || rec.Cost.USD == nil || *rec.Cost.USD != 2.5 || rec.Cost.Tokens == nil || *rec.Cost.Tokens != 204000 {
			t.Errorf("record %d: cost %+v, want $2.50 and 204000 tokens", i+1, rec.Cost)
		}
	}

	// One more iteration ignores the OPEN breaker: what it spent counts
	// too, and the text report says so under the counters.
	code, out, _ := run(t, nil, "check", "--repo", r.dir, "--base", "main", "--ledger", ledgerDir, "--log", logPath, "--policy", pol)
	if code != 1 || !strings.Contains(out, "  spent:      $10.00 since the last reset · $7.50 since the last progress · 816,000 tokens (612,000 since the last progress)\n") {
		t.Errorf("exit %d, text report without the spend line:\n%s", code, out)
	}
}

// TestCostNotReadIsNoted: a log whose cost is malformed gives no figure
// and a note with code cost; the decision has no spend; a plain text log
// gives neither.
func TestCostNotReadIsNoted(t *testing.T) {
	t.Parallel()
	r := newScnRepo(t, "loop")
	r.buildBase(nil)
	r.apply(code(1), "c1")
	files := t.TempDir()
	for _, tc := range []struct {
		log  string
		note bool
	}{
		{`{"type":"result","subtype":"success","result":"done","total_cost_usd":"4.10"}` + "\n", true},
		{"compiling…\nok  \tapp\t0.2s\n", false},
	} {
		logPath := writeText(t, filepath.Join(files, "agent.log"), tc.log)
		code, out, errs := run(t, nil, "check", "--repo", r.dir, "--base", "main", "--log", logPath, "--format", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if strings.Contains(out, `"spent_usd"`) || strings.Contains(out, `"spent_tokens"`) {
			t.Errorf("a log without a readable cost gave a spend: %s", out)
		}
		if got := strings.Contains(out, `{"code":"cost","text":"the result on line 1 has a total_cost_usd that is not a non-negative number: its dollars are unknown"}`); got != tc.note {
			t.Errorf("log %q: cost note %v, want %v: %s", tc.log, got, tc.note, out)
		}
	}
}

// TestCodexLogTokens: Codex's exec --json output gives tokens, no dollars,
// and max_tokens_without_progress watches from its warning share (80 %
// of 30,000).
func TestCodexLogTokens(t *testing.T) {
	t.Parallel()
	r := newScnRepo(t, "loop")
	r.buildBase(nil)
	r.apply(empty("chore: look around"), "c1")
	files := t.TempDir()
	pol := writeText(t, filepath.Join(files, "policy.toml"), "extends = \"default\"\n\n[rules.spend]\nmax_tokens_without_progress = 30000\n")
	data, err := os.ReadFile(filepath.Join("..", "evidence", "cost", "testdata", "codex.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := writeText(t, filepath.Join(files, "codex.jsonl"), string(data))
	code, out, errs := run(t, nil, "check", "--repo", r.dir, "--base", "main", "--log", logPath, "--policy", pol, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	d := decode(t, out)
	if d["spent_tokens"] != 25300.0 || d["spent_usd"] != nil {
		t.Errorf("spent_tokens %v, spent_usd %v; want 25300 and no dollars", d["spent_tokens"], d["spent_usd"])
	}
	if d["state"] != "HALF_OPEN" || d["trigger"] != "spend" {
		t.Errorf("got %v by %v, want HALF_OPEN by spend", d["state"], d["trigger"])
	}
}
