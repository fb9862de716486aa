package notify

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/notify/notifytest"
)

// recorder is an injected Sleep that records its waits.
type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func openDecision() *breaker.Decision {
	reason, trig := "no progress in 3 consecutive iterations <!channel> @here", "no_progress"
	return &breaker.Decision{State: breaker.Open, Iteration: 4, Reason: &reason, Trigger: &trig}
}

func TestPostDelivers(t *testing.T) {
	t.Parallel()
	h := notifytest.New(t)
	var rec recorder
	res, err := Post(context.Background(), Webhook{URL: h.SecretURL(), Sleep: rec.sleep}, NewPayload(openDecision(), Where{Repository: "octo/loop", PullRequest: 7, RunURL: "https://github.com/octo/loop/actions/runs/9"}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 1 || res.Status != 200 || res.Host != h.Host() || len(rec.waits) != 0 {
		t.Errorf("got %+v and waits %v", res, rec.waits)
	}
	if s := res.String(); strings.Contains(s, notifytest.Secret) || !strings.Contains(s, h.Host()) {
		t.Errorf("the log line %q names more than the host", s)
	}
	var p struct {
		Text        string `json:"text"`
		Event       string `json:"event"`
		PullRequest int    `json:"pull_request"`
		Decision    struct {
			State string `json:"state"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(h.Bodies()[0]), &p); err != nil {
		t.Fatal(err)
	}
	want := "loopbreaker: OPEN on octo/loop#7 after iteration 4: no progress in 3 consecutive iterations &lt;!channel&gt; @\u200dhere (rule no_progress) https://github.com/octo/loop/actions/runs/9"
	if p.Text != want || p.Event != EventOpened || p.PullRequest != 7 || p.Decision.State != "OPEN" || h.ContentTypes()[0] != "application/json" {
		t.Errorf("got %+v, want text %q", p, want)
	}
}

// TestPostRetries: a failed try is tried again after 1s, then 2s (through
// the injected sleep); a client error is final; the error names the host
// and the fault, never the URL's secret.
func TestPostRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses []int
		attempts int
		waits    []time.Duration
		err      string
	}{
		{"recovers", []int{500, 503, 200}, 3, []time.Duration{time.Second, 2 * time.Second}, ""},
		{"rate limited", []int{429, 200}, 2, []time.Duration{time.Second}, ""},
		{"gives up", []int{502}, 3, []time.Duration{time.Second, 2 * time.Second}, "HTTP 502 (3 tries)"},
		{"refused", []int{404}, 1, nil, "HTTP 404 (1 tries)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := notifytest.New(t, tt.statuses...)
			var rec recorder
			res, err := Post(context.Background(), Webhook{URL: h.SecretURL(), Sleep: rec.sleep}, NewPayload(openDecision(), Where{}))
			if res.Attempts != tt.attempts || len(h.Bodies()) != tt.attempts || !slices.Equal(rec.waits, tt.waits) {
				t.Errorf("got %d tries (%d received), waits %v; want %d, %v", res.Attempts, len(h.Bodies()), rec.waits, tt.attempts, tt.waits)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("got %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), h.Host())):
				t.Errorf("got %v, want %q naming the host", err, tt.err)
			case err != nil && strings.Contains(err.Error(), notifytest.Secret):
				t.Errorf("the error %q shows the URL's secret", err)
			}
		})
	}
}

// TestPostBounded: a try that times out, a webhook that is not there and a
// run that is cancelled while waiting end the post with an error that
// does not quote the URL.
func TestPostBounded(t *testing.T) {
	t.Parallel()
	h := notifytest.New(t)
	var rec recorder
	res, err := Post(context.Background(), Webhook{URL: h.SecretURL(), Sleep: rec.sleep, Timeout: time.Nanosecond}, NewPayload(openDecision(), Where{}))
	if err == nil || !strings.Contains(err.Error(), "timed out") || strings.Contains(err.Error(), notifytest.Secret) || res.Attempts != 3 {
		t.Errorf("timeout: got %v after %d tries", err, res.Attempts)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	gone := closed.URL + "/hook?token=s3cr3t"
	closed.Close()
	if _, err := Post(context.Background(), Webhook{URL: gone, Sleep: rec.sleep}, NewPayload(openDecision(), Where{})); err == nil || strings.Contains(err.Error(), notifytest.Secret) {
		t.Errorf("no server: got %v", err)
	}

	h = notifytest.New(t, 500)
	stop := func(context.Context, time.Duration) error { return context.Canceled }
	res, err = Post(context.Background(), Webhook{URL: h.SecretURL(), Sleep: stop}, NewPayload(openDecision(), Where{}))
	if !errors.Is(err, context.Canceled) || res.Attempts != 1 {
		t.Errorf("cancelled: got %v after %d tries", err, res.Attempts)
	}

	for _, bad := range []string{"", "ftp://h/x?token=s3cr3t", "https:///s3cr3t", "::s3cr3t"} {
		if _, err := Post(context.Background(), Webhook{URL: bad}, NewPayload(openDecision(), Where{})); err == nil || strings.Contains(err.Error(), notifytest.Secret) {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}
