package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// auditRun is the action in mode audit on a schedule event, against the
// fake GitHub, with a workspace that is not a clone (commits come from the
// API).
type auditRun struct {
	t       *testing.T
	fake    *fakegithub.Server
	env     map[string]string
	out     string
	summary string
	log     bytes.Buffer
}

func newAuditRun(t *testing.T) *auditRun {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	tmp := t.TempDir()
	ev := filepath.Join(tmp, "event.json")
	os.WriteFile(ev, []byte(`{"schedule": "0 * * * *", "repository": {"full_name": "octo/loop", "default_branch": "main"}}`), 0o644)
	ws := filepath.Join(tmp, "workspace")
	os.Mkdir(ws, 0o755)
	a := &auditRun{t: t, fake: fake, out: filepath.Join(tmp, "output"), summary: filepath.Join(tmp, "summary")}
	a.env = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "schedule", "GITHUB_EVENT_PATH": ev,
		"GITHUB_REPOSITORY": "octo/loop", "GITHUB_WORKSPACE": ws, "GITHUB_API_URL": fake.URL,
		"GITHUB_RUN_ID": "900", "GITHUB_OUTPUT": a.out, "GITHUB_STEP_SUMMARY": a.summary,
		"INPUT_TOKEN": fakegithub.DefaultToken, "INPUT_MODE": "audit",
	}
	return a
}

// stuckPull adds a Copilot pull request whose loop ran four times on the
// same commit (the sticky comment's digest says so).
func (a *auditRun) stuckPull(n int) {
	head := fmt.Sprintf("%040x", n)
	a.fake.AddPull("octo", "loop", fakegithub.Pull{Number: n, Title: "task", User: "Copilot", UserType: "Bot", HeadSHA: head, HeadRef: fmt.Sprint("copilot/", n),
		CreatedAt: start, UpdatedAt: start.Add(time.Duration(n) * time.Minute), Commits: []string{head}, Files: []string{"a.go"}})
	var recs []ledger.Record
	for i := 0; i < 4; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(10 + i), RunAttempt: 1, Commit: head, At: start.Add(time.Duration(i+1) * time.Hour), Errors: []ledger.Error{}})
	}
	digest, _ := present.EncodeDigest(recs)
	a.fake.AddComment("octo", "loop", n, fakegithub.DefaultLogin, "Bot", present.Marker+"\n"+digest, start.Add(5*time.Hour))
}

func (a *auditRun) healthyPull(n int, user string) {
	head := fmt.Sprintf("%040x", n)
	a.fake.AddPull("octo", "loop", fakegithub.Pull{Number: n, Title: "task", User: user, UserType: "Bot", HeadSHA: head, HeadRef: fmt.Sprint("agent/", n),
		CreatedAt: start, UpdatedAt: start.Add(time.Duration(n) * time.Minute), Commits: []string{head}, Files: []string{"a.go"}})
}

