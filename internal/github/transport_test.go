package github

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

const (
	labelsPath = "/repos/acme/widget/issues/1/labels"
	eventsPath = "/repos/acme/widget/issues/1/events"
)

func TestTransportFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		method      string // of the call below: GET LabelEvents or POST AddLabel
		fault       fakegithub.Fault
		edit        func(*Options)
		wantErr     error // nil = success
		wantStatus  int
		wantText    string
		wantCalls   int
		wantSleeps  []time.Duration
		wantApplied bool // POST: the label is on the issue
	}{
		{
			name: "500 then success", method: "GET",
			fault:     fakegithub.Fault{Status: 500, Times: 1},
			wantCalls: 2, wantSleeps: []time.Duration{time.Second},
		},
		{
			name: "503 twice then success on a write", method: "POST",
			fault:     fakegithub.Fault{Status: 503, Times: 2},
			wantCalls: 3, wantSleeps: []time.Duration{time.Second, 2 * time.Second}, wantApplied: true,
		},
		{
			name: "502 exhausted", method: "GET",
			fault:   fakegithub.Fault{Status: 502},
			wantErr: errTransient, wantStatus: 502, wantText: "GET " + eventsPath + ": 502 Bad Gateway",
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		},
		{
			name: "backoff capped by MaxWait", method: "GET",
			fault:   fakegithub.Fault{Status: 504},
			edit:    func(o *Options) { o.MaxRetries = 5; o.MaxWait = 3 * time.Second },
			wantErr: errTransient, wantStatus: 504, wantText: "after 6 attempts",
			wantCalls: 6, wantSleeps: []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, 3 * time.Second},
		},
		{
			name: "no retries", method: "GET",
			fault:   fakegithub.Fault{Status: 500},
			edit:    func(o *Options) { o.MaxRetries = -1 },
			wantErr: errTransient, wantStatus: 500, wantCalls: 1,
		},
		{
			name: "429 with Retry-After 2", method: "POST",
			fault:     fakegithub.Fault{Status: 429, RetryAfter: 2, Times: 1},
			wantCalls: 2, wantSleeps: []time.Duration{2 * time.Second}, wantApplied: true,
		},
		{
			name: "secondary limit with a short wait", method: "GET",
			fault:     fakegithub.Fault{Status: 403, Secondary: true, RetryAfter: 5, Times: 1},
			wantCalls: 2, wantSleeps: []time.Duration{5 * time.Second},
		},
		{
			name: "secondary limit longer than MaxWait", method: "POST",
			fault:   fakegithub.Fault{Status: 403, Secondary: true, RetryAfter: 120},
			wantErr: ErrRateLimited, wantStatus: 403, wantText: "longer than the 1m0s allowed", wantCalls: 1,
		},
		{
			name: "429 every time", method: "GET",
			fault:   fakegithub.Fault{Status: 429, RetryAfter: 1},
			wantErr: ErrRateLimited, wantStatus: 429, wantText: "secondary rate limit",
			wantCalls: 4, wantSleeps: []time.Duration{time.Second, time.Second, time.Second},
		},
		{
			name: "primary limit", method: "GET",
			fault:   fakegithub.Fault{Status: 403, RetryAfter: 2400},
			wantErr: ErrRateLimited, wantStatus: 403, wantText: "resets at", wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			c := h.c
			sl := h.sl
			if tt.edit != nil {
				c, sl = newClient(t, h.srv.URL, tt.edit)
			}
			path := labelsPath
			if tt.method == "GET" {
				path = eventsPath
			}
			h.srv.Inject(tt.method, path, tt.fault)
			var err error
			if tt.method == "GET" {
				_, err = c.LabelEvents(context.Background(), 1)
			} else {
				err = c.AddLabel(context.Background(), 1, LabelSpec{Name: "loopbreaker:open"})
			}
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("got %v, want success", err)
			case tt.wantErr != nil && err == nil:
				t.Fatalf("got success, want an error")
			case tt.wantErr != nil:
				var ae *APIError
				if !errors.As(err, &ae) {
					t.Fatalf("got %T %v, want *APIError", err, err)
				}
				if tt.wantErr != errTransient && !errors.Is(err, tt.wantErr) {
					t.Errorf("got %v, want %v", err, tt.wantErr)
				}
				if tt.wantErr == errTransient && (errors.Is(err, ErrRateLimited) || errors.Is(err, ErrForbidden)) {
					t.Errorf("got %v, want a transient failure, not a rate limit or refusal", err)
				}
				if ae.Status != tt.wantStatus {
					t.Errorf("got status %d, want %d", ae.Status, tt.wantStatus)
				}
				if !strings.HasPrefix(ae.Error(), tt.method+" "+path+": ") || !strings.Contains(ae.Error(), tt.wantText) {
					t.Errorf("got %q, want it to name the call and mention %q", ae.Error(), tt.wantText)
				}
			}
			if got := c.Calls(); got != tt.wantCalls {
				t.Errorf("got %d calls, want %d", got, tt.wantCalls)
			}
			if got := h.srv.Calls(); got != tt.wantCalls {
				t.Errorf("the fake counted %d calls, want %d", got, tt.wantCalls)
			}
			if diff := cmp.Diff(tt.wantSleeps, sl.got()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			if tt.method == "POST" {
				labels := h.srv.IssueLabels(owner, repo, 1)
				if applied := len(labels) == 1; applied != tt.wantApplied {
					t.Errorf("got labels %v, want applied %v", labels, tt.wantApplied)
				}
			}
		})
	}
}

