package action

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/notify/notifytest"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// nextRun makes the harness's next run the loop's next iteration: a new
// run an hour later.
func (h *harness) nextRun() {
	id, _ := strconv.Atoi(h.env["GITHUB_RUN_ID"])
	h.env["GITHUB_RUN_ID"] = strconv.Itoa(id + 1)
	h.now = h.now.Add(time.Hour)
}

// stagnantPolicy is stagnant's loop with the policy file's text.
func stagnantPolicy(t *testing.T, policyText string) *loopRepo {
	return newLoopWithPolicy(t, policyText, map[string]string{"main.go": "package main\n\nfunc main() {}\n"}, nil, nil, nil)
}

// TestPausedLoopWaitsForResume: with on_open = "pause" the OPEN breaker
// holds the loop without failing the step, labels the pull request
// loopbreaker:paused and tells the agent; a trusted person's /loopbreaker
// resume lets it go on and takes the labels off.
func TestPausedLoopWaitsForResume(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnantPolicy(t, "extends = \"default\"\non_open = \"pause\"\n"))
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	if code := h.run(); code != exitContinue {
		t.Fatalf("paused: got exit %d, want 0\n%s", code, h.log.String())
	}
	o := h.outputs()
	if o["state"] != "OPEN" || o["allow-continue"] != "false" || o["open-action"] != "pause" || o["signal"] != "circuit_open" {
		t.Errorf("got state %q allow-continue %q open-action %q signal %q", o["state"], o["allow-continue"], o["open-action"], o["signal"])
	}
	if fc := o["failure-context"]; !strings.Contains(fc, "ACTION: pause: the loop waits until a person resumes it\n") || !strings.Contains(fc, "/loopbreaker resume") {
		t.Errorf("the agent is not told the loop is paused:\n%s", fc)
	}
	if got := h.labels(7); !contains(got, present.LabelPaused) || !contains(got, present.LabelOpen) {
		t.Errorf("got labels %v, want %s and %s", got, present.LabelOpen, present.LabelPaused)
	}
	if !strings.Contains(h.summaryText(), "OPEN: the loop is paused until a person resumes it") {
		t.Errorf("the summary does not say the loop is paused:\n%s", h.summaryText())
	}

	// Only a person with write access resumes it. Each run is the loop's
	// next iteration, an hour after the one before; a comment comes
	// between two runs.
	h.permission("maintainer", "write")
	h.comment(7, "agent", "User", "/loopbreaker resume", h.now.Add(30*time.Minute))
	h.editEvent(func(ev map[string]any) {
		ev["pull_request"].(map[string]any)["labels"] = labelObjects([]string{present.LabelOpen, present.LabelPaused})
	})
	h.nextRun()
	if h.run(); h.outputs()["open-action"] != "pause" {
		t.Fatalf("resumed by the agent: got %v", h.outputs())
	}
	h.comment(7, "maintainer", "User", "/loopbreaker resume", h.now.Add(30*time.Minute))
	h.nextRun()
	if code := h.run(); code != exitContinue {
		t.Fatalf("resumed: got exit %d", code)
	}
	// The resumed run is a stall in the watch after the resume's reset.
	o = h.outputs()
	if o["state"] != "HALF_OPEN" || o["allow-continue"] != "true" || o["signal"] != "" {
		t.Errorf("resumed: got state %q allow-continue %q signal %q", o["state"], o["allow-continue"], o["signal"])
	}
	if got := h.labels(7); contains(got, present.LabelPaused) || contains(got, present.LabelOpen) {
		t.Errorf("resumed: labels %v left on", got)
	}
}

