package audit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// cursorRun runs the audit with the previous run's cursor (nil: none) and
// a new token each time, and returns the result, the answers to keep and
// the requests made.
func (e *env) cursorRun(prev *present.AuditResult, answers map[string]github.Answer) (*present.AuditResult, map[string]github.Answer, []string) {
	e.t.Helper()
	tok := fmt.Sprintf("ghs_%d", time.Now().UnixNano())
	e.fake.AddToken(tok, bot, "Bot")
	cache := github.NewCache(answers)
	c, err := github.New(github.Options{Token: tok, BaseURL: e.fake.URL, Owner: owner, Repo: repo, Cache: cache,
		Now: func() time.Time { return e.opts.Now }, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		e.t.Fatal(err)
	}
	o := e.opts
	o.KeepMarks = true
	if prev != nil {
		o.Marks, o.Ledgers = prev.Marks, prev.Ledgers
	}
	e.fake.ResetCalls()
	res, err := Run(context.Background(), c, o)
	if err != nil {
		e.t.Fatal(err)
	}
	return res, cache.Used(), e.fake.CallLog()
}

// TestCursorNeverHidesAChange: with the cursor a pull request listed as it
// was is read from the state, and its record artifact is not downloaded
// again; one the run labelled is read back once. A mark whose updated_at
// is the second GitHub answered in is not kept (a later change in that
// second would not move it): such a pull request is read again.
func TestCursorNeverHidesAChange(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	// GitHub's time goes on by a second each time it is looked at, from an
	// hour after the pull requests were last updated.
	tick := 0
	e.fake.SetClock(func() time.Time { tick++; return t0.Add(2*time.Hour + time.Duration(tick)*time.Second) })
	stuck := e.mixed(10)
	p := e.pull(11, 2)
	e.artifact(500, p.HeadRef, p.HeadSHA, t0.Add(time.Hour), zipOf(e.t, stuckRecords(p.HeadSHA, 1)), false)

	first, answers, calls := e.cursorRun(nil, nil)
	if len(first.Marks) != 11 || !slices.Contains(calls, fmt.Sprintf("GET /repos/%s/%s/pulls/%d", owner, repo, stuck[0])) {
		t.Fatalf("first run: %d marks, calls %v; want 11, the labelled ones read back", len(first.Marks), calls)
	}
	if len(first.Ledgers) != 1 {
		t.Fatalf("first run kept the records of %d artifacts, want 1", len(first.Ledgers))
	}
	second, answers, calls := e.cursorRun(first, answers)
	for _, c := range calls {
		if path, _, _ := strings.Cut(c, "?"); path != "GET /repos/octo/loop/pulls" && path != "GET /repos/octo/loop/actions/artifacts" {
			t.Errorf("second run: %s, want only the lists of pull requests and artifacts", c)
		}
	}
	if got, want := numbersOf(second.Pulls), numbersOf(first.Pulls); !slices.Equal(got, want) {
		t.Errorf("second run evaluated %v, want %v", got, want)
	}

	// GitHub's clock stands in the second of #1's last change: a change
	// later in that second would not move its updated_at, so the run
	// keeps no mark of it, and the next run reads it again.
	e.fake.SetClock(func() time.Time { return t0.Add(time.Minute) })
	third, answers, _ := e.cursorRun(nil, answers)
	if _, ok := third.Marks[1]; ok {
		t.Errorf("a mark was kept in the second of the answer: %+v", third.Marks[1])
	}
	_, _, calls = e.cursorRun(third, answers)
	if !slices.Contains(calls, fmt.Sprintf("GET /repos/%s/%s/pulls/1/commits?page=1&per_page=100", owner, repo)) {
		t.Errorf("a pull request updated in the second of the answer was not read again: %v", calls)
	}
}

// zipOf is a record artifact holding recs.
func zipOf(t testing.TB, recs []ledger.Record) []byte {
	t.Helper()
	data, err := buildZip(map[string]string{"record.json": recordsJSON(recs)})
	if err != nil {
		t.Fatal(err)
	}
	return data
}