// errTransient marks a wanted error that is neither a rate limit nor a
// refusal.
var errTransient = errors.New("transient")

func TestPrimaryLimitBlocksLaterCalls(t *testing.T) {
	t.Parallel()
	h := setup(t)
	now := time.Now()
	h.srv.SetRateLimit(5000, 0, now.Add(40*time.Minute))
	_, err := h.c.LabelEvents(context.Background(), 1)
	var ae *APIError
	if !errors.As(err, &ae) || !ae.RateLimited || ae.RetryAfter < 39*time.Minute || ae.RetryAfter > 41*time.Minute {
		t.Fatalf("got %v, want a rate limit resetting in about 40m", err)
	}
	reset := now.Add(40 * time.Minute).UTC().Truncate(time.Second).Format(time.RFC3339)
	if !strings.Contains(ae.Message, reset) {
		t.Errorf("got %q, want the reset time %s", ae.Message, reset)
	}
	if rem, lim, ok := h.c.RateRemaining(); !ok || rem != 0 || lim != 5000 {
		t.Errorf("RateRemaining: got %d, %d, %v, want 0, 5000, true", rem, lim, ok)
	}
	// The next call is refused without a request.
	err = h.c.AddLabel(context.Background(), 1, LabelSpec{Name: "x"})
	if !errors.Is(err, ErrRateLimited) || !strings.HasPrefix(err.Error(), "POST "+labelsPath) {
		t.Errorf("got %v, want a rate limit naming the call", err)
	}
	if got := h.c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1", got)
	}
	if s := h.sl.got(); len(s) != 0 {
		t.Errorf("got waits %v, want none", s)
	}
}

func TestRateRemainingTracksAnswers(t *testing.T) {
	t.Parallel()
	h := setup(t)
	if _, _, ok := h.c.RateRemaining(); ok {
		t.Errorf("RateRemaining before any call: got known, want unknown")
	}
	h.srv.SetRateLimit(100, 50, time.Now().Add(time.Hour))
	if _, err := h.c.LabelEvents(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if rem, lim, ok := h.c.RateRemaining(); !ok || rem != 49 || lim != 100 {
		t.Errorf("got %d, %d, %v, want 49, 100, true", rem, lim, ok)
	}
}

func TestReadOnlyTokenIsForbidden(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetReadOnly(fakegithub.DefaultToken)
	err := h.c.AddLabel(context.Background(), 1, LabelSpec{Name: "loopbreaker:open"})
	if !errors.Is(err, ErrForbidden) || errors.Is(err, ErrRateLimited) {
		t.Fatalf("got %v, want ErrForbidden", err)
	}
	if !strings.Contains(err.Error(), "Resource not accessible by integration") || !strings.HasPrefix(err.Error(), "POST "+labelsPath) {
		t.Errorf("got %q, want the call and GitHub's message", err)
	}
	if got := h.c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1 (no retry)", got)
	}
	// Reads still work.
	if _, err := h.c.LabelEvents(context.Background(), 1); err != nil {
		t.Errorf("read with a read-only token: %v", err)
	}
}

