package evidence_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// ledgerLoop is a loop of three commits after its base, with one task of
// four checked at the base, one more at the first commit and one more at
// the third; the third commit says its phase in a trailer.
type ledgerLoop struct {
	repo             *gitlog.Repo
	base, c1, c2, c3 string
	baseTree, c2Tree string
	c2At, c3At       time.Time
	opts             gitlog.Options
}

func newLedgerLoop(t *testing.T) *ledgerLoop {
	t.Helper()
	r := newLoopRepo(t)
	l := &ledgerLoop{}
	r.write("main.go", "package main\n\nfunc main() {}\n").plan(1, 4)
	l.base = r.commit("start")
	r.write("src/a.go", "package src\n\nvar A = 1\n").plan(2, 4)
	l.c1 = r.commit("add a")
	r.write("src/b.go", "package src\n\nvar B = 2\n")
	l.c2 = r.commit("add b")
	r.write("src/c.go", "package src\n\nvar C = 3\n").plan(3, 4)
	l.c3 = r.commit("add c\n\nLoop-Phase: red")
	l.repo = r.open()
	l.opts = options(t, l.base)
	for _, c := range []struct {
		rev  string
		tree *string
		at   *time.Time
	}{{l.base, &l.baseTree, nil}, {l.c2, &l.c2Tree, &l.c2At}, {l.c3, nil, &l.c3At}} {
		d, err := l.repo.Describe(c.rev)
		if err != nil {
			t.Fatalf("describe %s: %v", c.rev, err)
		}
		if c.tree != nil {
			*c.tree = d.Tree
		}
		if c.at != nil {
			*c.at = d.At.UTC()
		}
	}
	return l
}

// record is run id's record of commit, an hour after t0 plus id minutes.
func record(id int64, commit string) ledger.Record {
	return ledger.Record{Version: ledger.Version, RunID: id, RunAttempt: 1, Commit: commit, At: t0.Add(time.Hour + time.Duration(id)*time.Minute)}
}

// iterSummary is what the ledger tests compare of an iteration.
type iterSummary struct {
	Run           int64
	At            time.Time
	Commit        string
	CommitAt      time.Time
	Tree          string
	Files         []string
	Tasks         string
	TasksBefore   string
	Checked       int
	CheckedBefore int
	Phase         string
}

func summarise(its []breaker.Iteration) []iterSummary {
	out := make([]iterSummary, 0, len(its))
	for _, it := range its {
		s := iterSummary{Run: it.RunID, At: it.At, Commit: it.Commit, CommitAt: it.CommitAt, Tasks: "nil", TasksBefore: deref(it.TasksBefore),
			CheckedBefore: len(it.TasksCheckedBefore), Phase: it.Phase}
		if c := it.Change; c != nil {
			s.Tree, s.Files = c.Tree, c.Files
		}
		if it.Tasks != nil {
			s.Tasks = fmt.Sprintf("%d/%d", it.Tasks.Done, it.Tasks.Total)
		}
		if it.TaskChange != nil {
			s.Checked = len(it.TaskChange.Checked)
		}
		out = append(out, s)
	}
	return out
}

func TestLedgerRecordsAreIterations(t *testing.T) {
	t.Parallel()
	l := newLedgerLoop(t)
	gone := strings.Repeat("f", 40)
	recs := []ledger.Record{record(101, l.c2), record(102, ""), record(103, missing), record(104, l.c3), record(105, l.c3), record(106, gone)}
	ev, err := evidence.ContinueLedger(l.repo, evidence.LedgerStart{Commit: l.base, First: true}, recs, l.opts)
	if err != nil {
		t.Fatalf("ContinueLedger: %v", err)
	}
	at := func(id int64) time.Time { return recs[id-101].At }
	want := []iterSummary{
		// The first record covers both commits since the base; the task
		// file is not a changed file, its tick is a checked task.
		{Run: 101, At: at(101), Commit: l.c2, CommitAt: l.c2At, Tree: l.c2Tree, Files: []string{"src/a.go", "src/b.go"}, Tasks: "2/4", TasksBefore: "1", Checked: 1, CheckedBefore: 1},
		// A run without a commit: the previous tree and tasks, no change.
		{Run: 102, At: at(102), Tree: l.c2Tree, Tasks: "2/4", TasksBefore: "2"},
		// A commit the repository does not hold: an iteration without
		// change and without tasks.
		{Run: 103, At: at(103), Commit: missing, Tree: l.c2Tree, Tasks: "nil", TasksBefore: "2"},
		// Diffed from the last commit read, not from the missing one.
		{Run: 104, At: at(104), Commit: l.c3, CommitAt: l.c3At, Tree: l.c3Tree(t), Files: []string{"src/c.go"}, Tasks: "3/4", TasksBefore: "2", Checked: 1, Phase: "RED"},
		// The same commit again: no change, its tasks.
		{Run: 105, At: at(105), Commit: l.c3, Tree: l.c3Tree(t), Tasks: "3/4", TasksBefore: "3"},
		{Run: 106, At: at(106), Commit: gone, Tree: l.c3Tree(t), Tasks: "nil", TasksBefore: "3"},
	}
	if diff := cmp.Diff(want, summarise(ev.Iterations)); diff != "" {
		t.Errorf("iterations (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"run 103: commit 0123456789ab is not in the repository (force-pushed or not fetched); counted as an iteration without change",
		"run 106: commit ffffffffffff is not in the repository (force-pushed or not fetched); counted as an iteration without change",
	}
	if diff := cmp.Diff(wantNotes, ev.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 0, 1, 1, 1, 2}, ev.NotesAfter); diff != "" {
		t.Errorf("notes after each iteration (-want +got):\n%s", diff)
	}
	if got := ev.StartTasks; got == nil || *got != (gitlog.Tasks{Done: 1, Total: 4}) {
		t.Errorf("got start tasks %+v, want 1/4", got)
	}
}

