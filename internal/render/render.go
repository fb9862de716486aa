package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Formats lists the output formats of a decision: agent is the block for
// the agent's next prompt (FailureContext).
var Formats = []string{"text", "json", "markdown", "agent"}

// CheckFormat rejects an unknown format name.
func CheckFormat(f string) error {
	if slices.Contains(Formats, f) {
		return nil
	}
	return fmt.Errorf("unknown format %q: want text, json, markdown or agent", f)
}

// Options tell the renderers how the user reached the decision.
type Options struct {
	// ResetHint is the command or action that resets this breaker.
	ResetHint string
	// Notes are facts about the evidence (e.g. a shallow history), each
	// with its code.
	Notes []note.Note
	// FoldLog puts the markdown status log in a details block (a PR
	// comment, where it would push the rest out of sight).
	FoldLog bool
	// Local says the loop runs outside GitHub: the failure context offers
	// ResetHint, never pull request commands.
	Local bool
}

// failureContext is the failure context the options ask for.
func (o *Options) failureContext(d *breaker.Decision) string {
	if o.Local {
		return LocalFailureContext(d, o.ResetHint)
	}
	return FailureContext(d)
}

// StatusLogDetails opens the details block of a folded status log.
const StatusLogDetails = "<details><summary>Status log</summary>"

// Write renders d in the named format.
func Write(w io.Writer, format string, d *breaker.Decision, o Options) error {
	switch format {
	case "json":
		b, err := encodeObject(d, o.Notes, o.failureContext(d))
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "markdown":
		_, err := io.WriteString(w, MarkdownReport(d, o))
		return err
	case "text", "":
		_, err := io.WriteString(w, Text(d, o))
		return err
	case "agent":
		if fc := o.failureContext(d); fc != "" {
			_, err := io.WriteString(w, fc+"\n")
			return err
		}
		return nil
	}
	return CheckFormat(format)
}

// Object is the --format json object: the decision's fields, then its
// notes (never null) and the failure context for the agent's next prompt.
type Object struct {
	*breaker.Decision
	Notes          []note.Note `json:"notes"`
	FailureContext string      `json:"failure_context"`
}

// EncodeJSON is the decision object, with the notes: the one encoding of
// a decision, for --format json, the replay lines and the Action's
// decision output alike.
func EncodeJSON(d *breaker.Decision, notes []note.Note) ([]byte, error) {
	return encodeObject(d, notes, FailureContext(d))
}

func encodeObject(d *breaker.Decision, notes []note.Note, fc string) ([]byte, error) {
	if notes == nil {
		notes = []note.Note{}
	}
	b, err := json.Marshal(Object{Decision: d, Notes: notes, FailureContext: fc})
	if err != nil {
		return nil, fmt.Errorf("encode decision: %w", err)
	}
	return b, nil
}

// EncodeDisabled is the object of a run the breaker is off for: state
// DISABLED, allow_continue true, the reason, no notes and no failure
// context.
func EncodeDisabled(why string) ([]byte, error) {
	return json.Marshal(map[string]any{"state": "DISABLED", "allow_continue": true, "reason": why, "notes": []note.Note{}, "failure_context": ""})
}

// Disabled writes what a command says when the breaker is off: no
// decision, the loop may continue. JSON is an object with state DISABLED,
// allow_continue true and the reason; the agent format writes nothing.
func Disabled(w io.Writer, format, why string) error {
	var err error
	switch format {
	case "json":
		var b []byte
		if b, err = EncodeDisabled(why); err == nil {
			_, err = w.Write(append(b, '\n'))
		}
	case "markdown":
		_, err = io.WriteString(w, DisabledMarkdown(why))
	case "agent":
	default:
		_, err = fmt.Fprintf(w, "loopbreaker: DISABLED (%s): no decision was made; the loop may continue\n", Clean(why))
	}
	return err
}

// DisabledMarkdown is the report of a run the breaker is off for.
func DisabledMarkdown(why string) string {
	return fmt.Sprintf("## loopbreaker: disabled\n\nNo decision was made: %s.\n", Markdown(why))
}

