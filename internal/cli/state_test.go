package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// clock is the time Main reads: a day after t0, so that the --at times the
// tests give (t0 plus minutes) are in the past, as they are in real use.
var clock = t0.Add(24 * time.Hour)

// run calls Main in-process with a fixed clock.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, Env{
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return clock },
	})
	return code, out.String(), errb.String()
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("decision is not JSON: %v\n%s", err, s)
	}
	return m
}

func at(i int) string { return t0.Add(time.Duration(i) * time.Minute).Format(time.RFC3339) }

func TestRecordNoProgressOpens(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "breaker.json")
	want := []struct {
		code  int
		state string
	}{{0, "CLOSED"}, {0, "HALF_OPEN"}, {1, "OPEN"}}
	for i, w := range want {
		code, out, errs := run(t, nil, "record", "--state", state, "--files-changed", "0", "--at", at(i), "--format", "json")
		if code != w.code {
			t.Fatalf("record %d: got exit %d, want %d (stderr %q)", i+1, code, w.code, errs)
		}
		d := decode(t, out)
		if d["state"] != w.state {
			t.Errorf("record %d: got state %v, want %s", i+1, d["state"], w.state)
		}
		if got := d["iteration"].(float64); int(got) != i+1 {
			t.Errorf("record %d: got iteration %v, want %d", i+1, got, i+1)
		}
	}
	code, out, _ := run(t, nil, "status", "--state", state, "--format", "json", "--at", at(5))
	d := decode(t, out)
	if code != 1 || d["trigger"] != "no_progress" || d["allow_continue"] != false {
		t.Errorf("status: got exit %d trigger %v allow %v, want 1 no_progress false", code, d["trigger"], d["allow_continue"])
	}
	for _, k := range []string{"state", "allow_continue", "reason", "trigger", "iteration", "commit", "consecutive_no_progress",
		"error_counts", "output_trend", "progress_score", "window_score", "last_progress", "opened_at", "cooldown_until",
		"ignored_open", "warnings", "history"} {
		if _, ok := d[k]; !ok {
			t.Errorf("decision lacks field %q", k)
		}
	}
}

func TestRecordProgressRecovers(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	run(t, nil, "record", "--state", state, "--files-changed", "0", "--at", at(0))
	code, out, _ := run(t, nil, "record", "--state", state, "--files-changed", "0", "--at", at(1), "--format", "json")
	if code != 0 || decode(t, out)["state"] != "HALF_OPEN" {
		t.Fatalf("got %d %s, want HALF_OPEN", code, out)
	}
	code, out, _ = run(t, nil, "record", "--state", state, "--files-changed", "2", "--tests-passing", "3", "--at", at(2), "--format", "json")
	d := decode(t, out)
	if code != 0 || d["state"] != "CLOSED" || d["consecutive_no_progress"].(float64) != 0 {
		t.Errorf("got exit %d state %v counter %v, want 0 CLOSED 0", code, d["state"], d["consecutive_no_progress"])
	}
}

func TestSameErrorOpens(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	var code int
	var out string
	for i := 0; i < 5; i++ {
		// Files change each time, so only the repeated error can open it;
		// line numbers and addresses differ but the signature is the same.
		msg := "main.go:" + string(rune('1'+i)) + "2:5: undefined: Foo at 0xc00001" + string(rune('a'+i))
		code, out, _ = run(t, nil, "record", "--state", state, "--files-changed", "1", "--error", msg, "--at", at(i), "--format", "json")
	}
	d := decode(t, out)
	if code != 1 || d["trigger"] != "same_error" {
		t.Fatalf("got exit %d trigger %v, want 1 same_error\n%s", code, d["trigger"], out)
	}
}

