//go:build unix

package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/notify/notifytest"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// statusCheckPermissions are the job permissions of
// examples/pr-status-check.yml: the token of every run below has these
// and no more.
var statusCheckPermissions = map[string]string{"contents": "read", "pull-requests": "write", "issues": "write", "statuses": "write", "actions": "read"}

// prLife is a pull request's life on the fake GitHub API, run after run of
// the `action` command as examples/pr-status-check.yml runs it: a
// pull_request run on every push, an issue_comment run on every comment,
// each an hour after the one before, with the pull request's head checked
// out and the event payload the fake builds from its state (the labels the
// earlier runs left). The ledger is what the runs keep on GitHub: the
// sticky comment's digest.
type prLife struct {
	t      *testing.T
	dir    string
	fake   *fakegithub.Server
	tmp    string
	now    time.Time
	runID  int
	inputs map[string]string
	// outputs and log are the last run's GITHUB_OUTPUT and stdout.
	outputs map[string]string
	log     string
}

// newPRLife opens pull request 7 of octo/loop on the loop in dir, from
// base (a revision) to HEAD, for runs with inputs (INPUT_* and any other
// variable a policy names) besides the token.
func newPRLife(t *testing.T, dir, base string, inputs map[string]string) *prLife {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.SetPermissions(fakegithub.DefaultToken, statusCheckPermissions)
	l := &prLife{t: t, dir: dir, fake: fake, tmp: t.TempDir(), now: seedNow, runID: 100, inputs: inputs}
	fake.AddPull("octo", "loop", fakegithub.Pull{Number: 7, Title: "agent loop", User: "agent", HeadSHA: l.resolve("HEAD"), HeadRef: "agent/loop",
		BaseRef: "main", BaseSHA: l.resolve(base), CreatedAt: seedNow.Add(-24 * time.Hour)})
	return l
}

// resolve is the commit a revision of the loop names.
func (l *prLife) resolve(rev string) string {
	l.t.Helper()
	r, err := git.PlainOpen(l.dir)
	if err != nil {
		l.t.Fatal(err)
	}
	h, err := r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		l.t.Fatalf("resolve %s: %v", rev, err)
	}
	return h.String()
}

// push makes rev (a commit of the loop) the pull request's head, checked
// out detached as actions/checkout leaves it.
func (l *prLife) push(rev string) {
	l.t.Helper()
	sha := l.resolve(rev)
	r, err := git.PlainOpen(l.dir)
	if err != nil {
		l.t.Fatal(err)
	}
	if err := r.Storer.SetReference(plumbing.NewHashReference(plumbing.HEAD, plumbing.NewHash(sha))); err != nil {
		l.t.Fatal(err)
	}
	if err := l.fake.Push("octo", "loop", 7, sha, ""); err != nil {
		l.t.Fatal(err)
	}
}

// pullRequestRun is the run of a push to the pull request (or of a
// workflow re-run on it): an iteration of the loop.
func (l *prLife) pullRequestRun() int {
	l.t.Helper()
	payload, ref, _, err := l.fake.PullRequestEvent("octo", "loop", 7, "synchronize")
	if err != nil {
		l.t.Fatal(err)
	}
	return l.run("pull_request", payload, ref)
}

// commentRun is the run of login's comment body on the pull request, made
// half an hour before the run.
func (l *prLife) commentRun(login, body string) int {
	l.t.Helper()
	id := l.fake.AddComment("octo", "loop", 7, login, "User", body, l.now.Add(30*time.Minute))
	payload, ref, err := l.fake.IssueCommentEvent("octo", "loop", 7, id)
	if err != nil {
		l.t.Fatal(err)
	}
	return l.run("issue_comment", payload, ref)
}

