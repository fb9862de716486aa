package action

import (
	"encoding/json"
	"os"
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
