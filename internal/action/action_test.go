package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// loopRepo is a git repository: a base commit, then commits that change
// the given files (nil: an empty commit, the stagnant case).
type loopRepo struct {
	dir        string
	base, head string
}

func newLoop(t *testing.T, steps ...map[string]string) *loopRepo {
	t.Helper()
	return newLoopWithPolicy(t, "extends = \"default\"\n", steps...)
}

// newLoopWithPolicy is newLoop whose base commit holds the policy file
// .github/loopbreaker.toml with the given text.
func newLoopWithPolicy(t *testing.T, policyText string, steps ...map[string]string) *loopRepo {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	commit := func(i int, files map[string]string) string {
		for name, content := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := wt.Add(name); err != nil {
				t.Fatal(err)
			}
		}
		sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: start.Add(time.Duration(i) * 10 * time.Minute)}
		h, err := wt.Commit(fmt.Sprintf("iteration %d", i), &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	l := &loopRepo{dir: dir}
	l.base = commit(0, map[string]string{"main.go": "package main\n", ".github/loopbreaker.toml": policyText})
	l.head = l.base
	for i, s := range steps {
		l.head = commit(i+1, s)
	}
	return l
}

// harness runs the action in-process against the HTTP fake holding
// octo/loop and its pull request 7, read through the REST client.
type harness struct {
	t       *testing.T
	fake    *fakegithub.Server
	loop    *loopRepo
	env     map[string]string
	out     string // GITHUB_OUTPUT
	summary string
	log     bytes.Buffer
	sleeps  []time.Duration
	now     time.Time
}

// newHarness is newHTTPHarness whose GitHub dates what the run writes
// (comments, label events) by the run's clock.
func newHarness(t *testing.T, loop *loopRepo, labels ...string) *harness {
	t.Helper()
	h := newHTTPHarness(t, loop, labels...)
	h.fake.SetClock(func() time.Time { return h.now })
	return h
}

func newHTTPHarness(t *testing.T, loop *loopRepo, labels ...string) *harness {
	t.Helper()
	h := newBareHarness(t, loop, labels)
	h.fake = fakegithub.New()
	t.Cleanup(h.fake.Close)
	h.fake.AddPull("octo", "loop", h.pull(labels))
	h.env["GITHUB_API_URL"] = h.fake.URL
	return h
}

// pull is pull request 7 at the loop's head, carrying labels.
func (h *harness) pull(labels []string) fakegithub.Pull {
	return fakegithub.Pull{Number: 7, Title: "agent loop", User: "agent", HeadSHA: h.loop.head, HeadRef: "agent/loop",
		BaseRef: "main", BaseSHA: h.loop.base, Labels: labels, CreatedAt: start}
}

// newBareHarness is the workspace, the event and the environment of a
// pull_request run on pull request 7.
func newBareHarness(t *testing.T, loop *loopRepo, labels []string) *harness {
	t.Helper()
	tmp := t.TempDir()
	h := &harness{t: t, loop: loop, now: start.Add(24 * time.Hour),
		out: filepath.Join(tmp, "output"), summary: filepath.Join(tmp, "summary")}
	event := map[string]any{
		"action": "synchronize", "number": 7,
		"pull_request": map[string]any{"number": 7, "created_at": start, "labels": labelObjects(labels), "user": map[string]any{"login": "agent", "type": "User"},
			"head": map[string]any{"sha": loop.head, "ref": "agent/loop", "repo": map[string]any{"full_name": "octo/loop"}},
			"base": map[string]any{"sha": loop.base, "ref": "main", "repo": map[string]any{"full_name": "octo/loop"}}},
		"repository": map[string]any{"full_name": "octo/loop", "default_branch": "main"},
	}
	evPath := filepath.Join(tmp, "event.json")
	data, _ := json.Marshal(event)
	os.WriteFile(evPath, data, 0o644)
	h.env = map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": evPath,
		"GITHUB_REPOSITORY": "octo/loop", "GITHUB_WORKSPACE": loop.dir,
		"GITHUB_RUN_ID": "100", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_OUTPUT": h.out, "GITHUB_STEP_SUMMARY": h.summary,
		"INPUT_TOKEN": fakegithub.DefaultToken,
	}
	return h
}

