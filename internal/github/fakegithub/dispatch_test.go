package fakegithub

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestEachEventRunsTheWorkflowOfItsRef: the ref each event's run uses, and
// so whose workflow file runs, is the one GitHub's events page gives: the
// ref a dispatch names, the pull request's merge ref, the base branch for
// pull_request_target, the default branch for issue_comment, workflow_run
// and schedule, and the merge group's own ref and commit. A dispatch made
// through the API is recorded with its ref and inputs; it needs actions:
// write and a ref.
func TestEachEventRunsTheWorkflowOfItsRef(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 4, User: "agent", HeadRef: "agent/loop", HeadSHA: "h4", BaseRef: "main", BaseSHA: "b4", MergeSHA: "m4"})
	id := s.AddComment("o", "r", 4, "alice", "User", "/loopbreaker resume", t0)
	s.AddRun("o", "r", Run{ID: 40, HeadBranch: "agent/loop", HeadSHA: "h4", Event: "workflow_dispatch"})

	type run struct{ ref, sha string }
	got := map[string]run{}
	must := func(event string, ref, sha string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", event, err)
		}
		got[event] = run{ref, sha}
	}
	_, ref, sha, err := s.PullRequestEvent("o", "r", 4, "synchronize")
	must("pull_request", ref, sha, err)
	_, ref, sha, err = s.PullRequestTargetEvent("o", "r", 4, "unlabeled")
	must("pull_request_target", ref, sha, err)
	data, ref, sha, err := s.MergeGroupEvent("o", "r", 4, "g4")
	must("merge_group", ref, sha, err)
	mg := strict[github.MergeGroupEvent](t, "merge_group", data)
	if mg.GetMergeGroup().GetHeadSHA() != "g4" || mg.GetMergeGroup().GetHeadRef() != ref {
		t.Errorf("merge_group payload: got head %s %s, want g4 %s", mg.GetMergeGroup().GetHeadSHA(), mg.GetMergeGroup().GetHeadRef(), ref)
	}
	_, ref, err = s.IssueCommentEvent("o", "r", 4, id)
	must("issue_comment", ref, "", err)
	_, ref, err = s.WorkflowRunEvent("o", "r", 40)
	must("workflow_run", ref, "", err)
	_, ref, err = s.ScheduleEvent("o", "r", "0 * * * *")
	must("schedule", ref, "", err)

	s.AddToken("reader", "github-actions[bot]", "Bot")
	s.SetPermissions("reader", map[string]string{"actions": "read"})
	body := map[string]any{"ref": "main", "inputs": map[string]string{"branch": "agent/loop"}}
	if resp, b := do(t, s, "POST", "/repos/o/r/actions/workflows/loop.yml/dispatches", "reader", body); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a dispatch with actions: read: got %d %s, want 403", resp.StatusCode, b)
	}
	if resp, b := do(t, s, "POST", "/repos/o/r/actions/workflows/loop.yml/dispatches", DefaultToken, map[string]any{"inputs": map[string]string{}}); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a dispatch without a ref: got %d %s, want 422", resp.StatusCode, b)
	}
	for _, r := range []string{"agent/loop", "main"} {
		body["ref"] = r
		if resp, b := do(t, s, "POST", "/repos/o/r/actions/workflows/loop.yml/dispatches", DefaultToken, body); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("dispatch on %s: got %d %s, want 204", r, resp.StatusCode, b)
		}
		resp, b := do(t, s, "GET", "/_fake/event?repo=o/r&kind=workflow_dispatch", "", nil)
		ev := strict[github.WorkflowDispatchEvent](t, "workflow_dispatch", b)
		if resp.StatusCode != http.StatusOK || string(ev.Inputs) != `{"branch":"agent/loop"}` || ev.GetRef() != resp.Header.Get("X-Fake-Ref") {
			t.Errorf("dispatch on %s: got %d %s, inputs %s", r, resp.StatusCode, resp.Header.Get("X-Fake-Ref"), ev.Inputs)
		}
		got["workflow_dispatch on "+r] = run{ref: resp.Header.Get("X-Fake-Ref")}
	}
	if d := s.Dispatches("o", "r"); len(d) != 2 || d[1].Workflow != "loop.yml" || d[1].Actor != DefaultLogin {
		t.Errorf("got dispatches %+v, want two of loop.yml by %s", d, DefaultLogin)
	}

	want := map[string]run{
		"pull_request":                    {"refs/pull/4/merge", "m4"},
		"pull_request_target":             {"refs/heads/main", "b4"},
		"merge_group":                     {"refs/heads/gh-readonly-queue/main/pr-4-h4", "g4"},
		"issue_comment":                   {ref: "refs/heads/main"},
		"workflow_run":                    {ref: "refs/heads/main"},
		"schedule":                        {ref: "refs/heads/main"},
		"workflow_dispatch on main":       {ref: "refs/heads/main"},
		"workflow_dispatch on agent/loop": {ref: "refs/heads/agent/loop"},
	}
	for event, w := range want {
		if got[event] != w {
			t.Errorf("%s: the run uses the workflow file at %+v, want %+v", event, got[event], w)
		}
	}
}
