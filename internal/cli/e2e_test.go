package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// binary is the loopbreaker command built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "loopbreaker-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "loopbreaker")
	// go test puts the go command that runs it first on PATH.
	build := exec.Command("go", "build", "-o", binary, "../..")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("build loopbreaker: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// exe runs the built binary and returns its exit code, stdout and stderr.
func exe(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return exeIn(t, "", args...)
}

// exeIn runs the built binary in dir ("" for this directory) and returns
// its exit code, stdout and stderr.
func exeIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	// The local loop state of a check with no flags stays in the test's
	// own directory, never in the user's.
	cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=", "GITHUB_ACTIONS=", "LOOPBREAKER_STATE_DIR="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("run %v: %v", args, err)
	return 0, "", ""
}

// commitLoop builds a repository whose commits change the given files
// (nil: an empty commit) at one-minute steps.
func commitLoop(t *testing.T, steps []map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for i, files := range steps {
		for name, content := range files {
			path := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(name); err != nil {
				t.Fatal(err)
			}
		}
		when := start.Add(time.Duration(i) * time.Minute)
		sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: when}
		if _, err := wt.Commit("iteration", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestEndToEndRecord(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	var code int
	var out string
	for i := 0; i < 3; i++ {
		code, out, _ = exe(t, "record", "--state", state, "--files-changed", "0", "--format", "json",
			"--at", time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC).Format(time.RFC3339))
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("decision is not JSON: %v", err)
	}
	if code != 1 || d["state"] != "OPEN" || d["allow_continue"] != false {
		t.Errorf("got exit %d state %v, want 1 OPEN", code, d["state"])
	}
	code, _, errs := exe(t, "record", "--state", state, "--no-such-flag")
	if code != 2 || !strings.Contains(errs, "no-such-flag") {
		t.Errorf("got exit %d %q, want 2 naming the flag", code, errs)
	}
	if code, out, _ := exe(t, "--version"); code != 0 || !strings.HasPrefix(out, "loopbreaker ") {
		t.Errorf("--version: got %d %q", code, out)
	}
}

func TestEndToEndCheckStagnantLoop(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{
		{"main.go": "package main\n"}, // the base
		{"main.go": "package main\n\nfunc main() {}\n"},
		nil, nil, nil,
	})
	code, out, errs := exe(t, "replay", "--repo", dir, "--base", "HEAD~4", "--format", "json")
	if code != 1 {
		t.Fatalf("replay: got exit %d, want 1 (%s)", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var states []string
	for _, l := range lines {
		var d map[string]any
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("replay line is not JSON: %v", err)
		}
		states = append(states, d["state"].(string))
	}
	want := "CLOSED CLOSED HALF_OPEN OPEN"
	if got := strings.Join(states, " "); got != want {
		t.Errorf("got states %s, want %s", got, want)
	}
	code, out, _ = exe(t, "check", "--repo", dir, "--base", "HEAD~4", "--format", "json")
	var d map[string]any
	json.Unmarshal([]byte(out), &d)
	if code != 1 || d["trigger"] != "no_progress" || len(d["commit"].(string)) != 40 {
		t.Errorf("check: got exit %d trigger %v commit %v, want 1 no_progress and a full hash", code, d["trigger"], d["commit"])
	}
	code, _, _ = exe(t, "check", "--repo", dir, "--base", "HEAD~4", "--dry-run")
	if code != 0 {
		t.Errorf("check --dry-run: got exit %d, want 0", code)
	}
	code, _, errs = exe(t, "check", "--repo", dir, "--base", "no-such-rev")
	if code != 2 || !strings.Contains(errs, "no-such-rev") {
		t.Errorf("unknown base: got exit %d %q, want 2 naming the rev", code, errs)
	}
}

func TestEndToEndLedgerCountsRunsWithoutCommits(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{
		{"main.go": "package main\n"},
		{"main.go": "package main\n\nfunc main() {}\n"},
	})
	ledgerDir := t.TempDir()
	record := filepath.Join(ledgerDir, "record.json")
	// Three runs on the same HEAD: the first sees the commit, the next two
	// made no commit and are stagnant iterations all the same.
	var states []string
	var code int
	for run := 1; run <= 4; run++ {
		cmd := exec.Command(binary, "check", "--repo", dir, "--base", "HEAD~1", "--ledger", ledgerDir, "--record", record, "--format", "json")
		cmd.Env = append(os.Environ(), "GITHUB_RUN_ID="+string(rune('0'+run)), "GITHUB_RUN_ATTEMPT=1", "LOOPBREAKER_PROFILE=")
		out, err := cmd.Output()
		code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(out, &d); err != nil {
			t.Fatalf("run %d: %v: %s", run, err, ee)
		}
		states = append(states, d["state"].(string))
	}
	if got, want := strings.Join(states, " "), "CLOSED CLOSED HALF_OPEN OPEN"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if code != 1 {
		t.Errorf("got exit %d, want 1", code)
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(data, &recs); err != nil || len(recs) != 4 {
		t.Fatalf("record file holds %d records (%v), want the cumulative 4", len(recs), err)
	}
}
