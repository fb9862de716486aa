package github

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

const recordName = "loopbreaker-record"

func TestLatestArtifact(t *testing.T) {
	t.Parallel()
	type art struct {
		run     int64
		branch  string
		name    string
		expired bool
	}
	tests := []struct {
		name        string
		arts        []art // in upload order
		exclude     int64
		wantRun     int64 // 0 = nil
		wantExpired bool
	}{
		{"none", nil, 0, 0, false},
		{"newest on branch", []art{{10, "agent", recordName, false}, {11, "agent", recordName, false}, {12, "main", recordName, false}}, 0, 11, false},
		{"skips this run", []art{{10, "agent", recordName, false}, {11, "agent", recordName, false}}, 11, 10, false},
		{"skips expired", []art{{10, "agent", recordName, false}, {11, "agent", recordName, true}}, 0, 10, false},
		{"only expired is reported", []art{{10, "agent", recordName, true}, {11, "agent", recordName, true}}, 0, 11, true},
		{"other names ignored", []art{{10, "agent", recordName, false}, {11, "agent", "coverage", false}}, 0, 10, false},
		{"other branch only", []art{{10, "main", recordName, false}}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			for _, a := range tt.arts {
				h.srv.AddRun(owner, repo, fakegithub.Run{ID: a.run, HeadBranch: a.branch, HeadSHA: head, CreatedAt: t0})
				h.srv.AddArtifact(owner, repo, a.run, a.name, []byte("zip"), a.expired)
			}
			got, err := h.c.LatestArtifact(context.Background(), recordName, tt.exclude, onBranch("agent"))
			if err != nil {
				t.Fatalf("LatestArtifact: %v", err)
			}
			switch {
			case tt.wantRun == 0 && got != nil:
				t.Errorf("got artifact of run %d, want none", got.RunID)
			case tt.wantRun != 0 && got == nil:
				t.Errorf("got none, want the artifact of run %d", tt.wantRun)
			case got != nil && (got.RunID != tt.wantRun || got.Expired != tt.wantExpired || got.HeadBranch != "agent" || got.Name != recordName):
				t.Errorf("got %+v, want run %d expired %v", *got, tt.wantRun, tt.wantExpired)
			}
			if c := h.c.Calls(); c != 1 {
				t.Errorf("got %d calls, want 1", c)
			}
		})
	}
}

// onBranch says an artifact belongs to the loop when its run was on branch.
func onBranch(branch string) func(Artifact) bool {
	return func(a Artifact) bool { return a.HeadBranch == branch }
}

// TestLatestArtifactReadsEveryPage: GitHub lists the repository's
// artifacts in no documented order, so the newest of the loop's may be on
// any page; the one that belongs to another loop's history is skipped.
func TestLatestArtifactReadsEveryPage(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for run := int64(1); run <= 230; run++ {
		branch := "agent"
		if run%3 == 0 {
			branch = "main"
		}
		h.srv.AddRun(owner, repo, fakegithub.Run{ID: run, HeadBranch: branch, HeadSHA: head, CreatedAt: t0.Add(time.Duration(run) * time.Minute)})
		h.srv.AddArtifact(owner, repo, run, recordName, []byte("zip"), false)
	}
	got, err := h.c.LatestArtifact(context.Background(), recordName, 230, onBranch("agent"))
	if err != nil || got == nil || got.RunID != 229 {
		t.Fatalf("got %+v, %v, want the artifact of run 229", got, err)
	}
	if c := h.c.Calls(); c != 3 {
		t.Errorf("got %d calls for 230 artifacts, want 3 (every page)", c)
	}
}

// authSeen records, per path, whether requests carried a token.
type authSeen struct {
	mu   sync.Mutex
	seen map[string][]string
}

func (a *authSeen) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.seen[r.URL.Path] = append(a.seen[r.URL.Path], r.Header.Get("Authorization"))
		a.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (a *authSeen) get(prefix string) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for p, v := range a.seen {
		if strings.HasPrefix(p, prefix) {
			out = append(out, v...)
		}
	}
	return out
}

// recorded starts a fake behind a handler that records Authorization
// headers, with the fake's redirects pointing at that handler.
func recorded(t *testing.T) (*fakegithub.Server, *authSeen, string) {
	t.Helper()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	seen := &authSeen{seen: map[string][]string{}}
	front := httptest.NewServer(seen.wrap(srv.Handler()))
	t.Cleanup(front.Close)
	srv.URL = front.URL
	return srv, seen, front.URL
}

