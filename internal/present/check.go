package present

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

const (
	// maxSummaryRows bounds the iteration table of a check's job summary.
	maxSummaryRows = 50
	// maxCheckSummary is GitHub's limit on a check run's summary, in
	// characters.
	maxCheckSummary = 65535
	// maxStatus and maxCheckTitle bound a commit status's description and
	// a check run's title, in characters.
	maxStatus     = 140
	maxCheckTitle = 1000
)

// SummaryOptions are what a check's job summary shows beside its result.
type SummaryOptions struct {
	// Notes are facts about the evidence, each with its code.
	Notes []note.Note
	// API is set when the run talked to GitHub: Calls is then the number
	// of API calls it made and Planned the writes a dry run skipped.
	API     bool
	Calls   int
	Planned []string
}

// Summary is a check's job summary: the final decision's report, charts of
// the last 50 iterations with their table for screen readers, the API calls
// and, in a dry run, the writes not made.
func Summary(ds []breaker.Decision, o SummaryOptions) string {
	d := &ds[len(ds)-1]
	var b strings.Builder
	b.WriteString(render.MarkdownReport(d, render.Options{Notes: o.Notes, ResetHint: "comment `/loopbreaker reset` or remove the `" + LabelOpen + "` label"}))
	b.WriteString("\n### Iterations\n\n")
	start := max(0, len(ds)-maxSummaryRows)
	b.WriteString(render.MermaidCharts(render.Steps(ds[start:])))
	costs := false
	for i := range ds[start:] {
		costs = costs || render.StepOf(&ds[start+i]).Cost != nil
	}
	// The spent column only when an iteration reported a cost.
	head, rule, gap := "", "", ""
	if costs {
		head, rule, gap = " spent |", "---:|", " |"
	}
	fmt.Fprintf(&b, "\n| # | commit | state | score | tests passing | no progress |%s why |\n|---|---|---|---|---|---|%s---|\n", head, rule)
	if earlier := start; earlier > 0 {
		fmt.Fprintf(&b, "| … | | | | | |%s %d earlier iterations |\n", gap, earlier)
	}
	for i := range ds[start:] {
		x := &ds[start+i]
		st := render.StepOf(x)
		var why []string
		if st.IgnoredOpen {
			why = append(why, "ran while OPEN (not scored)")
		}
		if x.Progress {
			why = append(why, "progress")
		}
		if x.Reason != nil {
			why = append(why, render.Markdown(*x.Reason))
		}
		commit := "-"
		if len(x.Commit) >= 7 {
			commit = "`" + x.Commit[:7] + "`"
		}
		passing := "-"
		if st.Tests != nil {
			passing = strconv.Itoa(st.Tests.Passed)
		}
		cost := ""
		if costs {
			cost = " " + cmp.Or(render.Markdown(render.Cost(st.Cost)), "-") + " |"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %+d | %s | %d |%s %s |\n", x.Iteration, commit, x.State, x.ProgressScore, passing, x.ConsecutiveNoProgress, cost, strings.Join(why, " · "))
	}
	if o.API {
		fmt.Fprintf(&b, "\nGitHub API calls in this run: %d.\n", o.Calls)
		if len(o.Planned) > 0 {
			b.WriteString("\n### Dry run: writes that were not made\n\n")
			for _, w := range o.Planned {
				fmt.Fprintf(&b, "- %s\n", render.Markdown(w))
			}
		}
	}
	return b.String()
}

// DisabledSummary is the job summary of a run that made no decision
// because the breaker is turned off; why says how.
func DisabledSummary(why string) string { return render.DisabledMarkdown(why) }

// Status is the commit status for a decision: failure when OPEN (success
// in a dry run) and a description of at most 140 characters naming the
// state, the iteration and the reason.
func Status(d *breaker.Decision, dryRun bool) (state, description string) {
	state, description = verdict(d, dryRun)
	return state, textcut.Runes(description, maxStatus, textcut.Ellipsis)
}

// CheckRun is the check run for a decision: its conclusion, its title (as
// the status's description, up to 1,000 characters) and its summary (the
// decision's report, within GitHub's 65,535 characters).
func CheckRun(d *breaker.Decision, dryRun bool) (conclusion, title, summary string) {
	conclusion, title = verdict(d, dryRun)
	return conclusion, textcut.Runes(title, maxCheckTitle, textcut.Ellipsis), textcut.Runes(render.MarkdownReport(d, render.Options{}), maxCheckSummary,
		"\n\n… (truncated to fit GitHub's limit of 65535 characters)\n")
}

// verdict is success or failure, and the state, the iteration and the
// reason in a line.
func verdict(d *breaker.Decision, dryRun bool) (state, line string) {
	if d.Complete {
		return "success", fmt.Sprintf("done after iteration %d: %s", d.Iteration, render.Evidence(d))
	}
	state, line = "success", fmt.Sprintf("%s after iteration %d", d.State, d.Iteration)
	if d.State == breaker.Open && !dryRun {
		state = "failure"
	}
	if d.Reason != nil {
		line += ": " + render.Clean(*d.Reason)
	}
	return state, line
}
