//go:build unix

package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// finalDecision is the state and iteration of a JSON decision (check's,
// or the last line of replay's).
func finalDecision(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var d struct {
		State     string  `json:"state"`
		Iteration int     `json:"iteration"`
		Trigger   *string `json:"trigger"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &d); err != nil {
		t.Fatalf("not a JSON decision: %v\n%s", err, out)
	}
	trigger := "none"
	if d.Trigger != nil {
		trigger = *d.Trigger
	}
	return fmt.Sprintf("%s at %d (%s)", d.State, d.Iteration, trigger)
}

// TestIterationsOfOneJobKeepTheirRecords: a loop that runs check once per
// iteration inside one job (one GITHUB_RUN_ID) replaced each record by
// the next, and 6 stuck iterations stayed CLOSED with 2 records. Each
// iteration now keeps its record, numbered within the run, and the
// breaker opens.
func TestIterationsOfOneJobKeepTheirRecords(t *testing.T) {
	t.Parallel()
	repo := twoCommits(t)
	led := filepath.Join(t.TempDir(), "ledger")
	record := filepath.Join(led, "record.json")
	env := map[string]string{"GITHUB_RUN_ID": "9001", "GITHUB_RUN_ATTEMPT": "1"}
	now := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	var code int
	var out, stderr string
	for i := range 6 {
		code, out, stderr = call(now.Add(time.Duration(i)*time.Minute), env,
			"check", "--repo", repo, "--base", "HEAD~1", "--ledger", led, "--record", record, "--format", "json")
		if code != 0 && code != 1 {
			t.Fatalf("iteration %d: exit %d %s", i+1, code, stderr)
		}
	}
	if got := finalDecision(t, out); code != 1 || !strings.HasPrefix(got, "OPEN at 6") {
		t.Errorf("after 6 stuck iterations: exit %d, %s; want exit 1, OPEN at 6", code, got)
	}
	recs := readLedger(t, record)
	if len(recs) != 6 {
		t.Fatalf("got %d records, want 6", len(recs))
	}
	for i, r := range recs {
		if r.RunID != 9001 || r.RunAttempt != 1 || r.Iteration != i+1 {
			t.Errorf("record %d is run %d attempt %d iteration %d, want 9001, 1, %d", i, r.RunID, r.RunAttempt, r.Iteration, i+1)
		}
	}
	// A re-run of the job (attempt 2) does it again: its first record
	// replaces the first attempt's first, and no other.
	env["GITHUB_RUN_ATTEMPT"] = "2"
	if code, _, stderr := call(now.Add(time.Hour), env, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led, "--record", record, "--format", "json"); code != 0 && code != 1 {
		t.Fatalf("re-run: exit %d %s", code, stderr)
	}
	recs = readLedger(t, record)
	if n := len(recs); n != 6 || recs[0].Iteration != 2 || recs[n-1].RunAttempt != 2 || recs[n-1].Iteration != 1 {
		t.Errorf("after a re-run got %d records (%+v), want iterations 2 to 6 of attempt 1, then iteration 1 of attempt 2", n, recs)
	}
}

// TestCorruptStateIsLeftUntouched: a state file the agent damaged is an
// error naming it for record, status and reset, and stays as it was, so
// that a person can see what was done to it; the agent does not get a
// fresh CLOSED breaker by corrupting the old one.
func TestCorruptStateIsLeftUntouched(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	damaged := []byte(`{"version":1,"kind":"loopbreaker-state","breaker":{"state":"OP`)
	if err := os.WriteFile(state, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	for _, args := range [][]string{
		{"record", "--state", state, "--files-changed", "1"},
		{"status", "--state", state},
		{"reset", "--state", state, "--reason", "start again"},
	} {
		code, _, stderr := call(now, nil, args...)
		if code != 2 || !strings.Contains(stderr, state) {
			t.Errorf("%s: got exit %d %q, want 2 naming the state file", args[0], code, stderr)
		}
		if after, err := os.ReadFile(state); err != nil || !bytes.Equal(after, damaged) {
			t.Errorf("%s changed the damaged state file (%v)", args[0], err)
		}
	}
}