func (l *ledgerLoop) c3Tree(t *testing.T) string {
	t.Helper()
	d, err := l.repo.Describe(l.c3)
	if err != nil {
		t.Fatal(err)
	}
	return d.Tree
}

func TestLedgerRecordFieldsApplied(t *testing.T) {
	t.Parallel()
	l := newLedgerLoop(t)
	pct := 55.0
	r := record(7, l.c3)
	r.RunAttempt = 2
	r.Phase = "GREEN" // the record's phase wins over the commit's trailer
	r.Tests = &ledger.Tests{Passed: 3, Failed: 1, Failing: []string{"TestX"}}
	r.Errors = []ledger.Error{{Hash: strings.Repeat("a", 64), Sample: "boom"}}
	r.Output = &ledger.Output{Lines: 12, Bytes: 340}
	r.PermissionDenials = 2
	r.ProgressPercent = &pct
	r.Tasks = &ledger.Tasks{Done: 9, Total: 9} // git's count wins
	its, notes, err := evidence.FromLedger(l.repo, l.base, []ledger.Record{r}, l.opts)
	if err != nil {
		t.Fatalf("FromLedger: %v", err)
	}
	if len(notes) != 0 {
		t.Errorf("got notes %q, want none", notes)
	}
	if len(its) != 1 {
		t.Fatalf("got %d iterations, want 1", len(its))
	}
	it := its[0]
	got := fmt.Sprintf("run %d.%d phase %s tests %+v errors %+v output %+v denials %d progress %v tasks %+v known %v",
		it.RunID, it.RunAttempt, it.Phase, *it.Tests, it.Errors, *it.Output, it.PermissionDenials, *it.ProgressPercent, *it.Tasks, it.ErrorsKnown)
	want := fmt.Sprintf("run 7.2 phase GREEN tests {Passed:3 Failed:1 Skipped:0 BuildFailed:false Failing:[TestX]} errors [{Hash:%s Sample:boom Test:}] output {Lines:12 Bytes:340} denials 2 progress 55 tasks {Done:3 Total:4} known true",
		strings.Repeat("a", 64))
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if diff := cmp.Diff([]string{"src/a.go", "src/b.go", "src/c.go"}, it.Change.Files); diff != "" {
		t.Errorf("one record covers every commit since the base (-want +got):\n%s", diff)
	}
}

// A fold that goes on from an earlier record's commit, with the task count
// that record carried, reads the later records as the whole fold does.
func TestContinueLedgerFromACheckpointReadsAsTheWholeLedger(t *testing.T) {
	t.Parallel()
	l := newLedgerLoop(t)
	recs := []ledger.Record{record(1, l.c1), record(2, ""), record(3, l.c2), record(4, missing), record(5, ""), record(6, l.c3)}
	whole, err := evidence.ContinueLedger(l.repo, evidence.LedgerStart{Commit: l.base, First: true}, recs, l.opts)
	if err != nil {
		t.Fatalf("whole ledger: %v", err)
	}
	for k := range recs {
		if recs[k].Commit == "" || recs[k].Commit == missing {
			continue // a checkpoint is kept at a record that was read
		}
		t.Run(fmt.Sprintf("from run %d", recs[k].RunID), func(t *testing.T) {
			start := evidence.LedgerStart{Commit: recs[k].Commit, TasksBefore: &whole.Iterations[k].Tasks.Done}
			part, err := evidence.ContinueLedger(l.repo, start, recs[k+1:], l.opts)
			if err != nil {
				t.Fatalf("ContinueLedger: %v", err)
			}
			if diff := cmp.Diff(whole.Iterations[k+1:], part.Iterations); diff != "" {
				t.Errorf("iterations (-whole +continued):\n%s", diff)
			}
			if diff := cmp.Diff(whole.Notes[whole.NotesAfter[k]:], part.Notes, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("notes (-whole +continued):\n%s", diff)
			}
		})
	}
}

