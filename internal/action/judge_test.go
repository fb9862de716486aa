package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/revlist"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/checkout/checkouttest"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// dispatched makes the harness's run a workflow_dispatch run of the agent
// loop as the examples start it: on the default branch (whose workflow
// file runs), for the loop's branch agent/loop given as the branch input,
// with no pull request in its payload.
func (h *harness) dispatched() {
	h.t.Helper()
	data, _ := json.Marshal(map[string]any{"ref": "refs/heads/main", "inputs": map[string]any{"branch": "agent/loop"},
		"repository": map[string]any{"full_name": "octo/loop", "default_branch": "main"},
		"sender":     map[string]any{"login": "github-actions[bot]", "type": "Bot"}})
	if err := os.WriteFile(h.env["GITHUB_EVENT_PATH"], data, 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.env["GITHUB_EVENT_NAME"] = "workflow_dispatch"
	h.env["GITHUB_REF"] = "refs/heads/main"
	h.env["GITHUB_SHA"] = h.loop.base
	h.env["INPUT_BRANCH"] = "agent/loop"
}

// TestGateRefusesWhileOpen: the gate runs before the agent. While the
// breaker is OPEN it says proceed=false and writes nothing; after a
// maintainer's /loopbreaker resume it lets the agent start.
func TestGateRefusesWhileOpen(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, stagnant(t))
	h.fake.SetClock(func() time.Time { return h.now })
	h.env["INPUT_DIGEST-KEY"] = "judge-secret"
	h.dispatched()
	if code := h.run(); code != exitOpen {
		t.Fatalf("judge: got exit %d, want %d\n%s", code, exitOpen, h.log.String())
	}
	h.env["INPUT_MODE"] = "gate"
	h.nextRun()
	h.fake.ResetCalls()
	if code := h.run(); code != exitContinue {
		t.Fatalf("gate: got exit %d, want 0\n%s", code, h.log.String())
	}
	if o := h.outputs(); o["proceed"] != "false" || o["state"] != "OPEN" {
		t.Errorf("gate while OPEN: got proceed %q state %q, want false OPEN", o["proceed"], o["state"])
	}
	for _, c := range h.fake.CallLog() {
		if !strings.HasPrefix(c, "GET ") {
			t.Errorf("the gate wrote to GitHub: %s", c)
		}
	}
	if n := h.fake.Calls(); n > 4 {
		t.Errorf("the gate made %d calls, want a few: %v", n, h.fake.CallLog())
	}
	h.fake.SetPermission("octo", "loop", "maintainer", "write")
	h.fake.AddComment("octo", "loop", 7, "maintainer", "User", "/loopbreaker resume", h.now.Add(time.Minute))
	h.nextRun()
	if code := h.run(); code != exitContinue {
		t.Fatalf("gate after resume: got exit %d, want 0", code)
	}
	if o := h.outputs(); o["proceed"] != "true" {
		t.Errorf("gate after a maintainer's resume: got proceed %q, want true\n%s", o["proceed"], h.log.String())
	}
}

// gitServer serves a copy of the loop's repository as GitHub's octo/loop,
// with refs/pull/7/head, the loop's branch and main, over smart HTTP for
// the token (fetches and pushes), and returns its URL and the bare
// repository.
func gitServer(t *testing.T, loop *loopRepo, token string) (string, *git.Repository) {
	t.Helper()
	root := t.TempDir()
	bare := filepath.Join(root, "octo", "loop.git")
	if err := os.CopyFS(bare, os.DirFS(filepath.Join(loop.dir, ".git"))); err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainOpen(bare)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := r.Config()
	cfg.Core.IsBare = true
	cfg.Raw.Section("http").SetOption("receivepack", "true")
	if err := r.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]string{"refs/pull/7/head": loop.head, "refs/heads/agent/loop": loop.head, "refs/heads/main": loop.base} {
		if err := r.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), plumbing.NewHash(h))); err != nil {
			t.Fatal(err)
		}
	}
	return checkouttest.Serve(t, root, token), r
}

// writeBundle writes what `git bundle create out base..tip` writes for the
// loop's branch, from the agent's repository r.
func writeBundle(t *testing.T, r *git.Repository, base, tip, out string) {
	t.Helper()
	hashes, err := revlist.Objects(r.Storer, []plumbing.Hash{plumbing.NewHash(tip)}, []plumbing.Hash{plumbing.NewHash(base)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# v2 git bundle\n-%s iteration 0\n%s refs/heads/agent/loop\n\n", base, tip)
	if _, err := packfile.NewEncoder(&buf, r.Storer, false).Encode(hashes, 10); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// judgeSetup is a loop of one commit on its branch agent/loop, served by a
// git server that takes the judge's push, the judge's clone of it (ws) and
// the agent's repository to commit in.
func judgeSetup(t *testing.T) (loop *loopRepo, server string, bare *git.Repository, ws string, agent *git.Repository) {
	t.Helper()
	loop = newLoop(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	server, bare = gitServer(t, loop, fakegithub.DefaultToken)
	ws = t.TempDir()
	if _, err := git.PlainClone(ws, false, &git.CloneOptions{URL: server + "/octo/loop.git", ReferenceName: "refs/heads/agent/loop",
		SingleBranch: true, Auth: checkout.Auth(server, fakegithub.DefaultToken)}); err != nil {
		t.Fatal(err)
	}
	agent, err := git.PlainOpen(loop.dir)
	if err != nil {
		t.Fatal(err)
	}
	return loop, server, bare, ws, agent
}

// TestJudgePushesTheAgentsBundle: the agent's job commits without a write
// token and hands a bundle over; the judge applies it, pushes it to the
// loop's branch and decides on the pushed commit. A bundle that rewrites
// the branch (not a fast-forward) is refused and nothing is pushed.
func TestJudgePushesTheAgentsBundle(t *testing.T) {
	t.Parallel()
	loop, server, bare, ws, agent := judgeSetup(t)
	tip := commitOn(t, agent, loop.head, "iteration 2: parser", map[string]string{"parse.go": "package main\n\nfunc parse() {}\n"})
	writeBundle(t, agent, loop.head, tip, filepath.Join(ws, "agent.bundle"))
	rewrite := commitOn(t, agent, loop.base, "iteration 2, rewritten", map[string]string{"x.go": "package main\n"})
	writeBundle(t, agent, loop.base, rewrite, filepath.Join(ws, "rewrite.bundle"))

	h := newHTTPHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.dispatched()
	h.env["INPUT_BUNDLE"] = "rewrite.bundle"
	if code := h.run(); code != exitError || !strings.Contains(h.log.String(), "not a fast-forward") {
		t.Fatalf("rewritten branch: got exit %d, want %d naming the fault\n%s", code, exitError, h.log.String())
	}
	h.env["INPUT_BUNDLE"] = "agent.bundle"
	if code := h.run(); code != exitContinue {
		t.Fatalf("judge: got exit %d, want 0\n%s", code, h.log.String())
	}
	ref, err := bare.Reference("refs/heads/agent/loop", true)
	if err != nil || ref.Hash().String() != tip {
		t.Fatalf("the loop's branch on the server is at %v (%v), want the agent's %s", ref, err, tip)
	}
	if o := h.outputs(); o["iteration"] != "2" {
		t.Errorf("got iteration %s, want 2 (the pushed commit)\n%s", o["iteration"], h.summaryText())
	}
	if got := h.fake.Statuses("octo", "loop", tip); len(got) == 0 {
		t.Errorf("no status on the pushed commit %s", tip)
	}
}