// run runs `loopbreaker action` for an event an hour after the previous
// run and keeps its outputs and log.
func (l *prLife) run(event string, payload []byte, ref string) int {
	l.t.Helper()
	l.runID++
	l.now = l.now.Add(time.Hour)
	at := l.now
	l.fake.SetClock(func() time.Time { return at })
	id := strconv.Itoa(l.runID)
	outFile := filepath.Join(l.tmp, "output-"+id)
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_REF": ref,
		"GITHUB_EVENT_PATH": write(l.t, filepath.Join(l.tmp, "event-"+id+".json"), string(payload)),
		"GITHUB_REPOSITORY": "octo/loop", "GITHUB_WORKSPACE": l.dir, "GITHUB_RUN_ID": id, "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_OUTPUT": outFile, "GITHUB_STEP_SUMMARY": filepath.Join(l.tmp, "summary-"+id), "GITHUB_API_URL": l.fake.URL,
		"INPUT_TOKEN": fakegithub.DefaultToken}
	for k, v := range l.inputs {
		env[k] = v
	}
	code, log, errOut := call(at, env, "action")
	data, err := os.ReadFile(outFile)
	if err != nil {
		l.t.Fatalf("run %s wrote no outputs: %v\n%s%s", id, err, log, errOut)
	}
	l.outputs, l.log = outputsOf(string(data)), log
	return code
}

// labels are the pull request's labels on the fake.
func (l *prLife) labels() []string { return l.fake.IssueLabels("octo", "loop", 7) }

// sticky is the body of loopbreaker's sticky comment, and how many there
// are.
func (l *prLife) sticky() (string, int) {
	var body string
	n := 0
	for _, c := range l.fake.Comments("octo", "loop", 7) {
		if strings.HasPrefix(c.Body, present.Marker) {
			body = c.Body
			n++
		}
	}
	return body, n
}

// lastStatus is the newest commit status on rev's commit.
func (l *prLife) lastStatus(rev string) fakegithub.Status {
	st := l.fake.Statuses("octo", "loop", l.resolve(rev))
	if len(st) == 0 {
		return fakegithub.Status{}
	}
	return st[len(st)-1]
}

// state is the last run's state, allow-continue, open-action and signal
// outputs in a line.
func (l *prLife) state() string {
	o := l.outputs
	return o["state"] + " allow-continue=" + o["allow-continue"] + " open-action=" + o["open-action"] + " signal=" + o["signal"]
}

// TestActionCompleteAgainstTheFake: a loop that stalls (HALF_OPEN, the
// sticky comment posted), then checks its last task with its tests green
// and says it is done: the run exits 0 with complete=true and
// allow-continue false; the pull request gets loopbreaker:complete and
// loses the half-open label; the sticky comment and the status say done.
func TestActionCompleteAgainstTheFake(t *testing.T) {
	t.Parallel()
	dir := commitLoop(t, []map[string]string{
		{"main.go": "package main\n", "fix_plan.md": "- [ ] parser\n- [ ] lexer\n"},
		{"parser.go": "package main\n\nfunc parse() {}\n", "fix_plan.md": "- [x] parser\n- [ ] lexer\n"},
		nil, nil,
		{"lexer.go": "package main\n\nfunc lex() {}\n", "fix_plan.md": "- [x] parser\n- [x] lexer\n"},
	})
	l := newPRLife(t, dir, "HEAD~4", map[string]string{"INPUT_AGENT-LOG": "agent.log", "INPUT_REPORTS": "report.xml"})
	// The push before the last: two iterations without progress.
	l.push("HEAD~1")
	write(t, filepath.Join(dir, "agent.log"), "working on the lexer\n")
	write(t, filepath.Join(dir, "report.xml"), `<testsuite name="app" tests="2" failures="0"><testcase name="TestParse"/><testcase name="TestRun"/></testsuite>`)
	if code := l.pullRequestRun(); code != 0 || l.outputs["state"] != "HALF_OPEN" || l.outputs["complete"] != "false" {
		t.Fatalf("the stall: got exit %d, %s, complete=%s\n%s", code, l.state(), l.outputs["complete"], l.log)
	}
	if got := l.labels(); !slices.Equal(got, []string{present.LabelHalfOpen}) {
		t.Fatalf("the stall: got labels %v, want %s", got, present.LabelHalfOpen)
	}

	// The last push: the agent's log says it is done and the report is
	// green.
	write(t, filepath.Join(dir, "agent.log"), "lexer written\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n")
	write(t, filepath.Join(dir, "report.xml"), `<testsuite name="app" tests="3" failures="0"><testcase name="TestParse"/><testcase name="TestLex"/><testcase name="TestRun"/></testsuite>`)
	l.push("master")
	code := l.pullRequestRun()
	o := l.outputs
	if code != 0 || o["complete"] != "true" || o["allow-continue"] != "false" || o["state"] != "CLOSED" || o["signal"] != "" || o["iteration"] != "4" {
		t.Errorf("done: got exit %d, complete=%s, %s, iteration %s\n%s", code, o["complete"], l.state(), o["iteration"], l.log)
	}
	d := decision(t, o["decision"])
	if c, _ := d["completion"].(map[string]any); d["complete"] != true || c == nil || c["claimed"] != true {
		t.Errorf("the decision output lacks the evidence: %s", o["decision"])
	}
	if got := l.labels(); !slices.Equal(got, []string{present.LabelComplete}) {
		t.Errorf("done: got labels %v, want %s alone", got, present.LabelComplete)
	}
	evidence := "all 2 tasks checked · tests green (3 passed, 0 skipped) · the agent says it is done"
	body, n := l.sticky()
	if n != 1 || !strings.Contains(body, "done: stop the loop") || !strings.Contains(body, evidence) {
		t.Errorf("got %d sticky comments, want 1 saying done with %q:\n%.1500s", n, evidence, body)
	}
	if st := l.lastStatus("HEAD"); st.State != "success" || !strings.HasPrefix(st.Description, "done after iteration 4: ") {
		t.Errorf("the head's status: got %+v, want success saying done", st)
	}
}

