package cli_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/note"
)

// stuckLoop is a base commit, one change, then three commits that change
// nothing: OPEN on no_progress at iteration 4.
func stuckLoop(t *testing.T) string {
	t.Helper()
	return commitLoop(t, []map[string]string{
		{"main.go": "package main\n"},
		{"main.go": "package main\n\nfunc main() {}\n"},
		nil, nil, nil,
	})
}

// jsonNotes decodes the notes of a JSON decision and checks that each has
// a known code and a text.
func jsonNotes(t *testing.T, line string) []note.Note {
	t.Helper()
	var d struct {
		Notes          *[]note.Note `json:"notes"`
		FailureContext *string      `json:"failure_context"`
	}
	if err := json.Unmarshal([]byte(line), &d); err != nil {
		t.Fatalf("not a JSON decision: %v\n%s", err, line)
	}
	if d.Notes == nil || d.FailureContext == nil {
		t.Fatalf("the decision lacks notes or failure_context: %s", line)
	}
	for _, n := range *d.Notes {
		if !n.Code.Known() || n.Text == "" {
			t.Errorf("note %+v: want a known code and a text", n)
		}
	}
	return *d.Notes
}

// TestJSONCarriesNotes: the notes a text decision shows are in the JSON
// decision, each with its code, in check, the last replay line, record and
// reset; failure_context is the Action's failure-context text, the agent
// block when OPEN, and signal says circuit_open.
func TestJSONCarriesNotes(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	led := filepath.Join(t.TempDir(), "no-such-ledger")

	_, text, _ := exe(t, "check", "--repo", dir, "--base", "HEAD~4", "--ledger", led)
	code, out, _ := exe(t, "check", "--repo", dir, "--base", "HEAD~4", "--ledger", led, "--format", "json")
	notes := jsonNotes(t, out)
	n, ok := note.Find(notes, note.LedgerMissing)
	if code != 1 || !ok || !strings.Contains(text, "note:       "+n.Text) {
		t.Errorf("check: got exit %d, notes %+v, want 1 and the ledger_missing note the text shows:\n%s", code, notes, text)
	}
	var d map[string]any
	json.Unmarshal([]byte(out), &d)
	if fc, _ := d["failure_context"].(string); !strings.HasPrefix(fc, "---CIRCUIT_BREAKER_OPEN---\nPHASE: none\nREASON: no progress in 3 consecutive iterations [no_progress]\nITERATIONS: 4\n") {
		t.Errorf("got failure_context %q, want the agent block with the reason and the iteration", fc)
	}
	if d["signal"] != "circuit_open" || d["open_action"] != "abort" {
		t.Errorf("got signal %v and open_action %v, want circuit_open and abort", d["signal"], d["open_action"])
	}

	code, out, _ = exe(t, "replay", "--repo", dir, "--base", "HEAD~4", "--ledger", led, "--format", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 4 {
		t.Fatalf("replay: got exit %d and %d lines, want 1 and 4", code, len(lines))
	}
	for i, l := range lines {
		got := jsonNotes(t, l)
		if last := i == len(lines)-1; last != (len(got) > 0) {
			t.Errorf("replay line %d has %d notes; want the run's notes on the last line only", i+1, len(got))
		}
	}
	if _, ok := note.Find(jsonNotes(t, lines[3]), note.LedgerMissing); !ok {
		t.Errorf("the last replay line lacks the ledger_missing note: %s", lines[3])
	}

	state := filepath.Join(t.TempDir(), "s.json")
	exe(t, "record", "--state", state, "--files-changed", "1", "--at", "2026-01-01T10:00:00Z")
	code, out, _ = exe(t, "reset", "--state", state, "--reason", "split the task", "--at", "2026-01-01T09:00:00Z", "--format", "json")
	if _, ok := note.Find(jsonNotes(t, out), note.ResetTimeAdjusted); code != 0 || !ok {
		t.Errorf("reset before the newest event: got exit %d %s, want 0 and a reset_time_adjusted note", code, out)
	}
	code, out, _ = exe(t, "status", "--state", state, "--format", "json")
	if notes := jsonNotes(t, out); code != 0 || len(notes) != 0 {
		t.Errorf("status: got exit %d and notes %+v, want 0 and no note", code, notes)
	}
}

// TestNoBaseFoundExits2: on the default branch with no --base, the merge
// base is HEAD and there is nothing to decide on: exit 2 with the hint,
// not a CLOSED decision at iteration 0 that lets a loop run for ever. (A
// check with no flags at all keeps its own start: TestShellLoop.)
func TestNoBaseFoundExits2(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	ledger := t.TempDir()
	for _, cmd := range [][]string{{"check", "--ledger", ledger}, {"replay"}} {
		for _, format := range []string{"text", "json"} {
			code, out, errs := exe(t, append(cmd, "--repo", dir, "--format", format)...)
			if code != 2 || out != "" || !strings.Contains(errs, "HEAD is on the default branch master") || !strings.Contains(errs, "--base REV") {
				t.Errorf("%s --format %s without --base: got exit %d %q %q, want 2 and the hint", cmd, format, code, out, errs)
			}
		}
	}
	if code, _, errs := exe(t, "check", "--repo", dir, "--base", "HEAD~4"); code != 1 {
		t.Errorf("with --base: got exit %d (%s), want 1", code, errs)
	}
	// A base given as HEAD is the person's choice: a decision, not an error.
	if code, out, errs := exe(t, "check", "--repo", dir, "--base", "HEAD"); code != 0 || !strings.Contains(out, "iteration:  0") {
		t.Errorf("--base HEAD: got exit %d %q %q, want 0 and iteration 0", code, out, errs)
	}
}

// TestReplayMarkdownIsATable: replay's markdown lines come under a table
// header, so that GitHub renders them as a table.
func TestReplayMarkdownIsATable(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	code, out, _ := exe(t, "replay", "--repo", dir, "--base", "HEAD~4", "--format", "markdown")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 6 {
		t.Fatalf("got exit %d and %d lines, want 1 and a header, a rule and 4 rows:\n%s", code, len(lines), out)
	}
	cols := strings.Count(lines[0], "|")
	if !strings.HasPrefix(lines[0], "| iteration |") || strings.Trim(lines[1], "|-") != "" || strings.Count(lines[1], "|") != cols {
		t.Errorf("got header %q and rule %q, want a table header", lines[0], lines[1])
	}
	for _, l := range lines[2:] {
		if strings.Count(l, "|")-strings.Count(l, `\|`) != cols {
			t.Errorf("row %q has not %d cell borders", l, cols)
		}
	}
}

// TestReplayTextEndsWithTheChart: replay's text closes with the chart of
// the iterations, which marks where the state changed.
func TestReplayTextEndsWithTheChart(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	_, out, _ := exe(t, "replay", "--repo", dir, "--base", "HEAD~4")
	if !strings.Contains(out, "chart of iterations 1 to 4: ▅▂◐▂●▂\n") {
		t.Errorf("replay text lacks the chart:\n%s", out)
	}
}

// TestResetNeedsAReason: the usage says --reason is required, and it is.
func TestResetNeedsAReason(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "loop", "s.json")
	for _, args := range [][]string{{}, {"--reason", ""}, {"--reason", "  \t"}} {
		code, _, errs := exe(t, append([]string{"reset", "--state", state}, args...)...)
		if code != 2 || !strings.Contains(errs, "--reason TEXT is required") {
			t.Errorf("reset %q: got exit %d %q, want 2 and --reason required", args, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Dir(state)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused reset made the state file's directory: %v", err)
	}
	if code, out, _ := exe(t, "help", "reset"); code != 0 || !strings.Contains(out, "--reason TEXT") || !strings.Contains(out, "(required;") {
		t.Errorf("reset's usage does not say --reason is required:\n%s", out)
	}
}

// TestFilesInMissingDirectories: the state-file example of docs/cli.md and the
// files check writes work where their directories do not exist yet; the
// directories are made 0700.
func TestFilesInMissingDirectories(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	for _, c := range []struct {
		args []string
		code int
		made string // the directory the call makes ("" for none)
	}{
		{[]string{"status", "--state", ".loop-status/breaker.json"}, 0, ""},
		{[]string{"record", "--state", ".loop/breaker.json", "--files-changed", "0", "--error", "TypeError: x is undefined"}, 0, ".loop"},
		{[]string{"status", "--state", ".loop/breaker.json", "--format", "json"}, 0, ".loop"},
		{[]string{"reset", "--state", ".loop-reset/breaker.json", "--reason", "split the task; try again"}, 0, ".loop-reset"},
		{[]string{"check", "--base", "HEAD~4", "--record", ".loopbreaker/record.json"}, 1, ".loopbreaker"},
		{[]string{"check", "--base", "HEAD~4", "--ledger", ".runs", "--record", ".runs/record.json"}, 1, ".runs"},
	} {
		code, _, errs := exeIn(t, dir, c.args...)
		if code != c.code {
			t.Errorf("%q: got exit %d (%s), want %d", c.args, code, errs, c.code)
		}
		if c.made == "" {
			if _, err := os.Stat(filepath.Join(dir, ".loop-status")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%q made a directory", c.args)
			}
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, c.made)); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%q: directory %s: %v, want made 0700", c.args, c.made, err)
		}
	}
}

