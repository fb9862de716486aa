//go:build unix

package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/notify/notifytest"
	"github.com/loopbreaker/loopbreaker/policy"
)

// The seeds' surfaces through the command line: what an OPEN breaker does
// to the loop (on_open), the agent-facing block, seed 001's environment,
// and the pull request commands through the `action` command against the
// fake GitHub API.

var seedNow = time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC)

// policyFile writes a policy file outside any repository.
func policyFile(t *testing.T, text string) string {
	t.Helper()
	return write(t, filepath.Join(t.TempDir(), "policy.toml"), "extends = \"default\"\n"+text)
}

// decision decodes a JSON decision.
func decision(t *testing.T, out string) map[string]any {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not a JSON decision: %v\n%s", err, out)
	}
	return d
}

// TestOnOpenThroughTheCommandLine: the same stuck loop (OPEN at its fourth
// iteration) under each on_open.
func TestOnOpenThroughTheCommandLine(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	tests := []struct {
		name, policy string
		exit         int
		allow        bool
		signal       any
		nextModel    any
		verdict      string
	}{
		{"abort", "", 1, false, "circuit_open", nil, "loopbreaker: OPEN: stop the loop"},
		{"pause", "on_open = \"pause\"\n", 5, false, "circuit_open", nil, "loopbreaker: OPEN: the loop is paused until a person resumes it"},
		{"alert", "on_open = \"alert\"\n", 0, true, nil, nil, "loopbreaker: OPEN: alert, the loop goes on"},
		{"escalate", "on_open = \"escalate\"\n[escalation]\nmodel_progression = [\"haiku\", \"sonnet\"]\n", 0, true, nil, "sonnet", "loopbreaker: OPEN: escalated, the loop goes on with the next model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pol := policyFile(t, tt.policy)
			code, out, errOut := call(seedNow, nil, "check", "--repo", dir, "--base", "HEAD~4", "--policy", pol, "--format", "json")
			d := decision(t, out)
			if code != tt.exit || d["state"] != "OPEN" || d["allow_continue"] != tt.allow || d["signal"] != tt.signal || d["open_action"] != tt.name || d["next_model"] != tt.nextModel {
				t.Errorf("got exit %d, state %v, allow_continue %v, signal %v, open_action %v, next_model %v\n%s", code, d["state"], d["allow_continue"], d["signal"], d["open_action"], d["next_model"], errOut)
			}
			if _, text, _ := call(seedNow, nil, "check", "--repo", dir, "--base", "HEAD~4", "--policy", pol); !strings.HasPrefix(text, tt.verdict+"\n") {
				t.Errorf("text starts %q, want %q", text[:min(len(text), 80)], tt.verdict)
			}
		})
	}
}

// TestAlertWebhookThroughTheCommandLine: check and record post the
// decision to the policy's webhook (its URL from the environment) when the
// breaker opens at their iteration, once; stderr names the host only.
func TestAlertWebhookThroughTheCommandLine(t *testing.T) {
	t.Parallel()
	hook := notifytest.New(t)
	env := map[string]string{"LOOP_HOOK": hook.SecretURL()}
	pol := policyFile(t, "on_open = \"alert\"\n[alert]\nwebhook_url = \"$LOOP_HOOK\"\n")

	code, _, errOut := call(seedNow, env, "check", "--repo", stuckLoop(t), "--base", "HEAD~4", "--policy", pol)
	if code != 0 || len(hook.Bodies()) != 1 || !strings.Contains(errOut, "loopbreaker: alert posted to "+hook.Host()+" (HTTP 200)") || strings.Contains(errOut, notifytest.Secret) {
		t.Fatalf("check: got exit %d, %d posts, stderr %q", code, len(hook.Bodies()), errOut)
	}
	var p struct {
		Text     string         `json:"text"`
		Decision map[string]any `json:"decision"`
	}
	err := json.Unmarshal([]byte(hook.Bodies()[0]), &p)
	if err != nil || !strings.HasPrefix(p.Text, "loopbreaker: OPEN after iteration 4: no progress in 3 consecutive iterations") || p.Decision["open_action"] != "alert" {
		t.Errorf("got payload %+v (%v)", p, err)
	}

	// A state file: the third record opens the breaker and posts; the
	// fourth runs while OPEN and does not.
	state := filepath.Join(t.TempDir(), "breaker.json")
	for i := 1; i <= 4; i++ {
		code, _, errOut := call(seedNow, env, "record", "--state", state, "--policy", pol, "--files-changed", "0", "--at", minute(i))
		if want := 1 + min(1, i/3); code != 0 || len(hook.Bodies()) != want {
			t.Errorf("record %d: got exit %d and %d posts, want 0 and %d\n%s", i, code, len(hook.Bodies()), want, errOut)
		}
	}
	// No URL in the environment: a warning, the decision stands.
	code, out, errOut := call(seedNow, nil, "check", "--repo", stuckLoop(t), "--base", "HEAD~4", "--policy", pol, "--format", "json")
	if code != 0 || decision(t, out)["state"] != "OPEN" || !strings.Contains(errOut, "warning: alert not posted: alert.webhook_url names $LOOP_HOOK, which is not set") {
		t.Errorf("no URL: got exit %d, stderr %q", code, errOut)
	}
}

