package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

// The sparkline draws each score on a fixed scale, the same for every
// loop, so that two charts compare.
const (
	zeroGlyph    = '─'
	ignoredGlyph = '×'
	trendGlyph   = '!'
)

// ChartLegend explains the sparkline's signs, for a caption.
const ChartLegend = "on a fixed scale ─ is 0, taller bars are positive and shorter ones negative; ◐ HALF_OPEN, ● OPEN and ○ CLOSED mark where a state began; × ran while OPEN (not scored)"

// trendLegend explains the trend mark, for a chart that has one.
const trendLegend = "; ! marks a trend warning (passing tests falling, or distinct errors rising, iterations in a row)"

// Legend is ChartLegend, with the trend mark explained when one of the
// steps has it.
func Legend(steps []breaker.Step) string {
	if slices.ContainsFunc(steps, func(s breaker.Step) bool { return s.Trend }) {
		return ChartLegend + trendLegend
	}
	return ChartLegend
}

// stateMark is the sign drawn where the breaker entered a state.
func stateMark(s breaker.State) rune {
	switch s {
	case breaker.Open:
		return '●'
	case breaker.HalfOpen:
		return '◐'
	}
	return '○'
}

// bar is the character of one score: ─ for zero, taller bars for positive
// scores and shorter ones for negative.
func bar(score int) rune {
	switch {
	case score == 0:
		return zeroGlyph
	case score <= -4:
		return '▁'
	case score <= -2:
		return '▂'
	case score < 0:
		return '▃'
	case score <= 1:
		return '▅'
	case score <= 3:
		return '▆'
	case score <= 6:
		return '▇'
	}
	return '█'
}

// Sparkline draws the steps, oldest first: one character per iteration (×
// when it ran while OPEN, then ! when it gave a trend warning), a mark
// before each iteration whose state differs from the one before it (from
// CLOSED), and a closing mark when final, the state now, differs from the
// newest step's (a reset or a cooldown after the last iteration).
func Sparkline(steps []breaker.Step, final breaker.State) string {
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	prev := breaker.Closed
	for i := range steps {
		s := &steps[i]
		if s.State != prev {
			b.WriteRune(stateMark(s.State))
			prev = s.State
		}
		if s.IgnoredOpen {
			b.WriteRune(ignoredGlyph)
		} else {
			b.WriteRune(bar(s.Score))
		}
		if s.Trend {
			b.WriteRune(trendGlyph)
		}
	}
	if final != prev {
		b.WriteRune(stateMark(final))
	}
	return b.String()
}

// ScoreList is the steps' scores as text, "+1 -3 ×" (with sep between
// them), × for an iteration that ran while OPEN.
func ScoreList(steps []breaker.Step, sep string) string {
	parts := make([]string, len(steps))
	for i := range steps {
		if steps[i].IgnoredOpen {
			parts[i] = string(ignoredGlyph)
		} else {
			parts[i] = fmt.Sprintf("%+d", steps[i].Score)
		}
	}
	return strings.Join(parts, sep)
}

// StepOf is the decision's own status-log step: the newest step of its
// status log when that is its iteration's, else a step made from its
// fields (its status log was trimmed).
func StepOf(d *breaker.Decision) breaker.Step {
	if n := len(d.Recent); n > 0 && d.Recent[n-1].Iteration == d.Iteration {
		return d.Recent[n-1]
	}
	st := breaker.Step{Iteration: d.Iteration, Commit: d.Commit, State: d.State, Progress: d.Progress, Score: d.ProgressScore}
	if d.At != nil {
		st.At = *d.At
	}
	return st
}

// Steps is one step per iteration of a fold's decisions, oldest first
// (StepOf each; a decision without an iteration, or a status after the
// same iteration, adds none).
func Steps(ds []breaker.Decision) []breaker.Step {
	out := make([]breaker.Step, 0, len(ds))
	for i := range ds {
		if ds[i].Iteration == 0 || (len(out) > 0 && out[len(out)-1].Iteration == ds[i].Iteration) {
			continue
		}
		out = append(out, StepOf(&ds[i]))
	}
	return out
}

// Mermaid axis bounds: the score chart always shows at least this range,
// so that charts of different loops compare, and zero is always on it.
const (
	mermaidLow  = -6
	mermaidHigh = 9
)

// MermaidCharts are GitHub-rendered charts (Mermaid xychart-beta) of the
// steps: the progress score per iteration on a fixed scale with the zero
// line drawn, and the tests passing per iteration for the iterations that
// had a test report. Only numbers and fixed words go into them. It is ""
// for no step.
func MermaidCharts(steps []breaker.Step) string {
	if len(steps) == 0 {
		return ""
	}
	var b strings.Builder
	var its, scores, zero []string
	lo, hi := mermaidLow, mermaidHigh
	for i := range steps {
		s := &steps[i]
		its = append(its, fmt.Sprint(s.Iteration))
		scores = append(scores, fmt.Sprint(s.Score))
		zero = append(zero, "0")
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	b.WriteString("```mermaid\nxychart-beta\n")
	b.WriteString("    title \"Progress score per iteration (0 is the flat line)\"\n")
	fmt.Fprintf(&b, "    x-axis \"iteration\" [%s]\n", strings.Join(its, ", "))
	fmt.Fprintf(&b, "    y-axis \"score\" %d --> %d\n", lo, hi)
	fmt.Fprintf(&b, "    line [%s]\n", strings.Join(zero, ", "))
	fmt.Fprintf(&b, "    line [%s]\n", strings.Join(scores, ", "))
	b.WriteString("```\n")

	var tits, passing []string
	top := 0
	for i := range steps {
		if t := steps[i].Tests; t != nil {
			tits = append(tits, fmt.Sprint(steps[i].Iteration))
			passing = append(passing, fmt.Sprint(t.Passed))
			top = max(top, t.Passed)
		}
	}
	if len(tits) > 0 {
		b.WriteString("\n```mermaid\nxychart-beta\n")
		b.WriteString("    title \"Tests passing per iteration (iterations with a test report)\"\n")
		fmt.Fprintf(&b, "    x-axis \"iteration\" [%s]\n", strings.Join(tits, ", "))
		fmt.Fprintf(&b, "    y-axis \"tests passing\" 0 --> %d\n", max(1, top+top/10))
		fmt.Fprintf(&b, "    bar [%s]\n", strings.Join(passing, ", "))
		b.WriteString("```\n")
	}
	return b.String()
}
