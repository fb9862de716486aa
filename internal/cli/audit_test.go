package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// auditFake is a fake GitHub with one stuck and one healthy Copilot pull
// request of octo/loop.
func auditFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for n := 1; n <= 2; n++ {
		head := fmt.Sprintf("%040x", n)
		fake.AddPull("octo", "loop", fakegithub.Pull{Number: n, User: "Copilot", UserType: "Bot", HeadSHA: head, HeadRef: fmt.Sprint("copilot/", n),
			CreatedAt: at, Commits: []string{head}, Files: []string{"a.go"}})
	}
	var recs []ledger.Record
	for i := 0; i < 4; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(i + 1), RunAttempt: 1, Commit: fmt.Sprintf("%040x", 1), At: at.Add(time.Duration(i+1) * time.Hour), Errors: []ledger.Error{}})
	}
	digest, _ := present.EncodeDigest(recs)
	fake.AddComment("octo", "loop", 1, fakegithub.DefaultLogin, "Bot", present.Marker+"\n"+digest, at.Add(5*time.Hour))
	return fake
}

func runAuditCmd(fake *fakegithub.Server, vars map[string]string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	base := []string{"audit", "--repo", "", "--owner", "octo", "--name", "loop", "--api-url", fake.URL}
	code := Main(append(base, args...), Env{Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return vars[k] },
		Now:    func() time.Time { return time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC) }})
	return code, out.String(), errOut.String()
}

