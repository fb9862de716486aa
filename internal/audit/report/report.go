package report

import (
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// Result is what one audit run found and did. Its JSON form is the
// Action's report output and the command's --format json.
type Result struct {
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
func (r *Result) Numbers(state breaker.State) []int {
	return r.numbers(func(p *PullResult) bool { return p.State == state })
}

func (r *Result) numbers(keep func(*PullResult) bool) []int {
	out := []int{}
	for i := range r.Pulls {
		if keep(&r.Pulls[i]) {
			out = append(out, r.Pulls[i].Number)
		}
	}
	return out
}

// Tripped returns the OPEN pull requests.
func (r *Result) Tripped() []int { return r.Numbers(breaker.Open) }

// Aborted returns the OPEN pull requests whose loop is stopped: on_open
// "abort" (a paused loop waits for a person, an alert or an escalation
// lets it go on), not a dry run. Only these fail a run that fails on OPEN.
func (r *Result) Aborted() []int {
	return r.numbers(func(p *PullResult) bool { return p.Decision != nil && p.Decision.ExitCode() == breaker.ExitOpen })
}

// HalfOpen returns the HALF_OPEN pull requests.
func (r *Result) HalfOpen() []int { return r.Numbers(breaker.HalfOpen) }

// Recovered returns the pull requests whose labels were cleared because
// progress resumed.
func (r *Result) Recovered() []int {
	return r.numbers(func(p *PullResult) bool { return p.Recovered })
}

// SkippedNumbers returns the skipped pull requests.
func (r *Result) SkippedNumbers() []int {
	out := []int{}
	for _, s := range r.Skipped {
		out = append(out, s.Number)
	}
	return out
}