// stuckWithPolicy is stuckLoop with a policy file at the base:
// .github/loopbreaker.toml extending default with text.
func stuckWithPolicy(t *testing.T, text string) string {
	t.Helper()
	return commitLoop(t, []map[string]string{
		{"main.go": "package main\n", ".github/loopbreaker.toml": "extends = \"default\"\n" + text},
		{"main.go": "package main\n\nfunc main() {}\n"},
		nil, nil, nil,
	})
}

// TestActionAbortAgainstTheFake: on_open's default, abort: the run that
// opens the breaker fails the step (exit 1) and labels the pull request
// loopbreaker:open; the status fails; a second run while OPEN fails too
// and moves no label.
func TestActionAbortAgainstTheFake(t *testing.T) {
	t.Parallel()
	l := newPRLife(t, stuckLoop(t), "HEAD~4", nil)
	code := l.pullRequestRun()
	if code != 1 || l.state() != "OPEN allow-continue=false open-action=abort signal=circuit_open" {
		t.Fatalf("got exit %d, %s\n%s", code, l.state(), l.log)
	}
	if !strings.Contains(l.log, "::error title=loopbreaker OPEN%3A stop the loop::iteration 4: ") {
		t.Errorf("the log does not say stop:\n%s", l.log)
	}
	if !strings.Contains(l.outputs["failure-context"], "ACTION: abort: the loop stops\n") {
		t.Errorf("failure-context:\n%s", l.outputs["failure-context"])
	}
	if got := l.labels(); !slices.Equal(got, []string{present.LabelOpen}) {
		t.Errorf("got labels %v, want %s alone", got, present.LabelOpen)
	}
	if body, n := l.sticky(); n != 1 || !strings.Contains(body, "OPEN: stop the loop") {
		t.Errorf("got %d sticky comments, want 1 saying stop:\n%.1500s", n, body)
	}
	if st := l.lastStatus("HEAD"); st.State != "failure" {
		t.Errorf("the head's status: got %+v, want failure", st)
	}

	writes := l.fake.CallsTo("POST", "/repos/octo/loop/issues/7/labels") + l.fake.CallsTo("DELETE", "/repos/octo/loop/issues/7/labels")
	if code := l.pullRequestRun(); code != 1 || l.outputs["state"] != "OPEN" || l.outputs["iteration"] != "5" {
		t.Errorf("the next run: got exit %d, %s at iteration %s; want 1, OPEN at 5", code, l.state(), l.outputs["iteration"])
	}
	if now := l.fake.CallsTo("POST", "/repos/octo/loop/issues/7/labels") + l.fake.CallsTo("DELETE", "/repos/octo/loop/issues/7/labels"); now != writes {
		t.Errorf("the next run wrote labels (%d label calls, was %d): %v", now, writes, l.labels())
	}
}