func TestAuditCommand(t *testing.T) {
	t.Parallel()
	fake := auditFake(t)
	vars := map[string]string{"AUDIT_TOKEN": fakegithub.DefaultToken}
	code, out, errOut := runAuditCmd(fake, vars, "--token-env", "AUDIT_TOKEN", "--format", "json")
	if code != 0 {
		t.Fatalf("got exit %d, want 0\n%s", code, errOut)
	}
	var res struct {
		Pulls []struct {
			Number int    `json:"number"`
			State  string `json:"state"`
		} `json:"pulls"`
		Operations struct{ Used int } `json:"operations"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	// #2's last progress (its commit) is older than #1's (its first run).
	if len(res.Pulls) != 2 || res.Pulls[1].Number != 1 || res.Pulls[1].State != "OPEN" || res.Pulls[0].State != "CLOSED" || res.Operations.Used == 0 {
		t.Errorf("got %+v", res)
	}
	if l := fake.IssueLabels("octo", "loop", 1); len(l) != 1 || l[0] != present.LabelOpen {
		t.Errorf("got labels %v", l)
	}

	// --fail-on-open exits 1; a run that stops early exits 0 and warns.
	if code, _, _ := runAuditCmd(fake, vars, "--token-env", "AUDIT_TOKEN", "--fail-on-open"); code != 1 {
		t.Errorf("--fail-on-open: got exit %d, want 1", code)
	}
	// Every pull request was created before the start date: none is audited.
	code, out, _ = runAuditCmd(fake, vars, "--token-env", "AUDIT_TOKEN", "--start-date", "2026-03-02", "--dry-run", "--format", "json")
	if code != 0 || !strings.Contains(out, "created before start-date") {
		t.Errorf("--start-date: got exit %d\n%s", code, out)
	}
	code, _, errOut = runAuditCmd(fake, vars, "--token-env", "AUDIT_TOKEN", "--repo", t.TempDir(), "--dry-run")
	if code != 0 || !strings.Contains(errOut, "not a git repository: commits come from the API") {
		t.Errorf("not a clone: got exit %d, stderr %q", code, errOut)
	}
	code, out, errOut = runAuditCmd(fake, vars, "--token-env", "AUDIT_TOKEN", "--operations-per-run", "4")
	if code != 0 || !strings.Contains(errOut, "warning: The audit stopped early") || !strings.Contains(out, "WARNING") {
		t.Errorf("stopped early: got exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

func TestAuditCommandUsage(t *testing.T) {
	t.Parallel()
	fake := auditFake(t)
	cases := []struct {
		vars map[string]string
		args []string
		want string
	}{
		{nil, nil, "no token in $GITHUB_TOKEN"},
		{map[string]string{"GITHUB_TOKEN": "t"}, []string{"--token", "secret"}, "flag provided but not defined: -token"},
		{map[string]string{"GITHUB_TOKEN": "t"}, []string{"--on-open", "fail"}, "--fail-on-open"},
		{map[string]string{"GITHUB_TOKEN": "t"}, []string{"--shard-index", "2", "--shard-count", "2"}, "--shard-index 2"},
		{map[string]string{"GITHUB_TOKEN": "t"}, []string{"--rate-limit-reserve", "lots"}, "rate-limit-reserve"},
		{map[string]string{"GITHUB_TOKEN": "t"}, []string{"--format", "yaml"}, "unknown format"},
		{map[string]string{"GITHUB_TOKEN": "t"}, []string{"--start-date", "last week"}, "not a date"},
	}
	for _, c := range cases {
		code, _, errOut := runAuditCmd(fake, c.vars, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: got exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	if n := fake.Calls(); n != 0 {
		t.Errorf("bad usage made %d API calls", n)
	}
}

// TestAuditCommandAppliesEveryLabelReset: `loopbreaker audit` against the
// fake, on a stuck pull request a maintainer reset twice by taking the
// open label off, after which it opened again and carries the label; the
// check run's newest record says it applied both resets. The audit folds
// both, as the check run does: the stagnation recurred after the second
// reset, and only the two runs since the third opening ran while OPEN.
func TestAuditCommandAppliesEveryLabelReset(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	hour := func(h float64) time.Time { return at.Add(time.Duration(h * float64(time.Hour))) }
	head := fmt.Sprintf("%040x", 1)
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddPull("octo", "loop", fakegithub.Pull{Number: 1, User: "Copilot", UserType: "Bot", HeadSHA: head, HeadRef: "copilot/1",
		CreatedAt: at, Commits: []string{head}, Files: []string{"a.go"}, Labels: []string{present.LabelOpen}})
	fake.SetPermission("octo", "loop", "maintainer", "write")
	var recs []ledger.Record
	for i := 1; i <= 10; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(i), RunAttempt: 1, Commit: head, At: hour(float64(i)), Errors: []ledger.Error{}})
	}
	// OPEN at the 4th run, reset at 4h30; OPEN at the 6th, reset at 6h30;
	// OPEN again at the 8th.
	recs[9].LabelResets = []ledger.LabelReset{{At: hour(4.5), By: "maintainer"}, {At: hour(6.5), By: "maintainer"}}
	for _, h := range []float64{4, 6, 8} {
		fake.AddLabelEvent("octo", "loop", 1, "labeled", present.LabelOpen, "github-actions[bot]", "Bot", hour(h))
	}
	for _, h := range []float64{4.5, 6.5} {
		fake.AddLabelEvent("octo", "loop", 1, "unlabeled", present.LabelOpen, "maintainer", "User", hour(h))
	}
	digest, _ := present.EncodeDigest(recs)
	fake.AddComment("octo", "loop", 1, fakegithub.DefaultLogin, "Bot", present.Marker+"\n"+digest, hour(11))

	code, out, errOut := runAuditCmd(fake, map[string]string{"AUDIT_TOKEN": fakegithub.DefaultToken}, "--token-env", "AUDIT_TOKEN", "--format", "json")
	if code != 0 {
		t.Fatalf("got exit %d, want 0\n%s", code, errOut)
	}
	var res struct {
		Pulls []struct {
			State  string `json:"state"`
			Reason string `json:"reason"`
			Scores []int  `json:"scores"`
		} `json:"pulls"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(res.Pulls) != 1 {
		t.Fatalf("got %d pull requests evaluated, want 1\n%s", len(res.Pulls), out)
	}
	pr := res.Pulls[0]
	// A run while OPEN is not scored (0); the runs between the resets are.
	want := []int{1, -3, -3, -3, -3, -3, -3, -3, 0, 0}
	if pr.State != "OPEN" || !strings.Contains(pr.Reason, "recurred after recovery") || fmt.Sprint(pr.Scores) != fmt.Sprint(want) {
		t.Errorf("got %s (%s) with scores %v; want OPEN after the resets with scores %v", pr.State, pr.Reason, pr.Scores, want)
	}
	if n := fake.CallsTo("GET", "/repos/octo/loop/issues/events"); n != 1 {
		t.Errorf("got %d reads of the repository's label events, want 1", n)
	}
	if l := fake.IssueLabels("octo", "loop", 1); len(l) != 1 || l[0] != present.LabelOpen {
		t.Errorf("got labels %v, want %s kept", l, present.LabelOpen)
	}
}
