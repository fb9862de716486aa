package present

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// The golden loops: what a person reads of a healthy loop, of a stuck one
// (escalating, failing tests with agent-chosen names, iterations that ran
// while OPEN) and of one that recovered, on every surface.

var loopStart = time.Date(2026, 4, 6, 9, 0, 0, 0, time.UTC)

// step is one iteration of a golden loop.
type step struct {
	files          int
	tree           string
	passed, failed int
	failing        []string
	err            string
	tasks          int
	usd            float64 // what the agent reported the iteration cost (0: nothing)
	tokens         int64
}

func (s step) iteration() breaker.Iteration {
	it := breaker.Iteration{Change: &breaker.Change{MeaningfulFiles: s.files, MeaningfulLines: 12 * s.files, Tree: s.tree}, ErrorsKnown: true}
	for i := 0; i < s.files; i++ {
		it.Change.Files = append(it.Change.Files, fmt.Sprintf("internal/parse/file%d.go", i+1))
	}
	if s.passed+s.failed > 0 {
		it.Tests = &breaker.Tests{Passed: s.passed, Failed: s.failed, Failing: s.failing}
	}
	if s.err != "" {
		it.Errors = []breaker.Signature{{Hash: strings.Repeat("e", 64), Sample: s.err}}
	}
	if s.tasks > 0 {
		it.Tasks = &breaker.Tasks{Done: s.tasks, Total: 6}
	}
	if s.usd > 0 {
		usd, tokens := s.usd, s.tokens
		it.Cost = &breaker.Cost{USD: &usd, Tokens: &tokens}
	}
	return it
}

const hostileTest = "TestParse/<img src=x onerror=alert(1)> @octo/admins"

var failingTests = []string{hostileTest, "TestLexer/unicode", "TestLexer/escapes", "TestEval/closures", "TestEval/recursion", "TestEval/tail_calls", "TestFormat/wide"}

type goldenLoop struct {
	name   string
	policy string // TOML
	steps  []step
	notes  []note.Note
}

func goldenLoops() []goldenLoop {
	return []goldenLoop{
		{name: "healthy", policy: `extends = "default"`, steps: []step{
			{files: 2, tree: "t1", passed: 10, failed: 3, failing: failingTests[1:4], tasks: 1},
			{files: 3, tree: "t2", passed: 12, failed: 1, failing: failingTests[3:4], tasks: 2},
			{files: 1, tree: "t3", passed: 13, failed: 0, tasks: 3},
			{files: 2, tree: "t4", passed: 15, failed: 0, tasks: 4},
		}},
		{name: "stuck", policy: "extends = \"default\"\n[escalation]\nmodel_progression = [\"model-small\", \"model-large\"]\n", steps: []step{
			{files: 2, tree: "t1", passed: 8, failed: 7, failing: failingTests, err: "parse.go:41: unexpected token `}`"},
			{files: 0, tree: "t1", passed: 8, failed: 7, failing: failingTests, err: "parse.go:41: unexpected token `}`"},
			{files: 0, tree: "t1", passed: 8, failed: 7, failing: failingTests, err: "parse.go:41: unexpected token `}`"},
			{files: 0, tree: "t1", passed: 8, failed: 7, failing: failingTests, err: "parse.go:41: unexpected token `}`"},
			{files: 1, tree: "t2", passed: 8, failed: 7, failing: failingTests, err: "parse.go:41: unexpected token `}`"},
			{files: 0, tree: "t2", passed: 8, failed: 7, failing: failingTests, err: "parse.go:41: unexpected token `}`"},
		}, notes: []note.Note{{Code: note.ShallowClone, Text: "shallow clone: 6 of 7 iterations visible (the parent of 1a2b3c4d5e6f is not in the clone; fetch the full history, e.g. fetch-depth: 0)"}}},
		{name: "recovering", policy: `extends = "default"`, steps: []step{
			{files: 2, tree: "t1", passed: 4, failed: 2, failing: failingTests[1:3]},
			{files: 0, tree: "t1", passed: 4, failed: 2, failing: failingTests[1:3]},
			{files: 0, tree: "t1", passed: 4, failed: 2, failing: failingTests[1:3]},
			{files: 3, tree: "t2", passed: 6, failed: 0},
			{files: 1, tree: "t3", passed: 7, failed: 0},
		}},
		{name: "spending", policy: "extends = \"default\"\n[rules.spend]\nmax_usd = 20.0\nmax_usd_without_progress = 4.0\n", steps: []step{
			{files: 2, tree: "t1", passed: 9, failed: 2, failing: failingTests[1:3], usd: 1.40, tokens: 180000},
			{files: 0, tree: "t1", passed: 9, failed: 2, failing: failingTests[1:3], usd: 1.90, tokens: 240000},
			{files: 0, tree: "t1", passed: 9, failed: 2, failing: failingTests[1:3], usd: 2.20, tokens: 260000},
			{files: 0, tree: "t1", passed: 9, failed: 2, failing: failingTests[1:3], usd: 0.60, tokens: 70000},
		}},
	}
}