func TestBadTokenIsForbidden(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := h.again(t, func(o *Options) { o.Token = "wrong" })
	_, err := c.LabelEvents(context.Background(), 1)
	if !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), "Bad credentials") {
		t.Errorf("got %v, want ErrForbidden with Bad credentials", err)
	}
}

func TestSlowAnswerHonoursDeadline(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.Inject("GET", eventsPath, fakegithub.Fault{Delay: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.c.LabelEvents(ctx, 1)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
	var ae *APIError
	if !errors.As(err, &ae) || !strings.HasPrefix(ae.Error(), "GET "+eventsPath) {
		t.Errorf("got %v, want an *APIError naming the call", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s, want the deadline to end it", d)
	}
	if got := h.c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1 (no retry after the deadline)", got)
	}
}

// flaky fails the first n requests with a network error.
type flaky struct {
	n    atomic.Int32
	next http.RoundTripper
}

func (f *flaky) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.n.Add(-1) >= 0 {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, errors.New("connection reset by peer")
	}
	return f.next.RoundTrip(r)
}

func TestNetworkErrorsRetried(t *testing.T) {
	t.Parallel()
	h := setup(t)
	f := &flaky{next: http.DefaultTransport}
	f.n.Store(2)
	c, sl := newClient(t, h.srv.URL, func(o *Options) { o.HTTPClient = &http.Client{Transport: f} })
	if err := c.AddLabel(context.Background(), 1, LabelSpec{Name: "loopbreaker:open"}); err != nil {
		t.Fatalf("AddLabel: %v", err)
	}
	if diff := cmp.Diff([]string{"loopbreaker:open"}, h.srv.IssueLabels(owner, repo, 1)); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if got := c.Calls(); got != 3 {
		t.Errorf("got %d calls, want 3", got)
	}
	if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, sl.got()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}

	f.n.Store(10)
	_, err := c.LabelEvents(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "connection reset") || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("got %v, want the network error after 4 attempts", err)
	}
}

func TestSleepErrorStopsRetries(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c, _ := newClient(t, h.srv.URL, func(o *Options) {
		o.Sleep = func(context.Context, time.Duration) error { return context.Canceled }
	})
	h.srv.Inject("GET", eventsPath, fakegithub.Fault{Status: 500})
	_, err := c.LabelEvents(context.Background(), 1)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if got := c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1", got)
	}
}

func TestRetryAfterForms(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	c, _ := newClient(t, "http://127.0.0.1:1", func(o *Options) { o.Now = func() time.Time { return now } })
	tests := []struct {
		v      string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"-3", 0, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"soon", 0, false},
		{"99999999999999", 365 * 24 * time.Hour, true},
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.v != "" {
			h.Set("Retry-After", tt.v)
		}
		got, ok := c.retryAfter(h)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Retry-After %q: got %s, %v, want %s, %v", tt.v, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
	}{
		{"no owner", Options{Repo: "r"}},
		{"no repo", Options{Owner: "o"}},
		{"slash in repo", Options{Owner: "o", Repo: "r/../x"}},
		{"bad base", Options{Owner: "o", Repo: "r", BaseURL: "ftp://x"}},
		{"base without host", Options{Owner: "o", Repo: "r", BaseURL: "https://"}},
	}
	for _, tt := range tests {
		if _, err := New(tt.o); err == nil {
			t.Errorf("%s: got no error, want one", tt.name)
		}
	}
	if _, err := New(Options{Owner: "o", Repo: "r.go"}); err != nil {
		t.Errorf("defaults: got %v, want nil", err)
	}
}

