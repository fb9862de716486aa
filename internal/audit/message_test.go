package audit

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/github"
)

func TestAPICommitsCarryPhaseAndClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	list := []github.PullCommit{
		{SHA: sha(1, 0), Tree: "t1", Message: "red\n\nLoop-Phase: RED\n", At: t0},
		{SHA: sha(1, 1), Tree: "t1", Message: "empty", At: t0.Add(-time1)}, // same tree: no change; clock skew
		{SHA: sha(1, 2), Tree: "t2", Message: "All tasks complete\n\nLoop-Progress: 100%\n", At: t0.Add(time1)},
		{SHA: sha(1, 3), Tree: "t1", Message: "Revert \"x\"", At: t0.Add(2 * time1)},
	}
	p := &github.Pull{BaseSHA: sha(0, 0)}
	s := newAPISource(list, false, p, e.pathsFor(t))
	its, _, err := s.iterations(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != 4 {
		t.Fatalf("got %d iterations, want 4", len(its))
	}
	if its[0].Phase != "RED" || its[0].Change.MeaningfulFiles != 1 {
		t.Errorf("first: got phase %q, files %d", its[0].Phase, its[0].Change.MeaningfulFiles)
	}
	// The commit's own date: the fold takes it at the first one's time.
	if its[1].Change.MeaningfulFiles != 0 || !its[1].At.Equal(t0.Add(-time1)) {
		t.Errorf("second (same tree, earlier clock): got files %d at %v", its[1].Change.MeaningfulFiles, its[1].At)
	}
	if !its[2].CompletionClaimed || its[2].ProgressPercent == nil || *its[2].ProgressPercent != 100 {
		t.Errorf("third: got claim %v, percent %v", its[2].CompletionClaimed, its[2].ProgressPercent)
	}
	if !its[3].Change.Reverted || its[3].Change.Tree != "t1" {
		t.Errorf("fourth: got %+v, want a revert back to tree t1", its[3].Change)
	}
}

func TestAPIHeadPastTheListedCommits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	list := []github.PullCommit{{SHA: sha(1, 0), Tree: "t1", Message: "one", At: t0}, {SHA: sha(1, 1), Tree: "t1", Message: "two", At: t0.Add(time1)}}
	s := newAPISource(list, true, &github.Pull{HeadSHA: sha(1, 9)}, e.pathsFor(t))
	its, notes, err := s.iterations(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(its) != 3 || its[2].Commit != sha(1, 9) || its[2].Change.MeaningfulFiles != 1 || !its[2].At.Equal(t0.Add(time1)) {
		t.Errorf("got %d iterations, the last %+v; want the head as a third with its change credited", len(its), its[len(its)-1])
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "at most 250 commits") || !strings.Contains(joined, "is not among the commits GitHub listed") {
		t.Errorf("notes %q do not say what was not visible", notes)
	}
}
