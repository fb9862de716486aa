package cli

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/policy"
)

func TestExitForDecision(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    breaker.Decision
		want int
	}{
		{"closed", breaker.Decision{State: breaker.Closed}, ExitContinue},
		{"half open", breaker.Decision{State: breaker.HalfOpen}, ExitContinue},
		{"open", breaker.Decision{State: breaker.Open}, ExitOpen},
		{"open abort", breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenAbort}, ExitOpen},
		{"open dry run", breaker.Decision{State: breaker.Open, DryRun: true}, ExitContinue},
		{"paused", breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenPause}, ExitPaused},
		{"alert", breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenAlert}, ExitContinue},
		{"escalate", breaker.Decision{State: breaker.Open, OpenAction: policy.OnOpenEscalate}, ExitContinue},
		{"done", breaker.Decision{State: breaker.Closed, Complete: true}, ExitDone},
	}
	for _, tt := range tests {
		if got := exitFor(&tt.d); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestExitForError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"usage", usagef("--base: bad"), ExitUsage},
		{"bad input", fmt.Errorf("read ledger x: %w", os.ErrNotExist), ExitUsage},
		{"marked internal", internal(errors.New("write state")), ExitInternal},
		{"disk full", fmt.Errorf("write x: %w", syscall.ENOSPC), ExitInternal},
		{"github 502", fmt.Errorf("list: %w", &github.APIError{Call: "GET /x", Status: 502}), ExitInternal},
		{"github timeout", &github.APIError{Call: "GET /x", Err: os.ErrDeadlineExceeded}, ExitInternal},
		{"github rate limit", fmt.Errorf("x: %w", github.ErrRateLimited), ExitInternal},
		{"github 404", &github.APIError{Call: "GET /x", Status: 404}, ExitUsage},
	}
	for _, tt := range tests {
		if got := exitForError(tt.err); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}
