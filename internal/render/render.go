package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

// Formats lists the output formats.
var Formats = []string{"text", "json", "markdown"}

// CheckFormat rejects an unknown format name.
func CheckFormat(f string) error {
	for _, x := range Formats {
		if f == x {
			return nil
		}
	}
	return fmt.Errorf("unknown format %q: want text, json or markdown", f)
}

// Options tell the renderers how the user reached the decision.
type Options struct {
	// ResetHint is the command or action that resets this breaker.
	ResetHint string
	// Notes are facts about the evidence to show (e.g. shallow history).
	Notes []string
}

// Write renders d in the named format.
func Write(w io.Writer, format string, d *breaker.Decision, o Options) error {
	switch format {
	case "json":
		return JSON(w, d)
	case "markdown":
		_, err := io.WriteString(w, MarkdownReport(d, o))
		return err
	case "text", "":
		_, err := io.WriteString(w, Text(d, o))
		return err
	}
	return CheckFormat(format)
}

// JSON writes the decision object on one line.
func JSON(w io.Writer, d *breaker.Decision) error {
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode decision: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func verdict(d *breaker.Decision) string {
	switch {
	case d.State == breaker.Open && d.DryRun:
		return "OPEN (dry run: would stop the loop)"
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
	if len(h) > 12 {
		return h[:12]
	}
	if h == "" {
		return "-"
	}
	return h
}

// Text is one screen for a person: the state, why, the counters and what
// to do next.
func Text(d *breaker.Decision, o Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "loopbreaker: %s\n", verdict(d))
	if d.Reason != nil {
		fmt.Fprintf(&b, "  reason:     %s [%s]\n", Clean(*d.Reason), *d.Trigger)
	}
	phase := ""
	if d.Phase != "" {
		phase = " · phase " + Clean(d.Phase)
	}
	fmt.Fprintf(&b, "  iteration:  %d · commit %s · policy %s%s\n", d.Iteration, short(d.Commit), d.Policy, phase)
	ws := "n/a"
	if d.WindowScore != nil {
		ws = fmt.Sprintf("%+d", *d.WindowScore)
	}
	fmt.Fprintf(&b, "  counters:   no progress %d · score %+d (window %s) · ignored while open %d\n",
		d.ConsecutiveNoProgress, d.ProgressScore, ws, d.IgnoredOpen)
	fmt.Fprintf(&b, "  progress:   last %s%s\n", ts(d.LastProgress), sparkText(d))
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
		fmt.Fprintf(&b, "  warning:    %s\n", Clean(w))
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "  note:       %s\n", Clean(n))
	}
	if d.NextModel != nil {
		fmt.Fprintf(&b, "  escalate:   next model %s\n", Clean(*d.NextModel))
	}
	if d.State != breaker.Closed {
		b.WriteString("  next:\n")
		trig := ""
		if d.Trigger != nil {
			trig = *d.Trigger
		}
		for _, s := range Strategies(trig) {
			fmt.Fprintf(&b, "    - %s\n", s)
		}
		if d.State == breaker.Open && o.ResetHint != "" {
			fmt.Fprintf(&b, "    - when the loop may go on: %s\n", o.ResetHint)
		}
	}
	return b.String()
}

func sparkText(d *breaker.Decision) string {
	if len(d.Recent) < 2 {
		return ""
	}
	return " · scores " + Sparkline(scores(d))
}

func scores(d *breaker.Decision) []int {
	var out []int
	for _, s := range d.Recent {
		if !s.IgnoredOpen {
			out = append(out, s.Score)
		}
	}
	return out
}

// Sparkline draws values as block characters, lowest to highest.
func Sparkline(vals []int) string {
	if len(vals) == 0 {
		return ""
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if hi > lo {
			i = (v - lo) * (len(bars) - 1) / (hi - lo)
		}
		b.WriteRune(bars[i])
	}
	return b.String()
}