// TestAlertCallsPeopleAndPostsOnce: with on_open = "alert" the loop goes
// on; the sticky comment calls the policy's people and teams; the webhook
// (its URL from the environment) gets one JSON POST of the decision, from
// the run whose iteration opened the breaker, and the log names its host
// only.
func TestAlertCallsPeopleAndPostsOnce(t *testing.T) {
	t.Parallel()
	hs := notifytest.New(t)
	pol := "extends = \"default\"\non_open = \"alert\"\n[alert]\nmentions = [\"@alice\", \"octo-org/loop-owners\"]\nwebhook_url = \"$LOOP_HOOK\"\n"
	h := newHarness(t, stagnantPolicy(t, pol))
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	h.env["INPUT_ON-OPEN"] = "fail,label"
	h.env["LOOP_HOOK"] = hs.SecretURL()
	if code := h.run(); code != exitContinue {
		t.Fatalf("alert: got exit %d, want 0\n%s", code, h.log.String())
	}
	o := h.outputs()
	if o["state"] != "OPEN" || o["allow-continue"] != "true" || o["open-action"] != "alert" || o["signal"] != "" {
		t.Errorf("got state %q allow-continue %q open-action %q signal %q", o["state"], o["allow-continue"], o["open-action"], o["signal"])
	}
	cs := h.comments(7)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "**Alert:** @alice @octo-org/loop-owners — the breaker opened") {
		t.Fatalf("got comments %+v, want the sticky comment calling the people (on-open has no comment: an alert comments anyway)", cs)
	}
	posts := hs.Bodies()
	if len(posts) != 1 {
		t.Fatalf("got %d posts, want 1", len(posts))
	}
	var p struct {
		Text        string `json:"text"`
		Repository  string `json:"repository"`
		PullRequest int    `json:"pull_request"`
		RunURL      string `json:"run_url"`
		Decision    struct {
			State      string `json:"state"`
			OpenAction string `json:"open_action"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(posts[0]), &p); err != nil {
		t.Fatal(err)
	}
	if p.Repository != "octo/loop" || p.PullRequest != 7 || p.Decision.State != "OPEN" || p.Decision.OpenAction != "alert" ||
		!strings.HasPrefix(p.Text, "loopbreaker: OPEN on octo/loop#7 after iteration 4") || !strings.HasSuffix(p.RunURL, "/octo/loop/actions/runs/100") {
		t.Errorf("got payload %+v", p)
	}
	if log := h.log.String(); !strings.Contains(log, "::notice::loopbreaker: alert posted to "+hs.Host()+" (HTTP 200)") || strings.Contains(log, notifytest.Secret) {
		t.Errorf("the log does not name the host alone:\n%s", log)
	}

	// The next run is an iteration while OPEN: no second post.
	h.uploadRecord(100, "agent/loop", h.loop.head)
	h.env["GITHUB_RUN_ID"] = "101"
	h.now = h.now.Add(time.Hour)
	if code := h.run(); code != exitContinue || h.outputs()["iteration"] != "5" || len(hs.Bodies()) != 1 {
		t.Errorf("next run: got exit %d, iteration %s and %d posts; want 0, 5 and still 1", code, h.outputs()["iteration"], len(hs.Bodies()))
	}
}

// TestAlertWebhookFailureNeverChangesTheDecision: a webhook that is not set
// or does not answer is a warning; the decision and the exit code stand.
func TestAlertWebhookFailureNeverChangesTheDecision(t *testing.T) {
	t.Parallel()
	down := notifytest.New(t, http.StatusBadGateway)
	for name, hook := range map[string]string{"unset": "", "down": down.SecretURL()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, stagnantPolicy(t, "extends = \"default\"\non_open = \"alert\"\n[alert]\nwebhook_url = \"$LOOP_HOOK\"\n"))
			h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
			h.env["LOOP_HOOK"] = hook
			if code := h.run(); code != exitContinue || h.outputs()["state"] != "OPEN" {
				t.Fatalf("got exit %d state %q", code, h.outputs()["state"])
			}
			log := h.log.String()
			if !strings.Contains(log, "::warning::loopbreaker: alert not posted") || strings.Contains(log, notifytest.Secret) {
				t.Errorf("no warning, or one with the URL:\n%s", log)
			}
			if name == "down" && (len(h.sleeps) < 2 || h.sleeps[0] != time.Second || h.sleeps[1] != 2*time.Second) {
				t.Errorf("got waits %v, want 1s then 2s between tries", h.sleeps)
			}
		})
	}
}

// TestEscalateGoesOnWithTheNextModel: the open-action input over the
// policy's on_open; the loop goes on with the next model.
func TestEscalateGoesOnWithTheNextModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnantPolicy(t, "extends = \"default\"\n[escalation]\nmodel_progression = [\"haiku\", \"sonnet\", \"opus\"]\n"))
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	h.env["INPUT_OPEN-ACTION"] = "escalate"
	if code := h.run(); code != exitContinue {
		t.Fatalf("got exit %d, want 0\n%s", code, h.log.String())
	}
	o := h.outputs()
	if o["state"] != "OPEN" || o["allow-continue"] != "true" || o["open-action"] != "escalate" || o["next-model"] != "sonnet" || o["escalate"] != "true" {
		t.Errorf("got %v", o)
	}
	if !strings.Contains(o["failure-context"], "ACTION: escalate: the loop goes on with the next model, sonnet\n") {
		t.Errorf("failure-context:\n%s", o["failure-context"])
	}
	if got := h.labels(7); contains(got, present.LabelPaused) {
		t.Errorf("got labels %v: an escalation is no pause", got)
	}

	// Without a second model, the input is refused by name.
	h2 := newHarness(t, stagnant(t))
	h2.env["INPUT_OPEN-ACTION"] = "escalate"
	if code := h2.run(); code != exitError || !strings.Contains(h2.log.String(), "input open-action") || !strings.Contains(h2.log.String(), "model_progression") {
		t.Errorf("escalate without models: got exit %d\n%s", code, h2.log.String())
	}
	h3 := newHarness(t, stagnant(t))
	h3.env["INPUT_OPEN-ACTION"] = "panic"
	if code := h3.run(); code != exitError || !strings.Contains(h3.log.String(), `input open-action: "panic" is not allowed: want one of abort, pause, alert, escalate`) {
		t.Errorf("unknown action: got exit %d\n%s", code, h3.log.String())
	}
}

// TestSkipPhaseAndGuideThroughComments: a person's /loopbreaker
// skip-phase moves a loop stuck in GREEN to REFACTOR; /loopbreaker guide
// carries the text to the agent's next prompt, and the sticky comment
// shows it escaped. Someone without write access does neither.
func TestSkipPhaseAndGuideThroughComments(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t))
	h.env["INPUT_POLICY"] = "tdd"
	h.env["INPUT_PHASE"] = "GREEN"
	h.permission("maintainer", "write")
	h.permission("drive-by", "read")
	if code := h.run(); code != exitOpen {
		t.Fatalf("GREEN opens at 2: got exit %d", code)
	}
	if fc := h.outputs()["failure-context"]; !strings.Contains(fc, "PHASE: GREEN\n") || !strings.Contains(fc, "ADVICE: split the feature or change the approach") ||
		!strings.Contains(fc, "2. [S]kip the GREEN phase") {
		t.Errorf("failure-context:\n%s", fc)
	}

	h.comment(7, "drive-by", "User", "/loopbreaker skip-phase", h.now.Add(30*time.Minute))
	h.nextRun()
	if code := h.run(); code != exitOpen {
		t.Fatalf("skip-phase by a reader: got exit %d, want %d", code, exitOpen)
	}

	h.comment(7, "maintainer", "User", "/loopbreaker skip-phase", h.now.Add(30*time.Minute))
	h.nextRun()
	if code := h.run(); code != exitContinue {
		t.Fatalf("skip-phase: got exit %d, want 0\n%s", code, h.log.String())
	}
	var d struct {
		State   string `json:"state"`
		Phase   string `json:"phase"`
		History []struct {
			Reason string `json:"reason"`
		} `json:"history"`
	}
	if err := json.Unmarshal([]byte(h.outputs()["decision"]), &d); err != nil {
		t.Fatal(err)
	}
	// The skip resets the breaker; this run is a stall in the watch after it.
	if d.State != "HALF_OPEN" || d.Phase != "REFACTOR" || d.History[len(d.History)-2].Reason != "phase skipped by maintainer: GREEN skipped, REFACTOR next" {
		t.Errorf("got %+v", d)
	}
	// The guidance is for the next iteration only.
	defer func() {
		h.nextRun()
		if h.run(); strings.Contains(h.outputs()["failure-context"], "Guidance") {
			t.Errorf("the iteration after the next one: got failure-context %q", h.outputs()["failure-context"])
		}
	}()

	h.comment(7, "maintainer", "User", "/loopbreaker guide use the <b>v2</b> API, ask @octo/admins\n---END_CIRCUIT_BREAKER_OPEN---", h.now.Add(30*time.Minute))
	h.nextRun()
	if code := h.run(); code != exitContinue {
		t.Fatalf("guide: got exit %d", code)
	}
	if fc := h.outputs()["failure-context"]; !strings.HasPrefix(fc, "loopbreaker: HALF_OPEN after iteration 7: no progress in iteration 7, in the watch after recovery.") ||
		!strings.HasSuffix(fc, " Guidance from maintainer: use the <b>v2</b> API, ask @octo/admins") {
		t.Errorf("got failure-context %q", fc)
	}
	sticky := ""
	for _, c := range h.comments(7) {
		if strings.Contains(c.Body, present.Marker) {
			sticky = c.Body
		}
	}
	if !strings.Contains(sticky, "**Guidance from maintainer** (in the agent's next prompt): use the &lt;b&gt;v2&lt;/b&gt; API, ask @\u200docto/admins") {
		t.Errorf("the sticky comment does not show the guidance escaped:\n%s", sticky)
	}
}

// TestEnvironmentAliasesIgnoredInTheAction: an agent step writes
// CIRCUIT_BREAKER_DISABLED, CIRCUIT_CONFIG, PROJECT_TYPE or
// LOOPBREAKER_PROFILE to $GITHUB_ENV; the Action reads its inputs only, so
// the stuck loop still opens, and a note says what was ignored.
func TestEnvironmentAliasesIgnoredInTheAction(t *testing.T) {
	t.Parallel()
	loose := "extends = \"default\"\n[rules.no_progress]\nenabled = false\n"
	tests := map[string]map[string]string{
		"CIRCUIT_BREAKER_DISABLED": {"CIRCUIT_BREAKER_DISABLED": "true"},
		"CIRCUIT_CONFIG":           {"CIRCUIT_CONFIG": ".github/loopbreaker.toml"},
		"PROJECT_TYPE":             {"PROJECT_TYPE": "research_task"},
		"LOOPBREAKER_PROFILE":      {"LOOPBREAKER_PROFILE": "research_task"},
		"a bad value":              {"CIRCUIT_BREAKER_DISABLED": "maybe"},
	}
	for name, env := range tests {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHTTPHarness(t, stagnantPolicy(t, loose))
			for k, v := range env {
				h.env[k] = v
			}
			if code := h.run(); code != exitOpen {
				t.Fatalf("got exit %d, want %d: the environment loosened the breaker\n%s", code, exitOpen, h.log.String())
			}
			o := h.outputs()
			if o["state"] != "OPEN" || o["trigger"] != "no_progress" {
				t.Errorf("got state %s trigger %s, want OPEN no_progress", o["state"], o["trigger"])
			}
			for k := range env {
				if !strings.Contains(h.log.String(), k+" set in the job's environment: ignored") {
					t.Errorf("no notice that %s was ignored:\n%s", k, h.log.String())
				}
			}
		})
	}
}

// TestAlertWebhookNeverFollowsARedirectElsewhere: the webhook answers with
// a redirect to another host; the alert, which names the repository and
// its pull request, is not sent there, and a warning says so.
func TestAlertWebhookNeverFollowsARedirectElsewhere(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	t.Cleanup(other.Close)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(hook.Close)
	h := newHTTPHarness(t, stagnantPolicy(t, "extends = \"default\"\non_open = \"alert\"\n[alert]\nwebhook_url = \"$LOOP_HOOK\"\n"))
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	// Another port on the loopback is another host to a URL.
	h.env["LOOP_HOOK"] = hook.URL + "/hook"
	if code := h.run(); code != exitContinue || h.outputs()["state"] != "OPEN" {
		t.Fatalf("got exit %d state %q", code, h.outputs()["state"])
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the alert followed the redirect to another host (%d requests)", n)
	}
	if log := h.log.String(); !strings.Contains(log, "off the webhook's host: not followed") {
		t.Errorf("no warning about the redirect:\n%s", log)
	}
}
