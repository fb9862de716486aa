package fakegithub

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestContents(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	policy := []byte("[breaker]\nno_progress_threshold = 3\n" + string(make([]byte, 100)))
	s.PutFile("o", "r", "main", ".loopbreaker.toml", policy)
	s.PutFile("o", "r", "", ".github/workflows/loop.yml", []byte("on: push"))
	s.PutFile("o", "r", "loop", ".loopbreaker.toml", []byte("loosened"))
	gh := ghClient(t, s, DefaultToken)

	f, _, _, err := gh.Repositories.GetContents(ctx, "o", "r", ".loopbreaker.toml", &github.RepositoryContentGetOptions{Ref: "main"})
	if err != nil {
		t.Fatalf("get contents: %v", err)
	}
	got, err := f.GetContent()
	if err != nil || got != string(policy) {
		t.Errorf("content at main: got %q, %v, want the policy", got, err)
	}
	if f.GetSHA() != blobSHA(policy) || f.GetEncoding() != "base64" || f.GetSize() != len(policy) {
		t.Errorf("file fields: got sha %s encoding %s size %d", f.GetSHA(), f.GetEncoding(), f.GetSize())
	}
	f, _, _, err = gh.Repositories.GetContents(ctx, "o", "r", ".loopbreaker.toml", &github.RepositoryContentGetOptions{Ref: "loop"})
	if c, _ := f.GetContent(); err != nil || c != "loosened" {
		t.Errorf("content at loop: got %q, %v", c, err)
	}
	_, dir, _, err := gh.Repositories.GetContents(ctx, "o", "r", ".github", nil)
	if err != nil || len(dir) != 1 || dir[0].GetType() != "dir" || dir[0].GetName() != "workflows" {
		t.Errorf("directory listing: got %v, %v", dir, err)
	}
	_, root, _, err := gh.Repositories.GetContents(ctx, "o", "r", "", nil)
	var names []string
	for _, e := range root {
		names = append(names, e.GetName())
	}
	if diff := cmp.Diff([]string{".github", ".loopbreaker.toml"}, names); err != nil || diff != "" {
		t.Errorf("root listing (-want +got):\n%s%v", diff, err)
	}
	for _, tt := range []struct{ path, ref string }{{"missing.toml", "main"}, {".loopbreaker.toml", "nobranch"}} {
		_, _, resp, err := gh.Repositories.GetContents(ctx, "o", "r", tt.path, &github.RepositoryContentGetOptions{Ref: tt.ref})
		if err == nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s at %s: got %v, want 404", tt.path, tt.ref, err)
		}
	}
	if want := "https://raw.githubusercontent.com/o/r/loop/.loopbreaker.toml"; f.GetDownloadURL() != want {
		t.Errorf("download URL: got %q, want %q", f.GetDownloadURL(), want)
	}
}

// TestUnknownRoutes: only the endpoints the client calls are served;
// every other one, including the reads GitHub has beside them, answers 404.
func TestUnknownRoutes(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1})
	s.AddComment("o", "r", 1, "alice", "User", "hi", t0)
	for _, path := range []string{"/nope", "/rate_limit", "/repos/o/r", "/repos/o/r/unknown", "/repos/o/r/issues/1",
		"/repos/o/r/issues/1/labels", "/repos/o/r/labels", "/repos/o/r/issues/comments/1", "/repos/o/r/commits/main/status",
		"/repos/o/r/actions/runs", "/repos/o/r/actions/artifacts/1", "/_raw/o/r/main/x"} {
		resp, body := do(t, s, "GET", path, DefaultToken, nil)
		wantStatus(t, resp, body, http.StatusNotFound)
		if e := decodeJSON[github.ErrorResponse](t, body); e.Message != "Not Found" {
			t.Errorf("GET %s: got %+v, want Not Found", path, e)
		}
	}
	for _, r := range [][2]string{{"PUT", "/repos/o/r/labels"}, {"DELETE", "/repos/o/r/issues/comments/1"}, {"PATCH", "/repos/o/r/check-runs/1"}} {
		resp, body := do(t, s, r[0], r[1], DefaultToken, nil)
		wantStatus(t, resp, body, http.StatusNotFound)
	}
}