// Verdict is what the decision tells the loop, as the text and markdown
// reports head it: "OPEN: stop the loop", "OPEN: the loop is paused until
// a person resumes it", "done: stop the loop", "CLOSED: continue" and so on.
func Verdict(d *breaker.Decision) string {
	switch {
	case d.Complete:
		return doneVerdict
	case d.State == breaker.Open && d.DryRun:
		return "OPEN (dry run: would stop the loop)"
	case d.State == breaker.Open && d.OpenAction == policy.OnOpenPause:
		return "OPEN: the loop is paused until a person resumes it"
	case d.State == breaker.Open && d.OpenAction == policy.OnOpenAlert:
		return "OPEN: alert, the loop goes on"
	case d.State == breaker.Open && d.OpenAction == policy.OnOpenEscalate:
		return "OPEN: escalated, the loop goes on with the next model"
	case d.State == breaker.Open:
		return "OPEN: stop the loop"
	case d.State == breaker.HalfOpen:
		return "HALF_OPEN: continue, watched"
	}
	return "CLOSED: continue"
}

func ts(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.UTC().Format(time.RFC3339)
}

func short(h string) string {
	if h == "" {
		return "-"
	}
	return textcut.Hash(h)
}

// textIndent lines up continuation lines under a label's value.
const textIndent = "              "

// Text is one screen for a person: the state, why, the counters, the
// chart of the last iterations and the three next steps.
func Text(d *breaker.Decision, o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "loopbreaker: %s\n", Verdict(d))
	if e := Evidence(d); e != "" {
		fmt.Fprintf(&b, "  complete:   %s\n", e)
	}
	if d.Reason != nil {
		fmt.Fprintf(&b, "  reason:     %s [%s]\n", Clean(*d.Reason), trigger(d))
	}
	phase := ""
	if d.Phase != "" {
		phase = " · phase " + Clean(d.Phase)
	}
	fmt.Fprintf(&b, "  iteration:  %d · commit %s · policy %s%s\n", d.Iteration, short(d.Commit), Clean(d.Policy), phase)
	fmt.Fprintf(&b, "  counters:   no progress %d · score %+d (window %s) · ignored while open %d\n",
		d.ConsecutiveNoProgress, d.ProgressScore, windowScore(d), d.IgnoredOpen)
	if s := Spent(d); s != "" {
		fmt.Fprintf(&b, "  spent:      %s\n", s)
	}
	fmt.Fprintf(&b, "  progress:   last %s", ts(d.LastProgress))
	if c := Sparkline(d.Recent, d.State); c != "" {
		fmt.Fprintf(&b, " · scores %s (%s)", c, ScoreList(d.Recent, " "))
	}
	b.WriteByte('\n')
	if d.OpenedAt != nil {
		fmt.Fprintf(&b, "  opened:     %s", ts(d.OpenedAt))
		if d.CooldownUntil != nil {
			fmt.Fprintf(&b, " · probe allowed from %s", ts(d.CooldownUntil))
		} else {
			b.WriteString(" · stays open until a reset")
		}
		b.WriteByte('\n')
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "  warning:    %s\n", Warning(w))
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "  note:       %s\n", Clean(n.Text))
	}
	if d.NextModel != nil {
		fmt.Fprintf(&b, "  escalate:   next model %s\n", Clean(*d.NextModel))
	}
	if g := d.Guidance; g != nil {
		fmt.Fprintf(&b, "  guidance:   from %s: %s\n", Clean(g.By), Clean(g.Text))
	}
	next, _ := NextSteps(d)
	label := "  next:       "
	for i, s := range next {
		fmt.Fprintf(&b, "%s%d. %s\n", label, i+1, s)
		label = textIndent
	}
	if d.State == breaker.Open && o.ResetHint != "" {
		fmt.Fprintf(&b, "%swhen the loop may go on: %s\n", label, o.ResetHint)
	}
	return b.String()
}

