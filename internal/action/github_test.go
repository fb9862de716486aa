package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// The tests of this file run the action as GitHub runs it, not as the
// other tests' tidy workspace has it: on the test merge commit of a
// pull_request event, on the default branch of an issue_comment or a
// workflow_run, in a shallow clone.

// mergeLoop is a pull request's clone as actions/checkout leaves it for a
// pull_request event: main at the base, the head's commits on a branch,
// and HEAD detached at GitHub's test merge of the head into the base
// (refs/pull/N/merge, parents base then head), made anew on every push.
type mergeLoop struct {
	t     *testing.T
	r     *git.Repository
	loop  *loopRepo
	merge string
	n     int
}

func newMergeLoop(t *testing.T) *mergeLoop {
	t.Helper()
	l := newLoop(t)
	r, err := git.PlainOpen(l.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Storer.SetReference(plumbing.NewHashReference("refs/heads/main", plumbing.NewHash(l.base))); err != nil {
		t.Fatal(err)
	}
	return &mergeLoop{t: t, r: r, loop: l}
}

// push commits files on the head's branch (nil: an empty commit) and
// checks out the new test merge, as the next pull_request run finds the
// clone: the previous merge commit is gone (a fresh clone fetches only
// refs/pull/N/merge, which GitHub regenerated).
func (m *mergeLoop) push(files map[string]string) {
	t := m.t
	t.Helper()
	wt, _ := m.r.Worktree()
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.Master, Force: true}); err != nil {
		t.Fatal(err)
	}
	commitTo(t, m.loop, fmt.Sprintf("push %d", m.n), files)
	m.n++
	if m.merge != "" {
		obj := filepath.Join(m.loop.dir, ".git", "objects", m.merge[:2], m.merge[2:])
		if err := os.Remove(obj); err != nil {
			t.Fatal(err)
		}
	}
	head, err := m.r.CommitObject(plumbing.NewHash(m.loop.head))
	if err != nil {
		t.Fatal(err)
	}
	sig := object.Signature{Name: "GitHub", Email: "noreply@github.com", When: head.Committer.When.Add(time.Minute)}
	mc := &object.Commit{Author: sig, Committer: sig, Message: "Merge " + m.loop.head + " into " + m.loop.base,
		TreeHash: head.TreeHash, ParentHashes: []plumbing.Hash{plumbing.NewHash(m.loop.base), head.Hash}}
	obj := m.r.Storer.NewEncodedObject()
	if err := mc.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := m.r.Storer.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	m.merge = h.String()
	if err := m.r.Storer.SetReference(plumbing.NewHashReference(plumbing.HEAD, h)); err != nil {
		t.Fatal(err)
	}
}

// editEvent rewrites the run's event payload.
func (h *harness) editEvent(edit func(ev map[string]any)) {
	h.t.Helper()
	path := h.env["GITHUB_EVENT_PATH"]
	data, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		h.t.Fatal(err)
	}
	edit(ev)
	data, _ = json.Marshal(ev)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// uploadRecord stands for the workflow's upload-artifact step: the record
// the run wrote becomes its run's artifact on branch at head.
func (h *harness) uploadRecord(runID int64, branch, head string) []ledger.Record {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		h.t.Fatalf("no record written: %v", err)
	}
	recs := ledger.Decode(data, "record.json").Records
	h.artifact(runID, branch, head, h.now, recordZip(h.t, recs))
	return recs
}