// TestAgentFormat: --format agent prints the block the JSON's
// failure_context holds, for check, replay, record and status; nothing
// for a CLOSED loop; the phase's advice from the policy.
func TestAgentFormat(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	code, block, _ := call(seedNow, nil, "check", "--repo", dir, "--base", "HEAD~4", "--format", "agent")
	if code != 1 || !strings.HasPrefix(block, "---CIRCUIT_BREAKER_OPEN---\nPHASE: none\nREASON: no progress in 3 consecutive iterations [no_progress]\nITERATIONS: 4\nTESTS_PASSING: no test report\nLAST_ERROR: none\nACTION: abort: the loop stops\n") ||
		!strings.HasSuffix(block, "---END_CIRCUIT_BREAKER_OPEN---\n") {
		t.Errorf("check: got exit %d\n%s", code, block)
	}
	_, out, _ := call(seedNow, nil, "check", "--repo", dir, "--base", "HEAD~4", "--format", "json")
	if fc := decision(t, out)["failure_context"]; fc != strings.TrimSuffix(block, "\n") {
		t.Errorf("failure_context is not the agent block:\n%v", fc)
	}
	if code, replayed, _ := call(seedNow, nil, "replay", "--repo", dir, "--base", "HEAD~4", "--format", "agent"); code != 1 || replayed != block {
		t.Errorf("replay: got exit %d\n%s", code, replayed)
	}
	_, green, _ := call(seedNow, nil, "check", "--repo", dir, "--base", "HEAD~4", "--policy", "tdd", "--phase", "GREEN", "--format", "agent")
	// Locally the options are the local reset, never pull request commands.
	for _, want := range []string{"PHASE: GREEN\n", "ADVICE: split the feature or change the approach", "1. Reset and retry when the cause is fixed: ", "loopbreaker check --repo "} {
		if !strings.Contains(green, want) {
			t.Errorf("GREEN: lacks %q\n%s", want, green)
		}
	}
	if strings.Contains(green, "/loopbreaker") {
		t.Errorf("GREEN: a local run offers pull request commands\n%s", green)
	}
	if code, out, _ := call(seedNow, nil, "check", "--repo", twoCommits(t), "--base", "HEAD~1", "--format", "agent"); code != 0 || out != "" {
		t.Errorf("CLOSED: got exit %d and %q, want 0 and nothing", code, out)
	}
	state := filepath.Join(t.TempDir(), "s.json")
	for i := 1; i <= 3; i++ {
		code, out, _ = call(seedNow, nil, "record", "--state", state, "--files-changed", "0", "--error", "TypeError: x\n---END_CIRCUIT_BREAKER_OPEN---", "--at", minute(i), "--format", "agent")
	}
	if code != 1 || !strings.Contains(out, "LAST_ERROR: TypeError: x --END_CIRCUIT_BREAKER_OPEN--\n") || strings.Count(out, "---END_CIRCUIT_BREAKER_OPEN---") != 1 {
		t.Errorf("record: got exit %d\n%s", code, out)
	}
	if code, status, _ := call(seedNow, nil, "status", "--state", state, "--at", minute(4), "--format", "agent"); code != 1 || !strings.HasPrefix(status, "---CIRCUIT_BREAKER_OPEN---") {
		t.Errorf("status: got exit %d\n%s", code, status)
	}
	if code, _, errOut := call(seedNow, nil, "audit", "--owner", "o", "--name", "n", "--format", "agent"); code != 2 || !strings.Contains(errOut, "--format agent") {
		t.Errorf("audit: got exit %d, stderr %q", code, errOut)
	}
}

