// Package checkouttest serves git repositories over smart HTTP for tests,
// as GitHub serves a repository to actions/checkout: authenticated with a
// token as HTTP basic auth (user x-access-token), answered by git's own
// http-backend so that shallow fetches and deepening behave as git's
// server makes them (go-git's in-process server has no shallow support).
package checkouttest

import (
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Serve serves the git repositories under root over smart HTTP and
// returns the base URL: the repository at root/name/.git is at
// URL/name/.git. Only requests that carry token as basic auth (user
// x-access-token) are answered; others get 401, as GitHub answers for a
// private repository. It skips the test when git's http-backend is not
// installed. The server stops at the end of the test.
func Serve(t testing.TB, root, token string) string {
	t.Helper()
	h, err := Handler(root, token)
	if err != nil {
		t.Skip(err.Error())
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// Handler is Serve's handler, for a server of one's own (the end-to-end
// test's): git's http-backend for the repositories under root, behind the
// token. Pushes are accepted by a repository whose config sets
// http.receivepack. The error says why git's http-backend cannot run.
func Handler(root, token string) (http.Handler, error) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return nil, fmt.Errorf("git is not installed: no smart HTTP server")
	}
	out, err := exec.Command(gitBin, "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := exec.LookPath(backend); err != nil {
		return nil, fmt.Errorf("git-http-backend is not installed: %v", err)
	}
	cgiHandler := &cgi.Handler{Path: backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "x-access-token" || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "Invalid username or token.", http.StatusUnauthorized)
			return
		}
		cgiHandler.ServeHTTP(w, r)
	}), nil
}