// TestActionPauseAgainstTheFake: on_open = "pause" in the policy file:
// the run exits 0 with allow-continue false and labels the pull request
// loopbreaker:paused; a /loopbreaker resume from someone who may only read
// leaves it paused, the same comment from a collaborator with write
// access resumes it: CLOSED, the labels off. Neither comment's run is an
// iteration.
func TestActionPauseAgainstTheFake(t *testing.T) {
	t.Parallel()
	l := newPRLife(t, stuckWithPolicy(t, "on_open = \"pause\"\n"), "HEAD~4", map[string]string{"INPUT_POLICY": ".github/loopbreaker.toml"})
	l.fake.SetPermission("octo", "loop", "maintainer", "write")
	l.fake.SetPermission("octo", "loop", "drive-by", "read")
	if code := l.pullRequestRun(); code != 0 || l.state() != "OPEN allow-continue=false open-action=pause signal=circuit_open" {
		t.Fatalf("paused: got exit %d, %s\n%s", code, l.state(), l.log)
	}
	if !strings.Contains(l.log, "::error title=loopbreaker OPEN%3A the loop is paused until a person resumes it::iteration 4: ") || strings.Contains(l.log, "stop the loop") {
		t.Errorf("the log does not say the loop is paused:\n%s", l.log)
	}
	if fc := l.outputs["failure-context"]; !strings.Contains(fc, "ACTION: pause: the loop waits until a person resumes it\n") {
		t.Errorf("the agent is not told the loop is paused:\n%s", fc)
	}
	paused := []string{present.LabelOpen, present.LabelPaused}
	if got := l.labels(); !slices.Equal(got, paused) {
		t.Errorf("paused: got labels %v, want %v", got, paused)
	}
	if body, n := l.sticky(); n != 1 || !strings.Contains(body, "OPEN: the loop is paused until a person resumes it") {
		t.Errorf("got %d sticky comments, want 1 saying paused:\n%.1500s", n, body)
	}

	if code := l.commentRun("drive-by", "/loopbreaker resume"); code != 0 || l.state() != "OPEN allow-continue=false open-action=pause signal=circuit_open" || l.outputs["iteration"] != "4" {
		t.Errorf("resumed by a reader: got exit %d, %s at iteration %s", code, l.state(), l.outputs["iteration"])
	}
	if got := l.labels(); !slices.Equal(got, paused) {
		t.Errorf("resumed by a reader: got labels %v, want %v", got, paused)
	}

	code := l.commentRun("maintainer", "/loopbreaker resume")
	if code != 0 || l.state() != "CLOSED allow-continue=true open-action= signal=" || l.outputs["iteration"] != "4" {
		t.Errorf("resumed: got exit %d, %s at iteration %s", code, l.state(), l.outputs["iteration"])
	}
	if got := l.labels(); len(got) != 0 {
		t.Errorf("resumed: labels %v left on", got)
	}
	if body, _ := l.sticky(); !strings.Contains(body, "loopbreaker: CLOSED") {
		t.Errorf("the sticky comment does not say the loop goes on:\n%.1500s", body)
	}
	if st := l.lastStatus("HEAD"); st.State != "success" {
		t.Errorf("the head's status after the resume: got %+v, want success", st)
	}
}