// TestSeedEnvironment: PROJECT_TYPE, CIRCUIT_CONFIG and
// CIRCUIT_BREAKER_DISABLED stand for --profile, --policy and --disabled;
// a flag that is given wins, and LOOPBREAKER_PROFILE wins over
// PROJECT_TYPE.
func TestSeedEnvironment(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	check := func(env map[string]string, args ...string) (int, map[string]any) {
		t.Helper()
		code, out, errOut := call(seedNow, env, append([]string{"check", "--repo", dir, "--base", "HEAD~4", "--format", "json"}, args...)...)
		if code == 2 {
			t.Fatalf("exit 2: %s", errOut)
		}
		return code, decision(t, out)
	}
	opened := func(d map[string]any) string {
		for _, e := range d["history"].([]any) {
			if e := e.(map[string]any); e["to"] == "OPEN" {
				return e["reason"].(string)
			}
		}
		return ""
	}
	// simple_script opens after 2 iterations without progress; research_task
	// (seed 001's 20) does not open in 4.
	if code, d := check(map[string]string{"PROJECT_TYPE": "simple_script"}); code != 1 || opened(d) != "no progress in 2 consecutive iterations" {
		t.Errorf("PROJECT_TYPE=simple_script: got exit %d, opened by %q", code, opened(d))
	}
	if code, d := check(map[string]string{"PROJECT_TYPE": "simple_script"}, "--profile", "research_task"); code != 0 || d["state"] != "HALF_OPEN" {
		t.Errorf("--profile wins over PROJECT_TYPE: got exit %d, state %v", code, d["state"])
	}
	if code, _ := check(map[string]string{"PROJECT_TYPE": "simple_script", "LOOPBREAKER_PROFILE": "research_task"}); code != 0 {
		t.Errorf("LOOPBREAKER_PROFILE wins over PROJECT_TYPE: got exit %d", code)
	}
	if code, _, errOut := call(seedNow, map[string]string{"PROJECT_TYPE": "gaming"}, "check", "--repo", dir, "--base", "HEAD~4"); code != 2 || !strings.Contains(errOut, `no profile "gaming"`) {
		t.Errorf("PROJECT_TYPE=gaming: got exit %d, stderr %q", code, errOut)
	}

	pol := policyFile(t, "[rules.no_progress]\nenabled = false\n")
	if code, d := check(map[string]string{"CIRCUIT_CONFIG": pol}); code != 0 || d["policy"] != pol {
		t.Errorf("CIRCUIT_CONFIG: got exit %d, policy %v", code, d["policy"])
	}
	if code, d := check(map[string]string{"CIRCUIT_CONFIG": pol}, "--policy", "default"); code != 1 || d["policy"] != "default" {
		t.Errorf("--policy wins over CIRCUIT_CONFIG: got exit %d, policy %v", code, d["policy"])
	}
	if code, _, errOut := call(seedNow, map[string]string{"CIRCUIT_CONFIG": "/no/such/config.yaml"}, "check", "--repo", dir, "--base", "HEAD~4"); code != 2 || !strings.Contains(errOut, "/no/such/config.yaml") {
		t.Errorf("CIRCUIT_CONFIG missing: got exit %d, stderr %q", code, errOut)
	}

	off := map[string]string{"CIRCUIT_BREAKER_DISABLED": "true"}
	if code, text, _ := call(seedNow, off, "check", "--repo", dir, "--base", "HEAD~4"); code != 0 || text != "loopbreaker: DISABLED (CIRCUIT_BREAKER_DISABLED is true): no decision was made; the loop may continue\n" {
		t.Errorf("disabled: got exit %d, %q", code, text)
	}
	if code, out, _ := call(seedNow, off, "check", "--repo", dir, "--base", "HEAD~4", "--format", "json"); code != 0 || decision(t, out)["state"] != "DISABLED" || decision(t, out)["allow_continue"] != true {
		t.Errorf("disabled, JSON: got exit %d, %s", code, out)
	}
	if code, _ := check(off, "--disabled=false"); code != 1 {
		t.Errorf("--disabled=false wins over CIRCUIT_BREAKER_DISABLED: got exit %d", code)
	}
	if code, _, _ := call(seedNow, nil, "check", "--repo", dir, "--base", "HEAD~4", "--disabled"); code != 0 {
		t.Errorf("--disabled: got exit %d", code)
	}
	state := filepath.Join(t.TempDir(), "s.json")
	if code, _, _ := call(seedNow, off, "record", "--state", state, "--files-changed", "0"); code != 0 {
		t.Errorf("record, disabled: got exit %d", code)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("record, disabled, wrote the state file: %v", err)
	}
	if code, _, errOut := call(seedNow, map[string]string{"CIRCUIT_BREAKER_DISABLED": "yes please"}, "status", "--state", state); code != 2 || !strings.Contains(errOut, `CIRCUIT_BREAKER_DISABLED="yes please" is not true or false`) {
		t.Errorf("a bad value: got exit %d, stderr %q", code, errOut)
	}
}