func TestLedgerStart(t *testing.T) {
	t.Parallel()
	l := newLedgerLoop(t)
	tests := []struct {
		name  string
		start evidence.LedgerStart
		recs  []ledger.Record
		want  iterSummary // of the first iteration
	}{
		{
			name:  "base: the tasks checked there were done before the loop",
			start: evidence.LedgerStart{Commit: l.base, First: true},
			recs:  []ledger.Record{record(1, l.c1)},
			want:  iterSummary{Run: 1, Commit: l.c1, Files: []string{"src/a.go"}, Tasks: "2/4", TasksBefore: "1", Checked: 1, CheckedBefore: 1},
		},
		{
			name:  "base with a run without a commit: no tasks yet, the base's count before",
			start: evidence.LedgerStart{Commit: l.base, First: true},
			recs:  []ledger.Record{record(1, "")},
			want:  iterSummary{Run: 1, Tree: l.baseTree, Tasks: "nil", TasksBefore: "1", CheckedBefore: 1},
		},
		{
			name:  "root: every file is the first record's change",
			start: evidence.LedgerStart{First: true},
			recs:  []ledger.Record{record(1, l.c1)},
			want:  iterSummary{Run: 1, Commit: l.c1, Files: []string{"main.go", "src/a.go"}, Tasks: "2/4", TasksBefore: "nil", Checked: 2},
		},
		{
			name:  "earlier record: its count before, its tasks for a run without a commit",
			start: evidence.LedgerStart{Commit: l.c2, TasksBefore: intp(1)},
			recs:  []ledger.Record{record(1, "")},
			want:  iterSummary{Run: 1, Tree: l.c2Tree, Tasks: "2/4", TasksBefore: "1"},
		},
		{
			name:  "earlier record with an unknown count before",
			start: evidence.LedgerStart{Commit: l.c2},
			recs:  []ledger.Record{record(1, l.c3)},
			want:  iterSummary{Run: 1, Commit: l.c3, Files: []string{"src/c.go"}, Tasks: "3/4", TasksBefore: "nil", Checked: 1, Phase: "RED"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := evidence.ContinueLedger(l.repo, tt.start, tt.recs, l.opts)
			if err != nil {
				t.Fatalf("ContinueLedger: %v", err)
			}
			got := summarise(ev.Iterations)[0]
			got.At, got.CommitAt = time.Time{}, time.Time{}
			if got.Commit != "" {
				got.Tree = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("first iteration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLedgerStartNotInTheRepository(t *testing.T) {
	t.Parallel()
	l := newLedgerLoop(t)
	start := evidence.LedgerStart{Commit: missing, TasksBefore: intp(2)}

	// Records that need no range are read without the start.
	ev, err := evidence.ContinueLedger(l.repo, start, []ledger.Record{record(1, ""), record(2, missing)}, l.opts)
	if err != nil {
		t.Fatalf("records without a range: %v", err)
	}
	if got := summarise(ev.Iterations); len(got) != 2 || got[0].TasksBefore != "2" || got[1].TasksBefore != "2" {
		t.Errorf("got %+v, want two iterations with 2 tasks checked before", got)
	}

	// A record with a commit needs a range from the start.
	_, err = evidence.ContinueLedger(l.repo, start, []ledger.Record{record(1, ""), record(2, l.c1)}, l.opts)
	if !errors.Is(err, gitlog.ErrUnknownRevision) || !strings.Contains(err.Error(), missing) {
		t.Errorf("got error %v, want one naming %s as an unknown revision", err, missing)
	}
}

// An object the repository does not hold (a partial clone) makes its file
// a change of unknown content, with a note; the reading goes on.
func TestLedgerUnreadableObjectIsAChangeWithANote(t *testing.T) {
	t.Parallel()
	r := newLoopRepo(t)
	r.write("main.go", "package main\n")
	base := r.commit("start")
	r.write("src/big.go", "package src\n\nvar Big = 1\n")
	c1 := r.commit("add big")
	r.write("src/small.go", "package src\n")
	c2 := r.commit("add small")
	blob := r.blob("src/big.go")
	obj := filepath.Join(r.dir, ".git", "objects", blob[:2], blob[2:])
	if err := os.Chmod(obj, 0o644); err != nil { // a read-only file cannot be removed everywhere
		t.Fatalf("the blob of src/big.go is not a loose object: %v", err)
	}
	if err := os.Remove(obj); err != nil {
		t.Fatalf("remove the blob of src/big.go: %v", err)
	}
	ev, err := evidence.ContinueLedger(r.open(), evidence.LedgerStart{Commit: base, First: true}, []ledger.Record{record(1, c1), record(2, c2)}, options(t, base))
	if err != nil {
		t.Fatalf("ContinueLedger: %v", err)
	}
	got := summarise(ev.Iterations)
	if len(got) != 2 || !cmp.Equal(got[0].Files, []string{"src/big.go"}) || !cmp.Equal(got[1].Files, []string{"src/small.go"}) {
		t.Errorf("got %+v, want src/big.go then src/small.go changed", got)
	}
	if len(ev.Notes) == 0 || !strings.Contains(ev.Notes[0], "src/big.go") || !strings.Contains(ev.Notes[0], blob) {
		t.Errorf("got notes %q, want one naming src/big.go and blob %s", ev.Notes, blob)
	}
	if len(ev.NotesAfter) != 2 || ev.NotesAfter[0] != len(ev.Notes) {
		t.Errorf("got notes after %v of %d notes, want all of them with the first iteration", ev.NotesAfter, len(ev.Notes))
	}
}
