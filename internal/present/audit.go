package present

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// maxListed bounds the pull request numbers listed inline in a report.
const maxListed = 50

// AuditResult is what one audit run found and did; its JSON form is the
// Action's report output and the command's --format json.
type AuditResult struct {
	// Repository is "owner/name"; Shard "2 of 4", or "" for all.
	Repository string    `json:"repository"`
	Shard      string    `json:"shard,omitempty"`
	At         time.Time `json:"at"`
	DryRun     bool      `json:"dry_run"`
	// Pulls are the evaluated pull requests, least recently progressed
	// first (never progressed first of all).
	Pulls []PullResult `json:"pulls"`
	// Skipped are pull requests of the shard that the filters left out or
	// that could not be evaluated, with the reason.
	Skipped []Skipped `json:"skipped"`
	// NotReached are selected pull requests the run stopped before.
	NotReached []int `json:"not_reached"`
	// UnreadPages counts the pages of open pull requests (of up to PerPage
	// each) never listed because the run stopped; UnreadPagesKnown is
	// false when GitHub did not say how many there are (then at least one).
	UnreadPages      int  `json:"unread_pages"`
	UnreadPagesKnown bool `json:"unread_pages_known"`
	// Operations is the API call budget and its use.
	Operations Operations `json:"operations"`
	// StoppedEarly is true when the run ended before every pull request
	// was evaluated; StopReason says why.
	StoppedEarly bool   `json:"stopped_early"`
	StopReason   string `json:"stop_reason,omitempty"`
	// Notes are run-wide notes (fetch problems, refused writes).
	Notes []string `json:"notes"`
	// Planned are the writes a dry run did not make.
	Planned []string `json:"planned,omitempty"`
	// OtherShards counts open pull requests left to the other shards.
	OtherShards int `json:"other_shards,omitempty"`
	// Marks and Ledgers are the cursor the next run starts from (kept in
	// the audit state, not reported): each pull request's Mark, and the
	// records of each record artifact read, by artifact id.
	Marks   map[int]Mark              `json:"-"`
	Ledgers map[int64][]ledger.Record `json:"-"`
}

// Mark is what a pull request looked like when an audit last read it:
// its head and GitHub's updated_at, after the audit's own writes. The next
// run reads it again only when its listing shows it otherwise.
type Mark struct {
	Head    string    `json:"head"`
	Updated time.Time `json:"updated_at"`
}

// Operations is the API call budget of a run.
type Operations struct {
	// Used counts the calls charged against the rate limit; NotModified
	// the conditional calls answered 304 Not Modified, which are not.
	Budget      int `json:"budget"`
	Used        int `json:"used"`
	Remaining   int `json:"remaining"`
	NotModified int `json:"not_modified"`
	// RateRemaining and RateLimit are GitHub's X-RateLimit-Remaining and
	// X-RateLimit-Limit after the run (nil when no answer carried them);
	// RateFloor is the remaining count the run would not go below.
	RateRemaining *int `json:"rate_remaining"`
	RateLimit     *int `json:"rate_limit"`
	RateFloor     *int `json:"rate_floor"`
}

