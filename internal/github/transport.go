package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	// maxResponseBytes bounds one API answer: a page of 100 pull requests
	// is a few megabytes.
	maxResponseBytes = 32 << 20
	// maxErrorBody bounds what is read of an error answer.
	maxErrorBody = 64 << 10
	// backoffBase is the first transient-error wait; it doubles per retry.
	backoffBase = time.Second
	// secondaryDefaultWait is GitHub's advice when a secondary limit comes
	// without Retry-After.
	secondaryDefaultWait = time.Minute
)

// noResendKey marks a write that is not idempotent: a failure that may have
// reached GitHub is not retried (rate-limit refusals still are).
type noResendKey struct{}

func withoutResend(ctx context.Context) context.Context {
	return context.WithValue(ctx, noResendKey{}, true)
}

// transport counts, authenticates and retries requests; for storage (api
// false) it only retries transient failures.
type transport struct {
	c    *Client
	base http.RoundTripper
	api  bool
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	call := t.c.callName(req, t.api)
	if t.api {
		if err := t.c.awaitLimit(ctx, call); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	key, held := t.conditional(req)
	if held != nil && t.c.stored(ctx, call) {
		return held.answer(req, "200 OK (stored)"), nil
	}
	for attempt := 1; ; attempt++ {
		r, err := t.prepare(req, attempt)
		if err != nil {
			return nil, &APIError{Call: call, Message: "cannot resend the request: " + err.Error(), Attempts: attempt - 1, Err: err}
		}
		if held != nil {
			r.Header.Set("If-None-Match", held.ETag)
		}
		if t.api {
			t.c.calls.Add(1)
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, &APIError{Call: call, Message: cerr.Error(), Attempts: attempt, Err: cerr}
			}
			if attempt > t.c.maxRetries || !canResend(req) || ctx.Value(noResendKey{}) != nil {
				return nil, &APIError{Call: call, Message: "network error: " + err.Error(), Attempts: attempt, Err: err}
			}
			if err := t.wait(ctx, call, attempt, t.c.backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		if t.api {
			t.c.recordRate(call, resp.Header)
			// The limit is kept here, by the injected clock: go-github must
			// not keep it by the wall clock (it skips answers marked cached).
			resp.Header.Set("X-From-Cache", "1")
		}
		next, werr := t.judge(ctx, resp, call, attempt, canResend(req))
		if werr != nil {
			return nil, werr
		}
		if next < 0 {
			if resp, err = t.reuse(key, held, resp); err != nil {
				return nil, &APIError{Call: call, Message: "read the answer: " + err.Error(), Attempts: attempt, Err: err}
			}
			if t.api {
				resp.Body = &cappedBody{rc: resp.Body, left: maxResponseBytes, call: call}
			}
			return resp, nil
		}
		if err := t.wait(ctx, call, attempt, next); err != nil {
			return nil, err
		}
	}
}

// prepare clones the request for one attempt, with a fresh body on a
// retry and the token on API requests.
func (t *transport) prepare(req *http.Request, attempt int) (*http.Request, error) {
	r := req.Clone(req.Context())
	if attempt > 1 && req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	r.Header.Del("Authorization")
	if t.api && t.c.opts.Token != "" {
		r.Header.Set("Authorization", "Bearer "+t.c.opts.Token)
	}
	return r, nil
}

func canResend(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

func (t *transport) wait(ctx context.Context, call string, attempt int, d time.Duration) error {
	if err := t.c.sleep(ctx, d); err != nil {
		return &APIError{Call: call, Message: fmt.Sprintf("waiting %s to retry: %v", d, err), Attempts: attempt, Err: err}
	}
	return nil
}

// judge decides what to do with an answer: return it (next < 0), retry
// after next, or fail with err (the body is then consumed and closed).
func (t *transport) judge(ctx context.Context, resp *http.Response, call string, attempt int, resendable bool) (next time.Duration, err error) {
	c := t.c
	retriesLeft := attempt <= c.maxRetries && resendable
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		wait := c.backoff(attempt)
		if ra, ok := c.retryAfter(resp.Header); ok {
			wait = ra
		}
		if retriesLeft && wait <= c.opts.MaxWait && ctx.Value(noResendKey{}) == nil {
			discard(resp)
			return wait, nil
		}
		msg := readMessage(resp)
		if wait > c.opts.MaxWait {
			msg += fmt.Sprintf("; GitHub asked to wait %s, longer than the %s allowed", wait, c.opts.MaxWait)
		}
		return 0, &APIError{Call: call, Status: resp.StatusCode, Message: msg, Attempts: attempt, storage: !t.api}
	case http.StatusTooManyRequests, http.StatusForbidden:
		if !t.api {
			return -1, nil
		}
	default:
		return -1, nil
	}

	// 403 or 429 from the API: a rate limit, or a refused token. A limit
	// that renews every minute (the search API's) and resets within
	// MaxWait is waited for; the hourly primary limit stops the call.
	body := readBody(resp)
	msg := messageOf(body, resp.Status)
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		reset, ok := parseUnix(resp.Header.Get("X-RateLimit-Reset"))
		e := &APIError{Call: call, Status: resp.StatusCode, Message: msg, RateLimited: true, Attempts: attempt}
		if ok {
			e.RetryAfter = untilReset(reset.Sub(c.now()))
			if retriesLeft && e.RetryAfter <= c.opts.MaxWait && resourceOf(call) != "core" {
				return e.RetryAfter, nil
			}
			e.Message += fmt.Sprintf("; the %s rate limit resets at %s (in %s)", resourceOf(call), reset.UTC().Format(time.RFC3339), e.RetryAfter.Round(time.Second))
			c.block(resourceOf(call), reset, e.Message)
		}
		return 0, e
	}
	ra, hasRA := c.retryAfter(resp.Header)
	secondary := resp.StatusCode == http.StatusTooManyRequests || hasRA || isSecondaryMessage(msg)
	if !secondary {
		// A refused token: hand the answer to go-github unchanged.
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return -1, nil
	}
	wait := ra
	if !hasRA {
		wait = secondaryDefaultWait
	}
	e := &APIError{Call: call, Status: resp.StatusCode, Message: msg, RateLimited: true, RetryAfter: wait, Attempts: attempt}
	if wait > c.opts.MaxWait {
		e.Message += fmt.Sprintf("; GitHub asked to wait %s, longer than the %s allowed", wait, c.opts.MaxWait)
		c.block("*", c.now().Add(wait), e.Message)
		return 0, e
	}
	if !retriesLeft {
		return 0, e
	}
	return wait, nil
}

func isSecondaryMessage(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "secondary rate limit") || strings.Contains(m, "abuse detection")
}

