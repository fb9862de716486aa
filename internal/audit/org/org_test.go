package org

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func TestStateRoundTripAndProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "state.json")
	if st, problem, err := ReadState(path, "acme/a", ""); st != nil || problem != "" || err != nil {
		t.Fatalf("a missing state: got %v %q %v, want a first run", st, problem, err)
	}
	want := &State{Version: StateVersion, Repository: "acme/a", Shard: "1 of 2", At: t0, Pending: []int{4, 2},
		Answers: map[string]github.Answer{"GET /repos/acme/a/pulls?page=1": {ETag: `W/"x"`, Body: "[]"}}}
	if err := WriteState(path, want); err != nil {
		t.Fatal(err)
	}
	got, problem, err := ReadState(path, "acme/a", "1 of 2")
	if err != nil || problem != "" {
		t.Fatalf("got %q %v", problem, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	for name, c := range map[string]struct{ content, repo, shard, want string }{
		"another job's":  {"", "acme/b", "1 of 2", "is for acme/a"},
		"another shard":  {"", "acme/a", "2 of 2", "is for acme/a"},
		"corrupt":        {`{"version":1,`, "acme/a", "1 of 2", "not a state file"},
		"unknown field":  {`{"version":1,"repository":"acme/a","shard":"1 of 2","extra":1}`, "acme/a", "1 of 2", "not a state file"},
		"bad cursor":     {`{"version":1,"repository":"acme/a","shard":"1 of 2","pending":[0]}`, "acme/a", "1 of 2", "not a number"},
		"future version": {`{"version":9,"repository":"acme/a","shard":"1 of 2"}`, "acme/a", "1 of 2", "version 9"},
	} {
		p := path
		if c.content != "" {
			p = filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
			os.WriteFile(p, []byte(c.content), 0o644)
		}
		st, problem, err := ReadState(p, c.repo, c.shard)
		if st != nil || err != nil || !strings.Contains(problem, c.want) {
			t.Errorf("%s: got %v %q %v, want ignored saying %q", name, st, problem, err, c.want)
		}
	}
}

func TestFoldListsEachPullOnceAndEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := &Job{Version: JobVersion, Repository: "acme/a", At: t0, Evaluated: 3, Pulls: []Pull{
		{Repository: "acme/a", Number: 1, Title: "old", State: "HALF_OPEN", SinceProgress: 2},
	}}
	newer := &Job{Version: JobVersion, Repository: "acme/a", At: t0.Add(time.Hour), Evaluated: 3, Charged: 7, NotModified: 5, Pulls: []Pull{
		{Repository: "acme/a", Number: 1, Title: "fix <script>alert(1)</script> @acme/admins | x", State: "OPEN", Trigger: "no_progress", SinceProgress: 3, WhileOpen: 4},
	}}
	other := &Job{Version: JobVersion, Repository: "acme/b", Shard: "1 of 2", At: t0, Evaluated: 1, NotReached: 5, StoppedEarly: true,
		StopReason: "the rate-limit reserve is reached <img src=x>", Pulls: []Pull{{Repository: "acme/b", Number: 9, State: "OPEN", SinceProgress: 9}}}
	for name, j := range map[string]*Job{"old": old, "new": newer, "b/result": other} {
		if err := WriteJob(filepath.Join(dir, name+".json"), j); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "forged.json"), []byte(`{"version":1,"repository":"javascript:alert(1)//x","at":"2026-03-01T09:00:00Z","evaluated":0,"not_reached":0,"stopped_early":false,"charged":0,"not_modified":0,"pulls":[]}`), 0o644)
	jobs, problems, err := ReadJobs([]string{dir})
	if err != nil || len(jobs) != 3 || len(problems) != 1 || !strings.Contains(problems[0], "forged.json") {
		t.Fatalf("got %d jobs, problems %q, %v; want 3 and the forged file named", len(jobs), problems, err)
	}
	r := Fold(jobs, problems, "https://ghe.example/")
	var got []string
	for _, p := range r.Pulls {
		got = append(got, p.URL+" "+p.State)
	}
	want := []string{"https://ghe.example/acme/b/pull/9 OPEN", "https://ghe.example/acme/a/pull/1 OPEN"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pulls (-want +got):\n%s", diff)
	}
	if r.Evaluated != 7 || r.NotReached != 5 || r.Charged != 7 || r.NotModified != 5 || r.Repositories != 2 || len(r.Stopped) != 1 {
		t.Errorf("got %+v", r)
	}
	md := r.Markdown()
	for _, bad := range []string{"<script>", "<img", "@acme/admins", "admins | x"} {
		if strings.Contains(md, bad) {
			t.Errorf("the summary carries %q unescaped:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "acme/b (shard 1 of 2): 5 not reached") {
		t.Errorf("the summary does not say how far acme/b got:\n%s", md)
	}
}

// TestFoldRanksByMoneyWasted: an audit job's stuck pull requests carry
// what their agents spent since the last progress; the organisation's
// report puts the most money wasted first, dollars before tokens, then the
// iterations wasted, and shows the money.
func TestFoldRanksByMoneyWasted(t *testing.T) {
	t.Parallel()
	usd := func(v float64) *float64 { return &v }
	tokens := func(v int64) *int64 { return &v }
	res := &present.AuditResult{Repository: "acme/a", At: t0, Pulls: []present.PullResult{
		{Number: 1, State: breaker.Open, Decision: &breaker.Decision{ConsecutiveNoProgress: 9}},
		{Number: 2, State: breaker.HalfOpen, WastedUSD: usd(2.5), Decision: &breaker.Decision{ConsecutiveNoProgress: 2}},
		{Number: 3, State: breaker.Open, WastedTokens: tokens(900000), Decision: &breaker.Decision{ConsecutiveNoProgress: 3}},
		{Number: 4, State: breaker.Open, WastedUSD: usd(7.25), Decision: &breaker.Decision{ConsecutiveNoProgress: 3}},
		{Number: 5, State: breaker.Closed, WastedUSD: usd(0.5)},
	}}
	dir := t.TempDir()
	if err := WriteJob(filepath.Join(dir, "job.json"), Summarize(res)); err != nil {
		t.Fatal(err)
	}
	jobs, problems, err := ReadJobs([]string{dir})
	if err != nil || len(problems) != 0 {
		t.Fatalf("%v %v", problems, err)
	}
	r := Fold(jobs, nil, "")
	var got []int
	for _, p := range r.Pulls {
		got = append(got, p.Number)
	}
	if diff := cmp.Diff([]int{4, 2, 3, 1}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	md := r.Markdown()
	for _, want := range []string{"[acme/a#4](https://github.com/acme/a/pull/4) | OPEN | - | 3 | 0 | \\$7.25 |", "| 900,000 tokens |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
}

// fakeSearch answers queries from a table, a page of two hits at a time.
type fakeSearch map[string][]github.SearchHit

func (f fakeSearch) SearchPulls(_ context.Context, q string, page int) (github.SearchPage, error) {
	all := f[q]
	lo, hi := min(len(all), (page-1)*2), min(len(all), page*2)
	sp := github.SearchPage{Hits: all[lo:hi], Total: len(all)}
	if hi < len(all) {
		sp.Next = page + 1
	}
	return sp, nil
}

func TestDiscoverShardsAndQueries(t *testing.T) {
	t.Parallel()
	s := fakeSearch{
		"is:pr is:open org:acme author:Copilot":   {{Repository: "acme/big", Number: 1}, {Repository: "acme/big", Number: 2}, {Repository: "acme/big", Number: 3}, {Repository: "acme/small", Number: 1}},
		"is:pr is:open org:acme author:app/devin": {{Repository: "acme/big", Number: 3}, {Repository: "acme/big", Number: 4}, {Repository: "acme/big", Number: 5}},
	}
	d, err := Discover(context.Background(), DiscoverOptions{Org: "acme", Search: s, PullsPerShard: 2,
		Filters: audit.Filters{Authors: []string{"Copilot", "devin[bot]"}}})
	if err != nil {
		t.Fatal(err)
	}
	var want []Entry
	for i := 0; i < 3; i++ {
		want = append(want, Entry{Repository: "acme/big", Owner: "acme", Name: "big", ShardIndex: i, ShardCount: 3, Pulls: 5})
	}
	want = append(want, Entry{Repository: "acme/small", Owner: "acme", Name: "small", ShardCount: 1, Pulls: 1})
	if diff := cmp.Diff(want, d.Matrix.Include); diff != "" || d.Pulls != 6 || d.Repositories != 2 {
		t.Errorf("got %d pulls in %d repositories, matrix (-want +got):\n%s", d.Pulls, d.Repositories, diff)
	}
	if got := queries("acme", audit.Filters{Authors: []string{"*"}, AnyOfLabels: []string{"agent", "needs review"}}); !cmp.Equal(got,
		[]string{`is:pr is:open org:acme label:agent`, `is:pr is:open org:acme label:"needs review"`}) {
		t.Errorf("any author, by label: got %q", got)
	}
	many := fakeSearch{}
	for _, a := range audit.DefaultAuthors {
		for i := 0; i < 300; i++ {
			q := "is:pr is:open org:acme author:" + a
			if app, ok := strings.CutSuffix(a, "[bot]"); ok {
				q = "is:pr is:open org:acme author:app/" + app
			}
			many[q] = append(many[q], github.SearchHit{Repository: "acme/r" + strings.Repeat("x", i%40+1), Number: i + 1})
		}
	}
	if _, err := Discover(context.Background(), DiscoverOptions{Org: "acme", Search: many, PullsPerShard: 1}); err == nil || !strings.Contains(err.Error(), "raise --pulls-per-shard to") {
		t.Errorf("a matrix over %d jobs: got %v, want the remedy", MaxJobs, err)
	}
}