// TestSyntheticMergeEvaluatesThePRHead: five pushes to a pull request, each
// run on GitHub's test merge commit. A pull request that adds code and
// tests on every push stays CLOSED; one whose pushes change nothing opens.
// Every record names the pull request's head, which the next run finds.
func TestSyntheticMergeEvaluatesThePRHead(t *testing.T) {
	t.Parallel()
	for _, healthy := range []bool{true, false} {
		t.Run(map[bool]string{true: "healthy", false: "stuck"}[healthy], func(t *testing.T) {
			t.Parallel()
			m := newMergeLoop(t)
			h := newHarness(t, m.loop)
			var states []string
			for i := 1; i <= 5; i++ {
				var files map[string]string
				if healthy {
					files = map[string]string{fmt.Sprintf("pkg/f%d.go", i): fmt.Sprintf("package pkg\n\nfunc F%d() int { return %d }\n", i, i),
						fmt.Sprintf("pkg/f%d_test.go", i): fmt.Sprintf("package pkg\n\nimport \"testing\"\n\nfunc TestF%d(t *testing.T) { _ = F%d() }\n", i, i)}
				}
				m.push(files)
				h.editEvent(func(ev map[string]any) {
					ev["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = m.loop.head
				})
				h.env["GITHUB_REF"], h.env["GITHUB_SHA"] = "refs/pull/7/merge", m.merge
				h.env["GITHUB_RUN_ID"] = fmt.Sprint(200 + i)
				h.now = start.Add(time.Duration(24+i) * time.Hour)
				h.run()
				o := h.outputs()
				states = append(states, o["state"])
				recs := h.uploadRecord(int64(200+i), "agent/loop", m.loop.head)
				if got := recs[len(recs)-1].Commit; got != m.loop.head {
					t.Fatalf("push %d: the record names %.12s, want the head %.12s (not the merge %.12s)", i, got, m.loop.head, m.merge)
				}
			}
			want := "CLOSED CLOSED CLOSED CLOSED CLOSED"
			if !healthy {
				want = "CLOSED HALF_OPEN OPEN OPEN OPEN"
			}
			if got := strings.Join(states, " "); got != want {
				t.Errorf("states over 5 pushes: got %s, want %s\n%s", got, want, h.summaryText())
			}
			if o := h.outputs(); o["iteration"] != "5" {
				t.Errorf("got iteration %s after 5 pushes, want 5", o["iteration"])
			}
			if st := h.fake.Statuses("octo", "loop", m.loop.head); len(st) != 1 || h.fake.Statuses("octo", "loop", m.merge) != nil {
				t.Errorf("the status went to %d head statuses and %d merge statuses, want the head's", len(st), len(h.fake.Statuses("octo", "loop", m.merge)))
			}
			if s := h.summaryText(); !strings.Contains(s, "test merge") {
				t.Errorf("the summary does not say the merge was skipped:\n%.2000s", s)
			}
		})
	}
}

// httpEvent writes payload as the run's event and names it.
func (h *harness) httpEvent(name string, payload []byte, ref string) {
	h.t.Helper()
	if err := os.WriteFile(h.env["GITHUB_EVENT_PATH"], payload, 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.env["GITHUB_EVENT_NAME"], h.env["GITHUB_REF"] = name, ref
}

// checkoutAt points the workspace's HEAD at commit h (detached), as
// actions/checkout leaves a run on the default branch.
func checkoutAt(t *testing.T, dir, h string) {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Storer.SetReference(plumbing.NewHashReference(plumbing.HEAD, plumbing.NewHash(h))); err != nil {
		t.Fatal(err)
	}
}

// decidePermissions are examples/fork-pr-decide.yml's.
var decidePermissions = map[string]string{"contents": "read", "pull-requests": "write", "issues": "write", "statuses": "write", "actions": "read"}

// TestForkPullRequestThroughWorkflowRun: a fork's pull request is decided
// by a workflow_run whose payload lists no pull request (GitHub's for a
// fork's branch). The run finds it by the fork's owner and branch, labels
// and comments on it (not on another fork's pull request from a branch of
// the same name), evaluates the head that the run's evidence is for, and
// takes the policy from the base repository, not from the fork.
func TestForkPullRequestThroughWorkflowRun(t *testing.T) {
	t.Parallel()
	loop := newLoop(t, map[string]string{".github/loopbreaker.toml": "extends = \"default\"\n[rules.no_progress]\nenabled = false\n", "a.go": "package a\n"}, nil, nil, nil)
	h := newHTTPHarness(t, loop)
	h.fake.AddPull("octo", "loop", fakegithubPull(12, "carol", "main", loop.head, loop.base, true))
	h.fake.AddPull("octo", "loop", fakegithubPull(14, "dave", "main", strings.Repeat("d", 40), loop.base, true))
	h.fake.AddRun("octo", "loop", fakegithubRun(77, "main", loop.head, "carol/loop"))
	h.fake.SetPermissions("test-token", decidePermissions)
	payload, ref, err := h.fake.WorkflowRunEvent("octo", "loop", 77)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(payload), `"number"`) {
		t.Fatalf("the fork's workflow_run payload lists a pull request: %s", payload)
	}
	h.httpEvent("workflow_run", payload, ref)
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	checkoutAt(t, loop.dir, loop.base) // the decide workflow checks out the base repository
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d (OPEN under the base's policy)\n%s", code, exitOpen, h.log.String())
	}
	if got := h.fake.IssueLabels("octo", "loop", 12); !contains(got, "loopbreaker:open") {
		t.Errorf("#12: got labels %v, want loopbreaker:open", got)
	}
	if n := len(h.fake.Comments("octo", "loop", 12)); n != 1 {
		t.Errorf("#12: got %d comments, want the sticky one", n)
	}
	if got := h.fake.IssueLabels("octo", "loop", 14); len(got) != 0 || len(h.fake.Comments("octo", "loop", 14)) != 0 {
		t.Errorf("#14 (another fork's main) was labelled %v or commented", got)
	}
	if st := h.fake.Statuses("octo", "loop", loop.head); len(st) != 1 || st[0].State != "failure" {
		t.Errorf("got statuses %+v on the head, want one failure", st)
	}
	if n := h.fake.CallsTo("GET", "/repos/octo/loop/pulls"); n != 1 {
		t.Errorf("got %d pull request lookups, want 1", n)
	}
}

// TestIssueCommentRunUsesThePullRequestsBranch: an issue_comment run is on
// the default branch; the pull request's head and branch come from the
// API. Another loop's record artifact on the default branch, newer than
// any, is not this pull request's ledger; records of commits outside the
// head's history are dropped with a note.
func TestIssueCommentRunUsesThePullRequestsBranch(t *testing.T) {
	t.Parallel()
	loop := newLoop(t, map[string]string{"a.go": "package a\n\nfunc A() {}\n"}, map[string]string{"b.go": "package a\n\nfunc B() {}\n"},
		map[string]string{"c.go": "package a\n\nfunc C() {}\n"})
	h := newHTTPHarness(t, loop)
	// The default branch's own loop, stuck on a commit of its own.
	r, err := git.PlainOpen(loop.dir)
	if err != nil {
		t.Fatal(err)
	}
	mainTip := commitOn(t, r, loop.base, "main's own work", map[string]string{"main.go": "package main\n\n// main moved on\n"})
	var other []ledger.Record
	for i := 1; i <= 6; i++ {
		other = append(other, ledger.Record{Version: 1, RunID: int64(400 + i), RunAttempt: 1, Commit: mainTip, At: start.Add(time.Duration(30+i) * time.Hour), Errors: []ledger.Error{}})
	}
	h.fake.AddRun("octo", "loop", fakegithubRun(406, "main", mainTip, ""))
	h.fake.AddArtifact("octo", "loop", 406, "loopbreaker-record", recordZip(t, other), false)
	// This loop's artifact holds its first record and a stray one of main.
	mine := []ledger.Record{{Version: 1, RunID: 300, RunAttempt: 1, Commit: loop.head, At: start.Add(2 * time.Hour), Errors: []ledger.Error{}},
		{Version: 1, RunID: 301, RunAttempt: 1, Commit: mainTip, At: start.Add(3 * time.Hour), Errors: []ledger.Error{}}}
	h.fake.AddRun("octo", "loop", fakegithubRun(301, "agent/loop", loop.head, ""))
	h.fake.AddArtifact("octo", "loop", 301, "loopbreaker-record", recordZip(t, mine), false)

	h.fake.SetPermission("octo", "loop", "maintainer", "write")
	id := h.fake.AddComment("octo", "loop", 7, "maintainer", "User", "/loopbreaker guide keep going", start.Add(40*time.Hour))
	payload, ref, err := h.fake.IssueCommentEvent("octo", "loop", 7, id)
	if err != nil {
		t.Fatal(err)
	}
	h.httpEvent("issue_comment", payload, ref)
	h.env["GITHUB_SHA"] = mainTip
	h.now = start.Add(41 * time.Hour)
	if code := h.run(); code != exitContinue {
		t.Fatalf("got exit %d, want 0\n%s", code, h.summaryText())
	}
	// The comment's run is no iteration: the loop's one record, and the
	// guide's reset after it. Main's six records would make six.
	if o := h.outputs(); o["state"] != "CLOSED" || o["iteration"] != "1" {
		t.Errorf("got state %s at iteration %s, want CLOSED at 1: another loop's records were used\n%s", o["state"], o["iteration"], h.summaryText())
	}
	s := h.summaryText()
	if !strings.Contains(s, "run 301") || strings.Contains(s, "run 406") {
		t.Errorf("the records did not come from this loop's artifact (run 301):\n%.3000s", s)
	}
	if !strings.Contains(s, "outside the history") {
		t.Errorf("the record of main's commit was not dropped with a note:\n%.3000s", s)
	}
	if st := h.fake.Statuses("octo", "loop", loop.head); len(st) != 1 {
		t.Errorf("got %d statuses on the pull request's head, want 1", len(st))
	}
	if n := h.fake.CallsTo("GET", "/repos/octo/loop/pulls/7"); n != 1 {
		t.Errorf("got %d reads of the pull request, want 1", n)
	}
}

// commitOn makes a commit with files on top of parent without moving HEAD
// or the work tree, and returns it.
func commitOn(t *testing.T, r *git.Repository, parent, msg string, files map[string]string) string {
	t.Helper()
	pc, err := r.CommitObject(plumbing.NewHash(parent))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pc.Tree()
	if err != nil {
		t.Fatal(err)
	}
	entries := append([]object.TreeEntry(nil), tree.Entries...)
	for name, content := range files {
		blob := r.Storer.NewEncodedObject()
		blob.SetType(plumbing.BlobObject)
		w, _ := blob.Writer()
		w.Write([]byte(content))
		w.Close()
		bh, err := r.Storer.SetEncodedObject(blob)
		if err != nil {
			t.Fatal(err)
		}
		replaced := false
		for i := range entries {
			if entries[i].Name == name {
				entries[i].Hash, replaced = bh, true
			}
		}
		if !replaced {
			entries = append(entries, object.TreeEntry{Name: name, Mode: 0o100644, Hash: bh})
		}
	}
	sortEntries(entries)
	nt := &object.Tree{Entries: entries}
	to := r.Storer.NewEncodedObject()
	if err := nt.Encode(to); err != nil {
		t.Fatal(err)
	}
	th, err := r.Storer.SetEncodedObject(to)
	if err != nil {
		t.Fatal(err)
	}
	sig := object.Signature{Name: "octo", Email: "octo@example.com", When: pc.Committer.When.Add(time.Hour)}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: th, ParentHashes: []plumbing.Hash{pc.Hash}}
	co := r.Storer.NewEncodedObject()
	if err := c.Encode(co); err != nil {
		t.Fatal(err)
	}
	ch, err := r.Storer.SetEncodedObject(co)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Storer.SetReference(plumbing.NewHashReference("refs/heads/main", ch)); err != nil {
		t.Fatal(err)
	}
	return ch.String()
}

