package fakegithub

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// newServer starts a Server closed at the end of the test, with a fixed
// clock so timestamps are predictable.
func newServer(t *testing.T) *Server {
	t.Helper()
	s := New()
	t.Cleanup(s.Close)
	s.SetClock(func() time.Time { return t0 })
	s.SetRateLimit(5000, 5000, t0.Add(time.Hour))
	return s
}

// ghClient returns a go-github client for s authenticated with tok ("" for
// none).
func ghClient(t *testing.T, s *Server, tok string) *github.Client {
	t.Helper()
	c := github.NewClient(nil)
	if tok != "" {
		c = c.WithAuthToken(tok)
	}
	u, err := url.Parse(s.URL + "/")
	if err != nil {
		t.Fatalf("parse %s: %v", s.URL, err)
	}
	c.BaseURL = u
	return c
}

// do sends a raw request; body is JSON-encoded unless it is a []byte.
func do(t *testing.T, s *Server, method, path, tok string, body any) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, s.URL+path, rd)
	if err != nil {
		t.Fatalf("new request %s %s: %v", method, path, err)
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s %s: %v", method, path, err)
	}
	return resp, data
}

// decodeJSON decodes data into a fresh value of type T.
func decodeJSON[T any](t *testing.T, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// wantStatus fails the test when resp has another status.
func wantStatus(t *testing.T, resp *http.Response, body []byte, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: got status %d, want %d (body %s)", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
}

// errStatus returns the HTTP status of a go-github error (0 when none).
func errStatus(err error) int {
	switch e := err.(type) {
	case *github.ErrorResponse:
		return e.Response.StatusCode
	case *github.RateLimitError:
		return e.Response.StatusCode
	case *github.AbuseRateLimitError:
		return e.Response.StatusCode
	}
	return 0
}

var ctx = context.Background()

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func readAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
