package fakegithub

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-github/v60/github"
)

func TestAuthentication(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1})
	s.AddToken("fork-token", DefaultLogin, "Bot")
	s.SetReadOnly("fork-token")
	s.AddToken("pat", "alice", "")
	tests := []struct {
		name, method, path, auth string
		code                     int
		msg                      string
	}{
		{"anonymous read", "GET", "/repos/o/r/pulls", "", 200, ""},
		{"anonymous write", "POST", "/repos/o/r/issues/1/comments", "", 401, "Requires authentication"},
		{"unknown token", "GET", "/repos/o/r/pulls", "Bearer nope", 401, "Bad credentials"},
		{"unknown scheme", "GET", "/repos/o/r/pulls", "Basic test-token", 401, "Bad credentials"},
		{"token scheme", "POST", "/repos/o/r/issues/1/comments", "token test-token", 201, ""},
		{"read-only read", "GET", "/repos/o/r/pulls", "Bearer fork-token", 200, ""},
		{"read-only write", "POST", "/repos/o/r/issues/1/labels", "Bearer fork-token", 403, "Resource not accessible by integration"},
		{"read-only delete", "DELETE", "/repos/o/r/issues/1/labels/x", "Bearer fork-token", 403, "Resource not accessible by integration"},
		{"anonymous user", "GET", "/user", "", 401, "Requires authentication"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, s.URL+tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tt.method == "POST" {
			req.Body = http.NoBody
			req, _ = http.NewRequest(tt.method, s.URL+tt.path, stringsReader(`{"body":"hi","labels":["x"]}`))
		}
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var body []byte
		body, _ = readAll(resp)
		if resp.StatusCode != tt.code {
			t.Errorf("%s: got %d, want %d (%s)", tt.name, resp.StatusCode, tt.code, body)
			continue
		}
		if tt.msg != "" {
			if e := decodeJSON[github.ErrorResponse](t, body); e.Message != tt.msg {
				t.Errorf("%s: got message %q, want %q", tt.name, e.Message, tt.msg)
			}
		}
		if resp.Header.Get("X-RateLimit-Remaining") == "" {
			t.Errorf("%s: no rate-limit headers", tt.name)
		}
	}
	if got := s.IssueLabels("o", "r", 1); len(got) != 0 {
		t.Errorf("read-only token changed labels: %v", got)
	}

	if u, _, err := ghClient(t, s, "pat").Users.Get(ctx, ""); err != nil || u.GetLogin() != "alice" || u.GetType() != "User" {
		t.Errorf("user of a PAT: got %v, %v, want alice", u, err)
	}
	// An installation token has no user: GITHUB_TOKEN gets 403.
	for _, tok := range []string{DefaultToken, "fork-token"} {
		_, _, err := ghClient(t, s, tok).Users.Get(ctx, "")
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response.StatusCode != http.StatusForbidden || er.Message != "Resource not accessible by integration" {
			t.Errorf("user of %s: got %v, want 403 Resource not accessible by integration", tok, err)
		}
	}
	c, _, err := ghClient(t, s, "pat").Issues.CreateComment(ctx, "o", "r", 1, &github.IssueComment{Body: github.String("/loopbreaker reset")})
	if err != nil || c.GetUser().GetLogin() != "alice" {
		t.Errorf("comment by pat: got %v, %v, want alice", c, err)
	}
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.SetPermission("o", "r", "Alice", "admin")
	s.SetPermission("o", "r", "bob", "maintain")
	s.SetPermission("o", "r", "carol", "triage")
	s.SetPermission("o", "r", "dave", "none")
	gh := ghClient(t, s, DefaultToken)
	for login, want := range map[string]string{"alice": "admin", "bob": "write", "carol": "read", "dave": "none"} {
		p, _, err := gh.Repositories.GetPermissionLevel(ctx, "o", "r", login)
		if err != nil || p.GetPermission() != want {
			t.Errorf("permission of %s: got %v, %v, want %s", login, p, err, want)
		}
	}
	resp, body := do(t, s, "GET", "/repos/o/r/collaborators/bob/permission", DefaultToken, nil)
	wantStatus(t, resp, body, 200)
	if got := decodeJSON[map[string]any](t, body)["role_name"]; got != "maintain" {
		t.Errorf("role_name of bob: got %v, want maintain", got)
	}
	if _, _, err := gh.Repositories.GetPermissionLevel(ctx, "o", "r", "mallory"); errStatus(err) != 404 {
		t.Errorf("unknown user: got %v, want 404", err)
	}
}