// sortEntries orders tree entries as git does: by name, a tree's name
// taken with a trailing slash.
func sortEntries(e []object.TreeEntry) {
	key := func(x object.TreeEntry) string {
		if x.Mode == filemode.Dir {
			return x.Name + "/"
		}
		return x.Name
	}
	sort.Slice(e, func(i, j int) bool { return key(e[i]) < key(e[j]) })
}

func fakegithubPull(n int, user, ref, head, base string, fork bool) fakegithub.Pull {
	return fakegithub.Pull{Number: n, Title: "agent loop", User: user, HeadSHA: head, HeadRef: ref, BaseRef: "main", BaseSHA: base, Fork: fork, CreatedAt: start}
}

func fakegithubRun(id int64, branch, head, headRepo string) fakegithub.Run {
	return fakegithub.Run{ID: id, HeadBranch: branch, HeadSHA: head, HeadRepo: headRepo, Event: "pull_request", Conclusion: "success",
		CreatedAt: start.Add(time.Duration(id) * time.Minute)}
}

// servedLoop serves a copy of the loop's repository as GitHub's octo/loop,
// with refs/pull/7/head and main, over smart HTTP for the token, and
// returns the server's URL (GITHUB_SERVER_URL) and a clone of the head at
// depth 1 (actions/checkout's default) as the workspace.
func servedLoop(t *testing.T, loop *loopRepo, token string) (server, ws string) {
	t.Helper()
	server, _ = gitServer(t, loop, token)
	ws = t.TempDir()
	_, err := git.PlainClone(ws, false, &git.CloneOptions{URL: server + "/octo/loop.git", Depth: 1, ReferenceName: "refs/heads/agent/loop",
		SingleBranch: true, Auth: checkout.Auth(server, token)})
	if err != nil {
		t.Fatalf("shallow clone: %v", err)
	}
	return server, ws
}

