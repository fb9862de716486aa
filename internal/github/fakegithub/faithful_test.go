package fakegithub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// The tests of this file hold the fake to what GitHub documents (the pages
// cited in the handlers' comments) rather than to loopbreaker's use of it.

// strict decodes data into a fresh T, refusing fields T does not have:
// every field the fake sends must be one go-github knows.
func strict[T any](t *testing.T, what string, data []byte) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, data)
	}
	return v
}

func TestResponsesDecodeIntoGoGithubTypes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddToken("pat", "alice", "User")
	s.AddPull("o", "r", Pull{Number: 1, Title: "t", HeadSHA: "h2", HeadRef: "b", BaseSHA: "base", Commits: []string{"h1", "h2"},
		Trees: []string{"t1", "t2"}, Files: []string{"a.go"}, Labels: []string{"x"}, MergeSHA: "m", CreatedAt: t0})
	s.AddComment("o", "r", 1, "alice", "User", "hi", t0)
	s.AddLabelEvent("o", "r", 1, "labeled", "x", "alice", "User", t0)
	if err := s.AddIssueEvent("o", "r", EventState{Number: 1, Event: "referenced", Login: "bob", CommitID: "c1", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	s.AddRun("o", "r", Run{ID: 9, HeadBranch: "b", HeadSHA: "h2", CreatedAt: t0})
	id := s.AddArtifact("o", "r", 9, "loopbreaker-record", []byte("zip"), false)
	s.SetPermission("o", "r", "alice", "write")
	s.PutFile("o", "r", "", "dir/policy.toml", []byte("x = 1\n"))
	tests := []struct {
		method, path, tok string
		body              any
		decode            func(*testing.T, string, []byte)
	}{
		{"GET", "/repos/o/r/pulls", DefaultToken, nil, decodeAs[[]*github.PullRequest]},
		{"GET", "/repos/o/r/pulls/1", DefaultToken, nil, decodeAs[github.PullRequest]},
		{"GET", "/repos/o/r/pulls/1/commits", DefaultToken, nil, decodeAs[[]*github.RepositoryCommit]},
		{"GET", "/repos/o/r/pulls/1/files", DefaultToken, nil, decodeAs[[]*github.CommitFile]},
		{"GET", "/repos/o/r/labels/x", DefaultToken, nil, decodeAs[github.Label]},
		{"POST", "/repos/o/r/labels", DefaultToken, map[string]string{"name": "y", "color": "ffffff"}, decodeAs[github.Label]},
		{"PATCH", "/repos/o/r/labels/y", DefaultToken, map[string]string{"color": "000000"}, decodeAs[github.Label]},
		{"POST", "/repos/o/r/issues/1/labels", DefaultToken, map[string][]string{"labels": {"z"}}, decodeAs[[]*github.Label]},
		{"DELETE", "/repos/o/r/issues/1/labels/z", DefaultToken, nil, decodeAs[[]*github.Label]},
		{"GET", "/repos/o/r/issues/1/events", DefaultToken, nil, decodeAs[[]*github.IssueEvent]},
		{"GET", "/repos/o/r/issues/events", DefaultToken, nil, decodeAs[[]*github.IssueEvent]},
		{"GET", "/repos/o/r/issues/1/comments", DefaultToken, nil, decodeAs[[]*github.IssueComment]},
		{"POST", "/repos/o/r/issues/1/comments", DefaultToken, map[string]string{"body": "b"}, decodeAs[github.IssueComment]},
		{"POST", "/repos/o/r/statuses/h2", DefaultToken, map[string]string{"state": "success", "context": "c"}, decodeAs[github.RepoStatus]},
		{"POST", "/repos/o/r/check-runs", DefaultToken, map[string]string{"name": "c", "head_sha": "h2"}, decodeAs[github.CheckRun]},
		{"GET", "/repos/o/r/actions/artifacts", DefaultToken, nil, decodeAs[github.ArtifactList]},
		{"GET", "/repos/o/r/collaborators/alice/permission", DefaultToken, nil, decodeAs[permissionLevel]},
		{"GET", "/repos/o/r/contents/dir/policy.toml", DefaultToken, nil, decodeAs[github.RepositoryContent]},
		{"GET", "/repos/o/r/contents/dir", DefaultToken, nil, decodeAs[[]*github.RepositoryContent]},
		{"GET", "/user", "pat", nil, decodeAs[github.User]},
	}
	for _, tt := range tests {
		resp, body := do(t, s, tt.method, tt.path, tt.tok, tt.body)
		if resp.StatusCode >= 300 {
			t.Errorf("%s %s: got %d: %s", tt.method, tt.path, resp.StatusCode, body)
			continue
		}
		tt.decode(t, tt.method+" "+tt.path, body)
	}
	if resp, body := do(t, s, "GET", "/repos/o/r/actions/artifacts/"+itoa(id)+"/zip", DefaultToken, nil); resp.StatusCode != http.StatusFound {
		t.Errorf("download: got %d, want 302: %s", resp.StatusCode, body)
	}
	// Errors carry the endpoint's page and the status as a string, as
	// today's API sends them.
	_, body := do(t, s, "GET", "/repos/o/r/pulls/99", DefaultToken, nil)
	var e struct {
		Message          string `json:"message"`
		DocumentationURL string `json:"documentation_url"`
		Status           string `json:"status"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Status != "404" || e.DocumentationURL != docGetPull {
		t.Errorf("error body: got %s, want status \"404\" and %s", body, docGetPull)
	}
}

func decodeAs[T any](t *testing.T, what string, data []byte) { strict[T](t, what, data) }

// permissionLevel is go-github's answer of the permission endpoint and the
// role_name the page documents, which go-github v60 lacks (the client reads
// it to tell maintain from write).
type permissionLevel struct {
	github.RepositoryPermissionLevel
	RoleName *string `json:"role_name"`
}

// TestTokenPermissions: a token has what its job's permissions: block
// grants; a missing scope answers 403 with GitHub's message and the
// x-accepted-github-permissions header.
func TestTokenPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1, HeadSHA: "h"})
	s.AddRepo("o", "r")
	if err := s.LoadSeed(strings.NewReader(`{"repos":[{"owner":"o","name":"r","labels":[{"name":"loopbreaker:open","color":"b60205"}],
		"issues":[{"number":2}]}, {"owner":"o","name":"secret","private":true}]}`)); err != nil {
		t.Fatal(err)
	}
	s.AddToken("pr-only", DefaultLogin, "Bot")
	s.SetPermissions("pr-only", map[string]string{"pull-requests": "write", "statuses": "write"})
	s.AddToken("issues-only", DefaultLogin, "Bot")
	s.SetPermissions("issues-only", map[string]string{"issues": "write"})
	s.AddToken("both", DefaultLogin, "Bot")
	s.SetPermissions("both", map[string]string{"issues": "write", "pull-requests": "write", "checks": "write", "actions": "read"})
	s.AddToken("pat", "alice", "User")
	s.AddToken("empty", DefaultLogin, "Bot")
	s.SetPermissions("empty", map[string]string{})
	tests := []struct {
		name, method, path, tok string
		body                    any
		code                    int
		accepted, msg           string
	}{
		{"create a label with pull requests write", "POST", "/repos/o/r/labels", "pr-only", map[string]string{"name": "n"}, 403, "issues=write", msgIntegration},
		{"create a label with issues write", "POST", "/repos/o/r/labels", "issues-only", map[string]string{"name": "n"}, 201, "", ""},
		{"add an existing label to a PR with pull requests write", "POST", "/repos/o/r/issues/1/labels", "pr-only", []string{"loopbreaker:open"}, 200, "", ""},
		{"add a missing label to a PR with pull requests write", "POST", "/repos/o/r/issues/1/labels", "pr-only", []string{"new-label"}, 403, "pull_requests=write,issues=write", msgIntegration},
		{"add a label to a PR with issues write only", "POST", "/repos/o/r/issues/1/labels", "issues-only", []string{"loopbreaker:open"}, 403, "pull_requests=write", msgIntegration},
		{"add a missing label to a PR with both", "POST", "/repos/o/r/issues/1/labels", "both", []string{"other-label"}, 200, "", ""},
		{"add a label to an issue with issues write", "POST", "/repos/o/r/issues/2/labels", "issues-only", []string{"loopbreaker:open"}, 200, "", ""},
		{"remove a PR label with issues write only", "DELETE", "/repos/o/r/issues/1/labels/loopbreaker:open", "issues-only", nil, 403, "pull_requests=write", msgIntegration},
		{"comment with pull requests write", "POST", "/repos/o/r/issues/1/comments", "pr-only", map[string]string{"body": "b"}, 201, "", ""},
		{"comment with nothing", "POST", "/repos/o/r/issues/1/comments", "empty", map[string]string{"body": "b"}, 403, "issues=write; pull_requests=write", msgIntegration},
		{"status without statuses write", "POST", "/repos/o/r/statuses/h", "both", map[string]string{"state": "success"}, 403, "statuses=write", msgIntegration},
		{"status with statuses write", "POST", "/repos/o/r/statuses/h", "pr-only", map[string]string{"state": "success"}, 201, "", ""},
		{"check run without checks write", "POST", "/repos/o/r/check-runs", "pr-only", map[string]string{"name": "c", "head_sha": "h"}, 403, "checks=write", msgIntegration},
		{"check run with checks write", "POST", "/repos/o/r/check-runs", "both", map[string]string{"name": "c", "head_sha": "h"}, 201, "", ""},
		{"check run with a PAT", "POST", "/repos/o/r/check-runs", "pat", map[string]string{"name": "c", "head_sha": "h"}, 403, "", "You must authenticate via a GitHub App."},
		{"public artifacts without actions read", "GET", "/repos/o/r/actions/artifacts", "empty", nil, 200, "", ""},
		{"private artifacts without actions read", "GET", "/repos/o/secret/actions/artifacts", "pr-only", nil, 403, "actions=read", msgIntegration},
		{"private artifacts with actions read", "GET", "/repos/o/secret/actions/artifacts", "both", nil, 200, "", ""},
		{"private artifacts without a token", "GET", "/repos/o/secret/actions/artifacts", "", nil, 404, "", "Not Found"},
		{"a PAT without the scope", "POST", "/repos/o/r/labels", "pat-restricted", map[string]string{"name": "m"}, 403, "issues=write", msgUserToken},
	}
	s.AddToken("pat-restricted", "alice", "User")
	s.SetPermissions("pat-restricted", map[string]string{"contents": "read"})
	for _, tt := range tests {
		resp, body := do(t, s, tt.method, tt.path, tt.tok, tt.body)
		if resp.StatusCode != tt.code {
			t.Errorf("%s: got %d, want %d (%s)", tt.name, resp.StatusCode, tt.code, body)
			continue
		}
		if got := resp.Header.Get("X-Accepted-GitHub-Permissions"); got != tt.accepted {
			t.Errorf("%s: got x-accepted-github-permissions %q, want %q", tt.name, got, tt.accepted)
		}
		if tt.msg != "" {
			if e := decodeJSON[github.ErrorResponse](t, body); e.Message != tt.msg {
				t.Errorf("%s: got message %q, want %q", tt.name, e.Message, tt.msg)
			}
		}
	}
	if got := s.IssueLabels("o", "r", 1); strings.Contains(strings.Join(got, ","), "new-label") {
		t.Errorf("a refused add created and put on the label: %v", got)
	}
	if st := s.State(); !hasToken(st, "pr-only", "issues", "none") || !hasToken(st, "pr-only", "pull_requests", "write") {
		t.Errorf("the dump does not hold pr-only's permissions: %+v", st.Tokens)
	}
}

func hasToken(st State, tok, scope, level string) bool {
	for _, x := range st.Tokens {
		if x.Token == tok && x.Permissions[scope] == level {
			return true
		}
	}
	return false
}

// TestIssueEventsOfEveryType: the events list holds every type, not only
// label events; a label event carries its label, the others none.
func TestIssueEventsOfEveryType(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1})
	kinds := []string{"head_ref_force_pushed", "labeled", "review_requested", "unlabeled", "referenced", "ready_for_review"}
	for i, k := range kinds {
		e := EventState{Number: 1, Event: k, Login: "alice", CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		if k == "labeled" || k == "unlabeled" {
			e.Label = "loopbreaker:open"
		}
		if err := s.AddIssueEvent("o", "r", e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddIssueEvent("o", "r", EventState{Number: 1, Event: "committed", Login: "a"}); err == nil {
		t.Error("a timeline-only type was accepted as an issue event")
	}
	_, body := do(t, s, "GET", "/repos/o/r/issues/1/events", DefaultToken, nil)
	events := strict[[]*github.IssueEvent](t, "events", body)
	if len(events) != len(kinds) {
		t.Fatalf("got %d events, want %d", len(events), len(kinds))
	}
	for i, e := range events {
		if e.GetEvent() != kinds[i] {
			t.Errorf("event %d: got %s, want %s", i, e.GetEvent(), kinds[i])
		}
		if label := e.GetLabel().GetName(); (label != "") != (kinds[i] == "labeled" || kinds[i] == "unlabeled") {
			t.Errorf("event %s: got label %q", kinds[i], label)
		}
	}
}

// TestPullCommitsHaveTreesAndParents: each commit of the list has its
// tree and its parent, the first one the base.
func TestPullCommitsHaveTreesAndParents(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1, BaseSHA: "b0", Commits: []string{"c1", "c2"}, Trees: []string{"t1", "t2"}})
	_, body := do(t, s, "GET", "/repos/o/r/pulls/1/commits", DefaultToken, nil)
	list := strict[[]*github.RepositoryCommit](t, "commits", body)
	var got []string
	for _, c := range list {
		got = append(got, fmt.Sprintf("%s tree %s parent %s", c.GetSHA(), c.GetCommit().GetTree().GetSHA(), c.Parents[0].GetSHA()))
	}
	if want := "c1 tree t1 parent b0,c2 tree t2 parent c1"; strings.Join(got, ",") != want {
		t.Errorf("got %q, want %q", strings.Join(got, ","), want)
	}
}

// TestArtifactsArePagedAndNotOrdered: GitHub documents no order for the
// repository's artifacts, so the fake's is neither by date nor by id.
func TestArtifactsArePagedAndNotOrdered(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	for i := 1; i <= 150; i++ {
		s.AddRun("o", "r", Run{ID: int64(1000 + i), HeadBranch: "b", CreatedAt: t0.Add(time.Duration(i) * time.Minute)})
		s.AddArtifact("o", "r", int64(1000+i), "rec", []byte("z"), false)
	}
	var ids []int64
	for page := 1; page <= 2; page++ {
		_, body := do(t, s, "GET", fmt.Sprintf("/repos/o/r/actions/artifacts?name=rec&per_page=100&page=%d", page), DefaultToken, nil)
		list := strict[github.ArtifactList](t, "artifacts", body)
		for _, a := range list.Artifacts {
			ids = append(ids, a.GetID())
		}
	}
	if len(ids) != 150 {
		t.Fatalf("got %d artifacts over two pages, want 150", len(ids))
	}
	up, down := 0, 0
	for i := 1; i < len(ids); i++ {
		if ids[i] > ids[i-1] {
			up++
		} else {
			down++
		}
	}
	if up < 30 || down < 30 {
		t.Errorf("the artifacts are listed in order (%d rises, %d falls): a client could rely on it", up, down)
	}
}

// TestSecondUploadOfANameInARunConflicts: upload-artifact v4 refuses a
// second artifact of one name in a run (a re-run too) unless overwrite.
func TestSecondUploadOfANameInARunConflicts(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	first, err := s.UploadArtifact("o", "r", 7, "loopbreaker-record", []byte("a"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UploadArtifact("o", "r", 7, "loopbreaker-record", []byte("b"), false); !errors.Is(err, ErrArtifactExists) {
		t.Fatalf("second upload: got %v, want ErrArtifactExists", err)
	}
	if _, err := s.UploadArtifact("o", "r", 8, "loopbreaker-record", []byte("c"), false); err != nil {
		t.Errorf("upload in another run: %v", err)
	}
	second, err := s.UploadArtifact("o", "r", 7, "loopbreaker-record", []byte("d"), true)
	if err != nil || second == first {
		t.Fatalf("overwrite: got id %d, %v, want a new id", second, err)
	}
	resp, body := do(t, s, "POST", "/_fake/upload?repo=o/r&run_id=7&name=loopbreaker-record", "", []byte("e"))
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "already exists on the workflow run") {
		t.Errorf("upload endpoint: got %d %s, want 409", resp.StatusCode, body)
	}
	resp, body = do(t, s, "POST", "/_fake/upload?repo=o/r&run_id=9&name=loopbreaker-record&file=record.json", "", []byte(`{"version":1}`))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload of a file: got %d %s, want 201", resp.StatusCode, body)
	}
	id := decodeJSON[map[string]int64](t, body)["id"]
	loc, _, err := ghClient(t, s, DefaultToken).Actions.DownloadArtifact(ctx, "o", "r", id, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, zipped := do(t, s, "GET", loc.Path, "", nil)
	if !bytes.HasPrefix(zipped, []byte("PK")) || !bytes.Contains(zipped, []byte("record.json")) {
		t.Errorf("the uploaded file is not in a zip named record.json: %q", zipped)
	}
}

// TestPullsByHeadFindForks: the head filter ("owner:branch") finds a
// fork's pull request by the fork's owner.
func TestPullsByHeadFindForks(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1, User: "alice", HeadRef: "main", Fork: true})
	s.AddPull("o", "r", Pull{Number: 2, User: "bob", HeadRef: "main"})
	s.AddPull("o", "r", Pull{Number: 3, User: "alice", HeadRef: "fix", Fork: true})
	for head, want := range map[string]string{"alice:main": "1", "o:main": "2", "alice:fix": "3", "bob:main": ""} {
		_, body := do(t, s, "GET", "/repos/o/r/pulls?state=open&head="+head, DefaultToken, nil)
		var got []string
		for _, p := range strict[[]*github.PullRequest](t, head, body) {
			got = append(got, fmt.Sprint(p.GetNumber()))
		}
		if strings.Join(got, ",") != want {
			t.Errorf("head %s: got %v, want %s", head, got, want)
		}
	}
}

// TestEventPayloads: the payloads decode into go-github's event types with
// no unknown field, and say what GitHub's say: a pull_request run is on
// the merge ref, an issue_comment payload has no head, a fork's
// workflow_run lists no pull request.
func TestEventPayloads(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 4, User: "agent", HeadRef: "loop", HeadSHA: "h4", BaseSHA: "b", MergeSHA: "m4", Labels: []string{"x"}})
	s.AddPull("o", "r", Pull{Number: 5, User: "carol", HeadRef: "main", HeadSHA: "h5", Fork: true})
	id := s.AddComment("o", "r", 4, "alice", "User", "/loopbreaker reset", t0)
	s.AddRun("o", "r", Run{ID: 40, HeadBranch: "loop", HeadSHA: "h4", Event: "pull_request", Conclusion: "success"})
	s.AddRun("o", "r", Run{ID: 50, HeadBranch: "main", HeadSHA: "h5", HeadRepo: "carol/r", Event: "pull_request"})

	s.AddLabelEvent("o", "r", 4, "labeled", "x", "a", "User", t0)
	if err := s.Push("o", "r", 4, "h4", "m4"); err != nil {
		t.Fatal(err)
	}
	if resp, body := do(t, s, "POST", "/_fake/push?repo=o/r&number=4&head=h4&merge=m4", "", nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("push endpoint: got %d %s", resp.StatusCode, body)
	}
	data, ref, sha, err := s.PullRequestEvent("o", "r", 4, "synchronize")
	if err != nil {
		t.Fatal(err)
	}
	pr := strict[github.PullRequestEvent](t, "pull_request", data)
	if ref != "refs/pull/4/merge" || sha != "m4" || pr.GetPullRequest().GetHead().GetSHA() != "h4" || pr.GetPullRequest().GetMergeCommitSHA() != "m4" || len(pr.GetPullRequest().Labels) != 1 {
		t.Errorf("pull_request: got ref %s sha %s head %s", ref, sha, pr.GetPullRequest().GetHead().GetSHA())
	}

	data, ref, err = s.IssueCommentEvent("o", "r", 4, id)
	if err != nil {
		t.Fatal(err)
	}
	ic := strict[github.IssueCommentEvent](t, "issue_comment", data)
	if ref != "refs/heads/main" || !ic.GetIssue().IsPullRequest() || ic.GetIssue().GetNumber() != 4 || ic.GetComment().GetBody() != "/loopbreaker reset" {
		t.Errorf("issue_comment: got ref %s, issue %+v", ref, ic.GetIssue())
	}
	if strings.Contains(string(data), `"head"`) {
		t.Errorf("the issue_comment payload names a head: %s", data)
	}

	resp, body := do(t, s, "GET", "/_fake/event?repo=o/r&kind=workflow_run&run_id=50", "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Fake-Ref") != "refs/heads/main" || strings.Contains(string(body), `"number"`) {
		t.Errorf("event endpoint: got %d %s %s", resp.StatusCode, resp.Header.Get("X-Fake-Ref"), body)
	}
	if resp, _ := do(t, s, "GET", "/_fake/event?repo=o/r&kind=pull_request&number=4", "", nil); resp.Header.Get("X-Fake-Sha") != "m4" {
		t.Errorf("event endpoint: got merge %q, want m4", resp.Header.Get("X-Fake-Sha"))
	}
	for run, want := range map[int64]int{40: 1, 50: 0} {
		data, ref, err := s.WorkflowRunEvent("o", "r", run)
		if err != nil {
			t.Fatal(err)
		}
		wr := strict[github.WorkflowRunEvent](t, "workflow_run", data)
		if got := len(wr.GetWorkflowRun().PullRequests); got != want || ref != "refs/heads/main" {
			t.Errorf("workflow_run of run %d: got %d pull requests, ref %s, want %d", run, got, ref, want)
		}
		if run == 50 && wr.GetWorkflowRun().GetHeadRepository().GetFullName() != "carol/r" {
			t.Errorf("fork's run: got head repository %q, want carol/r", wr.GetWorkflowRun().GetHeadRepository().GetFullName())
		}
	}
}

// TestRuntimeTokenReachesItsRunOnly: any step holding a run's runtime
// token uploads into that run, and with overwrite replaces the run's
// artifact of that name (a new id, the old one gone); it reaches no other
// run and is no token of the REST API.
func TestRuntimeTokenReachesItsRunOnly(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	judge, err := s.UploadArtifact("o", "r", 7, "loopbreaker-record", []byte("judge"), false)
	if err != nil {
		t.Fatal(err)
	}
	tok := s.RuntimeToken("o", "r", 7)
	if _, err := s.UploadWithRuntimeToken(tok, "loopbreaker-record", []byte("planted"), false); !errors.Is(err, ErrArtifactExists) {
		t.Fatalf("same name without overwrite: got %v, want ErrArtifactExists", err)
	}
	planted, err := s.UploadWithRuntimeToken(tok, "loopbreaker-record", []byte("planted"), true)
	if err != nil || planted == judge {
		t.Fatalf("overwrite: got id %d, %v, want a new id", planted, err)
	}
	arts, _, err := ghClient(t, s, DefaultToken).Actions.ListWorkflowRunArtifacts(ctx, "o", "r", 7, nil)
	if err != nil || len(arts.Artifacts) != 1 || arts.Artifacts[0].GetID() != planted {
		t.Fatalf("run 7's artifacts: got %v (%v), want only the planted one", arts, err)
	}
	resp, body := do(t, s, "POST", "/_fake/upload?repo=o/r&run_id=8&name=loopbreaker-record", tok, []byte("x"))
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("run 7's token uploading into run 8: got %d %s, want 401", resp.StatusCode, body)
	}
	resp, body = do(t, s, "POST", "/_fake/upload?repo=o/r&run_id=7&name=other&file=record.json", tok, []byte(`[]`))
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("run 7's token uploading into run 7: got %d %s, want 201", resp.StatusCode, body)
	}
	if resp, _ := do(t, s, "GET", "/repos/o/r/pulls", tok, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the REST API took the runtime token: %d", resp.StatusCode)
	}
}
