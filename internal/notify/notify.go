// Package notify sends the alert of on_open = "alert" to a webhook: a JSON
// POST of the decision, tried a bounded number of times with backoff and a
// timeout per try. It never changes the decision and never holds a run up
// for long (at most Attempts × Timeout plus the backoff); what it reports
// names the webhook's host only, never its path or query, which hold the
// secret of most webhook URLs.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Defaults of a Webhook.
const (
	DefaultAttempts = 3
	DefaultTimeout  = 5 * time.Second
	// firstBackoff is the wait after the first failed try; it doubles.
	firstBackoff = time.Second
	// maxAnswer is how much of an answer is read (and dropped).
	maxAnswer = 64 << 10
)

// Webhook is where and how an alert is posted.
type Webhook struct {
	// URL is the webhook's http(s) URL; it is never logged.
	URL string
	// Client sends the request (nil: http.DefaultClient); each try has its
	// own Timeout all the same.
	Client *http.Client
	// Sleep waits between tries (nil: a timer); tests pass one that
	// returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Attempts (DefaultAttempts when 0) and Timeout (DefaultTimeout when
	// 0) bound the tries.
	Attempts int
	Timeout  time.Duration
}

// Result is what a post did.
type Result struct {
	// Host is the webhook's host (and port): what may be logged.
	Host string
	// Status is the last answer's HTTP status, 0 when there was none.
	Status int
	// Attempts is how many requests were sent.
	Attempts int
}

// String says where the alert went and how it ended, by host only.
func (r Result) String() string {
	s := fmt.Sprintf("alert posted to %s", r.Host)
	if r.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d", r.Status)
		if r.Attempts > 1 {
			s += fmt.Sprintf(", %d tries", r.Attempts)
		}
		s += ")"
	}
	return s
}

// Where says which loop an alert is about.
type Where struct {
	// Repository is owner/name, PullRequest its number (0 for none),
	// RunURL the run's page ("" outside GitHub).
	Repository  string
	PullRequest int
	RunURL      string
}

// Payload is the JSON body of an alert: a one-line "text" that chat
// webhooks (Slack, Mattermost, Discord's /slack endpoint) show, safe for
// their markup, and the decision as the command line's JSON has it.
type Payload struct {
	Text        string            `json:"text"`
	Event       string            `json:"event"`
	Repository  string            `json:"repository,omitempty"`
	PullRequest int               `json:"pull_request,omitempty"`
	RunURL      string            `json:"run_url,omitempty"`
	Decision    *breaker.Decision `json:"decision"`
}

// EventOpened is a Payload's event: the breaker opened.
const EventOpened = "breaker_opened"

// NewPayload is the alert for a decision.
func NewPayload(d *breaker.Decision, w Where) Payload {
	var b strings.Builder
	b.WriteString("loopbreaker: OPEN")
	if w.Repository != "" {
		b.WriteString(" on " + w.Repository)
		if w.PullRequest > 0 {
			fmt.Fprintf(&b, "#%d", w.PullRequest)
		}
	}
	fmt.Fprintf(&b, " after iteration %d", d.Iteration)
	if d.Reason != nil {
		b.WriteString(": " + *d.Reason)
	}
	if d.Trigger != nil {
		b.WriteString(" (rule " + *d.Trigger + ")")
	}
	text := chatText(b.String())
	if w.RunURL != "" {
		text += " " + w.RunURL
	}
	return Payload{Text: text, Event: EventOpened, Repository: w.Repository, PullRequest: w.PullRequest, RunURL: w.RunURL, Decision: d}
}

// chatText is agent text for a chat message: cleaned, with the markup
// characters of Slack-like webhooks escaped and mentions (@here,
// <!channel>) unable to notify anyone.
func chatText(s string) string {
	s = render.Clean(s)
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "@", "@\u200d").Replace(s)
}

// Post sends p to the webhook. A network error, a timeout, 429 or a 5xx
// answer is tried again, after 1s and then 2s by default; any other answer
// outside 2xx is final. The error names the host and the fault, never the
// URL.
func Post(ctx context.Context, w Webhook, p Payload) (Result, error) {
	u, err := url.Parse(w.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Result{}, errors.New("webhook: not an http(s) URL")
	}
	res := Result{Host: u.Host}
	body, err := json.Marshal(p)
	if err != nil {
		return res, fmt.Errorf("webhook %s: encode the alert: %w", res.Host, err)
	}
	attempts, timeout := w.Attempts, w.Timeout
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	client := sameHost(w.Client, u)
	sleep := w.Sleep
	if sleep == nil {
		sleep = github.SleepTimer
	}
	backoff := firstBackoff
	var last error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			if err := sleep(ctx, backoff); err != nil {
				return res, fmt.Errorf("webhook %s: %w", res.Host, err)
			}
			backoff *= 2
		}
		res.Attempts++
		status, err := try(ctx, client, u, body, timeout)
		res.Status = status
		if err == nil {
			return res, nil
		}
		last = err
		if !retryable(status) {
			break
		}
	}
	return res, fmt.Errorf("webhook %s: %w (%d tries)", res.Host, last, res.Attempts)
}

// sameHost is client (nil: http.DefaultClient) following redirects only
// on the webhook's own scheme and host: the alert, which names the
// repository and its pull request, never goes to a host the policy did not
// name. A redirect elsewhere comes back as the 3xx answer.
func sameHost(client *http.Client, u *url.URL) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != u.Scheme || !strings.EqualFold(req.URL.Host, u.Host) || len(via) >= 5 {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &c
}

// try sends one request within timeout and returns the answer's status.
func try(ctx context.Context, client *http.Client, u *url.URL, body []byte, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return 0, errors.New("cannot make the request")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "loopbreaker")
	resp, err := client.Do(req)
	if err != nil {
		return 0, withoutURL(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode/100 == 3 {
		where := "elsewhere"
		if loc, err := resp.Location(); err == nil {
			where = "to " + loc.Host
		}
		return resp.StatusCode, fmt.Errorf("HTTP %d redirects %s, off the webhook's host: not followed", resp.StatusCode, where)
	}
	if resp.StatusCode/100 != 2 {
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// retryable reports whether a try may succeed later: no answer, a rate
// limit or a server error.
func retryable(status int) bool {
	return status == 0 || status == http.StatusTooManyRequests || status >= 500
}

// withoutURL drops the URL a client error quotes (url.Error), keeping the
// fault.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return errors.New("timed out")
		}
		return ue.Err
	}
	return err
}

// Send posts p to the webhook of the policy's alert table (its URL, or the
// one in the environment variable "$NAME" names, through getenv) with w's
// client, sleep and bounds. It returns the line to log — where the alert
// went, or why it was not posted (warn) — and "" when the policy names no
// webhook.
func Send(ctx context.Context, a policy.Alert, getenv func(string) string, w Webhook, p Payload) (line string, warn bool) {
	w.URL = a.WebhookURL
	if name := a.WebhookEnv(); name != "" {
		w.URL = strings.TrimSpace(getenv(name))
		if w.URL == "" {
			return fmt.Sprintf("alert not posted: alert.webhook_url names $%s, which is not set", name), true
		}
	}
	if w.URL == "" {
		return "", false
	}
	if err := policy.CheckWebhookURL(w.URL); err != nil {
		return fmt.Sprintf("alert not posted: the webhook URL: %v", err), true
	}
	res, err := Post(ctx, w, p)
	if err != nil {
		return "alert not posted: " + err.Error(), true
	}
	return res.String(), false
}
