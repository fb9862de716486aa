package fakegithub

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

func TestFaultKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault Fault
		check func(t *testing.T, err error, resp *github.Response)
	}{
		{"500", Fault{Status: 500}, wantErrorResponse(500)},
		{"502", Fault{Status: 502}, wantErrorResponse(502)},
		{"404", Fault{Status: 404}, wantErrorResponse(404)},
		{"primary rate limit", Fault{Status: 403, RetryAfter: 60}, func(t *testing.T, err error, resp *github.Response) {
			var rl *github.RateLimitError
			if !errors.As(err, &rl) {
				t.Fatalf("got %T %v, want *github.RateLimitError", err, err)
			}
			if rl.Rate.Remaining != 0 || !rl.Rate.Reset.Time.Equal(t0.Add(time.Minute)) {
				t.Errorf("got rate %+v, want remaining 0 and reset one minute on", rl.Rate)
			}
		}},
		{"secondary rate limit", Fault{Status: 403, Secondary: true, RetryAfter: 30}, func(t *testing.T, err error, resp *github.Response) {
			var ab *github.AbuseRateLimitError
			if !errors.As(err, &ab) {
				t.Fatalf("got %T %v, want *github.AbuseRateLimitError", err, err)
			}
			if ab.GetRetryAfter() != 30*time.Second {
				t.Errorf("got retry after %v, want 30s", ab.GetRetryAfter())
			}
		}},
		{"429", Fault{Status: 429, RetryAfter: 7}, func(t *testing.T, err error, resp *github.Response) {
			wantErrorResponse(429)(t, err, resp)
			if got := resp.Header.Get("Retry-After"); got != "7" {
				t.Errorf("got Retry-After %q, want 7", got)
			}
		}},
		{"corrupt body", Fault{Body: []byte("{not json")}, func(t *testing.T, err error, resp *github.Response) {
			if err == nil || resp == nil || resp.StatusCode != 200 {
				t.Errorf("got %v, want a decode error on a 200", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			s.AddPull("o", "r", Pull{Number: 1})
			s.Inject("GET", "/repos/o/r/pulls", tt.fault)
			gh := ghClient(t, s, DefaultToken)
			_, resp, err := gh.PullRequests.List(ctx, "o", "r", nil)
			tt.check(t, err, resp)
			// Other paths are not affected (a fresh client: go-github
			// remembers rate limits and would not send the request).
			if _, _, err := ghClient(t, s, DefaultToken).Issues.ListComments(ctx, "o", "r", 1, nil); err != nil {
				t.Errorf("unfaulted call: %v", err)
			}
		})
	}
}

func wantErrorResponse(code int) func(t *testing.T, err error, resp *github.Response) {
	return func(t *testing.T, err error, resp *github.Response) {
		t.Helper()
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response.StatusCode != code {
			t.Fatalf("got %v, want an *github.ErrorResponse with status %d", err, code)
		}
		if er.Message == "" || er.DocumentationURL == "" {
			t.Errorf("got error %+v, want GitHub's message and documentation_url", er)
		}
		if resp.Header.Get("X-RateLimit-Limit") == "" {
			t.Errorf("fault answer has no rate-limit headers")
		}
	}
}

func TestFaultTimesAndClear(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRepo("o", "r")
	s.Inject("", "/repos/o/r/pulls", Fault{Status: 502, Times: 2})
	var got []int
	for range 4 {
		resp, _ := do(t, s, "GET", "/repos/o/r/pulls", DefaultToken, nil)
		got = append(got, resp.StatusCode)
	}
	if want := []int{502, 502, 200, 200}; !equalInts(got, want) {
		t.Errorf("got statuses %v, want %v", got, want)
	}
	s.Inject("*", "/repos/", Fault{Status: 500})
	if resp, _ := do(t, s, "POST", "/repos/o/r/labels", DefaultToken, map[string]string{"name": "x"}); resp.StatusCode != 500 {
		t.Errorf("fault on every request: got %d, want 500", resp.StatusCode)
	}
	s.ClearFaults()
	if resp, _ := do(t, s, "GET", "/repos/o/r/pulls", DefaultToken, nil); resp.StatusCode != 200 {
		t.Errorf("after ClearFaults: got %d, want 200", resp.StatusCode)
	}
	if c := s.CallsTo("", "/repos/o/r/pulls") + s.CallsTo("", "/repos/o/r/labels"); c != 6 {
		t.Errorf("faulted calls are counted: got %d, want 6", c)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCorruptBlob(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	id := s.AddArtifact("o", "r", 1, "loopbreaker-record", []byte("PK good"), false)
	s.Inject("GET", "/_blobs/", Fault{Body: []byte("PK\x03\x04 truncated"), Times: 1})
	_, body := do(t, s, "GET", "/_blobs/"+itoa(id), "", nil)
	if string(body) != "PK\x03\x04 truncated" {
		t.Errorf("faulted blob: got %q, want the corrupt body", body)
	}
	_, body = do(t, s, "GET", "/_blobs/"+itoa(id), "", nil)
	if string(body) != "PK good" {
		t.Errorf("blob after the fault: got %q, want the archive", body)
	}
}

func TestDelayFault(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRepo("o", "r")
	s.Inject("GET", "/repos/o/r", Fault{Delay: 20 * time.Millisecond, Times: 1})
	start := time.Now()
	resp, body := do(t, s, "GET", "/repos/o/r/pulls", DefaultToken, nil)
	wantStatus(t, resp, body, http.StatusOK)
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("delayed answer came after %v, want at least 20ms", d)
	}

	// A request whose context is already over is not kept waiting.
	s.Inject("GET", "/repos/o/r", Fault{Delay: time.Hour})
	rctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(rctx, "GET", "/repos/o/r/pulls", nil)
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() { s.Handler().ServeHTTP(rec, req); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("handler ignored the request context")
	}
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("cancelled delayed request: got %d, want 503", rec.Code)
	}
}

func TestCloseEndsDelays(t *testing.T) {
	t.Parallel()
	s := NewHandler()
	s.Inject("", "/", Fault{Delay: time.Hour})
	done := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/user", nil))
		done <- rec.Code
	}()
	s.Close()
	select {
	case code := <-done:
		if code != http.StatusServiceUnavailable {
			t.Errorf("got %d, want 503", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end a pending delay")
	}
}

func TestPrimaryRateLimitBudget(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRepo("o", "r")
	s.SetRateLimit(10, 2, t0.Add(time.Hour))
	var remaining []string
	for range 3 {
		resp, _ := do(t, s, "GET", "/repos/o/r/pulls", DefaultToken, nil)
		remaining = append(remaining, strconv.Itoa(resp.StatusCode)+":"+resp.Header.Get("X-RateLimit-Remaining")+":"+resp.Header.Get("X-RateLimit-Used"))
	}
	want := []string{"200:1:9", "200:0:10", "403:0:10"}
	if len(remaining) != 3 || remaining[0] != want[0] || remaining[1] != want[1] || remaining[2] != want[2] {
		t.Errorf("got %v, want %v", remaining, want)
	}
	// At the reset time the budget comes back.
	s.SetClock(func() time.Time { return t0.Add(time.Hour) })
	resp, _ := do(t, s, "GET", "/repos/o/r/pulls", DefaultToken, nil)
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "9" {
		t.Errorf("after reset: got %d with remaining %s, want 200 and 9", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if got := resp.Header.Get("X-RateLimit-Reset"); got != strconv.FormatInt(t0.Add(2*time.Hour).Unix(), 10) {
		t.Errorf("after reset: got reset %s, want an hour on", got)
	}
	if got := resp.Header.Get("X-RateLimit-Resource"); got != "core" {
		t.Errorf("got resource %q, want core", got)
	}
}
