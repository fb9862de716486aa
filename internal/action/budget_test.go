package action

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// budgetRun is one run of a pull request's life and the API calls it may
// make.
type budgetRun struct {
	name  string
	max   int
	state string
	setup func(b *budgetLife)
}

// budgetLife is a pull request's life against the HTTP fake: each run's
// record is uploaded as its run's artifact, as the workflow does.
type budgetLife struct {
	t    *testing.T
	h    *harness
	runs int64
}

// newBudgetLife is a pull request against the HTTP fake whose repository
// has the open and half-open labels, a maintainer with write access and a
// digest key.
func newBudgetLife(t *testing.T) *budgetLife {
	t.Helper()
	h := newHTTPHarness(t, newLoop(t))
	if err := h.fake.LoadSeed(strings.NewReader(`{"repos":[{"owner":"octo","name":"loop","labels":[
		{"name":"loopbreaker:open","color":"b60205","description":"stuck"},{"name":"loopbreaker:half-open","color":"fbca04","description":"watched"}]}]}`)); err != nil {
		t.Fatal(err)
	}
	h.fake.SetPermission("octo", "loop", "maintainer", "write")
	// The judge's secret seals the digest, which then stands for the
	// artifacts while no later run left a record: the setup the examples
	// teach, in a workflow (GITHUB_WORKFLOW_REF) whose runs are listed.
	h.env["INPUT_DIGEST-KEY"] = "judge-secret"
	h.env["GITHUB_WORKFLOW_REF"] = "octo/loop/" + budgetWorkflow + "@refs/heads/main"
	return &budgetLife{t: t, h: h}
}

// push commits files (nil: the run makes no commit) and makes the next run
// a pull_request run on the new head with the pull request's labels.
func (b *budgetLife) push(files map[string]string) {
	if files != nil {
		commitTo(b.t, b.h.loop, fmt.Sprintf("push %d", b.runs), files)
	}
	b.h.fake.AddPull("octo", "loop", fakegithub.Pull{Number: 7, Title: "agent loop", User: "agent", HeadSHA: b.h.loop.head, HeadRef: "agent/loop",
		BaseRef: "main", BaseSHA: b.h.loop.base, Labels: b.h.fake.IssueLabels("octo", "loop", 7), CreatedAt: start})
	payload, _, _, err := b.h.fake.PullRequestEvent("octo", "loop", 7, "synchronize")
	if err != nil {
		b.t.Fatal(err)
	}
	b.h.httpEvent("pull_request", payload, "refs/pull/7/merge")
}

// budgetWorkflow is the workflow file the pull request's runs run.
const budgetWorkflow = ".github/workflows/loopbreaker.yml"