// TestShallowCloneIsDeepenedWithTheToken: actions/checkout's default clone
// holds one commit; the run fetches the loop's history with the token and
// decides on all of it.
func TestShallowCloneIsDeepenedWithTheToken(t *testing.T) {
	t.Parallel()
	loop := stagnant(t)
	server, ws := servedLoop(t, loop, fakegithub.DefaultToken)
	h := newHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d\n%s", code, exitOpen, h.summaryText())
	}
	if o := h.outputs(); o["iteration"] != "4" || o["shallow"] != "false" {
		t.Errorf("got iteration %s shallow %s, want 4 and false", o["iteration"], o["shallow"])
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "shallow")); !os.IsNotExist(err) {
		t.Errorf("the clone is still shallow: %v", err)
	}
	if !strings.Contains(h.summaryText(), "deepened the shallow clone") {
		t.Errorf("the summary does not say the clone was deepened:\n%.2000s", h.summaryText())
	}
}

// TestShallowCloneThatCannotBeDeepenedSaysSo: when the fetch fails (here
// the git server refuses the token), the run decides on the commit it
// sees, and says so: a warning annotation and the shallow output, never a
// silent CLOSED with no iterations.
func TestShallowCloneThatCannotBeDeepenedSaysSo(t *testing.T) {
	t.Parallel()
	loop := stagnant(t)
	server, ws := servedLoop(t, loop, "the-git-servers-token")
	h := newHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.run()
	o := h.outputs()
	if o["shallow"] != "true" {
		t.Errorf("got shallow %q, want true", o["shallow"])
	}
	if log := h.log.String(); !strings.Contains(log, "::warning title=loopbreaker%3A shallow clone::") || !strings.Contains(log, "fetch-depth: 0") {
		t.Errorf("no warning annotation about the shallow clone:\n%s", log)
	}
	if s := h.summaryText(); !strings.Contains(s, "shallow") {
		t.Errorf("the summary does not say the clone is shallow:\n%.2000s", s)
	}
}

