package action

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// prLife is a pull request's life against the HTTP fake: every
// run is an iteration of the loop on a new commit, its payload carrying
// the pull request's labels as they are, and the ledger the sticky
// comment's digest the runs before it left.
type prLife struct {
	t    *testing.T
	h    *harness
	runs int64
}

// newPRLife is a stagnant loop's pull request, with a maintainer who may
// write; its first run opens the breaker.
func newPRLife(t *testing.T) *prLife {
	t.Helper()
	l := &prLife{t: t, h: newHarness(t, stagnant(t))}
	l.h.permission("maintainer", "write")
	l.h.permission("reader", "read")
	if o := l.run(); o["state"] != "OPEN" {
		t.Fatalf("the first run: got %s, want OPEN\n%s", o["state"], l.h.summaryText())
	}
	return l
}

// setLabels puts labels on the pull request (a person's edit) and in the
// next run's payload.
func (l *prLife) setLabels(labels []string) {
	h := l.h
	h.fake.AddPull("octo", "loop", h.pull(labels))
	h.editEvent(func(ev map[string]any) {
		pr := ev["pull_request"].(map[string]any)
		pr["labels"] = labelObjects(labels)
		pr["head"].(map[string]any)["sha"] = h.loop.head
	})
}

// unlabel is a person taking the open label off the pull request half an
// hour after the last run.
func (l *prLife) unlabel(login, userType string) {
	labels := slices.DeleteFunc(l.h.labels(7), func(s string) bool { return s == present.LabelOpen })
	l.h.labelEvent(7, "unlabeled", present.LabelOpen, login, userType, l.h.now.Add(30*time.Minute))
	l.setLabels(labels)
}

// run is the loop's next run, an hour after the last, and its outputs.
func (l *prLife) run() map[string]string {
	l.t.Helper()
	h := l.h
	l.runs++
	h.env["GITHUB_RUN_ID"] = fmt.Sprint(100 + l.runs)
	h.now = h.now.Add(time.Hour)
	l.setLabels(h.labels(7))
	h.fake.ResetCalls()
	if code := h.run(); code == exitError {
		l.t.Fatalf("run %d: exit %d\n%s", l.runs, code, h.log.String())
	}
	return h.outputs()
}

// iterate is the loop's next iteration: an empty commit, then its run.
func (l *prLife) iterate() map[string]string {
	l.t.Helper()
	commitTo(l.t, l.h.loop, fmt.Sprintf("iteration after run %d", l.runs), nil)
	return l.run()
}

