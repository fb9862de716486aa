package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

// fakeAgent is one iteration of an agent in a repository: it writes the
// files and commits them when there are any (nothing: it made no commit).
func fakeAgent(t *testing.T, dir string, at time.Time, files map[string]string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		write(t, filepath.Join(dir, name), content)
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: at}
	if _, err := wt.Commit("feat: a step", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
}

// TestShellLoop is the README's shell loop, one `loopbreaker check` with no
// flags an iteration: it keeps the loop's start and ledger by itself, so an
// agent that commits nothing is stagnant run after run and the loop ends
// with OPEN (exit 1) at the third iteration; status shows it without
// recording; a reset lets it go on; a real commit is progress.
func TestShellLoop(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
	env := hookEnv(t)
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	check := func(args ...string) (int, string) {
		now = now.Add(10 * time.Minute)
		code, out, errOut := call(now, env, append([]string{"check", "--repo", dir}, args...)...)
		if code == cli.ExitUsage || code == cli.ExitInternal {
			t.Fatalf("check: exit %d\n%s%s", code, out, errOut)
		}
		return code, out
	}
	iterations := 0
	code := 0
	var out string
	for iterations < 10 {
		fakeAgent(t, dir, now, nil) // no progress
		iterations++
		if code, out = check(); code != cli.ExitContinue {
			break
		}
	}
	if code != cli.ExitOpen || iterations != 3 || !strings.Contains(out, "no progress in 3 consecutive iterations") {
		t.Fatalf("the loop ended after %d iterations with exit %d, want OPEN (1) after 3\n%s", iterations, code, out)
	}
	if strings.Contains(out, "/loopbreaker") || strings.Contains(out, "label") || !strings.Contains(out, "loopbreaker reset --repo") {
		t.Errorf("local output offers pull request commands or no local reset:\n%s", out)
	}
	_, js := check("--format", "agent")
	if strings.Contains(js, "/loopbreaker") || !strings.Contains(js, "loopbreaker reset --repo") {
		t.Errorf("the agent block offers pull request commands:\n%s", js)
	}
	ledger := ledgerFile(t, env)
	before := countRecords(t, ledger)
	for i := 0; i < 2; i++ {
		if code, out, _ := call(now, env, "status", "--repo", dir); code != cli.ExitOpen || !strings.HasPrefix(out, "loopbreaker: OPEN") {
			t.Fatalf("status: exit %d\n%s", code, out)
		}
	}
	if after := countRecords(t, ledger); after != before {
		t.Fatalf("status recorded: %d records, then %d", before, after)
	}
	now = now.Add(time.Minute)
	if code, out, errOut := call(now, env, "reset", "--repo", dir, "--reason", "new prompt"); code != 0 || !strings.HasPrefix(out, "loopbreaker: CLOSED") {
		t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
	}
	fakeAgent(t, dir, now.Add(time.Minute), map[string]string{"parse.go": "package main\n\nfunc parse() {}\n"})
	if code, out = check("--format", "json"); code != cli.ExitContinue {
		t.Fatalf("after the reset, a commit: exit %d\n%s", code, out)
	}
	var d struct {
		State    string `json:"state"`
		Progress bool   `json:"progress"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.State != "CLOSED" || !d.Progress {
		t.Fatalf("after the reset, a commit: %+v %v\n%s", d, err, out)
	}
}

func headHash(t *testing.T, dir string) string {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	return ref.Hash().String()
}

// ledgerFile is the shell loop's store.
func ledgerFile(t *testing.T, env map[string]string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(env["LOOPBREAKER_STATE_DIR"], "*", "check.json"))
	if len(files) != 1 {
		t.Fatalf("shell loop stores %v, want one", files)
	}
	return files[0]
}

func countRecords(t *testing.T, path string) int {
	t.Helper()
	return len(loadState(t, path).Records)
}

// TestResetEveryLocalState: reset --reason works for a state file, a
// ledger directory the user names, and the repository's own loop; with
// nothing to reset it says so (exit 2).
func TestResetEveryLocalState(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	t.Run("state file", func(t *testing.T) {
		t.Parallel()
		env := hookEnv(t)
		state := filepath.Join(t.TempDir(), "state.json")
		for i := 0; i < 3; i++ {
			call(now.Add(time.Duration(i)*time.Minute), env, "record", "--state", state, "--files-changed", "0")
		}
		if code, out, _ := call(now.Add(time.Hour), env, "reset", "--state", state, "--reason", "fixed"); code != 0 || !strings.Contains(out, "CLOSED") {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("ledger", func(t *testing.T) {
		t.Parallel()
		env := hookEnv(t)
		dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
		ledgerDir := t.TempDir()
		base := headHash(t, dir)
		at := now
		var code int
		var out string
		for i := 0; i < 4; i++ {
			at = at.Add(10 * time.Minute)
			if i == 0 {
				fakeAgent(t, dir, at, map[string]string{"parse.go": "package main\n\nfunc parse() {}\n"})
			}
			code, out, _ = call(at, env, "check", "--repo", dir, "--base", base, "--ledger", ledgerDir, "--record", filepath.Join(ledgerDir, "records.json"))
		}
		if code != cli.ExitOpen || !strings.Contains(out, "loopbreaker reset --ledger "+ledgerDir) {
			t.Fatalf("before the reset: exit %d\n%s", code, out)
		}
		at = at.Add(time.Minute)
		if code, out, errOut := call(at, env, "reset", "--ledger", ledgerDir, "--reason", "fixed"); code != 0 || !strings.Contains(out, ledgerDir) {
			t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
		}
		// The reset lives outside the ledger, where the agent cannot forge it.
		if entries, _ := os.ReadDir(ledgerDir); len(entries) != 2 { // records.json and its lock
			t.Errorf("the ledger directory holds %d entries after the reset, want 2", len(entries))
		}
		at = at.Add(10 * time.Minute)
		if code, out, _ = call(at, env, "check", "--repo", dir, "--base", base, "--ledger", ledgerDir, "--format", "json"); code != cli.ExitContinue || !strings.Contains(out, `"trigger":"reset"`) {
			t.Fatalf("after the reset: exit %d\n%s", code, out)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		t.Parallel()
		dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
		if code, _, errOut := call(now, hookEnv(t), "reset", "--repo", dir, "--reason", "x"); code != cli.ExitUsage || !strings.Contains(errOut, "nothing to reset") {
			t.Fatalf("exit %d %s", code, errOut)
		}
	})
}

// TestRecordMeasuresTheWorkingTree: record --repo counts the meaningful
// files changed in the working tree since the previous record, committed
// or not: a TODO list, a lock file or whitespace is no progress, code is.
func TestRecordMeasuresTheWorkingTree(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n", "fix_plan.md": "- [ ] parse\n"}})
	env := hookEnv(t)
	state := filepath.Join(t.TempDir(), "state.json")
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	steps := []struct {
		files    map[string]string
		progress bool
	}{
		{nil, false}, // the baseline
		{map[string]string{"fix_plan.md": "- [ ] parse\n- [ ] print\n"}, false},
		{map[string]string{"parse.go": "package main\n\nfunc parse() {}\n"}, true},
		{map[string]string{"go.sum": "x v1.0.0 h1:abc\n"}, false},
		{map[string]string{"main.go": "package main\n\n"}, false},
	}
	for i, st := range steps {
		for name, content := range st.files {
			write(t, filepath.Join(dir, name), content)
		}
		now = now.Add(10 * time.Minute)
		code, out, errOut := call(now, env, "record", "--state", state, "--repo", dir, "--format", "json")
		var d struct {
			Progress bool `json:"progress"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || code == cli.ExitUsage || d.Progress != st.progress {
			t.Fatalf("step %d: exit %d progress %v, want %v\n%s%s", i, code, d.Progress, st.progress, out, errOut)
		}
	}
	if code, _, errOut := call(now, env, "record", "--state", state, "--repo", dir, "--files-changed", "2"); code != cli.ExitUsage {
		t.Fatalf("--repo with --files-changed: exit %d %s", code, errOut)
	}
}

