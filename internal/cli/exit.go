package cli

import (
	"errors"
	"os"
	"syscall"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Exit codes chosen by the domain: what a loop script does next.
const (
	// ExitContinue: the loop may run its next iteration.
	ExitContinue = 0
	// ExitOpen: the breaker is OPEN; stop the loop.
	ExitOpen = 1
	// ExitUsage: bad usage or bad input; fix the command or the file it names.
	ExitUsage = 2
	// ExitInternal: an internal or transient fault (an I/O error that is not
	// the input's fault, GitHub unavailable); running again may succeed.
	ExitInternal = 3
	// ExitDone: the loop's work is complete; stop, successfully.
	ExitDone = 4
	// ExitPaused: the breaker paused the loop; a person must resume it.
	ExitPaused = 5
)

// exitFor is the exit code a decision asks for. A dry run never stops the
// loop; an OPEN breaker that alerts or escalates lets it go on.
func exitFor(d *breaker.Decision) int {
	switch {
	case d.DryRun:
		return ExitContinue
	case d.Complete:
		return ExitDone
	case d.State != breaker.Open:
		return ExitContinue
	case d.OpenAction == policy.OnOpenPause:
		return ExitPaused
	case d.OpenAction == "" || d.OpenAction == policy.OnOpenAbort:
		return ExitOpen
	}
	return ExitContinue
}

// internalError marks a fault that is not the input's: the same call may
// succeed when run again.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }

// internal marks err (nil stays nil) as an internal or transient fault.
func internal(err error) error {
	if err == nil {
		return nil
	}
	return &internalError{err}
}

// exitForError is the exit code of a failed command: 3 for internal and
// transient faults (marked ones, a full disk, GitHub's 5xx, rate limits
// and timeouts), 2 for everything the user can fix.
func exitForError(err error) int {
	var ie *internalError
	if errors.As(err, &ie) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrDeadlineExceeded) ||
		errors.Is(err, github.ErrRateLimited) {
		return ExitInternal
	}
	var api *github.APIError
	if errors.As(err, &api) && (api.Status >= 500 || api.Status == 0 || api.Status == 429) {
		return ExitInternal
	}
	return ExitUsage
}