func TestResetRecordsEvent(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	for i := 0; i < 3; i++ {
		run(t, nil, "record", "--state", state, "--at", at(i))
	}
	code, out, errs := run(t, nil, "reset", "--state", state, "--reason", "split the task", "--at", at(10), "--format", "json")
	if code != 0 {
		t.Fatalf("reset: got exit %d, want 0 (%s)", code, errs)
	}
	d := decode(t, out)
	if d["state"] != "CLOSED" {
		t.Errorf("got state %v, want CLOSED", d["state"])
	}
	h := d["history"].([]any)
	last := h[len(h)-1].(map[string]any)
	if last["trigger"] != "reset" || last["reason"] != "split the task" || last["from"] != "OPEN" || last["to"] != "CLOSED" {
		t.Errorf("got last event %v, want reset OPEN->CLOSED with the reason", last)
	}
	// The iteration count survives the reset; the next record is iteration 4.
	_, out, _ = run(t, nil, "record", "--state", state, "--files-changed", "1", "--at", at(11), "--format", "json")
	if got := decode(t, out)["iteration"].(float64); got != 4 {
		t.Errorf("got iteration %v after reset, want 4", got)
	}
}

func TestStatusAppliesCooldown(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	for i := 0; i < 3; i++ {
		run(t, nil, "record", "--state", state, "--policy", "ralph", "--at", at(i))
	}
	// ralph: 30 minute cooldown from the opening iteration at minute 2.
	code, out, _ := run(t, nil, "status", "--state", state, "--format", "json", "--at", at(31))
	if d := decode(t, out); code != 1 || d["state"] != "OPEN" {
		t.Fatalf("at 29:00 after opening: got %d %v, want 1 OPEN", code, d["state"])
	}
	code, out, _ = run(t, nil, "status", "--state", state, "--format", "json", "--at", at(32))
	if d := decode(t, out); code != 0 || d["state"] != "HALF_OPEN" {
		t.Fatalf("at 30:00 after opening: got %d %v, want 0 HALF_OPEN", code, d["state"])
	}
	// The state file remembers the policy it was created with.
	code, out, _ = run(t, nil, "record", "--state", state, "--files-changed", "3", "--at", at(33), "--format", "json")
	if d := decode(t, out); code != 0 || d["state"] != "CLOSED" || d["policy"] != "ralph" {
		t.Fatalf("probe with progress: got %d %v %v, want 0 CLOSED ralph", code, d["state"], d["policy"])
	}
}

func TestStateFileFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, content, want string
	}{
		{"not json", "hello", "not JSON"},
		{"truncated", `{"version":1,"kind":"loopbreaker-state","breaker":{`, "truncated"},
		{"array", `[1,2]`, "JSON array"},
		{"not ours", `{"version":1,"kind":"other"}`, "not a loopbreaker state file"},
		{"newer", `{"version":9,"kind":"loopbreaker-state"}`, "newer loopbreaker"},
		{"wrong type", `{"version":1,"kind":"loopbreaker-state","breaker":{"iteration":"x"}}`, "iteration"},
		{"unknown field", `{"version":1,"kind":"loopbreaker-state","surprise":1}`, "surprise"},
		{"negative", `{"version":1,"kind":"loopbreaker-state","breaker":{"iteration":-1}}`, "negative"},
		{"bad state", `{"version":1,"kind":"loopbreaker-state","breaker":{"state":"AJAR"}}`, "AJAR"},
		{"empty", ``, "empty file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(path, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range [][]string{
				{"record", "--state", path, "--files-changed", "1"},
				{"status", "--state", path},
				{"reset", "--state", path, "--reason", "x"},
			} {
				code, _, errs := run(t, nil, cmd...)
				if code != 2 {
					t.Errorf("%s: got exit %d, want 2", cmd[0], code)
				}
				if !strings.Contains(errs, path) || !strings.Contains(errs, c.want) {
					t.Errorf("%s: got error %q, want the file name and %q", cmd[0], errs, c.want)
				}
				if strings.Count(errs, "\n") != 1 {
					t.Errorf("%s: got %d lines of error, want 1", cmd[0], strings.Count(errs, "\n"))
				}
				got, _ := os.ReadFile(path)
				if string(got) != c.content {
					t.Errorf("%s: the state file was changed", cmd[0])
				}
			}
		})
	}
}

func TestBadUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "s.json")
	misspelt := filepath.Join(dir, "p.toml")
	os.WriteFile(misspelt, []byte("extends = \"default\"\n[rules.no_progress]\nno_progres_threshold = 4\n"), 0o644)
	outOfRange := filepath.Join(dir, "r.toml")
	os.WriteFile(outOfRange, []byte("extends = \"default\"\n[rules.no_progress]\nno_progress_threshold = 0\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"record", "--state", state, "--bogus"}, "bogus"},
		{[]string{"check", "--bse", "HEAD~1"}, "flag provided but not defined: -bse; did you mean --base?"},
		{[]string{"record", "--state", state, "--file-changed", "1"}, "did you mean --files-changed?"},
		{[]string{"record", "--state", state, "--files-changed", "x"}, "not a whole number"},
		{[]string{"record", "--state", state, "--files-changed", "-3"}, "negative"},
		{[]string{"record", "--state", state, "--progress-percent", "NaN"}, "not a number"},
		{[]string{"record", "--state", state, "--progress-percent", "130"}, "out of range"},
		{[]string{"record", "--state", state, "--at", "yesterday"}, "RFC 3339"},
		{[]string{"record", "--state", state, "--policy", "nonesuch"}, "nonesuch"},
		{[]string{"record", "--state", state, "--policy", misspelt}, "line 3"},
		{[]string{"record", "--state", state, "--policy", outOfRange}, "out of range"},
		{[]string{"record", "--state", state, "--profile", "nonesuch"}, "no profile"},
		{[]string{"record", "--state", state, "--format", "yaml"}, "unknown format"},
		{[]string{"record"}, "--state FILE is required"},
		{[]string{"record", "--state", state, "extra"}, "unexpected argument"},
		{[]string{"record", "--state", state, "--log", filepath.Join(dir, "missing.log")}, "missing.log"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"policy", misspelt}, "no_progres_threshold"},
		{[]string{"policy", "default", "--phase", "BLUE"}, "no phase"},
	}
	for _, c := range cases {
		code, _, errs := run(t, nil, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: got exit %d %q, want 2 and %q", c.args, code, errs, c.want)
		}
		if strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: got %d error lines, want 1: %q", c.args, strings.Count(errs, "\n"), errs)
		}
	}
	if _, err := os.Stat(state); err == nil {
		t.Errorf("a failed record created the state file")
	}
}

func TestTimeGoingBackwardsIsRefused(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	run(t, nil, "record", "--state", state, "--files-changed", "1", "--at", at(5))
	before, _ := os.ReadFile(state)
	code, _, errs := run(t, nil, "record", "--state", state, "--files-changed", "1", "--at", at(1))
	if code != 2 || !strings.Contains(errs, "earlier than the last recorded") {
		t.Errorf("got exit %d %q, want 2 and the time fault", code, errs)
	}
	after, _ := os.ReadFile(state)
	if !bytes.Equal(before, after) {
		t.Errorf("a refused record changed the state file")
	}
}

func TestHistoryIsBounded(t *testing.T) {
	t.Parallel()
	// 40 cycles of three iterations without progress and a reset: 120
	// transition events, written as a state file holds them.
	f := &localstate.File{Policy: "default"}
	minute := 0
	for cycle := 0; cycle < 40; cycle++ {
		for i := 0; i < 3; i++ {
			f.Records = append(f.Records, ledger.Record{Version: ledger.Version, At: t0.Add(time.Duration(minute) * time.Minute), Errors: []ledger.Error{},
				Work: &ledger.Work{}})
			minute++
		}
		f.AddReset(localstate.Reset{At: t0.Add(time.Duration(minute) * time.Minute), Reason: "again"})
		minute++
	}
	state := filepath.Join(t.TempDir(), "s.json")
	st, err := localstate.Open(state, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(f); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, out, _ := run(t, nil, "status", "--state", state, "--format", "json", "--at", at(minute))
	h := decode(t, out)["history"].([]any)
	if len(h) != breaker.MaxHistory {
		t.Errorf("got %d history events, want the bound %d", len(h), breaker.MaxHistory)
	}
	if last := h[len(h)-1].(map[string]any); last["trigger"] != "reset" {
		t.Errorf("got newest event %v, want the last reset", last)
	}
}

func TestAtomicReplacementLeavesNoTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "s.json")
	for i := 0; i < 5; i++ {
		run(t, nil, "record", "--state", state, "--files-changed", "1", "--at", at(i))
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "s.json" || names[1] != "s.json.lock" {
		t.Errorf("got files %v, want only the state file and its lock", names)
	}
	data, _ := os.ReadFile(state)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil || v["kind"] != "loopbreaker-state" || v["version"].(float64) != 2 {
		t.Errorf("state file is not a complete version 2 state: %v", err)
	}
}

