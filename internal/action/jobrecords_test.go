package action

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// TestIterationsOfOneJobKeepTheirRecords: the action run once per
// iteration inside one job (one run id, no artifact of it yet) rewrote the
// record file each time from the commits alone, so that iterations that
// made no commit never counted. Each iteration now takes up the records
// the earlier ones left, numbered within the run: stuck iterations open
// the breaker, and every record is kept.
func TestIterationsOfOneJobKeepTheirRecords(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, newLoop(t, map[string]string{"a.go": "package main\n"}, map[string]string{"b.go": "package main\n"}))
	code := 0
	for i := range 5 {
		h.now = h.now.Add(time.Duration(i) * time.Minute)
		if code = h.run(); i == 0 && code != exitContinue {
			t.Fatalf("first iteration: got exit %d, want %d\n%s", code, exitContinue, h.log.String())
		}
	}
	if o := h.outputs(); code != exitOpen || o["state"] != "OPEN" || o["trigger"] != "no_progress" {
		t.Errorf("after 4 iterations without a commit: exit %d, state %s, trigger %s; want %d, OPEN, no_progress\n%s",
			code, o["state"], o["trigger"], exitOpen, h.log.String())
	}
	data, err := os.ReadFile(filepath.Join(h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.Decode(data, "record.json")
	var mine []int
	for _, r := range l.Records {
		if r.RunID == 100 {
			mine = append(mine, r.Iteration)
		}
	}
	if len(l.Problems) > 0 || len(mine) != 5 || mine[0] != 1 || mine[4] != 5 {
		t.Errorf("got records of run 100 numbered %v (problems %v), want 1 to 5", mine, l.Problems)
	}
}