// TestDisabledAndForceOpenLabelsNeedATrustedPerson: the agent holds the
// checkout's token and can label its own pull request; the disabled and
// force-open labels count only when a person with write access added
// them, as the removal of the open label and the commands do.
func TestDisabledAndForceOpenLabelsNeedATrustedPerson(t *testing.T) {
	t.Parallel()
	healthy := func(t *testing.T) *loopRepo {
		return newLoop(t, map[string]string{"a.go": "package a\n"}, map[string]string{"b.go": "package a\n"})
	}
	cases := []struct {
		name, label, by, byType, perm string
		loop                          func(*testing.T) *loopRepo
		wantState                     string
		wantNote                      string
	}{
		{"disabled by the workflow token", "loopbreaker:disabled", "github-actions[bot]", "Bot", "write", stagnant, "OPEN", "who cannot control the breaker"},
		{"disabled by the agent's account", "loopbreaker:disabled", "agent", "User", "read", stagnant, "OPEN", "who cannot control the breaker"},
		{"disabled with no event", "loopbreaker:disabled", "", "", "", stagnant, "OPEN", "no event says who added it"},
		{"disabled by a maintainer", "loopbreaker:disabled", "maintainer", "User", "maintain", stagnant, "DISABLED", ""},
		{"force-open by the agent's app", "loopbreaker:force-open", "agent-app[bot]", "Bot", "admin", healthy, "CLOSED", "who cannot control the breaker"},
		{"force-open by a maintainer", "loopbreaker:force-open", "maintainer", "User", "admin", healthy, "OPEN", ""},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, c.loop(t), c.label)
			if c.by != "" {
				h.permission(c.by, c.perm)
				h.labelEvent(7, "labeled", c.label, c.by, c.byType, start.Add(time.Hour))
			}
			h.run()
			if got := h.outputs()["state"]; got != c.wantState {
				t.Errorf("got state %s, want %s\n%s", got, c.wantState, h.summaryText())
			}
			if c.wantNote != "" && !strings.Contains(h.summaryText(), c.wantNote) {
				t.Errorf("the summary does not say the label was ignored (%q):\n%.2000s", c.wantNote, h.summaryText())
			}
		})
	}
}

