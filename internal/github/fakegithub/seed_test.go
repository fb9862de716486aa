package fakegithub

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

const seedJSON = `{
  "tokens": [{"token": "fork", "login": "github-actions[bot]", "type": "Bot", "read_only": true}],
  "page_size": 50,
  "repos": [{
    "owner": "acme", "name": "agent",
    "labels": [{"name": "loopbreaker:open", "color": "#B60205", "description": "breaker open"}],
    "pulls": [{"number": 9, "title": "loop", "user": "bot", "user_type": "Bot", "head_sha": "h9", "head_ref": "loop",
               "labels": ["loopbreaker:open"], "created_at": "2024-03-01T10:00:00Z", "commits": ["c1", "c2"], "files": ["a.go"]}],
    "issues": [{"number": 10, "title": "tracking", "labels": ["meta"]}],
    "runs": [{"id": 500, "head_branch": "loop", "head_sha": "h9", "created_at": "2024-03-01T11:00:00Z"}],
    "artifacts": [{"run_id": 500, "name": "loopbreaker-record", "zip_files": {"record.json": "{\"version\":1}"}},
                  {"id": 900, "run_id": 500, "name": "old", "zip": "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==", "expired": true}],
    "permissions": {"alice": "write"},
    "files": [{"path": ".loopbreaker.toml", "content": "x = 1"}, {"ref": "loop", "path": "bin", "content_base64": "AP8="}],
    "comments": [{"number": 9, "login": "alice", "user_type": "User", "body": "/loopbreaker reset", "created_at": "2024-03-01T12:00:00Z"}],
    "events": [{"number": 9, "event": "labeled", "label": "loopbreaker:open", "login": "github-actions[bot]", "user_type": "Bot", "created_at": "2024-03-01T11:30:00Z"}]
  }]
}`

func TestLoadSeed(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	if err := s.LoadSeed(strings.NewReader(seedJSON)); err != nil {
		t.Fatalf("load seed: %v", err)
	}
	gh := ghClient(t, s, DefaultToken)
	prs, _, err := gh.PullRequests.List(ctx, "acme", "agent", nil)
	if err != nil || len(prs) != 1 || prs[0].GetHead().GetSHA() != "h9" || prs[0].Labels[0].GetColor() != "b60205" {
		t.Errorf("seeded pull: got %v, %v", prs, err)
	}
	arts, _, err := gh.Actions.ListArtifacts(ctx, "acme", "agent", nil)
	if err != nil || arts.GetTotalCount() != 2 || arts.Artifacts[1].GetWorkflowRun().GetHeadBranch() != "loop" {
		t.Fatalf("seeded artifacts: got %v, %v", arts, err)
	}
	loc, _, err := gh.Actions.DownloadArtifact(ctx, "acme", "agent", arts.Artifacts[1].GetID(), 0)
	if err != nil {
		t.Fatalf("download seeded artifact: %v", err)
	}
	resp, body := do(t, s, "GET", loc.Path, "", nil)
	wantStatus(t, resp, body, http.StatusOK)
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "record.json" {
		t.Fatalf("seeded zip: got %v, %v", zr, err)
	}
	rc, _ := zr.File[0].Open()
	data, _ := io.ReadAll(rc)
	if string(data) != `{"version":1}` {
		t.Errorf("record.json: got %q", data)
	}
	p, _, err := gh.Repositories.GetPermissionLevel(ctx, "acme", "agent", "alice")
	if err != nil || p.GetPermission() != "write" {
		t.Errorf("seeded permission: got %v, %v", p, err)
	}
	if _, _, err := ghClient(t, s, "fork").Issues.AddLabelsToIssue(ctx, "acme", "agent", 9, []string{"x"}); errStatus(err) != 403 {
		t.Errorf("seeded read-only token: got %v, want 403", err)
	}
	if got := s.IssueLabels("acme", "agent", 10); len(got) != 1 || got[0] != "meta" {
		t.Errorf("seeded issue labels: got %v", got)
	}
}