// upload stands for run id of the workflow and its upload-artifact step.
func (b *budgetLife) upload(id int64) {
	data, err := os.ReadFile(filepath.Join(b.h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		b.t.Fatalf("no record: %v", err)
	}
	recs := ledger.Decode(data, "record.json").Records
	b.h.fake.AddRun("octo", "loop", fakegithub.Run{ID: id, Path: budgetWorkflow, HeadBranch: "agent/loop", HeadSHA: b.h.loop.head, CreatedAt: b.h.now})
	b.h.fake.AddArtifact("octo", "loop", id, "loopbreaker-record", recordZip(b.t, recs), false)
}

func progress(n int) map[string]string {
	return map[string]string{fmt.Sprintf("pkg/f%d.go", n): fmt.Sprintf("package pkg\n\nfunc F%d() int { return %d }\n", n, n)}
}

// TestAPIBudgetPerRun: every kind of run a pull request goes through,
// counted by the HTTP fake: the comments listed once, labels created by
// the add that needs them
// (once per repository), the label events read only when a control can
// depend on them, the ledger read from the sticky comment's digest when
// there is one and the workflow's runs show it current, and GET /user
// never. Six calls at most, but for the three runs whose seven calls and
// the one whose eight are each needed: the table in docs/action.md is this
// one, and the test fails when they differ.
func TestAPIBudgetPerRun(t *testing.T) {
	t.Parallel()
	b := newBudgetLife(t)
	h := b.h
	const seven, eight = 7, 8 // docs/action.md says why each of these calls is needed
	runs := []budgetRun{
		{"first run", 6, "CLOSED", func(b *budgetLife) { b.push(progress(1)) }},
		{"steady CLOSED", 6, "CLOSED", func(b *budgetLife) { b.push(progress(2)) }},
		// Entering HALF_OPEN (or OPEN) from CLOSED on a pull request that
		// has no sticky comment yet: the ledger is the artifact (the
		// workflow's runs, the newest run's artifacts and the download),
		// the comments listed (the commands, and a sticky comment
		// another run may have made since the event), and the label, the
		// comment and the status written.
		{"enters HALF_OPEN, no sticky comment yet", seven, "HALF_OPEN", func(b *budgetLife) { b.push(nil) }},
		{"steady HALF_OPEN", 6, "HALF_OPEN", func(b *budgetLife) { b.push(nil) }},
		{"the trip (HALF_OPEN to OPEN)", 6, "OPEN", func(b *budgetLife) { b.push(nil) }},
		{"steady OPEN, the label in the payload", 6, "OPEN", func(b *budgetLife) { b.push(nil) }},
		{"steady OPEN, the label not in the payload", 6, "OPEN", func(b *budgetLife) {
			b.push(nil)
			b.h.editEvent(func(ev map[string]any) { ev["pull_request"].(map[string]any)["labels"] = []any{} })
		}},
		// An issue_comment payload has no head or base (GET pulls/{n}) and
		// does not say whether its author may write (the permission); the
		// reset takes the open label off, updates the comment and turns
		// the status to success. The comment's run is no iteration.
		{"`/loopbreaker reset` (issue_comment, OPEN to CLOSED)", seven, "CLOSED", func(b *budgetLife) { b.comment("/loopbreaker reset") }},
		{"`/loopbreaker guide` (issue_comment)", 6, "CLOSED", func(b *budgetLife) { b.comment("/loopbreaker guide try the streaming parser") }},
		{"progress, the commands' author checked", 6, "CLOSED", func(b *budgetLife) { b.push(progress(3)) }},
		{"HALF_OPEN again (the sticky comment kept)", 6, "HALF_OPEN", func(b *budgetLife) { b.push(nil) }},
		{"recovery (HALF_OPEN to CLOSED)", 6, "CLOSED", func(b *budgetLife) { b.push(progress(4)) }},
		{"the open label removed by a person (pull_request unlabeled, OPEN to CLOSED)", 6, "CLOSED", func(b *budgetLife) {
			for i := 0; i < 3; i++ { // back to OPEN
				b.push(nil)
				b.runOnce()
			}
			at := b.h.now.Add(30 * time.Minute)
			b.h.fake.AddLabelEvent("octo", "loop", 7, "unlabeled", present.LabelOpen, "maintainer", "User", at)
			b.h.fake.AddPull("octo", "loop", fakegithub.Pull{Number: 7, Title: "agent loop", User: "agent", HeadSHA: b.h.loop.head, HeadRef: "agent/loop",
				BaseRef: "main", BaseSHA: b.h.loop.base, CreatedAt: start})
			payload, _, _, err := b.h.fake.PullRequestEvent("octo", "loop", 7, "unlabeled")
			if err != nil {
				b.t.Fatal(err)
			}
			b.h.httpEvent("pull_request", payload, "refs/pull/7/merge")
			b.h.editEvent(func(ev map[string]any) {
				ev["label"] = map[string]any{"name": present.LabelOpen}
				ev["sender"] = map[string]any{"login": "maintainer", "type": "User"}
			})
		}},
		// The open label's removal is read from the label events on every
		// run while the fold without it is OPEN: with the comments, the
		// remover's permission, and the writes of a state change.
		{"the next iteration, without progress (CLOSED to HALF_OPEN)", seven, "HALF_OPEN", func(b *budgetLife) { b.push(nil) }},
		// The loop opens again: the trip's writes (the open label added,
		// the half-open label removed, the comment and the status), the
		// comments, and the label events with the remover's permission, as
		// on every run after a reset by the label.
		{"OPEN again after the label's reset (HALF_OPEN to OPEN)", eight, "OPEN", func(b *budgetLife) { b.push(nil) }},
		// The open label is back in the payload; the newest record says its
		// run applied the label's reset, so the events are read again.
		{"steady OPEN after the label's reset, the label back in the payload", 6, "OPEN", func(b *budgetLife) { b.push(nil) }},
	}
	var table []string
	for _, r := range runs {
		r.setup(b)
		calls, state := b.runOnce()
		table = append(table, fmt.Sprintf("| %s | %s | %d |", r.name, state, len(calls)))
		if state != r.state {
			t.Errorf("%s: got state %s, want %s\n%s", r.name, state, r.state, h.summaryText())
		}
		if len(calls) > r.max {
			t.Errorf("%s: got %d API calls, want at most %d: %q", r.name, len(calls), r.max, calls)
		}
		if n := h.fake.CallsTo("GET", "/repos/octo/loop/issues/7/comments"); n > 1 {
			t.Errorf("%s: listed the comments %d times, want once", r.name, n)
		}
		for _, c := range calls {
			if strings.HasPrefix(c, "GET /user") {
				t.Errorf("%s: called GET /user, which the workflow token may not", r.name)
			}
		}
	}
	t.Logf("API calls per run:\n%s", strings.Join(table, "\n"))
	if got, want := docsBudget(t), table; !slices.Equal(got, want) {
		t.Errorf("docs/action.md's table of API calls per run (run, state, calls) is not the measured one:\ngot:\n%s\nwant:\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// docsBudget reads the table of API calls per run in docs/action.md as
// "| run | state | calls |" rows.
func docsBudget(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "action.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## API calls per run\n")
	if !ok {
		t.Fatal("docs/action.md has no section \"API calls per run\"")
	}
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if !strings.HasPrefix(line, "|") || len(cells) != 3 || strings.TrimSpace(cells[0]) == "Run" || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", cells[0], cells[1], cells[2]))
	}
	return rows
}

// runOnce runs the action as the next workflow run and uploads its record;
// it returns the API calls and the state.
func (b *budgetLife) runOnce() ([]string, string) {
	b.runs++
	id := 1000 + b.runs
	b.h.env["GITHUB_RUN_ID"] = fmt.Sprint(id)
	b.h.now = b.h.now.Add(time.Hour)
	b.h.fake.ResetCalls()
	b.h.run()
	calls := b.h.fake.CallLog()
	state := b.h.outputs()["state"]
	b.upload(id)
	return calls, state
}

// comment makes the next run an issue_comment run of a maintainer's
// comment.
func (b *budgetLife) comment(body string) {
	id := b.h.fake.AddComment("octo", "loop", 7, "maintainer", "User", body, b.h.now.Add(30*time.Minute))
	payload, ref, err := b.h.fake.IssueCommentEvent("octo", "loop", 7, id)
	if err != nil {
		b.t.Fatal(err)
	}
	b.h.httpEvent("issue_comment", payload, ref)
}