// TestActionAlertAgainstTheFake: on_open = "alert": the loop goes on
// (exit 0, allow-continue true); the sticky comment calls the policy's
// people and team; the webhook (its URL from the environment) gets one
// JSON POST, from the run that opened the breaker, neither from a
// comment's run nor from the next run while OPEN; the log names its host
// alone.
func TestActionAlertAgainstTheFake(t *testing.T) {
	t.Parallel()
	hook := notifytest.New(t)
	pol := "on_open = \"alert\"\n[alert]\nmentions = [\"@alice\", \"octo-org/loop-owners\"]\nwebhook_url = \"$LOOP_HOOK\"\n"
	l := newPRLife(t, stuckWithPolicy(t, pol), "HEAD~4", map[string]string{"INPUT_POLICY": ".github/loopbreaker.toml", "LOOP_HOOK": hook.SecretURL()})
	runs := []struct {
		name      string
		run       func() int
		iteration string
	}{
		{"the push that opens", l.pullRequestRun, "4"},
		{"a comment", func() int { return l.commentRun("reviewer", "looks stuck to me") }, "4"},
		{"the next push", l.pullRequestRun, "5"},
	}
	for i, r := range runs {
		code := r.run()
		if code != 0 || l.state() != "OPEN allow-continue=true open-action=alert signal=" || l.outputs["iteration"] != r.iteration {
			t.Errorf("%s: got exit %d, %s at iteration %s\n%s", r.name, code, l.state(), l.outputs["iteration"], l.log)
		}
		if body, n := l.sticky(); n != 1 || !strings.Contains(body, "**Alert:** @alice @octo-org/loop-owners — the breaker opened") {
			t.Errorf("%s: got %d sticky comments, want 1 calling the people:\n%.1500s", r.name, n, body)
		}
		if posts := hook.Bodies(); len(posts) != 1 {
			t.Fatalf("%s: got %d posts, want 1", r.name, len(posts))
		}
		if !strings.Contains(l.log, "::error title=loopbreaker OPEN%3A alert%2C the loop goes on::") || strings.Contains(l.log, "stop the loop") {
			t.Errorf("%s: the log does not say the loop goes on:\n%s", r.name, l.log)
		}
		if strings.Contains(l.log, notifytest.Secret) {
			t.Errorf("%s: the log shows the webhook's secret:\n%s", r.name, l.log)
		}
		if posted := strings.Contains(l.log, "loopbreaker: alert posted to "+hook.Host()+" (HTTP 200)"); posted != (i == 0) {
			t.Errorf("%s: the log says posted %v:\n%s", r.name, posted, l.log)
		}
	}
	p := decision(t, hook.Bodies()[0])
	d, _ := p["decision"].(map[string]any)
	runURL, _ := p["run_url"].(string)
	if p["repository"] != "octo/loop" || p["pull_request"] != float64(7) || d["state"] != "OPEN" || d["open_action"] != "alert" || d["iteration"] != float64(4) ||
		!strings.HasSuffix(runURL, "/octo/loop/actions/runs/101") {
		t.Errorf("got payload %v", p)
	}
	if ct := hook.ContentTypes(); ct[0] != "application/json" {
		t.Errorf("got Content-Type %q, want application/json", ct[0])
	}
	if got := l.labels(); !slices.Equal(got, []string{present.LabelOpen}) {
		t.Errorf("got labels %v, want %s alone", got, present.LabelOpen)
	}
}

// TestActionEscalateAgainstTheFake: the open-action input over the policy
// file's on_open: the loop goes on with the next model of the policy's
// progression; no pause label.
func TestActionEscalateAgainstTheFake(t *testing.T) {
	t.Parallel()
	dir := stuckWithPolicy(t, "on_open = \"pause\"\n[escalation]\nmodel_progression = [\"haiku\", \"sonnet\", \"opus\"]\n")
	l := newPRLife(t, dir, "HEAD~4", map[string]string{"INPUT_POLICY": ".github/loopbreaker.toml", "INPUT_OPEN-ACTION": "escalate"})
	code := l.pullRequestRun()
	o := l.outputs
	if code != 0 || l.state() != "OPEN allow-continue=true open-action=escalate signal=" || o["next-model"] != "sonnet" || o["escalate"] != "true" {
		t.Fatalf("got exit %d, %s, next-model %q, escalate %s\n%s", code, l.state(), o["next-model"], o["escalate"], l.log)
	}
	if !strings.Contains(l.log, "::error title=loopbreaker OPEN%3A escalated%2C the loop goes on with the next model::") || strings.Contains(l.log, "stop the loop") {
		t.Errorf("the log does not say the loop goes on:\n%s", l.log)
	}
	if d := decision(t, o["decision"]); d["next_model"] != "sonnet" {
		t.Errorf("the decision output names next_model %v", d["next_model"])
	}
	if !strings.Contains(o["failure-context"], "ACTION: escalate: the loop goes on with the next model, sonnet\n") {
		t.Errorf("failure-context:\n%s", o["failure-context"])
	}
	if got := l.labels(); !slices.Equal(got, []string{present.LabelOpen}) {
		t.Errorf("got labels %v, want %s alone: an escalation is no pause", got, present.LabelOpen)
	}
}

// lastEvent is the reason of the newest history event of the last run's
// decision.
func (l *prLife) lastEvent() string {
	l.t.Helper()
	h, _ := decision(l.t, l.outputs["decision"])["history"].([]any)
	if len(h) == 0 {
		return ""
	}
	e, _ := h[len(h)-1].(map[string]any)
	reason, _ := e["reason"].(string)
	return reason
}

