package fakegithub

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func zipOf(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatalf("zip %s: %v", name, err)
	}
	if _, err := io.WriteString(w, content); err != nil {
		t.Fatalf("zip %s: %v", name, err)
	}
	if err := zw.Close(); err != nil {
		t.Fatalf("zip %s: %v", name, err)
	}
	return buf.Bytes()
}

func seedRuns(s *Server) {
	for i, r := range []Run{{ID: 101, HeadBranch: "loop", HeadSHA: "a1"}, {ID: 102, HeadBranch: "loop", HeadSHA: "a2"}} {
		r.CreatedAt = t0.Add(time.Duration(i) * time.Hour)
		s.AddRun("o", "r", r)
	}
}

func TestArtifactsAndDownload(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	seedRuns(s)
	record := zipOf(t, "record.json", `{"version":1}`)
	fresh := s.AddArtifact("o", "r", 102, "loopbreaker-record", record, false)
	old := s.AddArtifact("o", "r", 101, "loopbreaker-record", []byte("gone"), true)
	s.AddArtifact("o", "r", 101, "other", []byte("x"), false)
	gh := ghClient(t, s, DefaultToken)

	list, _, err := gh.Actions.ListArtifacts(ctx, "o", "r", &github.ListOptions{})
	if err != nil || list.GetTotalCount() != 3 {
		t.Fatalf("list artifacts: got %v, %v, want 3", list.GetTotalCount(), err)
	}
	resp, body := do(t, s, "GET", "/repos/o/r/actions/artifacts?name=loopbreaker-record", DefaultToken, nil)
	wantStatus(t, resp, body, http.StatusOK)
	named := decodeJSON[github.ArtifactList](t, body)
	byID := map[int64]*github.Artifact{}
	for _, a := range named.Artifacts {
		byID[a.GetID()] = a
	}
	if named.GetTotalCount() != 2 || len(byID) != 2 || byID[old] == nil || byID[fresh] == nil {
		t.Fatalf("artifacts named loopbreaker-record: got %+v, want %d and %d", named, old, fresh)
	}
	a := byID[fresh]
	got := []any{a.GetName(), a.GetSizeInBytes(), a.GetExpired(), a.GetWorkflowRun().GetID(), a.GetWorkflowRun().GetHeadBranch(),
		a.GetWorkflowRun().GetHeadSHA(), a.GetArchiveDownloadURL()}
	want := []any{"loopbreaker-record", int64(len(record)), false, int64(102), "loop", "a2",
		s.URL + "/repos/o/r/actions/artifacts/" + itoa(fresh) + "/zip"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("artifact fields (-want +got):\n%s", diff)
	}
	if !byID[old].GetExpired() {
		t.Errorf("artifact %d: got expired false, want true", old)
	}

	loc, resp2, err := gh.Actions.DownloadArtifact(ctx, "o", "r", fresh, 0)
	if err != nil || resp2.StatusCode != http.StatusFound {
		t.Fatalf("download artifact: %v", err)
	}
	if want := s.URL + "/_blobs/" + itoa(fresh); loc.String() != want {
		t.Errorf("redirect: got %s, want %s", loc, want)
	}
	calls := s.Calls()
	blobResp, blob := do(t, s, "GET", loc.Path, "", nil)
	wantStatus(t, blobResp, blob, http.StatusOK)
	if !bytes.Equal(blob, record) {
		t.Errorf("blob: got %d bytes, want the %d-byte zip", len(blob), len(record))
	}
	if s.Calls() != calls {
		t.Errorf("blob download counted as an API call: got %d calls, want %d", s.Calls(), calls)
	}

	_, goneResp, err := gh.Actions.DownloadArtifact(ctx, "o", "r", old, 0)
	if err == nil || goneResp == nil || goneResp.StatusCode != http.StatusGone {
		t.Errorf("expired artifact: got %v, want 410", err)
	}
	resp, body = do(t, s, "GET", "/_blobs/"+itoa(old), "", nil)
	wantStatus(t, resp, body, http.StatusGone)
	resp, body = do(t, s, "GET", "/repos/o/r/actions/artifacts/"+itoa(fresh)+"/zip", "", nil)
	wantStatus(t, resp, body, http.StatusUnauthorized)
	resp, body = do(t, s, "GET", "/repos/o/r/actions/artifacts/424242/zip", DefaultToken, nil)
	wantStatus(t, resp, body, http.StatusNotFound)
}
