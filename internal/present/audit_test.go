package present

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

func TestAuditSummaryEscapesAgentText(t *testing.T) {
	t.Parallel()
	res := &AuditResult{Repository: "octo/loop", Pulls: []PullResult{{Number: 1, Iterations: 1, State: breaker.Closed,
		Title: "<img src=x onerror=alert(1)> | cc @alice ::error::pwned\n## heading", Author: "evil|bot"}}}
	md := AuditSummary(res)
	for _, bad := range []string{"<img", "@alice", "\n## heading", "evil|bot"} {
		if strings.Contains(md, bad) {
			t.Errorf("summary contains %q unescaped:\n%s", bad, md)
		}
	}
	var row string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| #1") {
			row = line
		}
	}
	if cells := strings.Count(row, "|") - strings.Count(row, "\\|"); cells != 8 {
		t.Errorf("the row of #1 has %d cell borders, want 8: %q", cells, row)
	}
	if txt := AuditText(res); strings.Contains(txt, "\n## heading") {
		t.Errorf("text report breaks lines on agent text:\n%s", txt)
	}
}

func TestAuditStopSaysWhatWasLeftOut(t *testing.T) {
	t.Parallel()
	res := &AuditResult{Repository: "octo/loop", StoppedEarly: true, StopReason: "the budget is spent.\n", NotReached: []int{4, 5},
		UnreadPages: 2, UnreadPagesKnown: true, Operations: Operations{Budget: 41, Used: 40, Remaining: 1}}
	stop := AuditStop(res)
	for _, want := range []string{"The audit stopped early: the budget is spent. ", "2 selected pull requests were not reached: #4, #5.", "2 more pages"} {
		if !strings.Contains(stop, want) {
			t.Errorf("stop text lacks %q: %q", want, stop)
		}
	}
	if md := AuditSummary(res); !strings.Contains(md, "> [!WARNING]") || !strings.Contains(md, "41 budgeted") {
		t.Errorf("summary lacks the warning or the budget:\n%s", md)
	}
	if AuditStop(&AuditResult{}) != "" {
		t.Errorf("a complete run has a stop text")
	}
}

func TestAnnotations(t *testing.T) {
	t.Parallel()
	reason, trig := "no progress in 3 iterations\n::error::x", "no_progress"
	open := breaker.Decision{State: breaker.Open, Iteration: 4, Reason: &reason, Trigger: &trig, Warnings: []string{"iteration 4 of 10\x1b[31m"}}
	half := breaker.Decision{State: breaker.HalfOpen, Iteration: 3, Reason: &reason, Trigger: &trig}
	closed := breaker.Decision{State: breaker.Closed, Iteration: 5}
	tests := []struct {
		name   string
		ds     []breaker.Decision
		dryRun bool
		want   []Annotation
	}{
		{"open", []breaker.Decision{open}, false, []Annotation{
			{Error, "loopbreaker OPEN: stop the loop", "iteration 4: no progress in 3 iterations ::error::x (no_progress)"},
			{Warning, "loopbreaker warning", "iteration 4 of 10"}}},
		{"open in a dry run", []breaker.Decision{open}, true, []Annotation{
			{Error, "loopbreaker would be OPEN (dry run)", "iteration 4: no progress in 3 iterations ::error::x (no_progress)"},
			{Warning, "loopbreaker warning", "iteration 4 of 10"}}},
		{"paused", []breaker.Decision{withAction(open, policy.OnOpenPause)}, false, []Annotation{
			{Error, "loopbreaker OPEN: the loop is paused until a person resumes it", "iteration 4: no progress in 3 iterations ::error::x (no_progress)"},
			{Warning, "loopbreaker warning", "iteration 4 of 10"}}},
		{"alert", []breaker.Decision{withAction(open, policy.OnOpenAlert)}, false, []Annotation{
			{Error, "loopbreaker OPEN: alert, the loop goes on", "iteration 4: no progress in 3 iterations ::error::x (no_progress)"},
			{Warning, "loopbreaker warning", "iteration 4 of 10"}}},
		{"escalate", []breaker.Decision{withAction(open, policy.OnOpenEscalate)}, false, []Annotation{
			{Error, "loopbreaker OPEN: escalated, the loop goes on with the next model", "iteration 4: no progress in 3 iterations ::error::x (no_progress)"},
			{Warning, "loopbreaker warning", "iteration 4 of 10"}}},
		{"paused in a dry run", []breaker.Decision{withAction(open, policy.OnOpenPause)}, true, []Annotation{
			{Error, "loopbreaker would be OPEN (dry run)", "iteration 4: no progress in 3 iterations ::error::x (no_progress)"},
			{Warning, "loopbreaker warning", "iteration 4 of 10"}}},
		{"half open", []breaker.Decision{half}, false, []Annotation{
			{Warning, "loopbreaker HALF_OPEN: watching", "iteration 3: no progress in 3 iterations ::error::x (no_progress)"}}},
		{"recovered", []breaker.Decision{half, closed}, false, []Annotation{
			{Notice, "loopbreaker recovered", "iteration 5: progress resumed; the breaker is CLOSED"}}},
		{"closed", []breaker.Decision{closed}, false, nil},
	}
	for _, tt := range tests {
		got := Annotations(tt.ds, tt.dryRun)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// withAction is d with on_open's action a.
func withAction(d breaker.Decision, a policy.OnOpen) breaker.Decision {
	d.OpenAction = a
	return d
}

func TestAuditAnnotations(t *testing.T) {
	t.Parallel()
	res := &AuditResult{Repository: "octo/loop", StoppedEarly: true, StopReason: "cancelled",
		Pulls:      []PullResult{{Number: 3, State: breaker.Open}, {Number: 4, State: breaker.Closed}},
		Notes:      []string{"writes were refused (add label on #3: 403)", "other note"},
		Operations: Operations{Budget: 10, Used: 9, Remaining: 1}}
	got := AuditAnnotations(res)
	levels := []Level{Warning, Warning, Warning, Notice}
	titles := []string{"loopbreaker audit stopped early", "loopbreaker audit", "loopbreaker audit could not write", ""}
	if len(got) != len(levels) {
		t.Fatalf("got %d annotations, want %d: %+v", len(got), len(levels), got)
	}
	for i, a := range got {
		if a.Level != levels[i] || a.Title != titles[i] {
			t.Errorf("annotation %d: got %s %q, want %s %q", i, a.Level, a.Title, levels[i], titles[i])
		}
	}
	if got[1].Message != "1 pull requests are OPEN (stuck): #3" || !strings.HasPrefix(got[3].Message, "loopbreaker audit: octo/loop: 2 pull requests evaluated: 1 OPEN") {
		t.Errorf("got messages %q and %q", got[1].Message, got[3].Message)
	}
}
