package audit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/github"
)

func TestParseMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want messageFacts
	}{
		{"subject only", "fix the parser\n", messageFacts{subject: "fix the parser"}},
		{"wrapped subject", "fix the\nparser\n\nbody", messageFacts{subject: "fix the parser"}},
		{"trailers", "step\n\nbody text\n\nLoop-Phase: green\nloop-progress: 40%\n", messageFacts{subject: "step",
			trailers: map[string][]string{"Loop-Phase": {"green"}, "Loop-Progress": {"40%"}}}},
		{"not all trailers", "step\n\nLoop-Phase: green\nsome prose here\n", messageFacts{subject: "step"}},
		{"the subject is never a trailer", "Loop-Phase: red\n", messageFacts{subject: "Loop-Phase: red"}},
		{"continuation", "step\n\nCo-authored-by: a\n  b\n", messageFacts{subject: "step", trailers: map[string][]string{"Co-Authored-By": {"a b"}}}},
		{"revert with hash", "Revert \"x\"\n\nThis reverts commit ABCDEF1234567.\n", messageFacts{subject: `Revert "x"`, revert: true, reverts: "abcdef1234567"}},
		{"revert subject", "Revert \"x\"\n", messageFacts{subject: `Revert "x"`, revert: true}},
		{"crlf", "done\r\n\r\nLoop-Phase: refactor\r\n", messageFacts{subject: "done", trailers: map[string][]string{"Loop-Phase": {"refactor"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := parseMessage(tt.msg)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(messageFacts{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPICommitsCarryPhaseAndClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	list := []github.PullCommit{
		{SHA: sha(1, 0), Tree: "t1", Message: "red\n\nLoop-Phase: RED\n", At: t0},
		{SHA: sha(1, 1), Tree: "t1", Message: "empty", At: t0.Add(-time1)}, // same tree: no change; clock skew
		{SHA: sha(1, 2), Tree: "t2", Message: "All tasks complete\n\nLoop-Progress: 100%\n", At: t0.Add(time1)},
		{SHA: sha(1, 3), Tree: "t1", Message: "Revert \"x\"", At: t0.Add(2 * time1)},
	}
	p := &github.AuditPull{BaseSHA: sha(0, 0)}
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
	if its[1].Change.MeaningfulFiles != 0 || its[1].At.Before(its[0].At) {
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
	s := newAPISource(list, true, &github.AuditPull{Pull: github.Pull{HeadSHA: sha(1, 9)}}, e.pathsFor(t))
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