// fold folds a golden loop, ten minutes an iteration.
func (g goldenLoop) fold(t *testing.T) *loop.Result {
	t.Helper()
	p, err := policy.Parse([]byte(g.policy), g.name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	p.Name = "default"
	var its []breaker.Iteration
	for i, s := range g.steps {
		it := s.iteration()
		it.At = loopStart.Add(time.Duration(i) * 10 * time.Minute)
		it.Commit = strings.Repeat(fmt.Sprintf("%x", i+10), 40)
		its = append(its, it)
	}
	f, err := loop.Fold(loop.FoldInput{Policy: p, Iterations: its, Now: loopStart.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	return &loop.Result{Decisions: f.Decisions, Notes: g.notes}
}

// compareGolden compares got with testdata/name, or rewrites it with
// -update.
func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/present -run TestGolden -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// TestGoldenSurfaces renders each golden loop on every surface: the
// command line's text, JSON and markdown, the job summary and the sticky
// comment.
func TestGoldenSurfaces(t *testing.T) {
	t.Parallel()
	for _, g := range goldenLoops() {
		res := g.fold(t)
		d := res.Final()
		o := render.Options{ResetHint: `loopbreaker check --repo . --base HEAD`, Notes: res.Notes}
		for _, format := range render.Formats {
			t.Run(g.name+"."+format, func(t *testing.T) {
				var buf bytes.Buffer
				if err := render.Write(&buf, format, d, o); err != nil {
					t.Fatal(err)
				}
				compareGolden(t, g.name+"."+format+".golden", buf.String())
			})
		}
		t.Run(g.name+".summary", func(t *testing.T) {
			compareGolden(t, g.name+".summary.md", Summary(res.Decisions, SummaryOptions{Notes: res.Notes, API: true, Calls: 4}))
		})
		t.Run(g.name+".comment", func(t *testing.T) {
			recs := []ledger.Record{{Version: 1, RunID: 1, RunAttempt: 1, Commit: d.Commit, At: loopStart, Errors: []ledger.Error{}}}
			compareGolden(t, g.name+".comment.md", StickyComment(d, recs, CommentOptions{}))
		})
	}
}

// TestGoldenAuditSummary renders an audit of the three golden loops as
// pull requests, as the job summary and as terminal text.
func TestGoldenAuditSummary(t *testing.T) {
	t.Parallel()
	rate, limit, floor := 4890, 5000, 500
	r := &AuditResult{Repository: "octo/loop", At: loopStart.Add(24 * time.Hour),
		Operations: Operations{Budget: 200, Used: 9, Remaining: 191, RateRemaining: &rate, RateLimit: &limit, RateFloor: &floor},
		Skipped:    []Skipped{{Number: 9, Reason: "draft by a person"}}, NotReached: []int{}, Notes: []string{}}
	authors := map[string]string{"healthy": "claude[bot]", "stuck": "copilot-swe-agent[bot]", "recovering": "devin-ai-integration[bot]", "spending": "chatgpt-codex-connector[bot]"}
	for i, g := range goldenLoops() {
		res := g.fold(t)
		d := res.Final()
		pr := PullResult{Number: 11 + i, Title: "Loop " + g.name, Author: authors[g.name], State: d.State,
			Iterations: d.Iteration, LastProgress: d.LastProgress, Decision: d, Evidence: "git",
			WastedUSD: d.SpentSinceProgressUSD, WastedTokens: d.SpentSinceProgressTokens}
		if d.Trigger != nil {
			pr.Trigger, pr.Reason = *d.Trigger, *d.Reason
		}
		for _, x := range res.Decisions {
			pr.Scores = append(pr.Scores, x.ProgressScore)
		}
		switch g.name {
		case "stuck":
			pr.LabelsAdded = []string{LabelOpen}
		case "recovering":
			pr.Recovered, pr.LabelsRemoved = true, []string{LabelHalfOpen}
		}
		r.Pulls = append(r.Pulls, pr)
	}
	compareGolden(t, "audit.summary.md", AuditSummary(r))
	compareGolden(t, "audit.text.golden", AuditText(r))
}

// TestStickyCommentLeadsWithTheDecision: the comment says what was decided,
// why, the three next steps, the next model, the failing tests and the
// chart before anything else; the iteration log is folded away.
func TestStickyCommentLeadsWithTheDecision(t *testing.T) {
	t.Parallel()
	res := goldenLoops()[1].fold(t)
	body := StickyComment(res.Final(), nil, CommentOptions{})
	order := []string{"## 🔴 loopbreaker: OPEN", "**Why:** no progress", "1. ", "2. ", "3. ", "When the loop may go on:",
		"**Escalate:** switch the loop to the next model, `model-large`", "**Failing tests (7):** `TestParse/",
		"**Progress score, last 6 iterations:** `▆▁◐▁●▁××`", "Iteration 6 ·", render.StatusLogDetails, "#### Iteration 6", "</details>"}
	at := 0
	for _, want := range order {
		i := strings.Index(body[at:], want)
		if i < 0 {
			t.Fatalf("the comment lacks %q after position %d:\n%s", want, at, body)
		}
		at += i + len(want)
	}
	if strings.Count(body[:strings.Index(body, render.StatusLogDetails)], "#### Iteration") != 0 {
		t.Errorf("iterations are logged before the details block")
	}
}

// TestSummaryChartsAndTableAgree: the job summary's charts and its table
// hold the same iterations and numbers.
func TestSummaryChartsAndTableAgree(t *testing.T) {
	t.Parallel()
	res := goldenLoops()[2].fold(t)
	md := Summary(res.Decisions, SummaryOptions{})
	for _, want := range []string{"```mermaid\nxychart-beta\n", "x-axis \"iteration\" [1, 2, 3, 4, 5]", "line [2, -3, -3, 9, 1]", "bar [4, 4, 4, 6, 7]",
		"| 4 | `ddddddd` | CLOSED | +9 | 6 | 0 | progress |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary lacks %q:\n%s", want, md)
		}
	}
}
