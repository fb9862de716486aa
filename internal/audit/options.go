package audit

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

// DefaultBudget is the default API calls per run: about 70 to 100 pull
// requests, leaving most of a token's hourly 1,000 to the loops' checks.
const DefaultBudget = 200

// DefaultAuthors are the agent accounts audited when Filters.Authors is
// empty: GitHub Copilot's coding agent, Devin, Claude, OpenHands, Jules and
// Codex. Agents that open pull requests under a person's account need
// Filters.Authors or a label filter instead.
var DefaultAuthors = []string{
	"Copilot", "copilot-swe-agent[bot]", "devin-ai-integration[bot]", "claude[bot]",
	"openhands-agent", "openhands-ai[bot]", "google-labs-jules[bot]", "chatgpt-codex-connector[bot]",
}

// Filters select the pull requests to audit. Label names match without
// regard to case, as on GitHub.
type Filters struct {
	// OnlyLabels: a pull request must carry all of them.
	OnlyLabels []string
	// AnyOfLabels: it must carry at least one of them (when any are given).
	AnyOfLabels []string
	// Authors are the logins whose pull requests are audited (case
	// insensitive; "name" also matches the app "name[bot]", while
	// "name[bot]" matches only the app); empty means DefaultAuthors and
	// "*" means anyone.
	Authors []string
	// ExemptLabels: a pull request carrying any of them is skipped.
	ExemptLabels []string
	// ExemptDraft skips draft pull requests. Agents often work in drafts,
	// so it is off by default.
	ExemptDraft bool
	// StartDate skips pull requests created before it (zero: none).
	StartDate time.Time
}

// Shard is one part of a repository's audit: the pull requests whose
// stable hash modulo Count is Index. Count 0 or 1 is the whole repository.
type Shard struct {
	Index, Count int
}

// Reserve is the share of the API rate limit the audit leaves untouched: it
// stops when X-RateLimit-Remaining falls below it. Percent is a share of
// X-RateLimit-Limit, Count an absolute number of calls; the larger applies.
type Reserve struct {
	Percent float64
	Count   int
}

// DefaultReserve leaves a tenth of the rate limit to other workflows.
var DefaultReserve = Reserve{Percent: 10}

// ParseReserve reads "10%" (a share of the limit) or "500" (calls); empty
// is DefaultReserve.
func ParseReserve(s string) (Reserve, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultReserve, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 100 {
			return Reserve{}, fmt.Errorf("rate-limit-reserve %q: want a percentage from 0%% to 100%% or a number of calls", s)
		}
		return Reserve{Percent: v}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return Reserve{}, fmt.Errorf("rate-limit-reserve %q: want a percentage such as 10%% or a whole number of calls", s)
	}
	return Reserve{Count: n}, nil
}

// ParseDate reads a start date: a date (2026-03-01, UTC midnight) or an
// RFC 3339 time.
func ParseDate(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date (2026-03-01) or an RFC 3339 time", v)
	}
	return t.UTC(), nil
}

// Floor is the X-RateLimit-Remaining under which the audit stops.
func (r Reserve) Floor(limit int) int {
	return max(r.Count, int(math.Ceil(r.Percent*float64(limit)/100)))
}

// String renders the reserve as ParseReserve reads it.
func (r Reserve) String() string {
	if r.Count > 0 && r.Percent == 0 {
		return strconv.Itoa(r.Count)
	}
	s := strconv.FormatFloat(r.Percent, 'f', -1, 64) + "%"
	if r.Count > 0 {
		s += " (at least " + strconv.Itoa(r.Count) + ")"
	}
	return s
}

// Options configure one audit run.
type Options struct {
	// Owner and Repo name the repository (for the report).
	Owner, Repo string
	// Policy is the loaded policy (profile not applied); ProtectPaths are
	// extra protected paths such as the policy file's own path.
	Policy       *policy.Policy
	Profile      string
	ProtectPaths []string
	// Filters select the pull requests; Shard the part of them.
	Filters Filters
	Shard   Shard
	// Budget is the number of API calls the run may make (> 0).
	Budget int
	// Reserve is the share of the rate limit left untouched.
	Reserve Reserve
	// DryRun computes and reports everything and writes nothing (the
	// client must be in dry-run mode too: its writes are only planned).
	DryRun bool
	// Now is the run's time.
	Now time.Time
	// ManageLabels turns labelling on (the labels are present.Labels).
	ManageLabels bool
	// OnOpen and OnHalfOpen hold "label" and "comment".
	OnOpen, OnHalfOpen []string
	// Artifact is the record artifact's name; "" reads no artifacts.
	// {branch} in it stands for the pull request's head branch: the
	// artifacts of loops whose runs are all on the default branch.
	Artifact string
	// DefaultBranch is the repository's default branch, where the runs of
	// such loops are ("": each pull request's base branch).
	DefaultBranch string
	// MaxArtifactBytes bounds one artifact download (0: 64 MiB).
	MaxArtifactBytes int64
	// Clone, when set, is where pull request commits are read from;
	// otherwise they come from the API.
	Clone *Clone
	// Resume are the pull requests a previous run stopped before (its
	// Result.NotReached): they are evaluated first.
	Resume []int
	// KeepMarks makes the run leave a cursor for the next (Result.Marks and
	// Ledgers, reading a pull request back after its writes). Marks and Ledgers
	// are the previous run's: an unchanged pull request and a held artifact
	// cost no call.
	KeepMarks bool
	Marks     map[int]present.Mark
	Ledgers   map[int64][]ledger.Record
	// PerPage is the pull request page size (0: 100).
	PerPage int
	// Log, when set, is told what the run is doing (one line each).
	Log func(format string, args ...any)
}

func (o *Options) check() error {
	var errs []error
	if o.Policy == nil {
		errs = append(errs, errors.New("no policy"))
	}
	if o.Budget <= 0 {
		errs = append(errs, fmt.Errorf("operations-per-run %d: want at least 1", o.Budget))
	}
	if o.Shard.Count < 0 || o.Shard.Index < 0 || (o.Shard.Count > 1 && o.Shard.Index >= o.Shard.Count) || (o.Shard.Count <= 1 && o.Shard.Index > 0) {
		errs = append(errs, fmt.Errorf("shard-index %d of shard-count %d: want 0 <= index < count", o.Shard.Index, o.Shard.Count))
	}
	if o.Now.IsZero() {
		errs = append(errs, errors.New("no time given"))
	}
	for _, l := range append(append([]string{}, o.OnOpen...), o.OnHalfOpen...) {
		if l != "label" && l != "comment" {
			errs = append(errs, fmt.Errorf("action %q: an audit can only label or comment", l))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("audit options: %w", err)
	}
	return nil
}
