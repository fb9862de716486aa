package github

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Sentinel errors, matched with errors.Is against the errors this package
// returns.
var (
	// ErrRateLimited: a rate limit refused the call and waiting for it was
	// not allowed (longer than Options.MaxWait, or retries exhausted).
	ErrRateLimited = errors.New("github rate limit exceeded")
	ErrNotFound    = errors.New("github resource not found")
	// ErrForbidden: GitHub refused the token (401, or a 403 that is not a
	// rate limit), typically a fork's read-only token.
	ErrForbidden = errors.New("github token not allowed")
	// ErrExpired: an artifact has expired or its download link is gone.
	ErrExpired = errors.New("artifact expired")
	// ErrTruncated: a list was longer than this package reads; the items
	// returned alongside it are the first ones.
	ErrTruncated = errors.New("list truncated")
)

// APIError is a failed GitHub API call: every error a Client method returns
// for a failed request is one.
type APIError struct {
	// Call names the request, for example "POST /repos/o/r/issues/3/labels".
	Call string
	// Status is the HTTP status of the last answer, 0 when there was none
	// (network error, cancelled context, refused locally).
	Status  int
	Message string
	// RateLimited reports a primary or secondary rate limit; RetryAfter is
	// the wait GitHub asked for, or the time left until the reset.
	RateLimited bool
	RetryAfter  time.Duration
	// Attempts is how many requests were made (0: refused before any).
	Attempts int
	// Err is the underlying error when there was no HTTP answer.
	Err error
	// storage marks an answer from the artifact storage host: its 403, 404
	// and 410 mean an expired download link, not a bad token.
	storage bool
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Call + ": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
		if e.Message != "" && e.Message != http.StatusText(e.Status) {
			b.WriteString(": " + e.Message)
		}
	} else {
		b.WriteString(e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	if e.Is(ErrForbidden) {
		b.WriteString(" (the token lacks permission: a pull request from a fork gets a read-only token; grant the workflow the permissions it needs or decide in a workflow_run workflow)")
	}
	return b.String()
}

// Is matches the sentinel errors of this package.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrRateLimited:
		return e.RateLimited
	case ErrNotFound:
		return e.Status == http.StatusNotFound && !e.storage
	case ErrForbidden:
		return !e.RateLimited && !e.storage && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden)
	case ErrExpired:
		return e.Status == http.StatusGone ||
			e.storage && (e.Status == http.StatusForbidden || e.Status == http.StatusNotFound)
	}
	return false
}

func (e *APIError) Unwrap() error { return e.Err }
