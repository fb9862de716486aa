package org

import (
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// JobVersion is the version of the job result this build writes.
const JobVersion = 1

// Job is one audit job's result for the organisation report: how far the
// job got and its stuck (HALF_OPEN) and OPEN pull requests. It is small on
// purpose: a CLOSED pull request is only counted.
type Job struct {
	Version    int       `json:"version"`
	Repository string    `json:"repository"`
	Shard      string    `json:"shard,omitempty"`
	At         time.Time `json:"at"`
	// Evaluated counts the pull requests decided, NotReached those the run
	// stopped before (the next run starts with them).
	Evaluated    int    `json:"evaluated"`
	NotReached   int    `json:"not_reached"`
	StoppedEarly bool   `json:"stopped_early"`
	StopReason   string `json:"stop_reason,omitempty"`
	// Charged counts the calls charged against the rate limit,
	// NotModified the conditional ones answered 304 (free).
	Charged     int `json:"charged"`
	NotModified int `json:"not_modified"`
	// Pulls are the stuck and OPEN pull requests.
	Pulls []Pull `json:"pulls"`
}

// Pull is a stuck (HALF_OPEN) or OPEN pull request.
type Pull struct {
	Repository string `json:"repository"`
	Number     int    `json:"number"`
	Title      string `json:"title"`
	Author     string `json:"author"`
	State      string `json:"state"`
	Trigger    string `json:"trigger,omitempty"`
	// SinceProgress is the iterations run since the last progress,
	// WhileOpen those run while the breaker was OPEN (the loop ignored
	// it); Waste is their sum, the report's order.
	SinceProgress int `json:"iterations_since_progress"`
	WhileOpen     int `json:"iterations_while_open"`
	Waste         int `json:"waste"`
	// WastedUSD and WastedTokens are what the agent reported spending
	// since the last progress (absent when unknown): money wasted ranks
	// before iterations.
	WastedUSD    *float64 `json:"wasted_usd,omitempty"`
	WastedTokens *int64   `json:"wasted_tokens,omitempty"`
	// URL is the pull request's page (set by Fold, from the server URL).
	URL string `json:"url,omitempty"`
}

// Summarize is the job result of an audit run.
func Summarize(res *present.AuditResult) *Job {
	j := &Job{Version: JobVersion, Repository: res.Repository, Shard: res.Shard, At: res.At, Evaluated: len(res.Pulls),
		NotReached: len(res.NotReached), StoppedEarly: res.StoppedEarly, StopReason: res.StopReason,
		Charged: res.Operations.Used, NotModified: res.Operations.NotModified, Pulls: []Pull{}}
	for i := range res.Pulls {
		p := &res.Pulls[i]
		if p.State == breaker.Closed {
			continue
		}
		out := Pull{Repository: res.Repository, Number: p.Number, Title: p.Title, Author: p.Author, State: p.State.String(), Trigger: p.Trigger,
			WastedUSD: p.WastedUSD, WastedTokens: p.WastedTokens}
		if d := p.Decision; d != nil {
			out.SinceProgress, out.WhileOpen = d.ConsecutiveNoProgress, d.IgnoredOpen
		}
		out.Waste = out.SinceProgress + out.WhileOpen
		j.Pulls = append(j.Pulls, out)
	}
	sortPulls(j.Pulls)
	return j
}

// sortPulls orders by money wasted where it is known (dollars, then
// tokens), then by iterations wasted, most first, then by repository and
// number.
func sortPulls(ps []Pull) {
	sort.SliceStable(ps, func(i, k int) bool {
		a, b := ps[i], ps[k]
		ra, ma := present.WasteRank(a.WastedUSD, a.WastedTokens)
		rb, mb := present.WasteRank(b.WastedUSD, b.WastedTokens)
		if c := cmp.Or(cmp.Compare(rb, ra), cmp.Compare(mb, ma)); c != 0 {
			return c < 0
		}
		if a.Waste != b.Waste {
			return a.Waste > b.Waste
		}
		if a.Repository != b.Repository {
			return a.Repository < b.Repository
		}
		return a.Number < b.Number
	})
}

// EncodeJob is the job result as written to its file.
func EncodeJob(j *Job) ([]byte, error) {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the audit job result: %w", err)
	}
	return append(data, '\n'), nil
}

// WriteJob writes the job result to path atomically.
func WriteJob(path string, j *Job) error {
	data, err := EncodeJob(j)
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}