// TestAMissingReportIsABuildFailureInTheLoop: a --reports glob that
// matches nothing (the build broke before the tests ran) is an iteration
// with a build failure and a note, not bad input.
func TestAMissingReportIsABuildFailureInTheLoop(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
	env := hookEnv(t)
	glob := filepath.Join(t.TempDir(), "reports", "*.xml")
	code, out, errOut := call(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), env, "check", "--repo", dir, "--reports", glob, "--format", "json")
	var d struct {
		Notes  []struct{ Code, Text string } `json:"notes"`
		Recent []struct {
			Errors []string `json:"errors"`
		} `json:"recent"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != cli.ExitContinue {
		t.Fatalf("exit %d %v\n%s%s", code, err, out, errOut)
	}
	found := false
	for _, n := range d.Notes {
		found = found || (n.Code == "report_missing" && strings.Contains(n.Text, glob))
	}
	if !found || len(d.Recent) != 1 || len(d.Recent[0].Errors) == 0 || !strings.Contains(d.Recent[0].Errors[0], "no test report") {
		t.Fatalf("want a report_missing note and the build failure's error:\n%s", out)
	}
}

// TestStateFileInTheWorkingTreeIsNoWork: record --repo with its state file
// inside the working tree (as docs/cli.md's example keeps it) does not
// count the state file's own changes as work.
func TestStateFileInTheWorkingTreeIsNoWork(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n"}})
	env := hookEnv(t)
	state := filepath.Join(dir, ".loop", "breaker.json")
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var code int
	var out string
	for i := 0; i < 4; i++ {
		now = now.Add(time.Minute)
		code, out, _ = call(now, env, "record", "--state", state, "--repo", dir)
	}
	if code != cli.ExitOpen {
		t.Fatalf("four records that changed nothing but the state file: exit %d, want OPEN\n%s", code, out)
	}
}
