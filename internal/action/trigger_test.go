package action

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
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
// the merge queue's commit (merge_group), or the queue waits forever. A
// merge group's run uses the group's own commit, whose workflow files the
// queued pull request may have changed: examples/merge-queue.yml holds
// read permissions only and no key, and with its inputs the run finds the
// pull request the queue tests and fails the job (the check) while its
// breaker is OPEN, passes for a healthy one, and writes nothing.
func TestMergeQueueGetsTheRequiredCheck(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t, "../../examples/merge-queue.yml")
	if !w.on["merge_group"] || len(w.jobs) != 1 {
		t.Fatalf("merge-queue.yml: got triggers %v and %d jobs, want merge_group and one job", w.on, len(w.jobs))
	}
	for _, stuck := range []bool{true, false} {
		loop := newLoop(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, map[string]string{"a.go": "package main\n"})
		if stuck {
			loop = stagnant(t)
		}
		h := newHTTPHarness(t, loop)
		h.fake.SetPermissions(fakegithub.DefaultToken, w.perms)
		for _, s := range w.jobs[0].steps {
			if usesLoopbreaker(s) {
				for k, v := range s.with {
					h.env["INPUT_"+strings.ToUpper(k)] = v
				}
			}
		}
		group := strings.Repeat("9", 40)
		payload, ref, sha, err := h.fake.MergeGroupEvent("octo", "loop", 7, group)
		if err != nil {
			t.Fatal(err)
		}
		h.httpEvent("merge_group", payload, ref)
		h.env["GITHUB_SHA"] = sha
		code := h.run()
		if want := map[bool]int{true: exitOpen, false: exitContinue}[stuck]; code != want {
			t.Errorf("stuck %v: got exit %d, want %d\n%s", stuck, code, want, h.log.String())
		}
		for _, c := range h.fake.CallLog() {
			if !strings.HasPrefix(c, "GET ") {
				t.Errorf("stuck %v: the merge group's run wrote to GitHub: %s", stuck, c)
			}
		}
	}
}
