package render

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// The markers of the agent-facing block (OPEN) and of the completion block
// (the loop's work is done), each on a line of its own.
const (
	AgentBlockOpen     = "---CIRCUIT_BREAKER_OPEN---"
	AgentBlockClose    = "---END_CIRCUIT_BREAKER_OPEN---"
	CompleteBlockOpen  = "---LOOP_COMPLETE---"
	CompleteBlockClose = "---END_LOOP_COMPLETE---"
)

// maxFailureContext bounds the failure context, in bytes.
const maxFailureContext = 4000

// agentFieldRunes are the lengths, in characters, one agent or person text
// is cut to in the block: the next is tried when the block is too long.
var agentFieldRunes = []int{MaxField, 120, 40}

// FailureContext is the text for the agent's next prompt: the Action's
// failure-context output, the JSON's failure_context and --format agent.
// When the loop's work is done it is the completion block (CompleteBlock);
// when the breaker is OPEN the agent-facing block (AgentBlock); otherwise a
// line with the state, the reason, the newest error, the warnings, the first
// two recovery strategies and a person's guidance, or "" when the breaker
// is CLOSED with none of them. Agent and person text is cleaned and cannot
// end a block; the whole stays within 4000 bytes.
func FailureContext(d *breaker.Decision) string { return LocalFailureContext(d, "") }

// LocalFailureContext is FailureContext for a loop outside GitHub: the
// OPEN block offers the local reset command, never pull request commands
// ("" offers those).
func LocalFailureContext(d *breaker.Decision, reset string) string {
	if d.Complete && d.Completion != nil {
		return CompleteBlock(d)
	}
	if d.State == breaker.Open {
		return agentBlockFor(d, reset)
	}
	if d.State == breaker.Closed && len(d.Warnings) == 0 && d.Guidance == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "loopbreaker: %s after iteration %d", d.State, d.Iteration)
	if d.Reason != nil {
		fmt.Fprintf(&b, ": %s", Clean(*d.Reason))
	}
	b.WriteString(".")
	if e := lastError(d); e != "" {
		fmt.Fprintf(&b, " Last error: %s.", Clean(e))
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, " Warning: %s.", Warning(w))
	}
	if d.State != breaker.Closed {
		if d.Advice != "" {
			fmt.Fprintf(&b, " Advice: %s.", Clean(d.Advice))
		}
		if st := Strategies(trigger(d)); len(st) > 0 {
			fmt.Fprintf(&b, " Next: %s.", strings.Join(st[:min(2, len(st))], "; "))
		}
	}
	if g := d.Guidance; g != nil {
		fmt.Fprintf(&b, " Guidance from %s: %s", Clean(g.By), Clean(g.Text))
	}
	return textcut.Bytes(b.String(), maxFailureContext, textcut.Ellipsis)
}

// agentBlockFor is the agent-facing block for an OPEN breaker, between
// AgentBlockOpen and AgentBlockClose: PHASE, REASON, ITERATIONS,
// TESTS_PASSING, LAST_ERROR, then what the loop does (ACTION), the
// policy's advice for the phase (else the rule's first recovery strategy),
// a person's guidance, and the OPTIONS a person has, each with its pull
// request command, or the local reset command when reset is not "".
func agentBlockFor(d *breaker.Decision, reset string) string {
	var s string
	for _, n := range agentFieldRunes {
		if s = agentBlock(d, n, reset); len(s) <= maxFailureContext {
			break
		}
	}
	return s
}

func agentBlock(d *breaker.Decision, n int, reset string) string {
	field := func(s, none string) string {
		if s == "" {
			return none
		}
		return agentText(s, n)
	}
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "%s: %s\n", label, value) }
	b.WriteString(AgentBlockOpen + "\n")
	phase := field(d.Phase, "none")
	line("PHASE", phase)
	reason := "held open"
	if d.Reason != nil {
		reason = field(*d.Reason, "")
	}
	if t := trigger(d); t != "" {
		reason += " [" + field(t, "") + "]"
	}
	line("REASON", reason)
	line("ITERATIONS", fmt.Sprint(d.Iteration))
	line("TESTS_PASSING", testsPassing(d))
	line("LAST_ERROR", field(lastError(d), "none"))
	line("ACTION", field(openAction(d), ""))
	advice := d.Advice
	if advice == "" {
		if st := Strategies(trigger(d)); len(st) > 0 {
			advice = st[0]
		}
	}
	if advice != "" {
		line("ADVICE", field(advice, ""))
	}
	if g := d.Guidance; g != nil {
		line("GUIDANCE", field(g.Text, "")+" (from "+field(g.By, "")+")")
	}
	if reset != "" {
		b.WriteString("\nOPTIONS (for a person):\n")
		fmt.Fprintf(&b, "1. Reset and retry when the cause is fixed: %s\n2. Stop the loop.\n", field(reset, ""))
		b.WriteString(AgentBlockClose)
		return b.String()
	}
	b.WriteString("\nOPTIONS (for a person with write access, as a pull request comment):\n")
	opts := []string{"[R]eset and retry with the current approach: /loopbreaker reset"}
	if d.Phase != "" {
		opts = append(opts, "[S]kip the "+phase+" phase (its failing tests become known failures): /loopbreaker skip-phase")
	}
	opts = append(opts, "[A]bort execution: /loopbreaker abort", "[M]odify the approach (new guidance for the agent): /loopbreaker guide <text>")
	if d.OpenAction == policy.OnOpenPause {
		opts = append(opts, "Resume the paused loop: /loopbreaker resume")
	}
	for i, o := range opts {
		fmt.Fprintf(&b, "%d. %s\n", i+1, o)
	}
	b.WriteString(AgentBlockClose)
	return b.String()
}