// TestActionPRCommandsByCommentAgainstTheFake: /loopbreaker skip-phase and
// guide as the runs of their comments (issue_comment events, not
// iterations), through the one trust rule: from someone who may only read
// they change nothing; from a collaborator with write access skip-phase
// moves a loop stuck in GREEN to REFACTOR and closes the breaker, and
// guide's text, escaped in the sticky comment, goes into the
// failure-context of the next iteration only.
func TestActionPRCommandsByCommentAgainstTheFake(t *testing.T) {
	t.Parallel()
	l := newPRLife(t, stuckLoop(t), "HEAD~4", map[string]string{"INPUT_POLICY": "tdd", "INPUT_PHASE": "GREEN"})
	l.fake.SetPermission("octo", "loop", "maintainer", "write")
	l.fake.SetPermission("octo", "loop", "drive-by", "read")
	phase := func() any { return decision(t, l.outputs["decision"])["phase"] }
	if code := l.pullRequestRun(); code != 1 || l.outputs["state"] != "OPEN" || phase() != "GREEN" {
		t.Fatalf("GREEN: got exit %d, %s in %v\n%s", code, l.state(), phase(), l.log)
	}
	opened := l.lastEvent()

	if code := l.commentRun("drive-by", "/loopbreaker skip-phase"); code != 1 || l.outputs["state"] != "OPEN" || phase() != "GREEN" || l.lastEvent() != opened {
		t.Errorf("skip-phase by a reader: got exit %d, %s in %v, last event %q", code, l.state(), phase(), l.lastEvent())
	}
	if got := l.labels(); !slices.Equal(got, []string{present.LabelOpen}) {
		t.Errorf("skip-phase by a reader: got labels %v, want %s", got, present.LabelOpen)
	}
	code := l.commentRun("maintainer", "/loopbreaker skip-phase")
	if code != 0 || l.outputs["state"] != "CLOSED" || phase() != "REFACTOR" || l.outputs["iteration"] != "4" ||
		l.lastEvent() != "phase skipped by maintainer: GREEN skipped, REFACTOR next" {
		t.Errorf("skip-phase: got exit %d, %s in %v at iteration %s, last event %q", code, l.state(), phase(), l.outputs["iteration"], l.lastEvent())
	}
	if got := l.labels(); len(got) != 0 {
		t.Errorf("skip-phase: labels %v left on", got)
	}
	if st := l.lastStatus("HEAD"); st.State != "success" {
		t.Errorf("skip-phase: the head's status is %+v, want success", st)
	}

	skipped := l.lastEvent()
	if l.commentRun("drive-by", "/loopbreaker guide stop testing"); strings.Contains(l.outputs["failure-context"], "Guidance") || l.lastEvent() != skipped {
		t.Errorf("guide by a reader: got failure-context %q, last event %q", l.outputs["failure-context"], l.lastEvent())
	}
	if l.commentRun("maintainer", "/loopbreaker guide use the <b>v2</b> API\x1b[31m"); !strings.HasSuffix(l.outputs["failure-context"], "Guidance from maintainer: use the <b>v2</b> API") {
		t.Errorf("guide: got failure-context %q", l.outputs["failure-context"])
	}
	if body, _ := l.sticky(); !strings.Contains(body, "**Guidance from maintainer** (in the agent's next prompt): use the &lt;b&gt;v2&lt;/b&gt; API\n") {
		t.Errorf("the sticky comment does not show the guidance escaped:\n%.1500s", body)
	}
	if l.pullRequestRun(); l.outputs["iteration"] != "5" || phase() != "REFACTOR" || !strings.HasSuffix(l.outputs["failure-context"], " Guidance from maintainer: use the <b>v2</b> API") {
		t.Errorf("the next iteration: got %s in %v at iteration %s, failure-context %q", l.state(), phase(), l.outputs["iteration"], l.outputs["failure-context"])
	}
	if l.pullRequestRun(); strings.Contains(l.outputs["failure-context"], "Guidance") {
		t.Errorf("the iteration after: got failure-context %q, want no guidance", l.outputs["failure-context"])
	}
}