// openedAt is the decision's opened_at.
func openedAt(t *testing.T, o map[string]string) string {
	t.Helper()
	var d struct {
		OpenedAt *time.Time `json:"opened_at"`
	}
	if err := json.Unmarshal([]byte(o["decision"]), &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenedAt == nil {
		return ""
	}
	return d.OpenedAt.UTC().Format(time.RFC3339)
}

// reopen runs iterations until the breaker is OPEN again, and returns the
// outputs of the run that opened it.
func (l *prLife) reopen() map[string]string {
	l.t.Helper()
	for i := 0; i < 6; i++ {
		if o := l.iterate(); o["state"] == "OPEN" {
			return o
		}
	}
	l.t.Fatalf("the loop did not open again\n%s", l.h.summaryText())
	return nil
}

// TestLabelResetIsNotForgottenWhenTheLabelComesBack: a person resets the
// OPEN breaker by taking the open label off; the loop stalls and opens
// again, and the label is back. The runs after that must still fold the
// person's reset: OPEN since the second opening, not since the first,
// with only the iterations since then run while OPEN.
func TestLabelResetIsNotForgottenWhenTheLabelComesBack(t *testing.T) {
	t.Parallel()
	l := newPRLife(t)
	l.unlabel("maintainer", "User")
	if o := l.iterate(); o["state"] == "OPEN" {
		t.Fatalf("the iteration after the reset: got OPEN, want the reset applied\n%s", l.h.summaryText())
	}
	o := l.reopen()
	opened := openedAt(t, o)
	if o["ignored-open"] != "0" {
		t.Errorf("the run that opened again: got ignored-open %s, want 0", o["ignored-open"])
	}
	if !contains(l.h.labels(7), present.LabelOpen) {
		t.Fatalf("the open label is not back: %v", l.h.labels(7))
	}
	for i := 1; i <= 2; i++ {
		o := l.iterate()
		if o["state"] != "OPEN" || openedAt(t, o) != opened || o["ignored-open"] != fmt.Sprint(i) {
			t.Errorf("iteration %d after opening again: got %s opened at %s with ignored-open %s, want OPEN at %s with %d\n%s",
				i, o["state"], openedAt(t, o), o["ignored-open"], opened, i, l.h.summaryText())
		}
		if n := l.h.calls("GET", `/issues/\d+/events`); n != 1 {
			t.Errorf("iteration %d after opening again: read the label events %d times, want once", i, n)
		}
	}

	// A second reset by the label, and a third opening: both resets are
	// folded, and the records say so.
	l.unlabel("maintainer", "User")
	if o := l.iterate(); o["state"] == "OPEN" {
		t.Fatalf("the iteration after the second reset: got OPEN\n%s", l.h.summaryText())
	}
	if recs := l.records(); len(recs[len(recs)-1].LabelResets) != 2 {
		t.Errorf("the record after the second reset claims %+v, want both resets", recs[len(recs)-1].LabelResets)
	}
	opened = openedAt(t, l.reopen())
	o = l.iterate()
	if o["state"] != "OPEN" || openedAt(t, o) != opened || o["ignored-open"] != "1" {
		t.Errorf("after the third opening: got %s opened at %s with ignored-open %s, want OPEN at %s with 1\n%s",
			o["state"], openedAt(t, o), o["ignored-open"], opened, l.h.summaryText())
	}
}

// records are the records the last run wrote.
func (l *prLife) records() []ledger.Record {
	l.t.Helper()
	data, err := os.ReadFile(filepath.Join(l.h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		l.t.Fatal(err)
	}
	return ledger.Decode(data, "record.json").Records
}

// forge is the agent rewriting the sticky comment's digest (its token may
// edit the comment) so that the newest record claims the label resets.
func (l *prLife) forge(claims []ledger.LabelReset) {
	l.t.Helper()
	recs := l.records()
	was, _ := present.EncodeDigest(recs)
	recs[len(recs)-1].LabelResets = claims
	forged, _ := present.EncodeDigest(recs)
	sticky := l.h.comments(7)
	i := slices.IndexFunc(sticky, func(c fakegithub.Comment) bool { return strings.Contains(c.Body, was) })
	if i < 0 || was == "" {
		l.t.Fatal("no sticky comment carries the last run's digest")
	}
	body := strings.Replace(sticky[i].Body, was, forged, 1)
	if _, err := l.h.client().UpsertComment(context.Background(), 7, sticky[i].ID, github.Sticky{Marker: present.Marker}, body); err != nil {
		l.t.Fatal(err)
	}
}

// TestForgedLabelResetIsIgnored: the agent claims, in the ledger, a reset
// by the label that no label event shows (a person's, one by someone who
// may not reset, one before the breaker opened). The claim costs one read
// of the label events and changes nothing: the breaker stays OPEN since
// it opened, and the run's own record drops the claim, so that the next
// run reads nothing.
func TestForgedLabelResetIsIgnored(t *testing.T) {
	t.Parallel()
	l := newPRLife(t)
	o := l.iterate()
	opened := openedAt(t, o)
	if o["state"] != "OPEN" || o["ignored-open"] != "1" || l.h.calls("GET", `/issues/\d+/events`) != 0 {
		t.Fatalf("the iteration after opening: got %s with ignored-open %s, %d reads of the label events; want OPEN with 1, none",
			o["state"], o["ignored-open"], l.h.calls("GET", `/issues/\d+/events`))
	}
	l.h.labelEvent(7, "unlabeled", present.LabelOpen, "reader", "User", l.h.now.Add(10*time.Minute))
	l.h.labelEvent(7, "unlabeled", present.LabelOpen, "maintainer", "User", start.Add(15*time.Minute))
	l.forge([]ledger.LabelReset{{At: l.h.now.Add(20 * time.Minute), By: "maintainer"}, {At: l.h.now.Add(10 * time.Minute), By: "reader"},
		{At: start.Add(15 * time.Minute), By: "maintainer"}})
	o = l.iterate()
	if o["state"] != "OPEN" || openedAt(t, o) != opened || o["ignored-open"] != "2" {
		t.Errorf("a forged claim: got %s opened at %s with ignored-open %s, want OPEN at %s with 2\n%s",
			o["state"], openedAt(t, o), o["ignored-open"], opened, l.h.summaryText())
	}
	if n := l.h.calls("GET", `/issues/\d+/events`); n != 1 {
		t.Errorf("a forged claim: read the label events %d times, want once", n)
	}
	if recs := l.records(); len(recs[len(recs)-1].LabelResets) > 0 {
		t.Errorf("the run's record passes the forged claim on: %+v", recs[len(recs)-1].LabelResets)
	}
	o = l.iterate()
	if o["state"] != "OPEN" || openedAt(t, o) != opened || o["ignored-open"] != "3" {
		t.Errorf("the run after: got %s opened at %s with ignored-open %s, want OPEN at %s with 3", o["state"], openedAt(t, o), o["ignored-open"], opened)
	}
	if n := l.h.calls("GET", `/issues/\d+/events`); n != 0 {
		t.Errorf("the run after: read the label events %d times, want none", n)
	}
}

// TestLabelResetClaimOutlivesAFailedRead: when the label events cannot be
// read, the run decides without the reset (with a warning) and passes on
// the claim it read, so that the next run reads them again and folds the
// reset.
func TestLabelResetClaimOutlivesAFailedRead(t *testing.T) {
	t.Parallel()
	l := newPRLife(t)
	l.unlabel("maintainer", "User")
	l.iterate()
	opened := openedAt(t, l.reopen())
	// Once, with the client's retries.
	l.h.fake.Inject("GET", "/repos/octo/loop/issues/7/events", fakegithub.Fault{Status: 500, Times: github.DefaultMaxRetries + 1})
	o := l.iterate()
	if o["state"] != "OPEN" || !strings.Contains(l.h.log.String(), "list label events") {
		t.Errorf("the run whose read failed: got %s, want OPEN with a warning\n%s", o["state"], l.h.log.String())
	}
	if recs := l.records(); len(recs[len(recs)-1].LabelResets) != 1 {
		t.Errorf("the run whose read failed claims %+v, want the claim it read", recs[len(recs)-1].LabelResets)
	}
	o = l.iterate()
	if o["state"] != "OPEN" || openedAt(t, o) != opened || o["ignored-open"] != "2" {
		t.Errorf("the run after: got %s opened at %s with ignored-open %s, want OPEN at %s with 2\n%s",
			o["state"], openedAt(t, o), o["ignored-open"], opened, l.h.summaryText())
	}
}