func (a *auditRun) run() int {
	a.t.Helper()
	os.Remove(a.out)
	os.Remove(a.summary)
	a.log.Reset()
	return Run(context.Background(), Env{
		Getenv: func(k string) string { return a.env[k] },
		Stdout: &a.log,
		Now:    func() time.Time { return start.Add(48 * time.Hour) },
		Sleep:  func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
}

func (a *auditRun) outputs() map[string]string {
	a.t.Helper()
	data, err := os.ReadFile(a.out)
	if err != nil {
		a.t.Fatalf("no outputs: %v\nlog:\n%s", err, a.log.String())
	}
	return parseOutputFile(a.t, string(data))
}

func TestAuditModeLabelsAndReports(t *testing.T) {
	t.Parallel()
	a := newAuditRun(t)
	a.stuckPull(1)
	a.healthyPull(2, "devin-ai-integration[bot]")
	a.healthyPull(3, "alice") // not an agent account: skipped
	a.fake.AddPull("octo", "loop", fakegithub.Pull{Number: 4, User: "Copilot", UserType: "Bot", HeadSHA: fmt.Sprintf("%040x", 4),
		Labels: []string{present.LabelHalfOpen}, Commits: []string{fmt.Sprintf("%040x", 4)}, CreatedAt: start, UpdatedAt: start})
	if code := a.run(); code != exitContinue {
		t.Fatalf("got exit %d, want 0\n%s", code, a.log.String())
	}
	o := a.outputs()
	want := map[string]string{"tripped": "[1]", "half-open": "[]", "recovered": "[4]", "skipped": "[3]", "not-reached": "[]", "stopped-early": "false"}
	for k, v := range want {
		if o[k] != v {
			t.Errorf("output %s: got %q, want %q", k, o[k], v)
		}
	}
	if used := o["operations-used"]; used == "" || used == "0" || o["operations-remaining"] == "" {
		t.Errorf("got operations used %q, remaining %q", used, o["operations-remaining"])
	}
	var report map[string]any
	if err := json.Unmarshal([]byte(o["report"]), &report); err != nil || report["repository"] != "octo/loop" {
		t.Errorf("report output is not the JSON report: %v", err)
	}
	if l := a.fake.IssueLabels("octo", "loop", 1); !contains(l, present.LabelOpen) {
		t.Errorf("#1: got labels %v, want %s", l, present.LabelOpen)
	}
	if l := a.fake.IssueLabels("octo", "loop", 4); len(l) != 0 {
		t.Errorf("#4 recovered: got labels %v, want none", l)
	}
	if cs := a.fake.Comments("octo", "loop", 1); len(cs) != 1 {
		t.Errorf("#1: got %d comments, want only the existing sticky one (audit labels by default)", len(cs))
	}
	s, _ := os.ReadFile(a.summary)
	for _, w := range []string{"loopbreaker audit: octo/loop", "| PR | author | iterations | state | trigger | last progress | score |", "| #1 ", "`no_progress`", "API calls:"} {
		if !strings.Contains(string(s), w) {
			t.Errorf("summary lacks %q:\n%s", w, s)
		}
	}
	if !strings.Contains(a.log.String(), "::warning title=loopbreaker audit::1 pull requests are OPEN (stuck): #1") {
		t.Errorf("no warning for the stuck pull request:\n%s", a.log.String())
	}
	if strings.Contains(a.log.String(), "stopped early") {
		t.Errorf("a complete run warned about stopping early:\n%s", a.log.String())
	}
}

func TestAuditStoppedEarlyIsNeverSilent(t *testing.T) {
	t.Parallel()
	a := newAuditRun(t)
	for n := 1; n <= 6; n++ {
		a.healthyPull(n, "Copilot")
	}
	a.env["INPUT_OPERATIONS-PER-RUN"] = "7"
	if code := a.run(); code != exitContinue {
		t.Fatalf("got exit %d, want 0\n%s", code, a.log.String())
	}
	o := a.outputs()
	if o["stopped-early"] != "true" || o["not-reached"] == "[]" {
		t.Errorf("got stopped-early %q, not-reached %q", o["stopped-early"], o["not-reached"])
	}
	if !strings.Contains(a.log.String(), "::warning title=loopbreaker audit stopped early::") {
		t.Errorf("no warning annotation:\n%s", a.log.String())
	}
	if s, _ := os.ReadFile(a.summary); !strings.Contains(string(s), "> [!WARNING]") || !strings.Contains(string(s), "not reached") {
		t.Errorf("the summary does not warn:\n%s", s)
	}
}

func TestAuditFailOnOpenAndDryRun(t *testing.T) {
	t.Parallel()
	a := newAuditRun(t)
	a.stuckPull(1)
	a.env["INPUT_ON-OPEN"] = "label,fail"
	a.env["INPUT_DRY-RUN"] = "true"
	if code := a.run(); code != exitContinue {
		t.Errorf("dry run: got exit %d, want 0", code)
	}
	if l := a.fake.IssueLabels("octo", "loop", 1); len(l) != 0 {
		t.Errorf("dry run: got labels %v, want none", l)
	}
	a.env["INPUT_DRY-RUN"] = "false"
	if code := a.run(); code != exitOpen {
		t.Errorf("on-open fail: got exit %d, want %d\n%s", code, exitOpen, a.log.String())
	}
}

// TestAuditPausedLoopNeverFails: with open-action pause a stuck pull
// request is OPEN and paused (both labels), and the audit passes even
// with on-open fail, as a check run does; an aborted one fails it.
func TestAuditPausedLoopNeverFails(t *testing.T) {
	t.Parallel()
	a := newAuditRun(t)
	a.stuckPull(1)
	a.env["INPUT_ON-OPEN"] = "label,fail"
	a.env["INPUT_OPEN-ACTION"] = "pause"
	if code := a.run(); code != exitContinue {
		t.Errorf("paused: got exit %d, want 0\n%s", code, a.log.String())
	}
	if l := a.fake.IssueLabels("octo", "loop", 1); !contains(l, present.LabelOpen) || !contains(l, present.LabelPaused) {
		t.Errorf("paused: got labels %v, want %s and %s", l, present.LabelOpen, present.LabelPaused)
	}
	a.env["INPUT_OPEN-ACTION"] = "abort"
	if code := a.run(); code != exitOpen {
		t.Errorf("aborted: got exit %d, want %d", code, exitOpen)
	}
}

func TestAuditInputs(t *testing.T) {
	t.Parallel()
	in, err := ReadInputs(func(k string) string {
		return map[string]string{"mode": "audit", "authors": "Copilot, bot-x", "exempt-labels": "keep\nhold", "exempt-draft": "true",
			"start-date": "2026-03-01", "operations-per-run": "50", "rate-limit-reserve": "300", "shard-index": "2", "shard-count": "3"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	a := in.Audit
	if !cmp.Equal(a.Filters.Authors, []string{"Copilot", "bot-x"}) || !cmp.Equal(a.Filters.ExemptLabels, []string{"keep", "hold"}) || !a.Filters.ExemptDraft ||
		!a.Filters.StartDate.Equal(start.Truncate(24*time.Hour)) || a.Budget != 50 || a.Reserve.Count != 300 || a.Shard.Index != 2 || a.Shard.Count != 3 {
		t.Errorf("got %+v", a)
	}
	if !cmp.Equal(in.OnOpen, []string{"label"}) || !cmp.Equal(in.OnHalfOpen, []string{"label"}) {
		t.Errorf("audit defaults: got on-open %v, on-half-open %v, want label and label", in.OnOpen, in.OnHalfOpen)
	}
	def, err := ReadInputs(func(k string) string { return map[string]string{"mode": "audit"}[k] })
	if err != nil || def.Audit.Budget != 200 || def.Audit.Shard.Count != 1 || def.Audit.Reserve.Percent != 10 {
		t.Errorf("defaults: got %+v %v", def.Audit, err)
	}
	for _, bad := range []map[string]string{
		{"shard-index": "3", "shard-count": "3"}, {"shard-count": "0"}, {"operations-per-run": "0"}, {"operations-per-run": "lots"},
		{"rate-limit-reserve": "200%"}, {"start-date": "yesterday"}, {"exempt-draft": "perhaps"}, {"repository": "octo"}, {"repository": "a/b/c"},
	} {
		_, err := ReadInputs(func(k string) string {
			if k == "mode" {
				return "audit"
			}
			return bad[k]
		})
		if err == nil {
			t.Errorf("%v: got no error", bad)
		}
	}
}

func TestAuditAnotherRepository(t *testing.T) {
	t.Parallel()
	a := newAuditRun(t)
	a.stuckPull(1)
	a.env["GITHUB_REPOSITORY"] = "octo/automation"
	a.env["INPUT_REPOSITORY"] = "octo/loop"
	if code := a.run(); code != exitContinue {
		t.Fatalf("got exit %d\n%s", code, a.log.String())
	}
	if o := a.outputs(); o["tripped"] != "[1]" {
		t.Errorf("got tripped %q, want [1] from octo/loop", o["tripped"])
	}
	if n := a.fake.CallsTo("", "/repos/octo/automation"); n != 0 {
		t.Errorf("got %d calls to the workflow's own repository, want none", n)
	}
}
