package agentlog

import (
	"strings"
	"testing"
)

// FuzzStatusBlock feeds arbitrary text inside Ralph's status block markers:
// whatever the agent writes there, the block's counts are non-negative,
// its percentage is within 0 to 100 and its text fields are bounded.
func FuzzStatusBlock(f *testing.F) {
	for _, s := range []string{
		"STATUS: COMPLETE\nTASKS_COMPLETED_THIS_LOOP: 3\nFILES_MODIFIED: 2\nTESTS_STATUS: PASSING\nWORK_TYPE: IMPLEMENTATION\nEXIT_SIGNAL: true\nRECOMMENDATION: ship it\n",
		"PROGRESS: NaN%\nPROGRESS_PERCENT: -0\nFILES_MODIFIED: -1\nTASKS_COMPLETED_THIS_LOOP: 99999999999999999999\n",
		"**STATUS**: `blocked`\n- EXIT_SIGNAL: maybe\n> PHASE: GREEN\nPROGRESS: 1e308 %\n",
		"---RALPH_STATUS---\nSTATUS: IN_PROGRESS\n",
		strings.Repeat("RECOMMENDATION: "+strings.Repeat("x", 2000)+"\n", 3),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		in := "work\n" + statusStart + "\n" + body + "\n" + statusEnd + "\n"
		l, err := Read(strings.NewReader(in), "fuzz.log")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.log") {
				t.Fatalf("error %q does not name the log", err)
			}
			return
		}
		if len(l.Notes) > MaxNotes {
			t.Fatalf("got %d notes", len(l.Notes))
		}
		st := l.Status
		if st == nil {
			return
		}
		if p := st.ProgressPercent; p != nil && !(*p >= 0 && *p <= 100) {
			t.Fatalf("got progress %v, want 0 to 100", *p)
		}
		for _, n := range []*int{st.TasksCompleted, st.FilesModified} {
			if n != nil && *n < 0 {
				t.Fatalf("got a negative count %d", *n)
			}
		}
		for _, s := range []string{st.Status, st.TestsStatus, st.WorkType, st.Phase, st.Recommendation} {
			if len(s) > MaxErrorLen {
				t.Fatalf("got a field of %d bytes, want at most %d", len(s), MaxErrorLen)
			}
		}
		if st.ClaimsCompletion() != (st.Status == "COMPLETE" || (st.ExitSignal != nil && *st.ExitSignal)) {
			t.Fatalf("completion claim disagrees with the block %+v", st)
		}
	})
}