func labelObjects(labels []string) []map[string]string {
	out := []map[string]string{}
	for _, l := range labels {
		out = append(out, map[string]string{"name": l})
	}
	return out
}

func (h *harness) run() int {
	h.t.Helper()
	os.Remove(h.out)
	os.Remove(h.summary)
	h.log.Reset()
	return Run(context.Background(), Env{
		Getenv: func(k string) string { return h.env[k] },
		Stdout: &h.log,
		Now:    func() time.Time { return h.now },
		Sleep: func(_ context.Context, d time.Duration) error {
			h.sleeps = append(h.sleeps, d)
			return nil
		},
	})
}

// client is a REST client on the fake, for what a test does as someone
// else (an audit, the agent's token).
func (h *harness) client() *github.Client {
	h.t.Helper()
	c, err := github.New(github.Options{Token: fakegithub.DefaultToken, BaseURL: h.fake.URL, Owner: "octo", Repo: "loop",
		Now: func() time.Time { return h.now }, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

// permission sets login's permission on octo/loop.
func (h *harness) permission(login, perm string) { h.fake.SetPermission("octo", "loop", login, perm) }

// comment adds a comment by login on pull request n.
func (h *harness) comment(n int, login, userType, body string, at time.Time) int64 {
	return h.fake.AddComment("octo", "loop", n, login, userType, body, at)
}

// labelEvent records a past labeled or unlabeled event on pull request n.
func (h *harness) labelEvent(n int, event, label, login, userType string, at time.Time) {
	h.fake.AddLabelEvent("octo", "loop", n, event, label, login, userType, at)
}

// labels are the labels on pull request n.
func (h *harness) labels(n int) []string { return h.fake.IssueLabels("octo", "loop", n) }

// comments are the comments on pull request n.
func (h *harness) comments(n int) []fakegithub.Comment { return h.fake.Comments("octo", "loop", n) }

// artifact makes zip the record artifact of run runID on branch at head.
func (h *harness) artifact(runID int64, branch, head string, at time.Time, zip []byte) {
	h.fake.AddRun("octo", "loop", fakegithub.Run{ID: runID, HeadBranch: branch, HeadSHA: head, CreatedAt: at})
	h.fake.AddArtifact("octo", "loop", runID, "loopbreaker-record", zip, false)
}

// fail makes every call whose method is method and whose path below
// /repos/octo/loop starts with path answer 500 (a transient failure,
// retried until the client gives up).
func (h *harness) fail(method, path string) {
	h.fake.Inject(method, "/repos/octo/loop"+path, fakegithub.Fault{Status: 500})
}

// calls counts the calls to octo/loop whose method is method and whose
// path below /repos/octo/loop matches the regular expression path whole.
func (h *harness) calls(method, path string) int {
	return h.fake.CallsMatching(method, regexp.MustCompile("^/repos/octo/loop"+path+"$"))
}

func (h *harness) outputs() map[string]string {
	h.t.Helper()
	data, err := os.ReadFile(h.out)
	if err != nil {
		h.t.Fatalf("no outputs: %v\nlog:\n%s", err, h.log.String())
	}
	return parseOutputFile(h.t, string(data))
}

func (h *harness) summaryText() string {
	data, _ := os.ReadFile(h.summary)
	return string(data)
}

// stagnant is a loop whose last three iterations changed nothing.
func stagnant(t *testing.T) *loopRepo {
	return newLoop(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, nil, nil, nil)
}

func TestOpenFailsLabelsCommentsAndSetsStatus(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, stagnant(t))
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d\n%s", code, exitOpen, h.log.String())
	}
	o := h.outputs()
	if o["state"] != "OPEN" || o["allow-continue"] != "false" || o["trigger"] != "no_progress" || o["iteration"] != "4" {
		t.Errorf("got outputs %v", o)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(o["decision"]), &d); err != nil || d["state"] != "OPEN" {
		t.Errorf("decision output is not the JSON decision: %v", err)
	}
	if got := h.fake.IssueLabels("octo", "loop", 7); !contains(got, present.LabelOpen) {
		t.Errorf("got labels %v, want %s", got, present.LabelOpen)
	}
	cs := h.fake.Comments("octo", "loop", 7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, present.Marker) || !strings.Contains(cs[0].Body, "no progress") {
		t.Fatalf("got %d comments, want one sticky comment with the reason", len(cs))
	}
	st := h.fake.Statuses("octo", "loop", h.loop.head)
	if len(st) != 1 || st[0].State != "failure" || st[0].Context != "loopbreaker" {
		t.Errorf("got statuses %+v, want one failure named loopbreaker", st)
	}
	if s := h.summaryText(); !strings.Contains(s, "loopbreaker: OPEN") || !strings.Contains(s, "### Iterations") {
		t.Errorf("summary lacks the report or the table:\n%s", s)
	}
	if !strings.Contains(h.log.String(), "::error title=loopbreaker OPEN") {
		t.Errorf("no error annotation in the log:\n%s", h.log.String())
	}
	if _, err := os.Stat(filepath.Join(h.loop.dir, ".loopbreaker", "record.json")); err != nil {
		t.Errorf("no record written: %v", err)
	}
}

func TestStickyCommentIsEditedInPlace(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, stagnant(t))
	for i := 0; i < 4; i++ {
		h.now = h.now.Add(time.Hour)
		h.env["GITHUB_RUN_ID"] = fmt.Sprint(100 + i)
		h.run()
	}
	if cs := h.fake.Comments("octo", "loop", 7); len(cs) != 1 {
		t.Errorf("got %d comments after 4 runs, want 1", len(cs))
	}
}

