package action

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// TestOnlyTrustedPersonsControl: a /loopbreaker reset reaches an OPEN
// breaker in the ways an agent holding a token or a person's account can
// arrange; none of them is a person's command. The control case, the same
// reset posted fresh by a maintainer, shows the reset would have worked.
func TestOnlyTrustedPersonsControl(t *testing.T) {
	t.Parallel()
	at := start.Add(30 * time.Hour)
	cases := map[string]struct {
		comment fakegithub.Comment
		setup   func(h *harness)
		reset   bool
	}{
		"a maintainer's fresh comment": {comment: fakegithub.Comment{Login: "maintainer", Body: "/loopbreaker reset"}, reset: true},
		"an edited comment":            {comment: fakegithub.Comment{Login: "maintainer", Body: "/loopbreaker reset", UpdatedAt: at.Add(time.Hour)}},
		"inside a code fence":          {comment: fakegithub.Comment{Login: "maintainer", Body: "the agent logged:\n```\n/loopbreaker reset\n```\n"}},
		"inside a tilde fence":         {comment: fakegithub.Comment{Login: "maintainer", Body: "~~~~\n/loopbreaker reset\n~~~~\n"}},
		"inside a quote":               {comment: fakegithub.Comment{Login: "maintainer", Body: "> /loopbreaker reset\n\nno."}},
		"indented code":                {comment: fakegithub.Comment{Login: "maintainer", Body: "log:\n\n    /loopbreaker reset\n"}},
		"written by an App":            {comment: fakegithub.Comment{Login: "maintainer", Body: "/loopbreaker reset", App: "agent-app"}},
		"the pull request's author":    {comment: fakegithub.Comment{Login: "agent", Body: "/loopbreaker reset"}},
		"a known coding agent":         {comment: fakegithub.Comment{Login: "devin-ai-integration", Body: "/loopbreaker reset"}},
		"a machine user in agent-logins": {comment: fakegithub.Comment{Login: "loop-runner", Body: "/loopbreaker reset"},
			setup: func(h *harness) { h.env["INPUT_AGENT-LOGINS"] = "loop-runner" }},
		"the account that pushed the iteration": {comment: fakegithub.Comment{Login: "loop-runner", Body: "/loopbreaker reset"},
			setup: func(h *harness) {
				h.editEvent(func(ev map[string]any) { ev["sender"] = map[string]any{"login": "loop-runner", "type": "User"} })
			}},
		"outside the trusted input": {comment: fakegithub.Comment{Login: "maintainer", Body: "/loopbreaker reset"},
			setup: func(h *harness) { h.env["INPUT_TRUSTED"] = "lead, octo/release" }},
		"a member of a trusted team": {comment: fakegithub.Comment{Login: "maintainer", Body: "/loopbreaker reset"}, reset: true,
			setup: func(h *harness) {
				h.env["INPUT_TRUSTED"] = "lead, octo/release"
				h.fake.AddTeamMember("octo", "release", "maintainer")
			}},
		"a trusted login": {comment: fakegithub.Comment{Login: "maintainer", Body: "/loopbreaker reset"}, reset: true,
			setup: func(h *harness) { h.env["INPUT_TRUSTED"] = "@maintainer" }},
	}
	for name, c := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHTTPHarness(t, stagnant(t), present.LabelOpen)
			for _, login := range []string{"maintainer", "agent", "devin-ai-integration", "loop-runner"} {
				h.fake.SetPermission("octo", "loop", login, "write")
			}
			if c.setup != nil {
				c.setup(h)
			}
			c.comment.CreatedAt = at
			h.fake.AddCommentAs("octo", "loop", 7, c.comment)
			h.now = start.Add(31 * time.Hour)
			code := h.run()
			want := exitOpen
			if c.reset {
				want = exitContinue
			}
			if code != want {
				t.Fatalf("got exit %d, want %d\n%s", code, want, h.log.String())
			}
		})
	}
}

// TestLabelRemovedThroughAnAppIsNoReset: the open label taken off by an
// App acting for a maintainer (performed_via_github_app) is the App's
// doing, not the maintainer's.
func TestLabelRemovedThroughAnAppIsNoReset(t *testing.T) {
	t.Parallel()
	for _, app := range []string{"agent-app", ""} {
		h := newHTTPHarness(t, stagnant(t))
		h.fake.SetPermission("octo", "loop", "maintainer", "admin")
		if err := h.fake.AddIssueEvent("octo", "loop", fakegithub.EventState{Number: 7, Event: "unlabeled", Label: present.LabelOpen,
			Login: "maintainer", UserType: "User", CreatedAt: start.Add(30 * time.Hour), App: app}); err != nil {
			t.Fatal(err)
		}
		h.now = start.Add(31 * time.Hour)
		want := exitOpen
		if app == "" {
			want = exitContinue
		}
		if code := h.run(); code != want {
			t.Fatalf("removed via app %q: got exit %d, want %d\n%s", app, code, want, h.log.String())
		}
	}
}
