package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// openLife is a pull request's life against the HTTP fake up to OPEN: a
// run with progress, then three without (the labels already in the
// repository, a maintainer with write access).
func openLife(t *testing.T) *budgetLife {
	t.Helper()
	b := newBudgetLife(t)
	h := b.h
	b.push(progress(1))
	b.runOnce()
	for i := 0; i < 3; i++ {
		b.push(nil)
		b.runOnce()
	}
	if got := h.fake.IssueLabels("octo", "loop", 7); !contains(got, present.LabelOpen) {
		t.Fatalf("the life did not open: labels %v\n%s", got, h.summaryText())
	}
	return b
}

// recordCount is the number of records in the run's record file.
func recordCount(t *testing.T, h *harness) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	return len(ledger.Decode(data, "record.json").Records)
}

// TestCommandRunIsNotAnIteration: a run started by a person's
// /loopbreaker command (an issue_comment event) is not an iteration of the
// loop: it applies the command and reports the breaker's status
// at its time, adding no iteration and no record. After a reset the loop
// is CLOSED, the open label goes and no half-open label comes; the loop's
// next run is the first iteration in the watch after the reset.
func TestCommandRunIsNotAnIteration(t *testing.T) {
	t.Parallel()
	b := openLife(t)
	h := b.h
	before := h.outputs()
	records := recordCount(t, h)

	b.comment("/loopbreaker reset")
	calls, state := b.runOnce()
	o := h.outputs()
	if state != "CLOSED" || o["iteration"] != before["iteration"] || o["allow-continue"] != "true" {
		t.Errorf("the reset's run: got %s at iteration %s, want CLOSED at %s (no iteration of its own)\n%s",
			state, o["iteration"], before["iteration"], h.summaryText())
	}
	if n := recordCount(t, h); n != records {
		t.Errorf("the reset's run wrote %d records, want the %d it read", n, records)
	}
	if got := h.fake.IssueLabels("octo", "loop", 7); contains(got, present.LabelOpen) || contains(got, present.LabelHalfOpen) {
		t.Errorf("after the reset: labels %v, want neither loopbreaker label", got)
	}
	comments := h.fake.Comments("octo", "loop", 7)
	var sticky string
	for _, c := range comments {
		if strings.Contains(c.Body, present.Marker) {
			sticky = c.Body
		}
	}
	if !strings.Contains(sticky, "loopbreaker: CLOSED") {
		t.Errorf("the sticky comment was not updated to the reset:\n%.1500s", sticky)
	}
	if st := h.fake.Statuses("octo", "loop", h.loop.head); len(st) == 0 || st[len(st)-1].State != "success" {
		t.Errorf("the head's status after the reset: %+v, want success last", st)
	}
	if len(calls) > 7 {
		t.Errorf("the reset's run made %d calls: %q", len(calls), calls)
	}

	// The loop's next run, still without progress, is the first iteration
	// after the reset: watched.
	b.push(nil)
	b.runOnce()
	o = h.outputs()
	if o["state"] != "HALF_OPEN" || !strings.Contains(o["reason"], "watch after recovery") {
		t.Errorf("the next iteration: got %s (%s), want HALF_OPEN in the watch after recovery", o["state"], o["reason"])
	}
	if got, want := o["iteration"], before["iteration"]; got == want {
		t.Errorf("the next iteration kept iteration %s", got)
	}
}

// TestCommentRunWithoutCommandChangesNothing: any other comment starts a
// run too; it reports the same state and iteration as the loop's last
// run, with the ledger unchanged.
func TestCommentRunWithoutCommandChangesNothing(t *testing.T) {
	t.Parallel()
	b := openLife(t)
	h := b.h
	before := h.outputs()
	records := recordCount(t, h)
	id := h.fake.AddComment("octo", "loop", 7, "reviewer", "User", "looks stuck to me", h.now)
	payload, ref, err := h.fake.IssueCommentEvent("octo", "loop", 7, id)
	if err != nil {
		t.Fatal(err)
	}
	h.httpEvent("issue_comment", payload, ref)
	b.runOnce()
	o := h.outputs()
	if o["state"] != "OPEN" || o["iteration"] != before["iteration"] || recordCount(t, h) != records {
		t.Errorf("got %s at iteration %s with %d records, want OPEN at %s with %d", o["state"], o["iteration"], recordCount(t, h), before["iteration"], records)
	}
	if got := h.fake.IssueLabels("octo", "loop", 7); !contains(got, present.LabelOpen) {
		t.Errorf("labels %v, want loopbreaker:open kept", got)
	}
}