// retryAfter parses Retry-After: delay seconds or an HTTP date.
func (c *Client) retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, true
		}
		if n > int64(365*24*time.Hour/time.Second) {
			n = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, at.Sub(c.now())), true
	}
	return 0, false
}

func parseUnix(v string) (time.Time, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// readBody reads a bounded prefix of an error answer and closes it.
func readBody(resp *http.Response) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	return b
}

func readMessage(resp *http.Response) string {
	return messageOf(readBody(resp), resp.Status)
}

// messageOf extracts GitHub's "message" from an error body.
func messageOf(body []byte, fallback string) string {
	var v struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil && v.Message != "" {
		return bounded(v.Message, 500)
	}
	if s := strings.TrimSpace(string(body)); s != "" && !strings.HasPrefix(s, "<") {
		return bounded(s, 200)
	}
	return fallback
}

func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
}

// cappedBody fails a read past its bound instead of buffering a hostile
// answer without limit.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	call string
}

var errTooLarge = errors.New("answer too large")

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe for one more byte: an answer of exactly the bound is fine.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%s: %w: more than %d bytes", b.call, errTooLarge, maxResponseBytes)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// SleepTimer waits d, or until ctx is done: the default Options.Sleep,
// and the webhook's (internal/notify).
func SleepTimer(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