func TestDownloadArtifactDropsTokenOnRedirect(t *testing.T) {
	t.Parallel()
	srv, seen, base := recorded(t)
	zip := bytes.Repeat([]byte("PK"), 500)
	srv.AddRun(owner, repo, fakegithub.Run{ID: 7, HeadBranch: "agent", HeadSHA: head, CreatedAt: t0})
	srv.AddArtifact(owner, repo, 7, recordName, zip, false)
	c, _ := newClient(t, base)
	a, err := c.LatestArtifact(context.Background(), recordName, 0, onBranch("agent"))
	if err != nil || a == nil {
		t.Fatalf("LatestArtifact: %v, %v", a, err)
	}
	got, err := c.DownloadArtifact(context.Background(), a, 1<<20)
	if err != nil {
		t.Fatalf("DownloadArtifact: %v", err)
	}
	if !bytes.Equal(got, zip) {
		t.Errorf("got %d bytes, want the %d-byte zip", len(got), len(zip))
	}
	if api := seen.get("/repos/"); len(api) != 2 || api[0] != "Bearer "+fakegithub.DefaultToken || api[1] != api[0] {
		t.Errorf("API requests: got Authorization %q, want the token on both", api)
	}
	blob := seen.get("/_blobs/")
	if len(blob) != 1 || blob[0] != "" {
		t.Errorf("storage request: got Authorization %q, want one request without it", blob)
	}
	if n := c.Calls(); n != 2 {
		t.Errorf("got %d API calls, want 2 (list, zip redirect)", n)
	}
}

func TestDownloadArtifactFaults(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.AddRun(owner, repo, fakegithub.Run{ID: 7, HeadBranch: "agent", HeadSHA: head, CreatedAt: t0})
	live := h.srv.AddArtifact(owner, repo, 7, recordName, bytes.Repeat([]byte("z"), 4096), false)
	gone := h.srv.AddArtifact(owner, repo, 7, "old", []byte("zip"), true)
	ctx := context.Background()
	tests := []struct {
		name      string
		a         *Artifact
		max       int64
		wantErr   error
		wantText  string
		wantCalls int
	}{
		{"flagged expired: no call", &Artifact{ID: gone, Name: "old", Expired: true}, 1 << 20, ErrExpired, "expired", 0},
		{"410 from the API", &Artifact{ID: gone, Name: "old"}, 1 << 20, ErrExpired, "410", 1},
		{"missing", &Artifact{ID: 999999, Name: "x"}, 1 << 20, ErrNotFound, "404", 1},
		{"listed size over the bound: no call", &Artifact{ID: live, Name: recordName, Size: 4096}, 1000, nil, "larger than the 1000 allowed", 0},
		{"actual size over the bound", &Artifact{ID: live, Name: recordName}, 1000, nil, "larger than the 1000 allowed", 1},
		{"no bound", &Artifact{ID: live, Name: recordName}, 0, nil, "not positive", 0},
		{"nil", nil, 10, nil, "no artifact", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := h.again(t)
			_, err := c.DownloadArtifact(ctx, tt.a, tt.max)
			if err == nil {
				t.Fatalf("got no error, want one")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("got %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("got %q, want it to mention %q", err, tt.wantText)
			}
			if got := c.Calls(); got != tt.wantCalls {
				t.Errorf("got %d calls, want %d", got, tt.wantCalls)
			}
		})
	}
}

// TestDownloadArtifactStorageLinkRefused: storage answering 403 (a signed
// link that expired) is ErrExpired, not a token problem.
func TestDownloadArtifactStorageLinkRefused(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.AddRun(owner, repo, fakegithub.Run{ID: 7, HeadBranch: "agent", HeadSHA: head, CreatedAt: t0})
	id := h.srv.AddArtifact(owner, repo, 7, recordName, []byte("zip"), false)
	h.srv.Inject("GET", "/_blobs/", fakegithub.Fault{Status: 404})
	_, err := h.c.DownloadArtifact(context.Background(), &Artifact{ID: id, Name: recordName}, 100)
	if !errors.Is(err, ErrExpired) || errors.Is(err, ErrForbidden) || errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrExpired only", err)
	}
}

// TestDownloadArtifactStorageRetried: a 503 from storage is retried
// without counting as an API call.
func TestDownloadArtifactStorageRetried(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.AddRun(owner, repo, fakegithub.Run{ID: 7, HeadBranch: "agent", HeadSHA: head, CreatedAt: t0.Add(-time.Hour)})
	id := h.srv.AddArtifact(owner, repo, 7, recordName, []byte("zip"), false)
	h.srv.Inject("GET", "/_blobs/", fakegithub.Fault{Status: 503, Times: 1})
	got, err := h.c.DownloadArtifact(context.Background(), &Artifact{ID: id, Name: recordName}, 100)
	if err != nil || string(got) != "zip" {
		t.Fatalf("got %q, %v, want zip", got, err)
	}
	if n := h.c.Calls(); n != 1 {
		t.Errorf("got %d API calls, want 1", n)
	}
	if s := h.sl.got(); len(s) != 1 || s[0] != time.Second {
		t.Errorf("got waits %v, want [1s]", s)
	}
}