func TestCallsPerRunStaySmall(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, newLoop(t, map[string]string{"a.go": "package main\n"}, map[string]string{"b.go": "package main\n"}))
	h.run() // first run: creates nothing (CLOSED), sets the status
	h.fake.ResetCalls()
	h.env["GITHUB_RUN_ID"] = "101"
	h.now = h.now.Add(time.Hour)
	if code := h.run(); code != exitContinue {
		t.Fatalf("got exit %d\n%s", code, h.log.String())
	}
	if n := h.fake.Calls(); n > 5 {
		t.Errorf("a steady check run made %d API calls, want at most 5: %v", n, h.fake.CallLog())
	}
}

func TestNoTokenStillDecides(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t))
	delete(h.env, "INPUT_TOKEN")
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d", code, exitOpen)
	}
	if h.outputs()["state"] != "OPEN" || h.fake.Calls() != 0 {
		t.Errorf("got state %q and %d API calls, want OPEN and none", h.outputs()["state"], h.fake.Calls())
	}
	if !strings.Contains(h.log.String(), "::warning::loopbreaker: no token") {
		t.Errorf("no warning about the missing token:\n%s", h.log.String())
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, stagnant(t))
	h.env["INPUT_DRY-RUN"] = "true"
	if code := h.run(); code != exitContinue {
		t.Fatalf("dry run: got exit %d, want 0", code)
	}
	if len(h.fake.Comments("octo", "loop", 7)) != 0 || len(h.fake.IssueLabels("octo", "loop", 7)) != 0 || len(h.fake.Statuses("octo", "loop", h.loop.head)) != 0 {
		t.Errorf("dry run wrote to GitHub")
	}
	if s := h.summaryText(); !strings.Contains(s, "writes that were not made") || !strings.Contains(s, "would stop") {
		t.Errorf("summary does not show what would have been written:\n%s", s)
	}
}

func TestTrustedCommentResets(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t), present.LabelOpen)
	h.permission("maintainer", "write")
	h.permission("drive-by", "read")
	h.comment(7, "drive-by", "User", "/loopbreaker reset", start.Add(2*time.Hour))
	h.comment(7, "copilot[bot]", "Bot", "/loopbreaker reset", start.Add(2*time.Hour))
	if code := h.run(); code != exitOpen {
		t.Fatalf("resets by a reader and a bot: got exit %d, want %d", code, exitOpen)
	}
	// The reset comes after the first run; the next run, a stall in the
	// watch after the reset, half-opens.
	h.comment(7, "maintainer", "User", "/loopbreaker reset", h.now.Add(30*time.Minute))
	h.env["GITHUB_RUN_ID"] = "101"
	h.now = h.now.Add(time.Hour)
	if code := h.run(); code != exitContinue {
		t.Fatalf("reset by a maintainer: got exit %d, want 0\n%s", code, h.log.String())
	}
	if h.outputs()["state"] == "OPEN" {
		t.Errorf("still OPEN after a trusted reset")
	}
}