// PullResult is one evaluated pull request.
type PullResult struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	Author string `json:"author"`
	Fork   bool   `json:"fork,omitempty"`
	Draft  bool   `json:"draft,omitempty"`
	// State is CLOSED, HALF_OPEN or OPEN; Trigger and Reason say why it is
	// not CLOSED.
	State   breaker.State `json:"state"`
	Trigger string        `json:"trigger,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	// Iterations is the number of the last iteration folded.
	Iterations int `json:"iterations"`
	// LastProgress is the last iteration with progress (nil: none).
	LastProgress *time.Time `json:"last_progress"`
	// WastedUSD and WastedTokens are what the agent reported spending
	// since the last progress (absent when unknown).
	WastedUSD    *float64 `json:"wasted_usd,omitempty"`
	WastedTokens *int64   `json:"wasted_tokens,omitempty"`
	// Scores are the progress scores of the last iterations, oldest first.
	Scores []int `json:"scores"`
	// Evidence is where the commits came from: "git", "api" or "api+files".
	Evidence string `json:"evidence"`
	// Ledger is where earlier runs' records came from ("" when none).
	Ledger string `json:"ledger,omitempty"`
	// Recovered is true when the pull request carried a loopbreaker label
	// and is CLOSED now.
	Recovered bool `json:"recovered,omitempty"`
	// LabelsAdded and LabelsRemoved are the label changes made (planned,
	// in a dry run); Commented reports a sticky comment written.
	LabelsAdded   []string `json:"labels_added,omitempty"`
	LabelsRemoved []string `json:"labels_removed,omitempty"`
	Commented     bool     `json:"commented,omitempty"`
	// Calls is the number of API calls this pull request took.
	Calls int `json:"calls"`
	// Notes say what was not visible, assumed or not done.
	Notes []string `json:"notes,omitempty"`
	// Decision is the breaker's final decision.
	Decision *breaker.Decision `json:"-"`
}

// Skipped is a pull request that was not evaluated.
type Skipped struct {
	Number int    `json:"number"`
	Reason string `json:"reason"`
}

// Numbers returns the pull requests in the given state.
func (r *AuditResult) Numbers(state breaker.State) []int {
	return r.numbers(func(p *PullResult) bool { return p.State == state })
}

func (r *AuditResult) numbers(keep func(*PullResult) bool) []int {
	out := []int{}
	for i := range r.Pulls {
		if keep(&r.Pulls[i]) {
			out = append(out, r.Pulls[i].Number)
		}
	}
	return out
}

// Tripped returns the OPEN pull requests.
func (r *AuditResult) Tripped() []int { return r.Numbers(breaker.Open) }

// Aborted returns the OPEN pull requests whose loop is stopped: on_open
// "abort" (a paused loop waits for a person, an alert or an escalation
// lets it go on), not a dry run. Only these fail a run that fails on OPEN.
func (r *AuditResult) Aborted() []int {
	return r.numbers(func(p *PullResult) bool { return p.Decision != nil && p.Decision.ExitCode() == breaker.ExitOpen })
}

// HalfOpen returns the HALF_OPEN pull requests.
func (r *AuditResult) HalfOpen() []int { return r.Numbers(breaker.HalfOpen) }

// Recovered returns the pull requests whose labels were cleared because
// progress resumed.
func (r *AuditResult) Recovered() []int {
	return r.numbers(func(p *PullResult) bool { return p.Recovered })
}

// SkippedNumbers returns the skipped pull requests.
func (r *AuditResult) SkippedNumbers() []int {
	out := make([]int, len(r.Skipped))
	for i, s := range r.Skipped {
		out[i] = s.Number
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

// AuditHeadline is one line: what the audit looked at and what it found.
func AuditHeadline(r *AuditResult) string {
	where := r.Repository
	if r.Shard != "" {
		where += " (shard " + r.Shard + ")"
	}
	return fmt.Sprintf("%s: %d pull requests evaluated: %d OPEN, %d HALF_OPEN, %d recovered; %d skipped, %d not reached",
		where, len(r.Pulls), len(r.Tripped()), len(r.HalfOpen()), len(r.Recovered()), len(r.Skipped), len(r.NotReached))
}

// AuditBudget says how the audit used its call budget and the rate limit.
func AuditBudget(r *AuditResult) string {
	o := r.Operations
	s := fmt.Sprintf("API calls: %d used of the %d budgeted (operations-per-run), %d remaining", o.Used, o.Budget, o.Remaining)
	if o.RateRemaining != nil {
		s += fmt.Sprintf("; GitHub rate limit: %d of %d left (the run stops at %d)", *o.RateRemaining, *o.RateLimit, *o.RateFloor)
	}
	return s
}

// AuditStop describes an audit's early stop and what it left out ("" when
// the run was complete), as plain text.
func AuditStop(r *AuditResult) string {
	if !r.StoppedEarly {
		return ""
	}
	return "The audit stopped early: " + plain(r.StopReason) + ". " + leftOut(r)
}

// leftOut says what an early stop did not reach and what to do; it holds
// only numbers and this package's words, safe in markdown.
func leftOut(r *AuditResult) string {
	var b strings.Builder
	if n := len(r.NotReached); n > 0 {
		fmt.Fprintf(&b, "%d selected pull requests were not reached: %s. ", n, numberList(r.NotReached))
	}
	switch {
	case r.UnreadPages > 0 && r.UnreadPagesKnown:
		fmt.Fprintf(&b, "%d more pages of open pull requests were not listed. ", r.UnreadPages)
	case r.UnreadPages > 0:
		b.WriteString("Further pages of open pull requests were not listed. ")
	}
	b.WriteString("Raise operations-per-run, shard the audit (shard-index, shard-count) or run it more often; the next run starts again with the least recently updated pull requests.")
	return b.String()
}

// plain keeps text on one line without control characters.
func plain(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSuffix(strings.Join(strings.Fields(s), " "), ".")
}

// AuditSummary is an audit's job summary and markdown report.
func AuditSummary(r *AuditResult) string {
	var b strings.Builder
	title := "loopbreaker audit: " + render.Markdown(r.Repository)
	if r.Shard != "" {
		title += " (shard " + r.Shard + ")"
	}
	if r.DryRun {
		title += " (dry run)"
	}
	fmt.Fprintf(&b, "## %s\n\n", title)
	fmt.Fprintf(&b, "%d pull requests evaluated: **%d OPEN**, %d HALF_OPEN, %d recovered, %d CLOSED; %d skipped.\n\n",
		len(r.Pulls), len(r.Tripped()), len(r.HalfOpen()), len(r.Recovered()), len(r.Numbers(breaker.Closed))-len(r.Recovered()), len(r.Skipped))
	fmt.Fprintf(&b, "%s.\n\n", AuditBudget(r))
	if r.StoppedEarly {
		fmt.Fprintf(&b, "> [!WARNING]\n> The audit stopped early: %s. %s\n\n", render.Markdown(plain(r.StopReason)), leftOut(r))
	}
	if len(r.Pulls) > 0 {
		auditTable(&b, r)
	}
	if len(r.Skipped) > 0 {
		b.WriteString("<details><summary>Skipped pull requests</summary>\n\n")
		for _, g := range groupSkipped(r.Skipped) {
			fmt.Fprintf(&b, "- %s: %s\n", render.Markdown(g.reason), numberList(g.numbers))
		}
		b.WriteString("\n</details>\n\n")
	}
	if r.OtherShards > 0 {
		fmt.Fprintf(&b, "%d open pull requests belong to other shards.\n\n", r.OtherShards)
	}
	var notes []string
	for _, n := range r.Notes {
		notes = append(notes, render.Markdown(n))
	}
	for i := range r.Pulls {
		for _, n := range r.Pulls[i].Notes {
			notes = append(notes, fmt.Sprintf("#%d: %s", r.Pulls[i].Number, render.Markdown(n)))
		}
	}
	if len(notes) > 0 {
		b.WriteString("<details><summary>Notes on the evidence</summary>\n\n")
		for i, n := range notes {
			if i == 200 {
				fmt.Fprintf(&b, "- … %d more\n", len(notes)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", n)
		}
		b.WriteString("\n</details>\n\n")
	}
	if r.DryRun && len(r.Planned) > 0 {
		b.WriteString("### Dry run: writes that were not made\n\n")
		for _, w := range r.Planned {
			fmt.Fprintf(&b, "- %s\n", render.Markdown(w))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// auditTable is the summary's table of the evaluated pull requests.
func auditTable(b *strings.Builder, r *AuditResult) {
	wasted := anyWasted(r)
	b.WriteString("| PR | author | iterations | state | trigger | last progress | score |")
	if wasted {
		b.WriteString(" wasted |")
	}
	b.WriteString("\n|---|---|---|---|---|---|---|")
	if wasted {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i := range r.Pulls {
		p := &r.Pulls[i]
		state := p.State.String()
		switch {
		case p.Recovered:
			state += " (recovered)"
		case len(p.LabelsAdded) > 0 && p.State != breaker.Closed:
			state = "**" + state + "** (new)"
		}
		trig := "-"
		if p.Trigger != "" {
			trig = "`" + p.Trigger + "`"
		}
		spark := "-"
		if c := pullChart(p); c != "" {
			spark = "`" + c + "`"
		}
		fmt.Fprintf(b, "| #%d%s | %s | %d | %s | %s | %s | %s |", p.Number, titleCell(p.Title),
			render.Markdown(p.Author), p.Iterations, state, trig, lastProgress(p), spark)
		if wasted {
			fmt.Fprintf(b, " %s |", orDash(render.Markdown(Waste(p.WastedUSD, p.WastedTokens))))
		}
		b.WriteString("\n")
	}
	var steps []breaker.Step
	for i := range r.Pulls {
		if d := r.Pulls[i].Decision; d != nil {
			steps = append(steps, d.Recent...)
		}
	}
	fmt.Fprintf(b, "\nScore: the progress score of each of the last iterations; %s.", render.Legend(steps))
	if wasted {
		b.WriteString(" Wasted: what the agent reported spending since the last progress; the stuck pull requests that wasted most come first.")
	}
	b.WriteString("\n\n")
}

// AuditText is an audit's report for a terminal.
func AuditText(r *AuditResult) string {
	var b strings.Builder
	b.WriteString("loopbreaker audit: " + render.Clean(AuditHeadline(r)) + "\n")
	b.WriteString(AuditBudget(r) + "\n")
	if s := AuditStop(r); s != "" {
		b.WriteString("WARNING: " + s + "\n")
	}
	if len(r.Pulls) > 0 {
		b.WriteString("\n")
		wasted := anyWasted(r)
		column := func(s string) string { return "" }
		if wasted {
			column = func(s string) string { return fmt.Sprintf("%-18s ", s) }
		}
		fmt.Fprintf(&b, "%-7s %-24s %5s  %-10s %-16s %-11s %sscore\n", "PR", "author", "iter", "state", "trigger", "progress", column("wasted"))
		for i := range r.Pulls {
			p := &r.Pulls[i]
			state := p.State.String()
			if p.Recovered {
				state = "RECOVERED"
			}
			author := render.Clean(textcut.Runes(p.Author, 24, textcut.Ellipsis))
			fmt.Fprintf(&b, "%-7s %-24s %5d  %-10s %-16s %-11s %s%s\n", "#"+itoa(p.Number), author, p.Iterations,
				state, orDash(p.Trigger), lastProgress(p), column(orDash(Waste(p.WastedUSD, p.WastedTokens))), pullChart(p))
		}
	}
	for _, g := range groupSkipped(r.Skipped) {
		fmt.Fprintf(&b, "skipped (%s): %s\n", render.Clean(g.reason), numberList(g.numbers))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", render.Clean(n))
	}
	for _, w := range r.Planned {
		fmt.Fprintf(&b, "dry run, not done: %s\n", render.Clean(w))
	}
	return b.String()
}

// lastProgress is the day of a pull request's last progress, or "never".
func lastProgress(p *PullResult) string {
	if p.LastProgress == nil {
		return "never"
	}
	return p.LastProgress.UTC().Format(time.DateOnly)
}

// anyWasted reports whether a pull request's loop reported a cost.
func anyWasted(r *AuditResult) bool {
	return slices.ContainsFunc(r.Pulls, func(p PullResult) bool { return Waste(p.WastedUSD, p.WastedTokens) != "" })
}

// Waste is what a loop spent since its last progress: dollars, else
// tokens; "" when unknown.
func Waste(usd *float64, tokens *int64) string {
	switch {
	case usd != nil:
		return breaker.Dollars(*usd)
	case tokens != nil:
		return breaker.Tokens(*tokens) + " tokens"
	}
	return ""
}

// WasteRank ranks a loop by the money it wasted, for sorting: 2 and the
// dollars, 1 and the tokens when only tokens are known, 0 when nothing
// known was wasted.
func WasteRank(usd *float64, tokens *int64) (rank int, amount float64) {
	switch {
	case usd != nil && *usd > 0:
		return 2, *usd
	case tokens != nil && *tokens > 0:
		return 1, float64(*tokens)
	}
	return 0, 0
}

// pullChart is the sparkline of a pull request's last iterations: from
// its decision's status log, which knows the states, else from its scores.
func pullChart(p *PullResult) string {
	if p.Decision != nil && len(p.Decision.Recent) > 0 {
		return render.Sparkline(p.Decision.Recent, p.Decision.State)
	}
	steps := make([]breaker.Step, len(p.Scores))
	for i, s := range p.Scores {
		steps[i] = breaker.Step{Score: s, State: breaker.Closed}
	}
	return render.Sparkline(steps, breaker.Closed)
}

type skipGroup struct {
	reason  string
	numbers []int
}

// groupSkipped groups skipped pull requests by reason, the largest group
// first.
func groupSkipped(s []Skipped) []skipGroup {
	idx := map[string]int{}
	var out []skipGroup
	for _, x := range s {
		i, ok := idx[x.Reason]
		if !ok {
			i = len(out)
			idx[x.Reason] = i
			out = append(out, skipGroup{reason: x.Reason})
		}
		out[i].numbers = append(out[i].numbers, x.Number)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].numbers) > len(out[j].numbers) })
	return out
}

// numberList is "#1, #2, … and 7 more".
func numberList(ns []int) string {
	var parts []string
	for i, n := range ns {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("… and %d more", len(ns)-i))
			break
		}
		parts = append(parts, "#"+itoa(n))
	}
	return strings.Join(parts, ", ")
}

// titleCell is " " and the escaped title, or "" when there is none.
func titleCell(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return " " + render.Markdown(textcut.Runes(s, 60, textcut.Ellipsis))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
