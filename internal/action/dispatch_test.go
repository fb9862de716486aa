package action

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// handOver runs work in the agent's repository on the loop's head and
// writes what the agent's job hands over, `git bundle create START..HEAD`,
// to ws/agent.bundle; it returns the tip.
func handOver(t *testing.T, agent, ws, head string, minute *int, work func(commit func(msg string))) string {
	t.Helper()
	realGit(t, agent, *minute, "checkout", "-q", "-B", "agent/loop", head)
	work(func(msg string) {
		*minute++
		realGit(t, agent, *minute, "add", "-A")
		realGit(t, agent, *minute, "commit", "-q", "-m", msg)
	})
	realGit(t, agent, *minute, "bundle", "create", "-q", filepath.Join(ws, "agent.bundle"), head+"..HEAD")
	return realGit(t, agent, *minute, "rev-parse", "HEAD")
}

// parserHandOver is an iteration that adds the parser, handed over.
func parserHandOver(t *testing.T, loop *loopRepo, ws string) string {
	t.Helper()
	minute := 1
	return handOver(t, loop.dir, ws, loop.head, &minute, func(commit func(string)) {
		os.WriteFile(filepath.Join(loop.dir, "parse.go"), []byte("package main\n"), 0o644)
		commit("iteration 2: the parser")
	})
}

// branchAt fails the test unless the server's loop branch is at want.
func branchAt(t *testing.T, bare *git.Repository, want, why string) {
	t.Helper()
	ref, err := bare.Reference("refs/heads/agent/loop", true)
	if err != nil || ref.Hash().String() != want {
		t.Errorf("%s: the loop's branch on the server is at %v (%v), want %.12s", why, ref, err, want)
	}
}