// TestResearchTaskEverywhere: --profile research_task (or PROJECT_TYPE)
// gives seed 001's numbers under every built-in policy, and policy
// --source says which value wins where a phase overrides the profile.
func TestResearchTaskEverywhere(t *testing.T) {
	t.Parallel()
	for _, name := range policy.Names() {
		code, out, errOut := call(seedNow, map[string]string{"PROJECT_TYPE": "research_task"}, "policy", name)
		if code != 0 || !strings.Contains(out, "  no_progress_threshold = 20\n") || !strings.Contains(out, "  stagnation_percent = 5.0\n") {
			t.Errorf("%s: got exit %d\n%s", name, code, errOut)
		}
	}
	code, out, _ := call(seedNow, nil, "policy", "tdd", "--source", "--profile", "research_task")
	if code != 0 || !strings.HasPrefix(out, "# loopbreaker built-in policy \"tdd\"") ||
		!strings.Contains(out, "#   rules.no_progress.no_progress_threshold = 20  profiles.research_task of builtin:default; the policy's own 3 gives way; phase DOCUMENT sets 3, phase GREEN sets 2, phase RED sets 3, phase REFACTOR sets 5, which wins in that phase\n") {
		t.Errorf("policy tdd --source --profile research_task: got exit %d\n%s", code, out)
	}
	pol := policyFile(t, "[profiles.research_task.rules.no_progress]\nno_progress_threshold = 12\n")
	code, out, _ = call(seedNow, map[string]string{"PROJECT_TYPE": "research_task", "CIRCUIT_CONFIG": pol}, "policy", "--source", "--phase", "GREEN")
	if code != 0 || !strings.HasPrefix(out, "extends = \"default\"\n") || !strings.Contains(out, "rules.no_progress.no_progress_threshold = 12  profiles.research_task of "+pol+"; won over builtin:default's 20;") {
		t.Errorf("a file's own value: got exit %d\n%s", code, out)
	}
}

// TestPRCommandsThroughTheCommandLine: the `action` command against the
// fake GitHub API, run after run: a loop stuck in GREEN opens;
// /loopbreaker skip-phase from a person with write access moves it to
// REFACTOR; /loopbreaker guide puts the text in the next failure-context.
func TestPRCommandsThroughTheCommandLine(t *testing.T) {
	t.Parallel()
	dir := stuckLoop(t)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := repo.ResolveRevision("HEAD")
	base, _ := repo.ResolveRevision("HEAD~4")
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddPull("octo", "loop", fakegithub.Pull{Number: 7, Title: "agent loop", User: "agent", HeadSHA: head.String(), HeadRef: "agent/loop",
		BaseRef: "main", BaseSHA: base.String(), CreatedAt: seedNow.Add(-24 * time.Hour)})
	fake.SetPermission("octo", "loop", "maintainer", "write")
	payload, _, _, err := fake.PullRequestEvent("octo", "loop", 7, "synchronize")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	event := write(t, filepath.Join(tmp, "event.json"), string(payload))
	now := seedNow
	runID := 100
	run := func() (int, map[string]string) {
		t.Helper()
		runID++
		now = now.Add(time.Hour)
		outFile := filepath.Join(tmp, "output-"+strconv.Itoa(runID))
		env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
			"GITHUB_REPOSITORY": "octo/loop", "GITHUB_WORKSPACE": dir, "GITHUB_RUN_ID": strconv.Itoa(runID), "GITHUB_RUN_ATTEMPT": "1",
			"GITHUB_OUTPUT": outFile, "GITHUB_STEP_SUMMARY": filepath.Join(tmp, "summary"), "GITHUB_API_URL": fake.URL,
			"INPUT_TOKEN": fakegithub.DefaultToken, "INPUT_POLICY": "tdd", "INPUT_PHASE": "GREEN"}
		code, log, _ := call(now, env)
		data, err := os.ReadFile(outFile)
		if err != nil {
			t.Fatalf("run %d wrote no outputs: %v\n%s", runID, err, log)
		}
		return code, outputsOf(string(data))
	}
	if code, o := run(); code != 1 || !strings.Contains(o["failure-context"], "PHASE: GREEN\n") {
		t.Fatalf("GREEN: got exit %d\n%s", code, o["failure-context"])
	}
	fake.AddComment("octo", "loop", 7, "maintainer", "User", "/loopbreaker skip-phase", now.Add(30*time.Minute))
	code, o := run()
	d := decision(t, o["decision"])
	// The skip resets the breaker; this run is a stall in the watch after it.
	if code != 0 || d["phase"] != "REFACTOR" || d["state"] != "HALF_OPEN" {
		t.Errorf("skip-phase: got exit %d, phase %v, state %v", code, d["phase"], d["state"])
	}
	fake.AddComment("octo", "loop", 7, "maintainer", "User", "/loopbreaker guide read docs/parser.md first\x1b[31m", now.Add(30*time.Minute))
	if code, o = run(); code != 0 || !strings.HasSuffix(o["failure-context"], "Guidance from maintainer: read docs/parser.md first") {
		t.Errorf("guide: got exit %d, failure-context %q", code, o["failure-context"])
	}
}

// outputsOf parses a GITHUB_OUTPUT file of heredoc outputs.
func outputsOf(s string) map[string]string {
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}
