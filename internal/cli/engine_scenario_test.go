package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Scenarios of seeds 001-003's remaining engine features through the
// command line: completion, a task that does not move, the watch after
// recovery, trends and the rate window.

// engDecisions parses JSON lines of decisions.
func engDecisions(t *testing.T, out string) []scnDecision {
	t.Helper()
	var ds []scnDecision
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var d scnDecision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("line %d is not a JSON decision: %v\n%s", i+1, err, line)
		}
		ds = append(ds, d)
	}
	return ds
}

// doneLoop is a loop whose last commit ticks the plan's last task; its
// message claims completion when claim is set.
func doneLoop(t *testing.T, lastPlan string, claim bool) *scnRepo {
	t.Helper()
	r := newScnRepo(t, "loop")
	r.buildBase(withBase(map[string]string{"fix_plan.md": plan(1, 3)}))
	last := code(2).with("fix_plan.md", lastPlan)
	if claim {
		last.msgf("feat: step 2, all tasks complete")
	}
	r.buildLoop([]*scnStep{code(1).with("fix_plan.md", plan(2, 3)), last})
	return r
}

// reportFile writes a JUnit report outside the repository.
func reportFile(t *testing.T, passed, failed int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.xml")
	if err := os.WriteFile(path, []byte(junit(passed, failed)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompletionThroughCheck: every task checked, the tests green and the
// agent's claim: check exits 4 (done) and prints "done: stop the loop" with the
// evidence; JSON says complete with allow_continue false. A claim while a
// task remains or a test fails is the completion_claim warning, not
// completion.
func TestCompletionThroughCheck(t *testing.T) {
	t.Parallel()
	r := doneLoop(t, plan(3, 3), true)
	report := reportFile(t, 5, 0)
	args := []string{"check", "--repo", r.dir, "--base", "main", "--reports", report}

	res := scnMain(nil, r.now, args)
	if res.code != ExitDone || !strings.HasPrefix(res.stdout, "loopbreaker: done: stop the loop\n") ||
		!strings.Contains(res.stdout, "  complete:   all 3 tasks checked · tests green (5 passed, 0 skipped) · the agent says it is done\n") {
		t.Fatalf("text: got exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = scnMain(nil, r.now, append(args, "--format", "json"))
	d := engDecisions(t, res.stdout)[0]
	if res.code != ExitDone || !d.Complete || d.AllowContinue || d.State != "CLOSED" || d.Completion == nil ||
		d.Completion.Tasks.Done != 3 || d.Completion.Tasks.Total != 3 || d.Completion.Tests == nil || d.Completion.Tests.Passed != 5 || !d.Completion.Claimed {
		t.Errorf("json: got exit %d %+v", res.code, d)
	}
	res = scnMain(nil, r.now, append(args, "--format", "markdown"))
	if !strings.HasPrefix(res.stdout, "## ✅ loopbreaker: done: stop the loop\n\n**Done:** all 3 tasks checked") {
		t.Errorf("markdown:\n%s", res.stdout)
	}
	replay := scnMain(nil, r.now, []string{"replay", "--repo", r.dir, "--base", "main", "--reports", report})
	if lines := strings.Split(replay.stdout, "\n"); replay.code != ExitDone || !strings.Contains(lines[1], "done: stop the loop") || strings.Contains(lines[0], "done") {
		t.Errorf("replay: got exit %d\n%s", replay.code, replay.stdout)
	}

	// 100 % reported stands for the claim.
	r100 := newScnRepo(t, "loop")
	r100.buildBase(withBase(map[string]string{"fix_plan.md": plan(2, 3)}))
	r100.buildLoop([]*scnStep{code(1).with("fix_plan.md", plan(3, 3)).msgf("feat: the last step\n\nLoop-Progress: 100%")})
	res = scnMain(nil, r100.now, []string{"check", "--repo", r100.dir, "--base", "main", "--format", "json"})
	if d := engDecisions(t, res.stdout)[0]; !d.Complete || d.Completion.Percent == nil || *d.Completion.Percent != 100 || d.Completion.Tests != nil {
		t.Errorf("100 %% without a report: got %+v", d)
	}

	for _, c := range []struct {
		name, plan  string
		failed      int
		claim, warn bool
	}{
		{"a claim while a task remains", plan(2, 3), 0, true, true},
		{"a claim while a test fails", plan(3, 3), 1, true, true},
		{"every task checked, no claim", plan(3, 3), 0, false, false},
	} {
		r := doneLoop(t, c.plan, c.claim)
		res := scnMain(nil, r.now, []string{"check", "--repo", r.dir, "--base", "main", "--reports", reportFile(t, 5, c.failed), "--format", "json"})
		d := engDecisions(t, res.stdout)[0]
		warned := strings.Contains(strings.Join(d.Warnings, "\n"), "the agent claims completion while")
		if res.code != 0 || d.Complete || !d.AllowContinue || warned != c.warn {
			t.Errorf("%s: got exit %d complete %v allow_continue %v warnings %q", c.name, res.code, d.Complete, d.AllowContinue, d.Warnings)
		}
	}
}

// stuckPlan is a plan whose first task is done and whose second, the
// current one, holds text that must be escaped.
const stuckPlan = "# Plan\n\n- [x] set up\n- [ ] Parse the <config> | `toml` \x1b[31m\n- [ ] ship\n"

// TestTaskStuckThroughReplay: the plan's first unchecked task stays
// current for five iterations that change code but complete no task:
// HALF_OPEN under default (exit 0), OPEN under strict (exit 1), the task
// named and escaped in every format. A status block's task counts the
// same through record.
func TestTaskStuckThroughReplay(t *testing.T) {
	t.Parallel()
	r := newScnRepo(t, "loop")
	r.buildBase(withBase(map[string]string{"fix_plan.md": plan(0, 1)}))
	loop := []*scnStep{code(1).with("fix_plan.md", stuckPlan)} // ticks "set up": the plan is followed
	for i := 2; i <= 6; i++ {
		loop = append(loop, code(i))
	}
	r.buildLoop(loop)
	args := []string{"replay", "--repo", r.dir, "--base", "main", "--format", "json"}

	res := scnMain(nil, r.now, args)
	ds := engDecisions(t, res.stdout)
	want := `task "Parse the <config> | ` + "`toml`" + ` \x1b[31m" has been the current task for 5 iterations with no task completed`
	for i, d := range ds[:5] {
		if d.State != "CLOSED" {
			t.Errorf("iteration %d: got %s (%q), want CLOSED", i+1, d.State, d.reason())
		}
	}
	if d := ds[5]; res.code != 0 || d.State != "HALF_OPEN" || d.trigger() != "task_stuck" || d.reason() != want {
		t.Fatalf("default: got exit %d, %s %q (%q)", res.code, d.State, d.trigger(), d.reason())
	}
	res = scnMain(nil, r.now, append(args, "--policy", "strict"))
	if d := engDecisions(t, res.stdout)[5]; res.code != 1 || d.State != "OPEN" || d.trigger() != "task_stuck" {
		t.Errorf("strict: got exit %d, %s %q", res.code, d.State, d.trigger())
	}
	text := scnMain(nil, r.now, []string{"check", "--repo", r.dir, "--base", "main"})
	if strings.ContainsRune(text.stdout, '\x1b') || !strings.Contains(text.stdout, `task "Parse the <config> | `+"`toml`") {
		t.Errorf("text: the task is not named, or not escaped:\n%q", text.stdout)
	}
	md := scnMain(nil, r.now, []string{"check", "--repo", r.dir, "--base", "main", "--format", "markdown"})
	if strings.Contains(md.stdout, "<config>") || !strings.Contains(md.stdout, "&lt;config&gt;") || !strings.Contains(md.stdout, "Break the stuck task into 3 or more subtasks") {
		t.Errorf("markdown: the task is not escaped, or the advice is missing:\n%s", md.stdout)
	}

	// The task a status block (or --current-task) names counts at once.
	state := filepath.Join(t.TempDir(), "state.json")
	at := scnStart
	var out scnResult
	for i := 0; i < 5; i++ {
		at = at.Add(10 * time.Minute)
		out = scnMain(nil, at, []string{"record", "--state", state, "--files-changed", "2", "--current-task", "Wire the lexer", "--format", "json"})
	}
	if d := engDecisions(t, out.stdout)[0]; out.code != 0 || d.State != "HALF_OPEN" || d.trigger() != "task_stuck" || !strings.Contains(d.reason(), `task "Wire the lexer"`) {
		t.Errorf("record --current-task: got exit %d, %+v", out.code, d)
	}
}

// TestWatchAfterRecoveryThroughTheStateFile: after a person's reset one
// iteration without progress half-opens, and the next opens, saying that
// stagnation recurred; the same after a HALF_OPEN loop recovers.
func TestWatchAfterRecoveryThroughTheStateFile(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	at := scnStart
	record := func(files int) (int, scnDecision) {
		t.Helper()
		at = at.Add(10 * time.Minute)
		res := scnMain(nil, at, []string{"record", "--state", state, "--files-changed", fmt.Sprint(files), "--format", "json"})
		if res.code == 2 {
			t.Fatalf("record: %s", res.stderr)
		}
		return res.code, engDecisions(t, res.stdout)[0]
	}
	for i := 0; i < 3; i++ {
		record(0)
	}
	at = at.Add(time.Minute)
	if res := scnMain(nil, at, []string{"reset", "--state", state, "--reason", "fixed the fixture by hand"}); res.code != 0 {
		t.Fatalf("reset: exit %d %s", res.code, res.stderr)
	}
	code, d := record(0)
	if code != 0 || d.State != "HALF_OPEN" || d.reason() != "no progress in iteration 4, in the watch after recovery" {
		t.Errorf("a stall after the reset: got exit %d, %s (%q)", code, d.State, d.reason())
	}
	code, d = record(0)
	if code != 1 || d.State != "OPEN" || d.reason() != "stagnation recurred after recovery: no progress in 2 consecutive iterations" {
		t.Errorf("a second stall: got exit %d, %s (%q)", code, d.State, d.reason())
	}

	// Recovery from HALF_OPEN: two stalls, progress, then one stall.
	state = filepath.Join(t.TempDir(), "state.json")
	record(0)
	record(0)
	if _, d = record(1); d.State != "CLOSED" {
		t.Fatalf("progress: got %s", d.State)
	}
	if _, d = record(0); d.State != "HALF_OPEN" {
		t.Errorf("a stall after the recovery: got %s (%q), want HALF_OPEN", d.State, d.reason())
	}

	// ralph has no watch.
	state = filepath.Join(t.TempDir(), "state.json")
	scnMain(nil, at, []string{"reset", "--state", state, "--policy", "ralph"})
	at = at.Add(10 * time.Minute)
	res := scnMain(nil, at, []string{"record", "--state", state, "--policy", "ralph", "--files-changed", "0", "--format", "json"})
	if d := engDecisions(t, res.stdout)[0]; d.State != "CLOSED" {
		t.Errorf("ralph: a stall after a reset: got %s", d.State)
	}
}

// TestTrendsThroughRecord: distinct errors rising in three iterations in a
// row, and passing tests falling, warn in every format, and the chart
// marks the iteration with !.
func TestTrendsThroughRecord(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	at := scnStart
	var res scnResult
	for i := 0; i < 4; i++ {
		at = at.Add(10 * time.Minute)
		args := []string{"record", "--state", state, "--files-changed", "1", "--tests-passing", "10", "--tests-failing", "0"}
		for k := 0; k < i; k++ {
			args = append(args, "--error", fmt.Sprintf("error: step%d.go: undefined: Name%d", i, k))
		}
		res = scnMain(nil, at, args)
	}
	warning := "trend: distinct errors rose in 3 iterations in a row (0 → 1 → 2 → 3)"
	if res.code != 0 || !strings.Contains(res.stdout, "  warning:    "+warning+"\n") || !strings.Contains(res.stdout, "! (+1 +1 +3") {
		t.Errorf("text: got exit %d\n%s", res.code, res.stdout)
	}
	js := scnMain(nil, at, []string{"status", "--state", state, "--format", "json"})
	if d := engDecisions(t, js.stdout)[0]; !strings.Contains(strings.Join(d.Warnings, "\n"), warning) || !d.Recent[len(d.Recent)-1].Trend {
		t.Errorf("json: got warnings %q, recent %+v", d.Warnings, d.Recent)
	}
	md := scnMain(nil, at, []string{"status", "--state", state, "--format", "markdown"})
	if !strings.Contains(md.stdout, "> [!WARNING]\n> trend: distinct errors rose") || !strings.Contains(md.stdout, "! marks a trend warning") {
		t.Errorf("markdown:\n%s", md.stdout)
	}

	// Passing tests falling: regressions too, which open the breaker; the
	// trend warns on the decision that opens it.
	state = filepath.Join(t.TempDir(), "state.json")
	for _, passing := range []int{40, 38, 36, 34} {
		at = at.Add(10 * time.Minute)
		res = scnMain(nil, at, []string{"record", "--state", state, "--files-changed", "1", "--tests-passing", fmt.Sprint(passing), "--format", "json"})
	}
	if d := engDecisions(t, res.stdout)[0]; res.code != 1 || !strings.Contains(strings.Join(d.Warnings, "\n"), "trend: passing tests fell in 3 iterations in a row (40 → 38 → 36 → 34)") {
		t.Errorf("passing tests falling: got exit %d, warnings %q", res.code, d.Warnings)
	}
}

// TestRateWindowThroughRecord: at 80 % of max_iterations_per_hour a
// warning; over it, OPEN with the time the hour frees up, which under a
// cooldown is the probe time.
func TestRateWindowThroughRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pol := filepath.Join(dir, "rate.toml")
	if err := os.WriteFile(pol, []byte("extends = \"default\"\n[rules.rate]\nmax_iterations_per_hour = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withCooldown := filepath.Join(dir, "rate-cooldown.toml")
	if err := os.WriteFile(withCooldown, []byte("extends = \"default\"\n[breaker]\ncooldown = \"5m\"\n[rules.rate]\nmax_iterations_per_hour = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	frees := scnStart.Add(70 * time.Minute)
	for _, c := range []struct {
		policy   string
		cooldown bool
	}{{pol, false}, {withCooldown, true}} {
		state := filepath.Join(t.TempDir(), "state.json")
		var res scnResult
		for i := 0; i < 6; i++ {
			at := scnStart.Add(time.Duration(i) * 10 * time.Minute)
			res = scnMain(nil, at, []string{"record", "--state", state, "--policy", c.policy, "--files-changed", "1", "--at", at.Format(time.RFC3339), "--format", "json"})
			d := engDecisions(t, res.stdout)[0]
			if warned := strings.Contains(strings.Join(d.Warnings, "\n"), "rate: "); warned != (i == 3 || i == 4) {
				t.Errorf("iteration %d: got warnings %q", i+1, d.Warnings)
			}
		}
		d := engDecisions(t, res.stdout)[0]
		if res.code != 1 || d.trigger() != "rate" || d.RateFreesAt == nil || !d.RateFreesAt.Equal(frees) ||
			!strings.HasSuffix(d.reason(), "the window frees up at "+frees.Format(time.RFC3339)) {
			t.Fatalf("the trip: got exit %d %+v", res.code, d)
		}
		if got := d.CooldownUntil != nil && d.CooldownUntil.Equal(frees); got != c.cooldown {
			t.Errorf("cooldown %v: got cooldown_until %v, want the window's time %v", c.cooldown, d.CooldownUntil, c.cooldown)
		}
		text := scnMain(nil, frees.Add(-time.Minute), []string{"status", "--state", state, "--policy", c.policy})
		if !strings.Contains(text.stdout, "the window frees up at "+frees.Format(time.RFC3339)) {
			t.Errorf("status text:\n%s", text.stdout)
		}
	}
}
