package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
)

// shellLoop is the README's shell loop in a repository: each check is one
// iteration, the clock ten minutes on.
type shellLoop struct {
	t   *testing.T
	dir string
	env map[string]string
	now time.Time
}

func newShellLoop(t *testing.T) *shellLoop {
	t.Helper()
	return &shellLoop{t: t, dir: commitLoop(t, []map[string]string{{"main.go": "package main\n"}}), env: hookEnv(t),
		now: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
}

// check runs `loopbreaker check` with no flags, and decodes the decision.
func (l *shellLoop) check() (code int, state string, progress bool) {
	l.t.Helper()
	l.now = l.now.Add(10 * time.Minute)
	code, out, errOut := call(l.now, l.env, "check", "--repo", l.dir, "--format", "json")
	var d struct {
		State    string `json:"state"`
		Progress bool   `json:"progress"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code == cli.ExitUsage || code == cli.ExitInternal {
		l.t.Fatalf("check: exit %d %v\n%s%s", code, err, out, errOut)
	}
	return code, d.State, d.Progress
}

// TestShellLoopMeasuresTheWorkTree: the README's loop with an agent that
// edits files and never commits (claude -p's default): the loop runs on
// while the files grow, past the default policy's 20 iterations (a long
// loop's cap is its own), and opens three iterations after they stop;
// replay and status work there with no flags, as check does.
func TestShellLoopMeasuresTheWorkTree(t *testing.T) {
	t.Parallel()
	l := newShellLoop(t)
	if code, state, _ := l.check(); code != cli.ExitContinue || state != "CLOSED" {
		t.Fatalf("the loop's first check: exit %d %s", code, state)
	}
	for i := 1; i <= 24; i++ {
		write(t, filepath.Join(l.dir, "src", fmt.Sprintf("step%d.go", i)), fmt.Sprintf("package src\n\nconst Step%d = %d\n", i, i))
		if code, state, progress := l.check(); code != cli.ExitContinue || state != "CLOSED" || !progress {
			t.Fatalf("iteration %d wrote src/step%d.go, uncommitted: exit %d %s progress %v, want CLOSED with progress", i+1, i, code, state, progress)
		}
	}
	var code int
	var state string
	for i := 0; i < 3; i++ {
		code, state, _ = l.check()
	}
	if code != cli.ExitOpen || state != "OPEN" {
		t.Fatalf("three iterations without a change: exit %d %s, want OPEN", code, state)
	}
	code, out, errOut := call(l.now, l.env, "replay", "--repo", l.dir)
	if code != cli.ExitOpen || strings.Count(out, "\n") < 28 || !strings.Contains(out, "OPENED here") {
		t.Fatalf("replay with no flags: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := call(l.now, l.env, "status", "--repo", l.dir); code != cli.ExitOpen || !strings.HasPrefix(out, "loopbreaker: OPEN") {
		t.Fatalf("status: exit %d\n%s", code, out)
	}
}

// TestShellLoopCountsWorkOnce: work counts when it is written, committed or
// not; committing it later is not progress again, and neither is a commit
// that only rewrites the loop's notes; a commit with new code is.
func TestShellLoopCountsWorkOnce(t *testing.T) {
	t.Parallel()
	l := newShellLoop(t)
	l.check()
	steps := []struct {
		name     string
		agent    func()
		progress bool
	}{
		{"edit, uncommitted", func() { write(t, filepath.Join(l.dir, "a.go"), "package main\n\nfunc a() {}\n") }, true},
		{"commit that edit, nothing new", func() { fakeAgent(t, l.dir, l.now, map[string]string{"a.go": "package main\n\nfunc a() {}\n"}) }, false},
		{"commit new code", func() { fakeAgent(t, l.dir, l.now, map[string]string{"b.go": "package main\n\nfunc b() {}\n"}) }, true},
		{"commit notes only", func() { fakeAgent(t, l.dir, l.now, map[string]string{"NOTES.md": "- looked again\n"}) }, false},
		{"nothing", func() {}, false},
	}
	for _, s := range steps {
		s.agent()
		if _, _, progress := l.check(); progress != s.progress {
			t.Fatalf("%s: progress %v, want %v", s.name, progress, s.progress)
		}
	}
}

// TestEveryLocalLoopIsFound: status and reset with no flags find every
// loop of the repository: the shell loop's and the one record --repo
// keeps for the ralph drop-in (--loop ralph); each is shown under its
// name, and the exit code is the most urgent.
func TestEveryLocalLoopIsFound(t *testing.T) {
	t.Parallel()
	l := newShellLoop(t)
	for i := 0; i < 4; i++ {
		l.now = l.now.Add(time.Minute)
		call(l.now, l.env, "record", "--repo", l.dir, "--loop", "ralph", "--policy", "ralph")
	}
	code, out, errOut := call(l.now, l.env, "status", "--repo", l.dir)
	if code != cli.ExitOpen || !strings.HasPrefix(out, "loopbreaker: OPEN") || !strings.Contains(out, "--loop ralph") {
		t.Fatalf("status of the ralph loop: exit %d\n%s%s", code, out, errOut)
	}
	l.check()
	code, out, _ = call(l.now, l.env, "status", "--repo", l.dir)
	if code != cli.ExitOpen || !strings.Contains(out, "== loop check\n") || !strings.Contains(out, "== loop ralph\n") {
		t.Fatalf("status of two loops: exit %d\n%s", code, out)
	}
	l.now = l.now.Add(time.Minute)
	if code, out, errOut = call(l.now, l.env, "reset", "--repo", l.dir, "--reason", "new prompt"); code != 0 || strings.Count(out, "CLOSED") != 2 {
		t.Fatalf("reset of every loop: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, _ = call(l.now, l.env, "status", "--repo", l.dir, "--loop", "ralph"); code != cli.ExitContinue {
		t.Fatalf("status --loop ralph after the reset: exit %d", code)
	}
}

// TestDamagedLocalStateReadsTheSame: a state directory the agent replaced
// by a file, or a loop's store replaced by a directory, is the same fault
// to every command: exit 2 naming it, never "no loop state yet" (the hook
// stops the session with it).
func TestDamagedLocalStateReadsTheSame(t *testing.T) {
	t.Parallel()
	for _, damage := range []string{"state directory is a file", "store is a directory"} {
		t.Run(strings.ReplaceAll(damage, " ", "_"), func(t *testing.T) {
			t.Parallel()
			l := newShellLoop(t)
			l.check()
			stores, _ := filepath.Glob(filepath.Join(l.env["LOOPBREAKER_STATE_DIR"], "*", "check.json"))
			bad := stores[0]
			if damage == "state directory is a file" {
				bad = filepath.Dir(bad)
				if err := os.RemoveAll(bad); err != nil {
					t.Fatal(err)
				}
				write(t, bad, "planted")
			} else {
				os.Remove(bad)
				os.Mkdir(bad, 0o700)
			}
			cmds := [][]string{{"check"}, {"status"}, {"replay"}, {"reset", "--reason", "x"}}
			if damage == "state directory is a file" {
				cmds = append(cmds, []string{"record"})
			}
			for _, args := range cmds {
				code, out, errOut := call(l.now, l.env, append(args, "--repo", l.dir)...)
				if code != cli.ExitUsage || !strings.Contains(errOut, bad) || strings.Contains(out, "no loop state") {
					t.Errorf("%s: exit %d, want 2 naming %s\n%s%s", args[0], code, bad, out, errOut)
				}
			}
			if code, out, _ := callIn(l.now, l.env, hookInput("s", "Stop", "", l.dir), "hook", "claude-code"); damage == "state directory is a file" && (code != 0 || !strings.Contains(out, `"continue":false`)) {
				t.Errorf("hook: exit %d %s, want the session stopped", code, out)
			}
		})
	}
}

// TestOldStateLoads: a state file of version 1 (a breaker snapshot, here
// OPEN) loads: status says OPEN and why, a record keeps it OPEN, a reset
// closes it; the file is version 2 from its first write. The shell loop's
// files of the earlier layout (loop.json and its ledger) load as its store:
// the loop goes on from its start, and its resets are kept.
func TestOldStateLoads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "localstate", "testdata", "v1", "state-open.json"))
	if err != nil {
		t.Fatal(err)
	}
	state := write(t, filepath.Join(t.TempDir(), "s.json"), string(data))
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	if code, out, _ := call(now, nil, "status", "--state", state); code != cli.ExitOpen || !strings.Contains(out, "no progress in 3 consecutive iterations") || !strings.Contains(out, "earlier version") {
		t.Fatalf("status of a version 1 OPEN state file: exit %d\n%s", code, out)
	}
	if code, out, _ := call(now, nil, "record", "--state", state, "--files-changed", "3"); code != cli.ExitOpen {
		t.Fatalf("record on it: exit %d, want it still OPEN\n%s", code, out)
	}
	if f := loadState(t, state); f.Version != 2 || len(f.Records) != 1 || f.Carried == nil {
		t.Fatalf("after the first write: %+v", f)
	}
	if code, out, _ := call(now.Add(time.Minute), nil, "reset", "--state", state, "--reason", "fixed"); code != 0 || !strings.Contains(out, "CLOSED") {
		t.Fatalf("reset: exit %d\n%s", code, out)
	}

	l := newShellLoop(t)
	head := headHash(t, l.dir)
	top, err := filepath.EvalSymlinks(l.dir)
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(l.env["LOOPBREAKER_STATE_DIR"], localstate.Key(top), "check")
	write(t, filepath.Join(old, "loop.json"), `{"version": 1, "base": "`+head+`", "started": "2026-11-01T08:00:00Z", "resets": [{"at": "2026-11-01T08:05:00Z", "reason": "earlier"}]}`)
	rec := func(min int) string {
		return fmt.Sprintf(`{"version": 1, "run_id": 0, "run_attempt": 0, "commit": "%s", "at": "2026-11-01T08:%02d:00Z", "phase": "", "tests": null, "errors": [], "output": null, "permission_denials": 0, "completion_claimed": false, "questions_asked": false, "progress_percent": null, "tasks": null}`, head, min)
	}
	write(t, filepath.Join(old, "ledger", "records.json"), "["+rec(10)+","+rec(20)+"]")
	if code, state, _ := l.check(); code != cli.ExitOpen || state != "OPEN" {
		t.Fatalf("the third iteration of a loop of the earlier layout that changed nothing: exit %d %s, want OPEN", code, state)
	}
	f := loadState(t, ledgerFile(t, l.env))
	if f.Base != head || len(f.Records) != 3 || len(f.Resets) != 1 {
		t.Fatalf("the shell loop's store: base %s, %d records, %d resets; want its start, 3 records, 1 reset", f.Base, len(f.Records), len(f.Resets))
	}
	if _, err := os.Stat(filepath.Join(old, "loop.json")); err == nil {
		t.Errorf("the earlier layout's loop.json is still there")
	}
}

// TestShellLoopAfterHistoryIsRewritten: the previous check's commit is no
// longer in the repository (history rewritten and collected): check still
// decides, says so, and takes the working tree's changes as committed.
func TestShellLoopAfterHistoryIsRewritten(t *testing.T) {
	t.Parallel()
	l := newShellLoop(t)
	l.check()
	store := ledgerFile(t, l.env)
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	write(t, store, strings.ReplaceAll(string(data), `"commit": "`+headHash(t, l.dir), `"commit": "`+strings.Repeat("ab", 20)))
	write(t, filepath.Join(l.dir, "x.go"), "package main\n")
	l.now = l.now.Add(10 * time.Minute)
	code, out, errOut := call(l.now, l.env, "check", "--repo", l.dir)
	if code != cli.ExitContinue || !strings.Contains(out, "could not be compared") {
		t.Fatalf("check after the previous commit vanished: exit %d\n%s%s", code, out, errOut)
	}
}
