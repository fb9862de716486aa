package action

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

// TestDecisionOutputIsTheCommandLinesObject: the decision output is the
// object of the command line's --format json, by the one encoder: the
// decision's fields, the notes with their codes (the fold's and the GitHub
// side's), and failure_context, the same text as the failure-context
// output. A disabled breaker's is the command line's disabled object.
func TestDecisionOutputIsTheCommandLinesObject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t))
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d\n%s", code, exitOpen, h.log.String())
	}
	o := h.outputs()
	var obj struct {
		State          string      `json:"state"`
		Signal         string      `json:"signal"`
		OpenAction     string      `json:"open_action"`
		Notes          []note.Note `json:"notes"`
		FailureContext *string     `json:"failure_context"`
	}
	if err := json.Unmarshal([]byte(o["decision"]), &obj); err != nil {
		t.Fatalf("decision output: %v\n%s", err, o["decision"])
	}
	if obj.State != "OPEN" || obj.Signal != "circuit_open" || obj.OpenAction != "abort" {
		t.Errorf("got state %q signal %q open_action %q, want OPEN circuit_open abort", obj.State, obj.Signal, obj.OpenAction)
	}
	if obj.FailureContext == nil || *obj.FailureContext != o["failure-context"] || !strings.Contains(*obj.FailureContext, render.AgentBlockOpen) {
		t.Errorf("failure_context %v, want the failure-context output (the agent block)", obj.FailureContext)
	}
	codes := map[note.Code]bool{}
	for _, n := range obj.Notes {
		if !n.Code.Known() || n.Text == "" {
			t.Errorf("note %+v: want a known code and a text", n)
		}
		codes[n.Code] = true
	}
	if !codes[note.GitHub] {
		t.Errorf("notes %+v: want the GitHub side's (where the earlier records came from)", obj.Notes)
	}
	for _, key := range []string{`"notes":`, `"failure_context":`, `"allow_continue":false`} {
		if !strings.Contains(o["decision"], key) {
			t.Errorf("decision output lacks %s: %s", key, o["decision"])
		}
	}

	h = newHarness(t, stagnant(t), present.LabelDisabled)
	h.labelEvent(7, "labeled", present.LabelDisabled, "maintainer", "User", start)
	h.permission("maintainer", "admin")
	if code := h.run(); code != exitContinue {
		t.Fatalf("disabled: got exit %d\n%s", code, h.log.String())
	}
	var cli bytes.Buffer
	if err := render.Disabled(&cli, "json", "the PR has the "+present.LabelDisabled+" label, added by maintainer"); err != nil {
		t.Fatal(err)
	}
	if got, want := h.outputs()["decision"], strings.TrimSuffix(cli.String(), "\n"); got != want {
		t.Errorf("disabled: got decision %s, want the command line's %s", got, want)
	}
}
