package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

var t0 = time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)

// stuckRepo has a base commit, one real change, then n empty commits, each
// ten minutes apart. It returns the directory and the base hash.
func stuckRepo(t *testing.T, n int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	var base string
	for i := 0; i < n+2; i++ {
		if i < 2 {
			os.WriteFile(filepath.Join(dir, "main.go"), []byte(strings.Repeat("// line\n", i+1)), 0o644)
			wt.Add("main.go")
		}
		sig := &object.Signature{Name: "a", Email: "a@example.com", When: t0.Add(time.Duration(i) * 10 * time.Minute)}
		h, err := wt.Commit("step", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			base = h.String()
		}
	}
	return dir, base
}

func states(ds []breaker.Decision) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.State.String())
	}
	return strings.Join(s, " ")
}

func TestControlsInterleaveByTime(t *testing.T) {
	t.Parallel()
	dir, base := stuckRepo(t, 5)
	p, _ := policy.Builtin("default")
	// Iterations at 10, 20, ... 60 minutes: progress, then five without.
	// The breaker opens at 40; a reset at 45 starts a new fold, which
	// counts the two stagnant iterations after it afresh, in the watch
	// after the reset: the first half-opens, the second opens.
	res, err := Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(2 * time.Hour),
		Controls: []Control{{At: t0.Add(45 * time.Minute), Kind: ControlReset, Reason: "try again"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := states(res.Decisions), "CLOSED CLOSED HALF_OPEN OPEN HALF_OPEN OPEN"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Without a ledger each commit iteration becomes a record too, so that
	// the next run folds the same iterations.
	if n := len(res.Records); n != 6 || res.Records[n-1].At != t0.Add(2*time.Hour) || res.Records[0].RunID != 0 {
		t.Errorf("got records %+v, want one per iteration, this run's last at the run's time", res.Records)
	}
}

func TestControlAfterTheLastIterationDecidesTheFinalState(t *testing.T) {
	t.Parallel()
	dir, base := stuckRepo(t, 3)
	p, _ := policy.Builtin("default")
	res, err := Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(2 * time.Hour),
		Controls: []Control{{At: t0.Add(90 * time.Minute), Kind: ControlReset, Reason: "a person reset it"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Final(); d.State != breaker.Closed || d.History[len(d.History)-1].Trigger != "reset" {
		t.Errorf("got final %s with last event %+v, want CLOSED after the reset", d.State, d.History[len(d.History)-1])
	}
	res, err = Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(2 * time.Hour),
		Controls: []Control{{At: t0, Kind: ControlForceOpen, Reason: "held"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Final(); d.State != breaker.Open || !d.ForcedOpen {
		t.Errorf("got %s forced %v, want a held OPEN", d.State, d.ForcedOpen)
	}
}

func TestLedgerRunsAreIterationsAndRerunsReplace(t *testing.T) {
	t.Parallel()
	dir, base := stuckRepo(t, 0)
	p, _ := policy.Builtin("default")
	l := &ledger.Ledger{Records: []ledger.Record{
		{Version: 1, RunID: 1, RunAttempt: 1, At: t0.Add(time.Hour)},
		{Version: 1, RunID: 2, RunAttempt: 1, At: t0.Add(2 * time.Hour)},
	}}
	res, err := Run(Config{Repo: dir, Base: base, Policy: p, Ledger: l, RunID: 2, Attempt: 2, Now: t0.Add(3 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// Run 2's earlier attempt is replaced by this run: runs 1 and 2.
	if len(res.Decisions) != 2 || len(res.Records) != 2 || res.Records[1].RunAttempt != 2 {
		t.Errorf("got %d decisions and records %+v, want 2 with run 2 attempt 2 last", len(res.Decisions), res.Records)
	}
}

func TestUnknownControlIsAnError(t *testing.T) {
	t.Parallel()
	dir, base := stuckRepo(t, 1)
	p, _ := policy.Builtin("default")
	if _, err := Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(time.Hour), Controls: []Control{{At: t0, Kind: 7}}}); err == nil || !strings.Contains(err.Error(), "unknown control ControlKind(7)") {
		t.Errorf("got %v, want an error naming the control", err)
	}
	if _, err := Run(Config{Repo: dir, Policy: nil}); err == nil {
		t.Errorf("no policy: got no error")
	}
}

// TestFutureDatedCommitCannotEndACooldown: commit dates are the agent's to
// write. A commit with a real change dated a day ahead would make ralph's
// 30-minute cooldown look over and be taken as a probe; it is taken at
// this run's time instead, inside the cooldown, and stays ignored while
// OPEN.
func TestFutureDatedCommitCannotEndACooldown(t *testing.T) {
	t.Parallel()
	dir, base := stuckRepo(t, 5)
	p, err := policy.Builtin("ralph")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(61 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Final()
	if d.State != breaker.Open || d.OpenedAt == nil {
		t.Fatalf("the stuck loop is %s under ralph, want OPEN: %s", d.State, states(res.Decisions))
	}
	now := d.OpenedAt.Add(10 * time.Minute) // well inside the cooldown
	r, _ := git.PlainOpen(dir)
	wt, _ := r.Worktree()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	wt.Add("main.go")
	sig := &object.Signature{Name: "a", Email: "a@example.com", When: now.Add(24 * time.Hour)}
	if _, err := wt.Commit("fix it, honestly", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	res, err = Run(Config{Repo: dir, Base: base, Policy: p, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Final(); d.State != breaker.Open {
		t.Errorf("got %s after a commit dated a day ahead, want OPEN: the cooldown was cut short (%s)", d.State, states(res.Decisions))
	}
	if !strings.Contains(strings.Join(note.Texts(res.Notes), "\n"), "after this run; its time was taken as "+now.UTC().Format(time.RFC3339)) {
		t.Errorf("no note on the future date: %q", res.Notes)
	}
}

// openHead opens the repository in dir and reads its HEAD.
func openHead(t *testing.T, dir string) (*git.Repository, *plumbing.Reference) {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Head()
	if err != nil {
		t.Fatal(err)
	}
	return r, head
}

// TestGitNotesHaveTheirCodes: the git history reader's notes reach the
// result with the code that names them.
func TestGitNotesHaveTheirCodes(t *testing.T) {
	t.Parallel()
	p, _ := policy.Builtin("default")
	run := func(t *testing.T, dir, base string) *Result {
		t.Helper()
		res, err := Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	tests := []struct {
		name string
		make func(t *testing.T) (dir, base string)
		want note.Code
	}{
		{"empty repository", func(t *testing.T) (string, string) {
			dir := t.TempDir()
			if _, err := git.PlainInit(dir, false); err != nil {
				t.Fatal(err)
			}
			return dir, ""
		}, note.EmptyRepository},
		{"HEAD on the default branch", func(t *testing.T) (string, string) {
			dir, _ := stuckRepo(t, 2)
			return dir, ""
		}, note.NoBase},
		{"no default branch", func(t *testing.T) (string, string) {
			dir, _ := stuckRepo(t, 2)
			r, head := openHead(t, dir)
			if err := r.Storer.SetReference(plumbing.NewHashReference("refs/heads/work", head.Hash())); err != nil {
				t.Fatal(err)
			}
			if err := r.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/work")); err != nil {
				t.Fatal(err)
			}
			if err := r.Storer.RemoveReference("refs/heads/master"); err != nil {
				t.Fatal(err)
			}
			return dir, ""
		}, note.NoDefaultBranch},
		{"shallow clone", func(t *testing.T) (string, string) {
			dir, base := stuckRepo(t, 3)
			r, head := openHead(t, dir)
			c, _ := r.CommitObject(head.Hash())
			if err := os.WriteFile(filepath.Join(dir, ".git", "shallow"), []byte(c.ParentHashes[0].String()+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// The history is cut: the listed commit's parent is not in
			// the clone (a shallow file alone hides nothing).
			p, _ := r.CommitObject(c.ParentHashes[0])
			cut := p.ParentHashes[0].String()
			if err := os.Remove(filepath.Join(dir, ".git", "objects", cut[:2], cut[2:])); err != nil {
				t.Fatal(err)
			}
			return dir, base
		}, note.ShallowClone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, base := tt.make(t)
			res := run(t, dir, base)
			if n, ok := note.Find(res.Notes, tt.want); !ok {
				t.Errorf("got notes %+v, want one with code %s", res.Notes, tt.want)
			} else if n.Text == "" {
				t.Errorf("the %s note has no text", tt.want)
			}
			for _, n := range res.Notes {
				if !n.Code.Known() {
					t.Errorf("note %q has the unknown code %q", n.Text, n.Code)
				}
			}
		})
	}
}

// TestStatusOnlyRunAddsNoIteration: a run that is not an iteration (a
// person's command) folds the ledger's records alone: a reset after the
// last one closes the breaker at the run's time, with no iteration of its
// own to count in the watch after it, and the ledger comes back unchanged.
// Without a ledger, the commits are the iterations and no record is made.
func TestStatusOnlyRunAddsNoIteration(t *testing.T) {
	t.Parallel()
	dir, base := stuckRepo(t, 0)
	_, head := openHead(t, dir)
	p, _ := policy.Builtin("default")
	var recs []ledger.Record
	for i := 1; i <= 4; i++ { // progress, then three runs without: OPEN
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(i), RunAttempt: 1, Commit: head.Hash().String(), At: t0.Add(time.Duration(i) * time.Hour), Errors: []ledger.Error{}})
	}
	reset := []Control{{At: t0.Add(5 * time.Hour), Kind: ControlReset, Reason: "reset by a person"}}
	cfg := Config{Repo: dir, Base: base, Policy: p, Ledger: &ledger.Ledger{Records: recs}, RunID: 9, Attempt: 1,
		Now: t0.Add(6 * time.Hour), Controls: reset, Reports: []string{filepath.Join(dir, "absent.xml")}, StatusOnly: true}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := states(res.Decisions), "CLOSED CLOSED HALF_OPEN CLOSED"; got != want {
		t.Errorf("got %s, want %s: four records, the last replaced by the status after the reset", got, want)
	}
	if d := res.Final(); d.Iteration != 4 || d.History[len(d.History)-1].Trigger != "reset" {
		t.Errorf("got iteration %d, last event %+v; want 4, the reset", d.Iteration, d.History[len(d.History)-1])
	}
	if len(res.Records) != len(recs) || res.Records[len(recs)-1].RunID != 4 {
		t.Errorf("got records %+v, want the ledger unchanged", res.Records)
	}
	if !strings.Contains(strings.Join(note.Texts(res.Notes), "\n"), "not an iteration") {
		t.Errorf("no note that the reports were not read: %q", res.Notes)
	}
	// The same run as an iteration: a fifth, without progress, in the
	// watch after the reset.
	cfg.StatusOnly, cfg.Reports = false, nil
	if res, err = Run(cfg); err != nil {
		t.Fatal(err)
	}
	if got, want := states(res.Decisions), "CLOSED CLOSED HALF_OPEN OPEN HALF_OPEN"; got != want {
		t.Errorf("as an iteration: got %s, want %s", got, want)
	}
	// No ledger: the commits, and nothing to record.
	res, err = Run(Config{Repo: dir, Base: base, Policy: p, Now: t0.Add(6 * time.Hour), StatusOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Decisions) != 1 || res.Records != nil {
		t.Errorf("without a ledger: got %d decisions and records %+v, want the one commit and none", len(res.Decisions), res.Records)
	}
}