func TestLabelRemovedByBotIsNoReset(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t)) // the label is already gone from the PR
	h.labelEvent(7, "unlabeled", present.LabelOpen, "github-actions[bot]", "Bot", start.Add(30*time.Hour))
	if code := h.run(); code != exitOpen {
		t.Fatalf("label removed by the workflow's token: got exit %d, want %d", code, exitOpen)
	}
	h2 := newHarness(t, stagnant(t))
	h2.permission("maintainer", "admin")
	h2.labelEvent(7, "unlabeled", present.LabelOpen, "maintainer", "User", start.Add(30*time.Hour))
	h2.now = start.Add(31 * time.Hour)
	if code := h2.run(); code != exitContinue {
		t.Fatalf("label removed by a maintainer: got exit %d, want 0\n%s", code, h2.log.String())
	}
}

func TestPolicyComesFromTheBaseBranch(t *testing.T) {
	t.Parallel()
	// The loop loosens its own policy on its branch; the base's policy rules.
	loop := newLoop(t,
		map[string]string{".github/loopbreaker.toml": "extends = \"default\"\n[rules.no_progress]\nenabled = false\n"},
		nil, nil, nil)
	h := newHarness(t, loop)
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d: the PR head's policy was used\n%s", code, exitOpen, h.log.String())
	}
}

func TestDisabledByLabel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t), present.LabelDisabled)
	h.permission("maintainer", "write")
	h.labelEvent(7, "labeled", present.LabelDisabled, "maintainer", "User", start.Add(time.Hour))
	if code := h.run(); code != exitContinue {
		t.Fatalf("got exit %d, want 0", code)
	}
	if h.outputs()["state"] != "DISABLED" || !strings.Contains(h.log.String(), "::notice::loopbreaker is disabled") {
		t.Errorf("got %v and log %q", h.outputs(), h.log.String())
	}
}

func TestBadInputExits2(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t))
	h.env["INPUT_ON-OPEN"] = "explode"
	if code := h.run(); code != exitError || !strings.Contains(h.log.String(), "::error::loopbreaker: input on-open") {
		t.Errorf("got exit %d log %q, want 2 naming the input", code, h.log.String())
	}
	h.env["INPUT_ON-OPEN"] = ""
	h.env["GITHUB_EVENT_PATH"] = filepath.Join(t.TempDir(), "gone.json")
	if code := h.run(); code != exitError || !strings.Contains(h.log.String(), "gone.json") {
		t.Errorf("got exit %d log %q, want 2 naming the payload", code, h.log.String())
	}
}

func TestAPIErrorsFollowOnAPIError(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t))
	h.fail("POST", "/statuses/")
	if code := h.run(); code != exitOpen {
		t.Fatalf("on-api-error continue: got exit %d, want the decision's %d", code, exitOpen)
	}
	if !strings.Contains(h.log.String(), "set the commit status") {
		t.Errorf("no warning about the failed call:\n%s", h.log.String())
	}
	h.env["INPUT_ON-API-ERROR"] = "fail"
	h.env["GITHUB_RUN_ID"] = "101"
	if code := h.run(); code != exitError {
		t.Errorf("on-api-error fail: got exit %d, want %d", code, exitError)
	}
}

func TestAgentTextDoesNotInjectCommands(t *testing.T) {
	t.Parallel()
	loop := stagnant(t)
	log := filepath.Join(loop.dir, "agent.log")
	os.WriteFile(log, []byte("Error: boom\n::set-output name=state::CLOSED\n%0A::add-mask::x\n"), 0o644)
	h := newHarness(t, loop)
	h.env["INPUT_AGENT-LOG"] = "agent.log"
	h.run()
	for _, line := range strings.Split(h.log.String(), "\n") {
		if strings.HasPrefix(line, "::set-output") || strings.HasPrefix(line, "::add-mask") {
			t.Errorf("agent text became a workflow command: %q", line)
		}
	}
	if h.outputs()["state"] != "OPEN" {
		t.Errorf("state output was changed by agent text")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
