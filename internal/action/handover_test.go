package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// TestHandoverLinksLeaveNoWayOut: the agent commits its log, its test
// report or its bundle as symbolic links to a file of the judge's machine outside the
// workspace (a runner's credentials, another step's files). The judge
// reads neither: the run fails naming the link, and nothing of the file
// reaches the summary, the outputs or the comment.
func TestHandoverLinksLeaveNoWayOut(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "credentials")
	secret := "error: token ghs_judgeSecret0123456789"
	if err := os.WriteFile(outside, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, input, path string }{
		{"log", "INPUT_AGENT-LOG", "handover/agent.log"},
		{"report", "INPUT_REPORTS", "handover/report.xml"},
		{"bundle", "INPUT_BUNDLE", "handover/agent.bundle"},
		{"log through a linked folder", "INPUT_AGENT-LOG", "linked/agent.log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loop := stagnant(t)
			link := filepath.Join(loop.dir, c.path)
			if strings.HasPrefix(c.path, "linked/") {
				if err := os.Symlink(filepath.Dir(outside), filepath.Join(loop.dir, "linked")); err != nil {
					t.Fatal(err)
				}
				link = filepath.Join(filepath.Dir(outside), "agent.log")
				if err := os.WriteFile(link, []byte(secret+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				os.MkdirAll(filepath.Dir(link), 0o755)
				if err := os.Symlink(outside, link); err != nil {
					t.Fatal(err)
				}
			}
			h := newHarness(t, loop)
			h.env[c.input] = c.path
			code := h.run()
			if code != exitError || !strings.Contains(h.log.String(), "symbolic link") {
				t.Errorf("got exit %d, want %d naming the link\n%s", code, exitError, h.log.String())
			}
			out, _ := os.ReadFile(h.out)
			everything := h.log.String() + h.summaryText() + string(out)
			for _, cm := range h.comments(7) {
				everything += cm.Body
			}
			if strings.Contains(everything, "judgeSecret") {
				t.Errorf("the file outside the workspace reached what the run wrote:\n%s", everything)
			}
		})
	}
}

// TestRecordFileInTheWorkspaceCannotLoosen: the record file the action
// takes up (earlier iterations of one job) lies in the agent's workspace.
// An agent that places one there with this run's id and attempt (through
// a handover folder linked to .loopbreaker, or a re-run of a run whose
// number it knew), each record passing ten more tests, cannot turn the
// stuck loop's OPEN into a looser state.
func TestRecordFileInTheWorkspaceCannotLoosen(t *testing.T) {
	t.Parallel()
	loop := stagnant(t)
	r, err := git.PlainOpen(loop.dir)
	if err != nil {
		t.Fatal(err)
	}
	it, err := r.Log(&git.LogOptions{From: plumbing.NewHash(loop.head)})
	if err != nil {
		t.Fatal(err)
	}
	var commits []string
	it.ForEach(func(c *object.Commit) error {
		commits = append([]string{c.Hash.String()}, commits...)
		return nil
	})
	var recs []ledger.Record
	for i, c := range commits[1:] {
		recs = append(recs, ledger.Record{Version: 1, RunID: 100, RunAttempt: 1, Iteration: i + 1, Commit: c,
			At: start.Add(time.Duration(i+1) * 10 * time.Minute), Tests: &ledger.Tests{Passed: 10 * (i + 1)}})
	}
	var js bytes.Buffer
	if err := ledger.Encode(&js, recs); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(loop.dir, ".loopbreaker"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(loop.dir, ".loopbreaker", "record.json"), js.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, loop)
	h.dispatched()
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d (OPEN, as without the file)\n%s", code, exitOpen, h.log.String())
	}
	if o := h.outputs(); o["state"] != "OPEN" || o["iteration"] != "4" {
		t.Errorf("got %s at iteration %s, want OPEN at 4", o["state"], o["iteration"])
	}
	if !strings.Contains(h.summaryText(), "would have loosened") {
		t.Errorf("the summary does not say the record file was set aside:\n%s", h.summaryText())
	}
}

// TestAgentThatStopsCommittingOpens: an agent job that hands over no
// bundle run after run (it stopped committing) is judged on the branch as
// it is; each run is an iteration without progress and the breaker opens.
// Every run of the loop is a run on the default branch, dispatched there:
// with artifact-name naming {branch}, the loop's records are its own,
// whatever a newer artifact of another loop on that branch says.
func TestAgentThatStopsCommittingOpens(t *testing.T) {
	t.Parallel()
	loop := newLoop(t, map[string]string{"a.go": "package a\n"}, map[string]string{"b.go": "package a\n"})
	h := newHarness(t, loop)
	h.dispatched()
	h.env["INPUT_BUNDLE"] = "handover/agent.bundle"
	h.env["INPUT_ARTIFACT-NAME"] = "loopbreaker-record-{branch}"
	var states []string
	for i := 0; i < 5; i++ {
		// Each judge job starts from a fresh checkout.
		os.RemoveAll(filepath.Join(loop.dir, ".loopbreaker"))
		code := h.run()
		o := h.outputs()
		states = append(states, o["state"])
		if o["artifact-name"] != "loopbreaker-record-agent%2Floop" {
			t.Fatalf("got artifact-name %q, want the loop's branch escaped", o["artifact-name"])
		}
		id, _ := strconv.ParseInt(h.env["GITHUB_RUN_ID"], 10, 64)
		data, err := os.ReadFile(filepath.Join(loop.dir, ".loopbreaker", "record.json"))
		if err != nil {
			t.Fatal(err)
		}
		h.fake.AddRun("octo", "loop", fakegithub.Run{ID: id, HeadBranch: "main", HeadSHA: loop.base, CreatedAt: h.now})
		h.fake.AddArtifact("octo", "loop", id, o["artifact-name"], recordZip(t, ledger.Decode(data, "record.json").Records), false)
		// Another loop's newer run, on main too, whose record passes tests.
		other := []ledger.Record{{Version: 1, RunID: id + 500, RunAttempt: 1, Iteration: 1, Commit: loop.head, At: h.now.Add(time.Minute), Tests: &ledger.Tests{Passed: 50}}}
		h.fake.AddRun("octo", "loop", fakegithub.Run{ID: id + 500, HeadBranch: "main", HeadSHA: loop.base, CreatedAt: h.now.Add(time.Minute)})
		h.fake.AddArtifact("octo", "loop", id+500, "loopbreaker-record-agent%2Fother", recordZip(t, other), false)
		h.nextRun()
		if code == exitOpen {
			break
		}
	}
	if got := states[len(states)-1]; got != "OPEN" || len(states) > 4 {
		t.Errorf("runs without a bundle: got states %v, want OPEN within four runs", states)
	}
}