// MarkdownReport is seed 003's per-iteration status log plus the trip
// reason and the recovery strategies, for a job summary or a PR comment.
func MarkdownReport(d *breaker.Decision, o Options) string {
	var b strings.Builder
	icon := map[breaker.State]string{breaker.Closed: "🟢", breaker.HalfOpen: "🟡", breaker.Open: "🔴"}[d.State]
	fmt.Fprintf(&b, "## %s loopbreaker: %s\n\n", icon, verdict(d))
	if d.Reason != nil {
		fmt.Fprintf(&b, "**Why:** %s (rule `%s`)\n\n", Markdown(*d.Reason), *d.Trigger)
	}
	ws := "n/a"
	if d.WindowScore != nil {
		ws = fmt.Sprintf("%+d", *d.WindowScore)
	}
	fmt.Fprintf(&b, "Iteration %d · policy `%s` · no progress for %d · score %+d (window %s) · last progress %s · ignored while open %d\n\n",
		d.Iteration, d.Policy, d.ConsecutiveNoProgress, d.ProgressScore, ws, ts(d.LastProgress), d.IgnoredOpen)
	if sc := scores(d); len(sc) > 1 {
		fmt.Fprintf(&b, "Progress score by iteration: `%s` (%s)\n\n", Sparkline(sc), joinInts(sc))
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(&b, "> [!WARNING]\n> %s\n\n", Markdown(w))
	}
	for _, n := range o.Notes {
		fmt.Fprintf(&b, "> [!NOTE]\n> %s\n\n", Markdown(n))
	}
	if d.State != breaker.Closed {
		trig := ""
		if d.Trigger != nil {
			trig = *d.Trigger
		}
		if st := Strategies(trig); len(st) > 0 {
			b.WriteString("### What to do next\n\n")
			for i, s := range st {
				fmt.Fprintf(&b, "%d. %s\n", i+1, s)
			}
			if d.State == breaker.Open && o.ResetHint != "" {
				fmt.Fprintf(&b, "%d. When the loop may go on: %s\n", len(st)+1, o.ResetHint)
			}
			b.WriteString("\n")
		}
	}
	if len(d.Recent) > 0 {
		b.WriteString("### Status log\n\n")
		for i := len(d.Recent) - 1; i >= 0; i-- {
			writeStep(&b, &d.Recent[i])
		}
	}
	return b.String()
}

func writeStep(b *strings.Builder, s *breaker.Step) {
	fmt.Fprintf(b, "#### Iteration %d — %s\n", s.Iteration, s.At.UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "- Circuit state: %s\n", s.State)
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
		q := make([]string, len(s.Files))
		for i, f := range s.Files {
			q[i] = Code(f)
		}
		files = strings.Join(q, ", ")
	}
	fmt.Fprintf(b, "- Files modified: %d (%s)\n", s.FilesChanged, files)
	if t := s.Tests; t != nil {
		build := ""
		if t.BuildFailed {
			build = ", build failed"
		}
		fmt.Fprintf(b, "- Tests: %d passed, %d failed, %d skipped%s\n", t.Passed, t.Failed, t.Skipped, build)
	} else {
		b.WriteString("- Tests: no report\n")
	}
	if len(s.Errors) > 0 {
		q := make([]string, len(s.Errors))
		for i, e := range s.Errors {
			q[i] = Code(e)
		}
		fmt.Fprintf(b, "- Errors encountered: %s\n", strings.Join(q, "; "))
	} else {
		b.WriteString("- Errors encountered: none\n")
	}
	prog := "no"
	if s.Progress {
		prog = "yes (" + strings.Join(s.Signals, ", ") + ")"
	}
	fmt.Fprintf(b, "- Progress: %s\n", prog)
	fmt.Fprintf(b, "- Progress score: %+d\n", s.Score)
	fmt.Fprintf(b, "- Stagnation risk: %s\n\n", s.Risk)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%+d", x)
	}
	return strings.Join(s, ", ")
}