// TestRecordPathLeavingTheWorkspaceIsRefused: a .loopbreaker committed as
// a symbolic link to elsewhere would make the action write its record
// there; the run refuses (exit 2) before writing anything.
func TestRecordPathLeavingTheWorkspaceIsRefused(t *testing.T) {
	t.Parallel()
	loop := stagnant(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(loop.dir, ".loopbreaker")); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, loop)
	if code := h.run(); code != exitError || !strings.Contains(h.log.String(), ".loopbreaker is a symbolic link") {
		t.Fatalf("got exit %d, want %d naming the link\n%s", code, exitError, h.log.String())
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("the record was written outside the workspace: %v", entries)
	}
	if h.fake.Calls() != 0 {
		t.Errorf("the refused run made %d API calls", h.fake.Calls())
	}
	for _, p := range []string{"../record.json", "/tmp/record.json", "."} {
		h2 := newHarness(t, stagnant(t))
		h2.env["INPUT_RECORD-PATH"] = p
		if code := h2.run(); code != exitError || !strings.Contains(h2.log.String(), "record-path") {
			t.Errorf("record-path %q: got exit %d, want %d naming the input", p, code, exitError)
		}
	}
}

// TestCheckRunNeedsChecksWriteAndAnAppToken: a check run needs checks:
// write and a GitHub App's token (the workflow's GITHUB_TOKEN is one); a
// PAT is refused with GitHub's message. The decision stands either way,
// and the run never asks GET /user, which the workflow token may not.
func TestCheckRunNeedsChecksWriteAndAnAppToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, token string
		perms       map[string]string
		want        string // in the warning; "" when the check run is made
	}{
		{"GITHUB_TOKEN with checks write", fakegithub.DefaultToken, map[string]string{"checks": "write", "pull-requests": "write", "issues": "write"}, ""},
		{"GITHUB_TOKEN without checks write", fakegithub.DefaultToken, map[string]string{"pull-requests": "write", "issues": "write", "statuses": "write"}, "Resource not accessible by integration"},
		{"a personal access token", "pat", nil, "You must authenticate via a GitHub App."},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHTTPHarness(t, stagnant(t))
			h.fake.AddToken("pat", "alice", "User")
			h.fake.SetPermissions(c.token, c.perms)
			h.env["INPUT_TOKEN"] = c.token
			h.env["INPUT_STATUS"] = "check-run"
			if code := h.run(); code != exitOpen {
				t.Fatalf("got exit %d, want %d\n%s", code, exitOpen, h.log.String())
			}
			runs := h.fake.CheckRuns("octo", "loop", h.loop.head)
			warned := strings.Contains(h.log.String(), "::warning::loopbreaker: set the commit status")
			switch {
			case c.want == "" && (len(runs) != 1 || runs[0].Conclusion != "failure" || warned):
				t.Errorf("got check runs %+v (warned %v), want one failure", runs, warned)
			case c.want != "" && (len(runs) != 0 || !strings.Contains(h.log.String(), c.want)):
				t.Errorf("got check runs %+v, want none and a warning with %q:\n%s", runs, c.want, h.log.String())
			}
			if n := h.fake.CallsTo("GET", "/user"); n != 0 {
				t.Errorf("GET /user was called %d times", n)
			}
		})
	}
}

