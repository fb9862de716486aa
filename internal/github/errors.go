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
	// ErrRateLimited means GitHub's primary or secondary rate limit refused
	// the call and waiting for it was not allowed (longer than
	// Options.MaxWait, or retries exhausted).
	ErrRateLimited = errors.New("github rate limit exceeded")
	// ErrNotFound means GitHub answered 404.
	ErrNotFound = errors.New("github resource not found")
	// ErrForbidden means GitHub refused the token (401, or 403 that is not
	// a rate limit): typically the read-only token of a pull request from a
	// fork, or a workflow without the needed permissions.
	ErrForbidden = errors.New("github token not allowed")
	// ErrExpired means an artifact has expired or its download link is
	// gone (410).
	ErrExpired = errors.New("artifact expired")
	// ErrTruncated means a list was longer than this package reads (100
	// pages of 100); the items returned alongside it are the first ones.
	ErrTruncated = errors.New("list truncated")
)

// APIError is a failed GitHub API call. Every error a Client method returns
// for a failed request is an *APIError.
type APIError struct {
	// Call names the request, for example "POST /repos/o/r/issues/3/labels".
	Call string
	// Status is the HTTP status of the last answer, 0 when there was none
	// (network error, cancelled context, refused locally).
	Status int
	// Message is GitHub's message, or what went wrong.
	Message string
	// RateLimited reports a primary or secondary rate limit.
	RateLimited bool
	// RetryAfter is how long GitHub asked to wait (secondary limit, 429) or
	// the time left until the primary limit resets.
	RetryAfter time.Duration
	// Attempts is how many requests were made for the call (1 + retries);
	// 0 when it was refused before any request.
	Attempts int
	// Err is the underlying error when there was no HTTP answer (network
	// error, context deadline), else nil.
	Err error

	// storage marks an answer from the artifact storage host, not the API:
	// its 403, 404 and 410 mean an expired download link, not a bad token.
	storage bool
}

// Error names the call and the fault.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Call)
	b.WriteString(": ")
	if e.Status != 0 {
		fmt.Fprintf(&b, "%d %s", e.Status, http.StatusText(e.Status))
		if e.Message != "" && e.Message != http.StatusText(e.Status) {
			b.WriteString(": ")
			b.WriteString(e.Message)
		}
	} else {
		b.WriteString(e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	if e.Status != 0 && !e.RateLimited && !e.storage && (e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden) {
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

// Unwrap returns the underlying error, if any.
func (e *APIError) Unwrap() error { return e.Err }