// TestJudgeHoldsAHandoverThatChangesGitHub: nothing below .github/ comes
// from the agent (its workflow files would run with the repository's
// secrets; CODEOWNERS and dependabot steer reviews and updates; the
// policy steers the breaker). A handover whose commits change it, even to
// change it back, is not pushed: the iteration is judged on the branch as
// it is and the loop is held OPEN for a person (trigger force_open, the
// reason naming the commit and the path, escaped wherever it is shown).
// A merge of the default branch that brings the default branch's own
// workflow change is pushed, once the judge's clone knows that branch.
func TestJudgeHoldsAHandoverThatChangesGitHub(t *testing.T) {
	t.Parallel()
	loop, server, bare, ws, _ := judgeSetup(t)
	agent := loop.dir
	h := newHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.dispatched()
	h.env["INPUT_BUNDLE"] = "agent.bundle"
	minute := 1
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(agent, path)), 0o755)
		if err := os.WriteFile(filepath.Join(agent, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hostileName := ".github/<img src=x onerror=alert(1)>.md"
	for _, c := range []struct {
		name, path string
		work       func(commit func(string))
	}{
		{"a workflow", ".github/workflows/loop.yml", func(commit func(string)) {
			write("parse.go", "package main\n")
			commit("iteration 2: the parser")
			write(".github/workflows/loop.yml", "on: push\njobs: {x: {runs-on: ubuntu-latest, steps: [{run: env}]}}\n")
			commit("iteration 2: a faster workflow")
		}},
		{"the policy", ".github/loopbreaker.toml", func(commit func(string)) {
			write(".github/loopbreaker.toml", "extends = \"default\"\n[rules.no_progress]\nenabled = false\n")
			commit("iteration 2: tune the policy")
		}},
		{"CODEOWNERS, added and taken back", ".github/CODEOWNERS", func(commit func(string)) {
			write(".github/CODEOWNERS", "* @agent\n")
			commit("iteration 2: owners")
			realGit(t, agent, minute, "rm", "-q", ".github/CODEOWNERS")
			commit("iteration 2: no owners after all")
		}},
		{"a name made to inject", hostileName, func(commit func(string)) {
			write(hostileName, "hi\n")
			commit("iteration 2: notes")
		}},
	} {
		tip := handOver(t, agent, ws, loop.head, &minute, c.work)
		h.nextRun()
		if code := h.run(); code != exitOpen {
			t.Fatalf("%s: got exit %d, want %d (held OPEN)\n%s", c.name, code, exitOpen, h.log.String())
		}
		o := h.outputs()
		if o["state"] != "OPEN" || o["trigger"] != "force_open" || o["allow-continue"] != "false" || !strings.Contains(o["reason"], "not pushed") {
			t.Errorf("%s: got %s %s allow-continue %s: %s, want OPEN force_open false, not pushed", c.name, o["state"], o["trigger"], o["allow-continue"], o["reason"])
		}
		if c.path != hostileName && !strings.Contains(o["reason"], c.path) {
			t.Errorf("%s: the reason does not name %s: %s", c.name, c.path, o["reason"])
		}
		branchAt(t, bare, loop.head, c.name)
		if head, _ := checkoutHead(t, ws); head != loop.head || tip == loop.head {
			t.Errorf("%s: the judge's HEAD moved to %s", c.name, head)
		}
	}
	if got := h.labels(7); !contains(got, present.LabelOpen) {
		t.Errorf("the held loop's pull request has labels %v, want %s", got, present.LabelOpen)
	}
	for _, cm := range h.comments(7) {
		if strings.Contains(cm.Body, "<img") {
			t.Errorf("the agent's file name reached the comment unescaped:\n%s", cm.Body)
		}
	}

	// A person's workflow change on main, merged into the loop's branch.
	remote := strings.Replace(server, "://", "://x-access-token:"+fakegithub.DefaultToken+"@", 1) + "/octo/loop.git"
	realGit(t, agent, minute, "checkout", "-q", "-B", "main-moved", loop.base)
	write(".github/workflows/ci.yml", "on: push\njobs: {test: {runs-on: ubuntu-latest, steps: [{run: go test ./...}]}}\n")
	realGit(t, agent, minute, "add", "-A")
	realGit(t, agent, minute, "commit", "-q", "-m", "ci: test on every push")
	realGit(t, agent, minute, "push", "-q", remote, "main-moved:main")
	merged := handOver(t, agent, ws, loop.head, &minute, func(func(string)) {
		realGit(t, agent, minute, "merge", "-q", "--no-ff", "-m", "iteration 3: merge main", "main-moved")
	})
	h.nextRun()
	if code := h.run(); code != exitOpen || !strings.Contains(h.outputs()["reason"], ".github/workflows/ci.yml") {
		t.Errorf("a merge of a main the judge does not know: got exit %d, want it held (%s)", code, h.outputs()["reason"])
	}
	// actions/checkout with fetch-depth: 0 fetches every branch.
	realGit(t, ws, minute, "fetch", "-q", remote, "main:refs/remotes/origin/main")
	h.nextRun()
	if code := h.run(); code == exitError || h.outputs()["trigger"] == "force_open" {
		t.Fatalf("a merge of main: got exit %d, %s, want it pushed\n%s", code, h.outputs()["reason"], h.log.String())
	}
	branchAt(t, bare, merged, "a merge of main")
}

// TestJudgeRunsOnlyTheDefaultBranchsWorkflow: GitHub runs the workflow
// file of the event's ref. A judge run dispatched on the loop's branch
// (the file the agent's commits change) refuses to push; the dispatch the
// examples make (on the default branch, with the loop's branch as an
// input) starts a run whose ref, as the fake gives it by GitHub's rules,
// is the default branch, and that judge pushes (never to the default
// branch itself).
func TestJudgeRunsOnlyTheDefaultBranchsWorkflow(t *testing.T) {
	t.Parallel()
	loop, server, bare, ws, _ := judgeSetup(t)
	tip := parserHandOver(t, loop, ws)
	h := newHTTPHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.env["INPUT_BUNDLE"] = "agent.bundle"
	dispatch := func(ref string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"ref": ref, "inputs": map[string]string{"branch": "agent/loop"}})
		req, _ := http.NewRequest("POST", h.fake.URL+"/repos/octo/loop/actions/workflows/agent-loop.yml/dispatches", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+fakegithub.DefaultToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("dispatch on %s: %v %v", ref, resp, err)
		}
		resp.Body.Close()
		d := h.fake.Dispatches("octo", "loop")
		payload, runRef, err := h.fake.WorkflowDispatchEvent("octo", "loop", d[len(d)-1])
		if err != nil {
			t.Fatal(err)
		}
		h.httpEvent("workflow_dispatch", payload, runRef)
		h.env["INPUT_BRANCH"] = "agent/loop"
		h.nextRun()
	}
	dispatch("agent/loop") // gh workflow run --ref agent/loop, as the examples did
	if code := h.run(); code != exitError || !strings.Contains(h.log.String(), "workflow file") {
		t.Fatalf("a judge running the loop branch's workflow file: got exit %d, want %d naming it\n%s", code, exitError, h.log.String())
	}
	branchAt(t, bare, loop.head, "the loop branch's workflow")
	dispatch("main")
	if h.env["GITHUB_REF"] != "refs/heads/main" {
		t.Fatalf("the fake runs a dispatch on main at %s", h.env["GITHUB_REF"])
	}
	h.env["INPUT_BRANCH"] = "" // a workflow that forgot the input: the loop's branch would be main
	if code := h.run(); code != exitError || !strings.Contains(h.log.String(), "default branch main") {
		t.Fatalf("a judge without the branch input: got exit %d, want %d refusing to push to main\n%s", code, exitError, h.log.String())
	}
	h.env["INPUT_BRANCH"] = "agent/loop"
	if code := h.run(); code == exitError {
		t.Fatalf("a judge running the default branch's workflow file: got exit %d\n%s", code, h.log.String())
	}
	branchAt(t, bare, tip, "the default branch's workflow")
}