// Spent is what the agent reported spending, for a person: "$7.50 since
// the last reset · $5.00 since the last progress · 612,000 tokens (408,000
// since the last progress)"; "" when no iteration since the last reset
// reported a cost.
func Spent(d *breaker.Decision) string {
	var parts []string
	if d.SpentUSD != nil && d.SpentSinceProgressUSD != nil {
		parts = append(parts, breaker.Dollars(*d.SpentUSD)+" since the last reset", breaker.Dollars(*d.SpentSinceProgressUSD)+" since the last progress")
	}
	if d.SpentTokens != nil && d.SpentSinceProgressTokens != nil {
		all, since := breaker.Tokens(*d.SpentTokens)+" tokens", breaker.Tokens(*d.SpentSinceProgressTokens)+" since the last progress"
		if len(parts) > 0 {
			parts = append(parts, all+" ("+since+")")
		} else {
			parts = append(parts, all+" since the last reset", since)
		}
	}
	return strings.Join(parts, " · ")
}

// Cost is one iteration's cost: "$2.50 (204,000 tokens)", "$2.50",
// "204,000 tokens"; "" when it reported none.
func Cost(c *breaker.Cost) string {
	switch {
	case c == nil:
		return ""
	case c.USD != nil && c.Tokens != nil:
		return breaker.Dollars(*c.USD) + " (" + breaker.Tokens(*c.Tokens) + " tokens)"
	case c.USD != nil:
		return breaker.Dollars(*c.USD)
	case c.Tokens != nil:
		return breaker.Tokens(*c.Tokens) + " tokens"
	}
	return ""
}

func windowScore(d *breaker.Decision) string {
	if d.WindowScore == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+d", *d.WindowScore)
}

// icon is the sign of a decision in markdown headings.
func icon(d *breaker.Decision) string {
	if d.Complete {
		return "✅"
	}
	return map[breaker.State]string{breaker.Closed: "🟢", breaker.HalfOpen: "🟡", breaker.Open: "🔴"}[d.State]
}

// MarkdownReport is the report of a decision for a job summary, a check
// run or a PR comment. It leads with what a person needs first: the
// decision, the reason, the three next steps (and what resets the
// breaker), the next model when escalating, the failing tests and the
// chart; then the counters, the warnings and the notes; then the
// per-iteration status log, the newest iteration first.
func MarkdownReport(d *breaker.Decision, o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s loopbreaker: %s\n\n", icon(d), Verdict(d))
	if e := Evidence(d); e != "" {
		fmt.Fprintf(&b, "**Done:** %s.\n\n", e)
	}
	if d.Reason != nil {
		fmt.Fprintf(&b, "**Why:** %s (rule `%s`)\n\n", Markdown(*d.Reason), trigger(d))
	}
	if next, more := NextSteps(d); len(next) > 0 {
		b.WriteString("**Next steps**\n\n")
		for i, s := range next {
			fmt.Fprintf(&b, "%d. %s\n", i+1, s)
		}
		b.WriteString("\n")
		if len(more) > 0 {
			fmt.Fprintf(&b, "Also: %s.\n\n", strings.Join(more, "; "))
		}
	}
	if d.State == breaker.Open && o.ResetHint != "" {
		fmt.Fprintf(&b, "When the loop may go on: %s\n\n", o.ResetHint)
	}
	if d.NextModel != nil {
		fmt.Fprintf(&b, "**Escalate:** switch the loop to the next model, %s.\n\n", Code(*d.NextModel))
	}
	if g := d.Guidance; g != nil {
		fmt.Fprintf(&b, "**Guidance from %s** (in the agent's next prompt): %s\n\n", Markdown(g.By), Markdown(g.Text))
	}
	if names, total := Failing(d); total > 0 {
		fmt.Fprintf(&b, "**Failing tests (%d):** %s\n\n", total, failingList(names, total))
	}
	if c := Sparkline(d.Recent, d.State); c != "" {
		fmt.Fprintf(&b, "**Progress score, last %d iterations:** `%s` (%s)\n\nReading the chart: %s.\n\n", len(d.Recent), c, ScoreList(d.Recent, ", "), Legend(d.Recent))
	}
	if s := Spent(d); s != "" {
		fmt.Fprintf(&b, "**Spent:** %s.\n\n", Markdown(s))
	}
	fmt.Fprintf(&b, "Iteration %d · policy %s · no progress for %d · score %+d (window %s) · last progress %s · ignored while open %d\n\n",
		d.Iteration, Code(d.Policy), d.ConsecutiveNoProgress, d.ProgressScore, windowScore(d), ts(d.LastProgress), d.IgnoredOpen)
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "> [!WARNING]\n> %s\n\n", Markdown(Warning(w)))
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "> [!NOTE]\n> %s\n\n", Markdown(n.Text))
	}
	if len(d.Recent) > 0 {
		if o.FoldLog {
			b.WriteString(StatusLogDetails + "\n\n")
		} else {
			b.WriteString("### Status log\n\n")
		}
		for i := len(d.Recent) - 1; i >= 0; i-- {
			writeStep(&b, &d.Recent[i])
		}
		if o.FoldLog {
			b.WriteString("</details>\n")
		}
	}
	return b.String()
}

