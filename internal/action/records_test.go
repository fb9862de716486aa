package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// TestOnlyThisWorkflowsRecordsCount: beside the loop's own record (run 100
// of loop.yml), newer record artifacts on the same branch name say the
// loop is one clean iteration old: another workflow's, and a fork's
// branch of the same name run by loop.yml, and many more of other
// workflows. The run reads its own workflow's on its own head repository,
// stays OPEN, and lists a constant number of times.
func TestOnlyThisWorkflowsRecordsCount(t *testing.T) {
	t.Parallel()
	const wf = ".github/workflows/loop.yml"
	h := newHTTPHarness(t, stagnant(t))
	h.env["GITHUB_WORKFLOW_REF"] = "octo/loop/" + wf + "@refs/heads/main"
	if code := h.run(); code != exitOpen {
		t.Fatalf("first run: got exit %d, want %d", code, exitOpen)
	}
	data, err := os.ReadFile(filepath.Join(h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	own := ledger.Decode(data, "record.json").Records
	h.fake.AddRun("octo", "loop", fakegithub.Run{ID: 100, Path: wf, HeadBranch: "agent/loop", HeadSHA: h.loop.head, Event: "pull_request", CreatedAt: h.now})
	h.fake.AddArtifact("octo", "loop", 100, "loopbreaker-record", recordZip(t, own), false)

	clean := []ledger.Record{{Version: ledger.Version, RunID: 200, RunAttempt: 1, Commit: h.loop.head, At: h.now.Add(time.Minute), Errors: []ledger.Error{}}}
	forged := recordZip(t, clean)
	h.fake.AddRun("octo", "loop", fakegithub.Run{ID: 200, Path: ".github/workflows/other.yml", HeadBranch: "agent/loop", HeadSHA: h.loop.head, Event: "push", CreatedAt: h.now.Add(time.Minute)})
	h.fake.AddArtifact("octo", "loop", 200, "loopbreaker-record", forged, false)
	h.fake.AddRun("octo", "loop", fakegithub.Run{ID: 201, Path: wf, HeadBranch: "agent/loop", HeadSHA: h.loop.head, HeadRepo: "mallory/loop", Event: "pull_request", CreatedAt: h.now.Add(2 * time.Minute)})
	h.fake.AddArtifact("octo", "loop", 201, "loopbreaker-record", forged, false)
	for i := int64(0); i < 450; i++ {
		h.fake.AddRun("octo", "loop", fakegithub.Run{ID: 300 + i, Path: ".github/workflows/nightly.yml", HeadBranch: "main", HeadSHA: h.loop.base, Event: "schedule", CreatedAt: h.now})
		h.fake.AddArtifact("octo", "loop", 300+i, "loopbreaker-record", forged, false)
	}

	h.nextRun()
	h.fake.ResetCalls()
	if code := h.run(); code != exitOpen {
		t.Fatalf("second run: got exit %d, want %d: another loop's record was read\n%s", code, exitOpen, h.summaryText())
	}
	if s := h.summaryText(); !strings.Contains(s, "run 100's artifact") {
		t.Errorf("the summary does not say the record came from run 100:\n%s", s)
	}
	if n := h.fake.CallsTo("GET", "/repos/octo/loop/actions/"); n > 1+runsRead+1 {
		t.Errorf("got %d artifact calls, want at most %d: %v", n, 1+runsRead+1, h.fake.CallLog())
	}
}