// TestPushTokenStartsTheAgentsCI: a push with the workflow's token starts
// no workflow run, so the judge pushes with push-token when it is given (a
// GitHub App's token, which the git server here alone accepts) and with
// token otherwise.
func TestPushTokenStartsTheAgentsCI(t *testing.T) {
	t.Parallel()
	loop := newLoop(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	server, bare := gitServer(t, loop, "ghs_app")
	ws := t.TempDir()
	if _, err := git.PlainClone(ws, false, &git.CloneOptions{URL: server + "/octo/loop.git", ReferenceName: "refs/heads/agent/loop",
		SingleBranch: true, Auth: checkout.Auth(server, "ghs_app")}); err != nil {
		t.Fatal(err)
	}
	tip := parserHandOver(t, loop, ws)
	h := newHTTPHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.dispatched()
	h.env["INPUT_BUNDLE"] = "agent.bundle"
	if code := h.run(); code != exitError {
		t.Fatalf("a push with the workflow's token to a server that wants the App's: got exit %d, want %d", code, exitError)
	}
	branchAt(t, bare, loop.head, "the workflow's token")
	checkoutAt(t, ws, loop.head) // the next judge's fresh checkout
	h.env["INPUT_PUSH-TOKEN"] = "ghs_app"
	h.nextRun()
	if code := h.run(); code == exitError {
		t.Fatalf("push-token: got exit %d\n%s", code, h.log.String())
	}
	branchAt(t, bare, tip, "push-token")
	if strings.Contains(h.log.String()+h.summaryText(), "ghs_app") {
		t.Error("the push token reached the log or the summary")
	}
}

// TestGateRefusesAForksLoop: a fork's pull request has no agent loop in
// this repository: its head branch is the fork's, and a person's
// /loopbreaker resume on it must not dispatch this repository's branch of
// the same name. The gate says proceed=false and why.
func TestGateRefusesAForksLoop(t *testing.T) {
	t.Parallel()
	loop := newLoop(t, map[string]string{"parse.go": "package main\n"})
	h := newBareHarness(t, loop, nil)
	h.fake = fakegithub.New()
	t.Cleanup(h.fake.Close)
	h.env["GITHUB_API_URL"] = h.fake.URL
	p := h.pull(nil)
	p.Fork, p.User = true, "carol"
	h.fake.AddPull("octo", "loop", p)
	h.fake.SetPermission("octo", "loop", "maintainer", "write")
	id := h.comment(7, "maintainer", "User", "/loopbreaker resume", h.now.Add(-time.Minute))
	payload, ref, err := h.fake.IssueCommentEvent("octo", "loop", 7, id)
	if err != nil {
		t.Fatal(err)
	}
	h.httpEvent("issue_comment", payload, ref)
	h.env["INPUT_MODE"] = "gate"
	if code := h.run(); code != exitContinue {
		t.Fatalf("gate: got exit %d, want 0\n%s", code, h.log.String())
	}
	if o := h.outputs(); o["proceed"] != "false" || !strings.Contains(h.log.String(), "fork") {
		t.Errorf("a resume on a fork's pull request: got proceed %q, want false and a notice naming the fork\n%s", o["proceed"], h.log.String())
	}
}
