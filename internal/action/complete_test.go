package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/present"
)

// doneLoop is a loop whose last commit checks the plan's last task, with
// the agent's status block saying it is done and a green test report in
// the workspace.
func doneLoop(t *testing.T, lastPlan string) *loopRepo {
	t.Helper()
	loop := newLoop(t,
		map[string]string{"fix_plan.md": "- [x] parser\n- [ ] lexer\n", "parser.go": "package main\n\nfunc parse() {}\n"},
		map[string]string{"fix_plan.md": lastPlan, "lexer.go": "package main\n\nfunc lex() {}\n"})
	files := map[string]string{
		"agent.log":  "lexer written\n---RALPH_STATUS---\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n",
		"report.xml": `<testsuite name="app" tests="3" failures="0"><testcase name="TestParse"/><testcase name="TestLex"/><testcase name="TestRun"/></testsuite>`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(loop.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return loop
}

// TestCompleteLoopThroughTheAction: a loop whose work is done is not a
// trip: the step succeeds, the outputs say complete with allow-continue
// false, the pull request gets loopbreaker:complete, and the summary and
// the notice say "done" with the evidence. When the work reopens, the
// label goes.
func TestCompleteLoopThroughTheAction(t *testing.T) {
	t.Parallel()
	h := newHarness(t, doneLoop(t, "- [x] parser\n- [x] lexer\n"))
	h.env["INPUT_AGENT-LOG"] = "agent.log"
	h.env["INPUT_REPORTS"] = "report.xml"
	if code := h.run(); code != exitContinue {
		t.Fatalf("got exit %d, want 0\n%s", code, h.log.String())
	}
	o := h.outputs()
	if o["complete"] != "true" || o["allow-continue"] != "false" || o["state"] != "CLOSED" || o["signal"] != "" {
		t.Errorf("got outputs complete %q allow-continue %q state %q signal %q", o["complete"], o["allow-continue"], o["state"], o["signal"])
	}
	if !strings.Contains(o["decision"], `"complete":true,"completion":{"tasks":{"done":2,"total":2},"tests":{"passed":3,"failed":0,"skipped":0},"claimed":true`) {
		t.Errorf("the decision output lacks the evidence: %s", o["decision"])
	}
	if got := h.labels(7); !contains(got, present.LabelComplete) {
		t.Errorf("got labels %v, want %s", got, present.LabelComplete)
	}
	evidence := "all 2 tasks checked · tests green (3 passed, 0 skipped) · the agent says it is done"
	if s := h.summaryText(); !strings.Contains(s, "## ✅ loopbreaker: done: stop the loop") || !strings.Contains(s, "**Done:** "+evidence) {
		t.Errorf("the summary does not say done:\n%.1500s", s)
	}
	if !strings.Contains(h.log.String(), "::notice title=loopbreaker done%3A stop the loop::iteration 2: "+evidence) {
		t.Errorf("no notice:\n%s", h.log.String())
	}

	// A task reopened: not complete, and the label comes off.
	h = newHarness(t, doneLoop(t, "- [x] parser\n- [x] lexer\n- [ ] docs\n"), present.LabelComplete)
	h.env["INPUT_AGENT-LOG"] = "agent.log"
	h.env["INPUT_REPORTS"] = "report.xml"
	if code := h.run(); code != exitContinue {
		t.Fatalf("a task left: got exit %d", code)
	}
	if o := h.outputs(); o["complete"] != "false" || o["allow-continue"] != "true" {
		t.Errorf("a task left: got complete %q allow-continue %q", o["complete"], o["allow-continue"])
	}
	if got := h.labels(7); contains(got, present.LabelComplete) {
		t.Errorf("a task left: the %s label stayed on: %v", present.LabelComplete, got)
	}
	if !strings.Contains(h.summaryText(), "the agent claims completion while 1 of 3 tasks remain") {
		t.Errorf("a claim while a task remains is not the completion_claim warning:\n%.1500s", h.summaryText())
	}
}
