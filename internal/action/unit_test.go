package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

func TestReadEvent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, name string
		want       Event
	}{
		{"pull_request.json", "pull_request", Event{Name: "pull_request", Number: 7, HeadSHA: strings.Repeat("1", 40), HeadRef: "agent/fix-parser", HeadRepo: "octo/loop",
			BaseSHA: strings.Repeat("2", 40), BaseRef: "main", Labels: []string{"agent", "loopbreaker:half-open"}, DefaultBranch: "main",
			CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Action: "synchronize", Sender: "devin-ai-integration[bot]", SenderT: "Bot"}},
		{"pull_request_target_fork.json", "pull_request_target", Event{Name: "pull_request_target", Number: 9, HeadSHA: strings.Repeat("3", 40), HeadRef: "patch-1", HeadRepo: "someone/loop",
			BaseSHA: strings.Repeat("2", 40), BaseRef: "main", Fork: true, DefaultBranch: "main",
			CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Action: "opened", Sender: "someone", SenderT: "User"}},
		{"push.json", "push", Event{Name: "push", HeadSHA: strings.Repeat("4", 40), HeadRef: "agent/loop", DefaultBranch: "main", Sender: "octo", SenderT: "User"}},
		{"issue_comment.json", "issue_comment", Event{Name: "issue_comment", Number: 7, Labels: []string{"loopbreaker:open"}, DefaultBranch: "main",
			CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), Action: "created", Sender: "maintainer", SenderT: "User",
			Comment: &EventComment{ID: 991, Body: "Looks stuck.\n/loopbreaker guide try the streaming parser instead", Login: "maintainer", UserType: "User", At: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}}},
		{"workflow_run.json", "workflow_run", Event{Name: "workflow_run", Number: 9, HeadSHA: strings.Repeat("5", 40), HeadRef: "patch-1", DefaultBranch: "main", Action: "completed", Sender: "someone", SenderT: "User"}},
		{"workflow_run_fork.json", "workflow_run", Event{Name: "workflow_run", HeadSHA: strings.Repeat("6", 40), HeadRef: "main", HeadRepo: "carol/loop", HeadOwner: "carol",
			DefaultBranch: "main", Action: "completed", Sender: "carol", SenderT: "User"}},
		{"workflow_dispatch.json", "workflow_dispatch", Event{Name: "workflow_dispatch", DefaultBranch: "main", Sender: "octo", SenderT: "User"}},
		{"schedule.json", "schedule", Event{Name: "schedule", DefaultBranch: "main"}},
	}
	for _, c := range cases {
		got, err := ReadEvent(c.name, filepath.Join("testdata", "events", c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if diff := cmp.Diff(&c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.file, diff)
		}
	}
	if _, err := ReadEvent("pull_request", filepath.Join("testdata", "events", "truncated.json")); err == nil || !strings.Contains(err.Error(), "truncated.json") {
		t.Errorf("truncated payload: got %v, want an error naming the file", err)
	}
	if _, err := ReadEvent("push", filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing payload: got %v, want an error naming the file", err)
	}
	if ev, err := ReadEvent("push", ""); err != nil || ev.Number != 0 {
		t.Errorf("no payload: got %v %v, want an empty event", ev, err)
	}
}

func TestReadInputs(t *testing.T) {
	t.Parallel()
	in, err := ReadInputs(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	want := &Inputs{Mode: "check", Policy: "default", OnOpen: []string{"fail", "label", "comment"}, OnHalfOpen: []string{"label", "comment"},
		Labels: true, Status: "status", OnAPIError: "continue", RecordPath: ".loopbreaker/record.json", Artifact: "loopbreaker-record", UseArtifact: true}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	in, err = ReadInputs(func(k string) string {
		return map[string]string{"reports": "a.xml\nb/*.json, c.tap", "on-open": "none", "dry-run": "TRUE"}[k]
	})
	if err != nil || !cmp.Equal(in.Reports, []string{"a.xml", "b/*.json", "c.tap"}) || in.OnOpen != nil || !in.DryRun {
		t.Errorf("got %+v %v", in, err)
	}
	for _, bad := range []map[string]string{
		{"mode": "audit-everything"}, {"on-open": "explode"}, {"on-open": "none,fail"}, {"dry-run": "maybe"},
		{"status": "telegram"}, {"on-api-error": "ignore"}, {"on-half-open": "fail"},
	} {
		_, err := ReadInputs(func(k string) string { return bad[k] })
		if err == nil {
			t.Errorf("%v: got no error", bad)
			continue
		}
		for k := range bad {
			if !strings.Contains(err.Error(), k) {
				t.Errorf("%v: error %q does not name the input", bad, err)
			}
		}
	}
}

func TestOutputsCannotBeInjected(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "output")
	f := fileCommands{output: path}
	hostile := "x\nghadelimiter_00\n_GitHubActionsFileCommandDelimeter_\nallow-continue<<EOF\ntrue\nEOF\n"
	if err := f.SetOutputs([]string{"reason", "state"}, map[string]string{"reason": hostile, "state": "OPEN"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := parseOutputFile(t, string(data))
	if got["reason"] != hostile || got["state"] != "OPEN" || len(got) != 2 {
		t.Errorf("got outputs %q, want exactly reason (verbatim) and state", got)
	}
	if err := (&fileCommands{}).SetOutputs([]string{"state"}, map[string]string{"state": "OPEN"}); err == nil {
		t.Errorf("no GITHUB_OUTPUT: got no error, want one (and no panic)")
	}
}

// parseOutputFile reads GITHUB_OUTPUT the way the runner does.
func parseOutputFile(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			t.Fatalf("line %q is not a heredoc output", lines[i])
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

// agentBlockLine is a line the agent block writes itself.
var agentBlockLine = regexp.MustCompile(`^(---CIRCUIT_BREAKER_OPEN---|---END_CIRCUIT_BREAKER_OPEN---|(PHASE|REASON|ITERATIONS|TESTS_PASSING|LAST_ERROR|ACTION|ADVICE|GUIDANCE): .*|OPTIONS \(.*\):|[1-9]\. .*|)$`)

// blockLines reports whether every line of a failure context is one the
// agent block writes itself (agent text cannot start a line).
func blockLines(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if !agentBlockLine.MatchString(l) {
			return false
		}
	}
	return true
}

func TestFailureContextIsBoundedAndClean(t *testing.T) {
	t.Parallel()
	reason := "same error in 5 consecutive iterations: \x1b[31mboom\n::error::x" + strings.Repeat("y", 5000)
	trig := "same_error"
	d := &breaker.Decision{State: breaker.Open, Iteration: 9, Reason: &reason, Trigger: &trig}
	got := render.FailureContext(d)
	if len(got) > 4000 || strings.ContainsAny(got, "\x1b\r") || !blockLines(got) {
		t.Errorf("failure context is %d bytes, holds control characters or a line of the agent's: %q", len(got), got)
	}
	if !strings.HasPrefix(got, "---CIRCUIT_BREAKER_OPEN---\nPHASE: none\nREASON: same error in 5 consecutive iterations: boom ::error::x") ||
		!strings.Contains(got, "\nITERATIONS: 9\n") || !strings.HasSuffix(got, "---END_CIRCUIT_BREAKER_OPEN---") {
		t.Errorf("got %q", got)
	}
	if render.FailureContext(&breaker.Decision{State: breaker.Closed}) != "" {
		t.Errorf("a CLOSED decision without warnings has no failure context")
	}
}