// TestREADMEStuckLoopExample: the README's first screen shows what the
// shell loop prints when it is stuck, in at most 11 lines, with the reset a
// person runs: the binary's output at the third check of a repository
// where the agent changed nothing, each check reading the agent's JSON
// output as the loop writes it (so the money spent is shown), byte for
// byte (its times aside).
func TestREADMEStuckLoopExample(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n```text\n")
	block, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatalf("README.md has no ```text block")
	}
	if n := strings.Count(block, "\n") + 1; n > 11 {
		t.Errorf("the README's example is %d lines, want at most 11", n)
	}
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
	state := t.TempDir()
	// `claude -p --output-format json ... > "$log"` of a run that did nothing.
	log := filepath.Join(t.TempDir(), "tmp.log")
	result := `{"type":"result","subtype":"success","is_error":false,"num_turns":7,"result":"The build still fails.","session_id":"4f1c2a9e","total_cost_usd":0.62,"usage":{"input_tokens":12,"cache_creation_input_tokens":9000,"cache_read_input_tokens":95000,"output_tokens":1400}}`
	var out string
	for i := 0; i < 3; i++ {
		if err := os.WriteFile(log, []byte(result+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(binary, "check", "--log", log)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=", "GITHUB_ACTIONS=", "LOOPBREAKER_STATE_DIR="+state)
		b, err := cmd.Output()
		if want := i == 2; want != isExit1(err) || (!want && err != nil) {
			t.Fatalf("check %d: %v\n%s", i+1, err, b)
		}
		out = string(b)
	}
	times := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	if times.ReplaceAllString(block+"\n", "TIME") != times.ReplaceAllString(out, "TIME") {
		t.Errorf("the README's example is not what the stuck shell loop prints; the output is:\n%s", out)
	}
	if !strings.Contains(string(readme), "loopbreaker reset --reason") {
		t.Errorf("README.md does not show the reset a person runs")
	}
}

// TestExamplesRunAsCopied: a policy an example workflow names is a
// built-in one (a file would have to exist in the repository it is copied
// to), and loads.
func TestExamplesRunAsCopied(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
			if !ok || key != "policy" {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSpace(value), " ")
			if code, _, errs := exe(t, "policy", name); code != 0 || strings.ContainsAny(name, "/.") {
				t.Errorf("%s:%d: policy %q is not a built-in policy (exit %d %s)", f, i+1, name, code, errs)
			}
		}
	}
}