func TestEnterpriseBasePath(t *testing.T) {
	t.Parallel()
	h := setup(t)
	c := h.again(t, func(o *Options) { o.BaseURL = h.srv.URL + "/api/v3" })
	if err := c.AddLabel(context.Background(), 1, LabelSpec{Name: "x"}); err != nil {
		t.Fatalf("AddLabel via /api/v3: %v", err)
	}
	h.srv.Inject("GET", eventsPath, fakegithub.Fault{Status: 404})
	_, err := c.LabelEvents(context.Background(), 1)
	if err == nil || !strings.HasPrefix(err.Error(), "GET "+eventsPath+": 404") {
		t.Errorf("got %v, want the call named without the base path", err)
	}
}

func TestAPIErrorIs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    *APIError
		want []error
	}{
		{&APIError{Status: 404}, []error{ErrNotFound}},
		{&APIError{Status: 403}, []error{ErrForbidden}},
		{&APIError{Status: 401}, []error{ErrForbidden}},
		{&APIError{Status: 403, RateLimited: true}, []error{ErrRateLimited}},
		{&APIError{Status: 429, RateLimited: true}, []error{ErrRateLimited}},
		{&APIError{Status: 410}, []error{ErrExpired}},
		{&APIError{Status: 403, storage: true}, []error{ErrExpired}},
		{&APIError{Status: 502}, nil},
		{&APIError{Err: context.Canceled}, []error{context.Canceled}},
	}
	all := []error{ErrNotFound, ErrForbidden, ErrRateLimited, ErrExpired, context.Canceled}
	for _, tt := range tests {
		for _, target := range all {
			want := false
			for _, w := range tt.want {
				want = want || w == target
			}
			if got := errors.Is(tt.e, target); got != want {
				t.Errorf("%+v is %v: got %v, want %v", *tt.e, target, got, want)
			}
		}
	}
}

func TestSecondaryLimitBlocksLaterCalls(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.Inject("POST", labelsPath, fakegithub.Fault{Status: 403, Secondary: true, RetryAfter: 120, Times: 1})
	err := h.c.AddLabel(context.Background(), 1, LabelSpec{Name: "x"})
	var ae *APIError
	if !errors.As(err, &ae) || !ae.RateLimited || ae.RetryAfter != 2*time.Minute {
		t.Fatalf("got %v, want a secondary limit asking for 2m", err)
	}
	_, err = h.c.LabelEvents(context.Background(), 1)
	if !errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "not sent") {
		t.Errorf("got %v, want the next call refused locally", err)
	}
	if got := h.c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1", got)
	}
}

// TestLastCallOfTheLimit: an answer that spends the last call makes
// go-github refuse the next one locally; that too is ErrRateLimited.
func TestLastCallOfTheLimit(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetRateLimit(5000, 1, time.Now().Add(time.Hour))
	if _, err := h.c.LabelEvents(context.Background(), 1); err != nil {
		t.Fatalf("last call: %v", err)
	}
	_, err := h.c.LabelEvents(context.Background(), 1)
	var ae *APIError
	if !errors.As(err, &ae) || !ae.RateLimited || ae.RetryAfter <= 0 || !strings.HasPrefix(ae.Error(), "GET "+eventsPath) {
		t.Errorf("got %v, want a rate limit naming the call with the time left", err)
	}
	if got := h.c.Calls(); got != 1 {
		t.Errorf("got %d calls, want 1", got)
	}
}

func TestCappedBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body    string
		left    int64
		wantErr bool
	}{
		{"abc", 3, false},
		{"abc", 5, false},
		{"abcd", 3, true},
	}
	for _, tt := range tests {
		b := &cappedBody{rc: io.NopCloser(strings.NewReader(tt.body)), left: tt.left, call: "GET /x"}
		got, err := io.ReadAll(b)
		if (err != nil) != tt.wantErr {
			t.Errorf("%q bounded by %d: got %q, %v, want error %v", tt.body, tt.left, got, err, tt.wantErr)
		}
		if err != nil && !errors.Is(err, errTooLarge) {
			t.Errorf("got %v, want errTooLarge", err)
		}
	}
}

func TestSleepTimer(t *testing.T) {
	t.Parallel()
	if err := SleepTimer(context.Background(), 0); err != nil {
		t.Errorf("zero wait: got %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SleepTimer(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	if err := SleepTimer(context.Background(), time.Nanosecond); err != nil {
		t.Errorf("tiny wait: got %v, want nil", err)
	}
}