// TestArtifactLookupReadsEveryPageInAnyOrder: GitHub lists the
// repository's artifacts in no documented order; in a busy repository the
// loop's newest record is on any page, among other loops' artifacts.
func TestArtifactLookupReadsEveryPageInAnyOrder(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, stagnant(t))
	for i := int64(1); i <= 230; i++ {
		h.fake.AddRun("octo", "loop", fakegithubRun(i, fmt.Sprintf("other/%d", i), h.loop.base, ""))
		h.fake.AddArtifact("octo", "loop", i, "loopbreaker-record", recordZip(t, nil), false)
	}
	old := []ledger.Record{{Version: 1, RunID: 240, RunAttempt: 1, Commit: h.loop.head, At: start.Add(2 * time.Hour), Errors: []ledger.Error{}}}
	newer := append(old, ledger.Record{Version: 1, RunID: 250, RunAttempt: 1, Commit: h.loop.head, At: start.Add(3 * time.Hour), Errors: []ledger.Error{}})
	h.fake.AddRun("octo", "loop", fakegithubRun(240, "agent/loop", h.loop.head, ""))
	h.fake.AddArtifact("octo", "loop", 240, "loopbreaker-record", recordZip(t, old), false)
	h.fake.AddRun("octo", "loop", fakegithubRun(250, "agent/loop", h.loop.head, ""))
	h.fake.AddArtifact("octo", "loop", 250, "loopbreaker-record", recordZip(t, newer), false)
	h.run()
	if s := h.summaryText(); !strings.Contains(s, "run 250's artifact") {
		t.Errorf("the newest of the loop's artifacts (run 250) was not read:\n%.2000s", s)
	}
	if n := h.fake.CallsTo("GET", "/repos/octo/loop/actions/artifacts"); n != 3+1 {
		t.Errorf("got %d artifact calls, want 3 pages and the download", n)
	}
}

// TestBaseThatMovedOnStartsAtTheMergeBase: a pull_request payload's base is
// its base branch's tip, which moves on without the head; the loop starts
// at their merge base instead of failing.
func TestBaseThatMovedOnStartsAtTheMergeBase(t *testing.T) {
	t.Parallel()
	loop := stagnant(t)
	r, err := git.PlainOpen(loop.dir)
	if err != nil {
		t.Fatal(err)
	}
	tip := commitOn(t, r, loop.base, "main moved on", map[string]string{"other.go": "package main\n"})
	h := newHarness(t, loop)
	h.editEvent(func(ev map[string]any) {
		ev["pull_request"].(map[string]any)["base"].(map[string]any)["sha"] = tip
	})
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d\n%s", code, exitOpen, h.log.String())
	}
	if o := h.outputs(); o["iteration"] != "4" {
		t.Errorf("got iteration %s, want 4 (from the merge base)", o["iteration"])
	}
	if !strings.Contains(h.summaryText(), "merge base") {
		t.Errorf("the summary does not say the base moved on:\n%.2000s", h.summaryText())
	}
}