func TestProfileFromEnvironment(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	env := map[string]string{"LOOPBREAKER_PROFILE": "simple_script"}
	// simple_script: half_open_after 1, no_progress_threshold 2.
	code, out, _ := run(t, env, "record", "--state", state, "--at", at(0), "--format", "json")
	if d := decode(t, out); code != 0 || d["state"] != "HALF_OPEN" {
		t.Errorf("got %d %v, want HALF_OPEN after one no-progress iteration", code, d["state"])
	}
	code, _, _ = run(t, env, "record", "--state", state, "--at", at(1))
	if code != 1 {
		t.Errorf("got exit %d, want 1 after two", code)
	}
}

func TestPolicyPrintsLoadableTOML(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"default", "ralph", "tdd", "profiles", "strict"} {
		code, out, errs := run(t, nil, "policy", name)
		if code != 0 {
			t.Fatalf("policy %s: exit %d %s", name, code, errs)
		}
		path := filepath.Join(dir, name+".toml")
		os.WriteFile(path, []byte(out), 0o644)
		code, again, errs := run(t, nil, "policy", path)
		if code != 0 || again != out {
			t.Errorf("policy %s does not load back unchanged (exit %d %s)", name, code, errs)
		}
	}
}

func TestMarkdownAndTextEscapeAgentText(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	hostile := "boom \x1b[31m@org/team <img src=x> ::set-output name=x::y\n| `x` |"
	for i := 0; i < 5; i++ {
		run(t, nil, "record", "--state", state, "--files-changed", "1", "--error", hostile, "--at", at(i))
	}
	_, md, _ := run(t, nil, "status", "--state", state, "--format", "markdown", "--at", at(6))
	if !strings.Contains(md, "same error") {
		t.Fatalf("markdown lacks the trip reason:\n%s", md)
	}
	// Inside a code span GitHub renders neither HTML nor mentions; outside
	// of one nothing of the agent's text may stay raw.
	md = regexp.MustCompile("`[^`\n]*`").ReplaceAllString(md, "")
	for _, bad := range []string{"<img", "\x1b", "@org", "\n| `x` |"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown contains %q unescaped", bad)
		}
	}
	_, text, _ := run(t, nil, "status", "--state", state, "--at", at(6))
	if strings.Contains(text, "\x1b") {
		t.Errorf("text output contains an escape sequence")
	}
}

func TestRecordWritesTheIterationRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state, rec := filepath.Join(dir, "s.json"), filepath.Join(dir, "records.json")
	env := map[string]string{"GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "2"}
	for i := 0; i < 2; i++ {
		if code, _, errs := run(t, env, "record", "--state", state, "--record", rec, "--tests-passing", "3", "--tests-failing", "1",
			"--error", "boom at 0xc000012345", "--output-length", "40", "--at", at(i)); code != 0 {
			t.Fatalf("record: exit %d %s", code, errs)
		}
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil || len(recs) != 2 {
		t.Fatalf("got %d records (%v), want 2", len(recs), err)
	}
	r := recs[1]
	if r["version"].(float64) != 1 || r["run_id"].(float64) != 42 || r["run_attempt"].(float64) != 2 || r["at"] != at(1) {
		t.Errorf("got record %v", r)
	}
	errs := r["errors"].([]any)
	if len(errs) != 1 || len(errs[0].(map[string]any)["hash"].(string)) != 64 {
		t.Errorf("got errors %v, want one signature", errs)
	}
	// A record file that is not a ledger is refused and left alone.
	os.WriteFile(rec, []byte("not json"), 0o644)
	code, _, stderr := run(t, env, "record", "--state", state, "--record", rec, "--at", at(5))
	if code != 2 || !strings.Contains(stderr, rec) {
		t.Errorf("got exit %d %q, want 2 naming the record file", code, stderr)
	}
	if got, _ := os.ReadFile(rec); string(got) != "not json" {
		t.Errorf("the record file was overwritten")
	}
}