// CompleteBlock is the block for a loop whose work is done, between
// CompleteBlockOpen and CompleteBlockClose, in the agent block's form:
// STATUS and EXIT_SIGNAL (ralph's words for "stop"), ITERATIONS, the
// evidence (TASKS, TESTS_PASSING, CLAIM), a WARNING line for each warning
// and what to do (ACTION). It is short: nothing in it is the agent's text
// but the warnings' test names, cleaned.
func CompleteBlock(d *breaker.Decision) string {
	c := d.Completion
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "%s: %s\n", label, value) }
	b.WriteString(CompleteBlockOpen + "\n")
	line("STATUS", "COMPLETE")
	line("EXIT_SIGNAL", "true")
	line("ITERATIONS", fmt.Sprint(d.Iteration))
	line("TASKS", fmt.Sprintf("%d/%d checked", c.Tasks.Done, c.Tasks.Total))
	tests := "no test report"
	if t := c.Tests; t != nil {
		tests = fmt.Sprintf("%d/%d (%d skipped)", t.Passed, t.Passed+t.Failed, t.Skipped)
	}
	line("TESTS_PASSING", tests)
	var claim []string
	if c.Claimed {
		claim = append(claim, "the agent says it is done")
	}
	if c.Percent != nil {
		claim = append(claim, fmt.Sprintf("%g %% reported", *c.Percent))
	}
	line("CLAIM", strings.Join(claim, "; "))
	for _, w := range d.Warnings {
		line("WARNING", agentText(Warning(w), MaxField))
	}
	line("ACTION", "stop the loop: the work is done; a person reviews it")
	b.WriteString(CompleteBlockClose)
	s := b.String()
	if len(s) > maxFailureContext {
		// Only many long warnings come this far: keep the block whole.
		s = strings.ToValidUTF8(s[:maxFailureContext-len("…\n"+CompleteBlockClose)], "") + "…\n" + CompleteBlockClose
	}
	return s
}

// openAction says what the OPEN breaker does to the loop.
func openAction(d *breaker.Decision) string {
	switch {
	case d.DryRun:
		return "dry run: the loop would stop"
	case d.OpenAction == policy.OnOpenPause:
		return "pause: the loop waits until a person resumes it"
	case d.OpenAction == policy.OnOpenAlert:
		return "alert: the loop goes on; people were told"
	case d.OpenAction == policy.OnOpenEscalate && d.NextModel != nil:
		return "escalate: the loop goes on with the next model, " + *d.NextModel
	}
	return "abort: the loop stops"
}

// testsPassing is "passed/total" of the newest iteration with a test
// report, and the change against the report before it.
func testsPassing(d *breaker.Decision) string {
	var cur, prev *breaker.Tests
	for i := len(d.Recent) - 1; i >= 0 && prev == nil; i-- {
		if t := d.Recent[i].Tests; t != nil && !d.Recent[i].IgnoredOpen {
			if cur == nil {
				cur = t
			} else {
				prev = t
			}
		}
	}
	if cur == nil {
		return "no test report"
	}
	change := "first report"
	switch {
	case prev == nil:
	case cur.Passed == prev.Passed:
		change = "no change"
	default:
		change = fmt.Sprintf("%+d", cur.Passed-prev.Passed)
	}
	return fmt.Sprintf("%d/%d (%s)", cur.Passed, cur.Total(), change)
}

// lastError is the first error of the newest measured iteration, or "".
func lastError(d *breaker.Decision) string {
	for i := len(d.Recent) - 1; i >= 0; i-- {
		if s := d.Recent[i]; !s.IgnoredOpen {
			if len(s.Errors) > 0 {
				return s.Errors[0]
			}
			return ""
		}
	}
	return ""
}

// agentText is agent or person text for the block: cleaned (one line, no
// escapes), cut to n characters, with no run of three dashes that could
// end the block.
func agentText(s string, n int) string {
	s = cleanRunes(s)
	for strings.Contains(s, "---") {
		s = strings.ReplaceAll(s, "---", "--")
	}
	return textcut.Runes(s, n, textcut.Ellipsis)
}