// failingList is the failing tests' names as inline code, "and N more"
// when total is larger; "not named by the report" when there are none.
func failingList(names []string, total int) string {
	if len(names) == 0 {
		return "not named by the report"
	}
	s := codes(names, ", ")
	if more := total - len(names); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// codes is each text as inline code, joined by sep.
func codes(texts []string, sep string) string {
	q := make([]string, len(texts))
	for i, t := range texts {
		q[i] = Code(t)
	}
	return strings.Join(q, sep)
}

func writeStep(b *strings.Builder, s *breaker.Step) {
	fmt.Fprintf(b, "#### Iteration %d — %s\n", s.Iteration, s.At.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "- Circuit state: %s\n", s.State)
	if c := Cost(s.Cost); c != "" {
		fmt.Fprintf(b, "- Spent: %s\n", Markdown(c))
	}
	if s.IgnoredOpen {
		b.WriteString("- Ran while the breaker was OPEN (ignored)\n\n")
		return
	}
	if s.Commit != "" {
		fmt.Fprintf(b, "- Commit: `%s`\n", short(s.Commit))
	}
	if s.Phase != "" {
		fmt.Fprintf(b, "- Phase: %s\n", Markdown(s.Phase))
	}
	fmt.Fprintf(b, "- Tasks completed: %d\n", s.TasksCompleted)
	files := "none"
	if len(s.Files) > 0 {
		files = codes(s.Files, ", ")
	}
	fmt.Fprintf(b, "- Files modified: %d (%s)\n", s.FilesChanged, files)
	if t := s.Tests; t != nil {
		build := ""
		if t.BuildFailed {
			build = ", build failed"
		}
		fmt.Fprintf(b, "- Tests: %d passed, %d failed, %d skipped%s\n", t.Passed, t.Failed, t.Skipped, build)
		if len(t.Failing) > 0 {
			fmt.Fprintf(b, "- Failing tests: %s\n", failingList(t.Failing[:min(len(t.Failing), maxFailing)], max(t.Failed, len(t.Failing))))
		}
	} else {
		b.WriteString("- Tests: no report\n")
	}
	errs := "none"
	if len(s.Errors) > 0 {
		errs = codes(s.Errors, "; ")
	}
	fmt.Fprintf(b, "- Errors encountered: %s\n", errs)
	prog := "no"
	if s.Progress {
		prog = "yes (" + strings.Join(s.Signals, ", ") + ")"
	}
	fmt.Fprintf(b, "- Progress: %s\n", prog)
	fmt.Fprintf(b, "- Progress score: %+d\n", s.Score)
	fmt.Fprintf(b, "- Stagnation risk: %s\n\n", s.Risk)
}