func TestSeedDumpRoundTrip(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	if err := s.LoadSeed(strings.NewReader(seedJSON)); err != nil {
		t.Fatalf("load seed: %v", err)
	}
	gh := ghClient(t, s, DefaultToken)
	if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "agent", 9, []string{"loopbreaker:half-open"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Issues.CreateComment(ctx, "acme", "agent", 9, &github.IssueComment{Body: github.String("sticky")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateStatus(ctx, "acme", "agent", "h9", &github.RepoStatus{State: github.String("failure"), Context: github.String("loopbreaker")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Checks.CreateCheckRun(ctx, "acme", "agent", github.CreateCheckRunOptions{Name: "loopbreaker", HeadSHA: "h9",
		Conclusion: github.String("failure"), Output: &github.CheckRunOutput{Title: github.String("OPEN"), Summary: github.String("s")}}); err != nil {
		t.Fatal(err)
	}

	var first bytes.Buffer
	if err := s.Dump(&first); err != nil {
		t.Fatalf("dump: %v", err)
	}
	st := s.State()
	if st.Calls == nil || st.Calls.Total != 4 || st.Calls.ByRoute["POST /repos/acme/agent/check-runs"] != 1 {
		t.Errorf("dump calls: got %+v, want 4 with one check-run POST", st.Calls)
	}

	s2 := NewHandler()
	s2.SetClock(func() time.Time { return t0 })
	if err := s2.LoadSeed(bytes.NewReader(first.Bytes())); err != nil {
		t.Fatalf("load dump: %v", err)
	}
	st2 := s2.State()
	st.Calls, st2.Calls = nil, nil
	if diff := cmp.Diff(st, st2); diff != "" {
		t.Errorf("state after a dump round trip (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(s.Statuses("acme", "agent", "h9"), s2.Statuses("acme", "agent", "h9")); diff != "" {
		t.Errorf("statuses (-first +second):\n%s", diff)
	}
	// New ids do not collide with loaded ones.
	id := s2.AddComment("acme", "agent", 9, "x", "User", "y", t0)
	for _, c := range s.Comments("acme", "agent", 9) {
		if c.ID == id {
			t.Errorf("new comment id %d collides with a loaded one", id)
		}
	}
}

func TestLoadSeedErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, seed, want string
	}{
		{"not json", `{`, "decode seed"},
		{"unknown field", `{"repoz": []}`, `unknown field "repoz"`},
		{"two values", `{} {}`, "more than one JSON value"},
		{"no owner", `{"repos":[{"name":"r"}]}`, "repos[0]: owner"},
		{"bad pull", `{"repos":[{"owner":"o","name":"r","pulls":[{"number":0}]}]}`, "repos[0] (o/r): pulls[0]: number 0 must be positive"},
		{"bad state", `{"repos":[{"owner":"o","name":"r","pulls":[{"number":1,"state":"merged"}]}]}`, `state "merged"`},
		{"bad permission", `{"repos":[{"owner":"o","name":"r","permissions":{"a":"owner"}}]}`, `permissions["a"]: "owner"`},
		{"bad event", `{"repos":[{"owner":"o","name":"r","events":[{"number":1,"event":"commented","label":"x"}]}]}`, "events[0]"},
		{"label event without a label", `{"repos":[{"owner":"o","name":"r","events":[{"number":1,"event":"labeled"}]}]}`, "needs a label"},
		{"bad permission", `{"tokens":[{"token":"t","login":"l","permissions":{"issues":"admin"}}],"repos":[]}`, `"admin"`},
		{"bad colour", `{"repos":[{"owner":"o","name":"r","labels":[{"name":"x","color":"red"}]}]}`, `color "red"`},
		{"zip and zip_files", `{"repos":[{"owner":"o","name":"r","artifacts":[{"run_id":1,"name":"a","zip":"AA==","zip_files":{"a":"b"}}]}]}`, "not both"},
		{"bad rate", `{"rate_limit":{"limit":1,"remaining":5},"repos":[]}`, "rate_limit"},
		{"bad status", `{"repos":[{"owner":"o","name":"r","statuses":[{"sha":"a","state":"ok","context":"c"}]}]}`, "statuses[0]"},
		{"bad check run", `{"repos":[{"owner":"o","name":"r","check_runs":[{"name":"a","head_sha":"b","status":"done"}]}]}`, "check_runs[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewHandler()
			err := s.LoadSeed(strings.NewReader(tt.seed))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if got := s.State().Repos; len(got) != 0 {
				t.Errorf("a bad seed changed the state: %v", got)
			}
		})
	}
	s := NewHandler()
	big := io.MultiReader(strings.NewReader(`{"repos":[],"x":"`), io.LimitReader(zeroReader{}, MaxSeedBytes))
	if err := s.LoadSeed(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized seed: got %v, want a size error", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestFakeControlEndpoints(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	resp, body := do(t, s, "POST", "/_fake/seed", "", []byte(seedJSON))
	wantStatus(t, resp, body, http.StatusNoContent)
	resp, body = do(t, s, "POST", "/_fake/seed", "", []byte(`{"repos":[{}]}`))
	wantStatus(t, resp, body, http.StatusBadRequest)
	do(t, s, "GET", "/repos/acme/agent/pulls", DefaultToken, nil)
	resp, body = do(t, s, "POST", "/_fake/dump", "", nil)
	wantStatus(t, resp, body, http.StatusOK)
	st := decodeJSON[State](t, body)
	if len(st.Repos) != 1 || st.Calls.Total != 1 {
		t.Errorf("dump: got %d repos and %d calls, want 1 and 1", len(st.Repos), st.Calls.Total)
	}
	resp, body = do(t, s, "POST", "/_fake/reset-calls", "", nil)
	wantStatus(t, resp, body, http.StatusNoContent)
	if s.Calls() != 0 {
		t.Errorf("after reset-calls: got %d calls", s.Calls())
	}
	resp, body = do(t, s, "GET", "/_fake/other", "", nil)
	wantStatus(t, resp, body, http.StatusNotFound)
}
