package action

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/present"
)

// TestAnyTriggerFindsItsPullRequest: an agent loop run on a push, by hand
// (workflow_dispatch) or on a timer (schedule) names no pull request; the
// run finds it by the loop's branch, so that a maintainer's reset of the
// OPEN breaker counts and the labels and comment land on it.
func TestAnyTriggerFindsItsPullRequest(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"push", "workflow_dispatch", "schedule"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHTTPHarness(t, stagnant(t))
			payload := map[string]any{"repository": map[string]any{"full_name": "octo/loop", "default_branch": "main"}}
			switch name {
			case "push":
				payload["ref"], payload["after"] = "refs/heads/agent/loop", h.loop.head
				payload["sender"] = map[string]any{"login": "loop-runner", "type": "User"}
			case "workflow_dispatch":
				payload["ref"] = "refs/heads/agent/loop"
				payload["sender"] = map[string]any{"login": "maintainer", "type": "User"}
			}
			data, _ := json.Marshal(payload)
			if err := os.WriteFile(h.env["GITHUB_EVENT_PATH"], data, 0o644); err != nil {
				t.Fatal(err)
			}
			h.env["GITHUB_EVENT_NAME"] = name
			h.env["GITHUB_REF"] = "refs/heads/agent/loop"
			h.env["GITHUB_SHA"] = h.loop.head
			if code := h.run(); code != exitOpen {
				t.Fatalf("first run: got exit %d, want %d\n%s", code, exitOpen, h.log.String())
			}
			if got := h.fake.IssueLabels("octo", "loop", 7); !contains(got, present.LabelOpen) {
				t.Errorf("got labels %v on #7, want %s", got, present.LabelOpen)
			}
			h.fake.SetPermission("octo", "loop", "maintainer", "write")
			h.fake.AddComment("octo", "loop", 7, "maintainer", "User", "/loopbreaker resume", h.now.Add(10*time.Minute))
			h.nextRun()
			if code := h.run(); code != exitContinue {
				t.Fatalf("after the maintainer's resume: got exit %d, want 0\n%s", code, h.summaryText())
			}
			if got := h.fake.IssueLabels("octo", "loop", 7); contains(got, present.LabelOpen) {
				t.Errorf("got labels %v on #7 after the resume, want no %s", got, present.LabelOpen)
			}
		})
	}
}

// TestMergeQueueGetsTheRequiredCheck: a required check must also report on
// the merge queue's commit (merge_group), or the queue waits forever. The
// run finds the pull request the queue tests and reports its breaker there:
// failing for an OPEN loop, passing for a healthy one.
func TestMergeQueueGetsTheRequiredCheck(t *testing.T) {
	t.Parallel()
	for _, stuck := range []bool{true, false} {
		loop := newLoop(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, map[string]string{"a.go": "package main\n"})
		if stuck {
			loop = stagnant(t)
		}
		h := newHTTPHarness(t, loop)
		group := strings.Repeat("9", 40)
		data, _ := json.Marshal(map[string]any{"action": "checks_requested", "merge_group": map[string]any{"head_sha": group,
			"head_ref": "refs/heads/gh-readonly-queue/main/pr-7-" + loop.head, "base_ref": "refs/heads/main"},
			"repository": map[string]any{"full_name": "octo/loop", "default_branch": "main"}})
		if err := os.WriteFile(h.env["GITHUB_EVENT_PATH"], data, 0o644); err != nil {
			t.Fatal(err)
		}
		h.env["GITHUB_EVENT_NAME"] = "merge_group"
		h.env["GITHUB_SHA"] = group
		h.run()
		st := h.fake.Statuses("octo", "loop", group)
		if len(st) != 1 {
			t.Fatalf("stuck %v: got %d statuses on the queue's commit, want 1\n%s", stuck, len(st), h.log.String())
		}
		if (st[0].State == "success") == stuck {
			t.Errorf("stuck %v: got status %q on the queue's commit", stuck, st[0].State)
		}
	}
}
