package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

const seed = `{"repos":[{"owner":"acme","name":"agent",
  "pulls":[{"number":3,"head_sha":"abc","head_ref":"loop","created_at":"2024-03-01T10:00:00Z"}],
  "runs":[{"id":77,"path":".github/workflows/loop.yml","head_branch":"loop","head_sha":"abc","conclusion":"success","created_at":"2024-03-01T11:00:00Z"}],
  "artifacts":[{"run_id":77,"name":"loopbreaker-record","zip_files":{"record.json":"{}"}}],
  "permissions":{"alice":"admin"},
  "files":[{"path":".loopbreaker.toml","content":"x = 1"}]}]}`

// start runs the program in-process and returns its base URL and a
// channel with run's result.
func start(t *testing.T, args ...string) (string, <-chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := run(args, pw)
		pw.Close()
		errc <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read first line: %v (run: %v)", err, <-errc)
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line: got %q, want \"listening on http://127.0.0.1:PORT\"", line)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return base, errc
}

func wait(t *testing.T, errc <-chan error) {
	t.Helper()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not stop")
	}
}

func post(t *testing.T, u string) {
	t.Helper()
	resp, err := http.Post(u, "application/json", nil)
	if err != nil {
		t.Fatalf("POST %s: %v", u, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("POST %s: got %d", u, resp.StatusCode)
	}
}

func readDump(t *testing.T, path string) fakegithub.State {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read dump: %v", err)
	}
	var st fakegithub.State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("decode dump %s: %v", path, err)
	}
	return st
}

func TestRunServesSeedAndDumps(t *testing.T) {
	dir := t.TempDir()
	seedPath := filepath.Join(dir, "seed.json")
	dumpPath := filepath.Join(dir, "dump.json")
	if err := os.WriteFile(seedPath, []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	base, errc := start(t, "-addr", "127.0.0.1:0", "-state", seedPath, "-dump", dumpPath)

	gh := github.NewClient(nil).WithAuthToken(fakegithub.DefaultToken)
	gh.BaseURL, _ = url.Parse(base + "/")
	ctx := context.Background()
	if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "agent", 3, []string{"loopbreaker:open"}); err != nil {
		t.Fatalf("add label: %v", err)
	}
	arts, _, err := gh.Actions.ListArtifacts(ctx, "acme", "agent", nil)
	if err != nil || arts.GetTotalCount() != 1 {
		t.Fatalf("list artifacts: got %v, %v", arts, err)
	}
	loc, _, err := gh.Actions.DownloadArtifact(ctx, "acme", "agent", arts.Artifacts[0].GetID(), 0)
	if err != nil || !strings.HasPrefix(loc.String(), base+"/_blobs/") {
		t.Fatalf("download: got %v, %v, want a redirect to %s/_blobs/", loc, err, base)
	}

	post(t, base+"/_fake/dump")
	mid := readDump(t, dumpPath)
	if mid.Calls.Total != 3 {
		t.Errorf("dump on request: got %d calls, want 3", mid.Calls.Total)
	}

	if _, _, err := gh.Issues.CreateComment(ctx, "acme", "agent", 3, &github.IssueComment{Body: github.String("sticky")}); err != nil {
		t.Fatalf("comment: %v", err)
	}
	post(t, base+"/_fake/shutdown")
	wait(t, errc)

	final := readDump(t, dumpPath)
	if final.Calls.Total != 4 || final.Calls.ByRoute["POST /repos/acme/agent/issues/3/comments"] != 1 {
		t.Errorf("final dump calls: got %+v", final.Calls)
	}
	rs := final.Repos[0]
	if diff := cmp.Diff([]string{"loopbreaker:open"}, rs.Pulls[0].Labels); diff != "" {
		t.Errorf("final labels (-want +got):\n%s", diff)
	}
	if len(rs.Comments) != 1 || rs.Comments[0].Body != "sticky" || rs.Comments[0].Login != fakegithub.DefaultLogin {
		t.Errorf("final comments: got %+v", rs.Comments)
	}
	if len(rs.Events) != 1 || rs.Events[0].Event != "labeled" {
		t.Errorf("final events: got %+v", rs.Events)
	}
}

func TestRunFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"repos":[{"owner":"o"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-port", "1"}, "flag provided but not defined"},
		{"extra argument", []string{"serve"}, `unexpected argument "serve"`},
		{"missing state", []string{"-state", filepath.Join(dir, "none.json")}, "open state"},
		{"bad state", []string{"-state", bad}, "load state " + bad + ": seed: repos[0]"},
		{"bad address", []string{"-addr", "127.0.0.1:notaport"}, "listen on 127.0.0.1:notaport"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			err := run(tt.args, &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("got stdout %q, want none", out.String())
			}
		})
	}
}
