package loop

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/note"
)

// TestGitNoteCodes: the notes of the git reader and of the ledger's
// iterations get their codes; an unknown one is git_history.
func TestGitNoteCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want note.Code
	}{
		{"shallow clone: 3 of 4 iterations visible", note.ShallowClone},
		{"commit 0123456789ab: counted as changed without reading a.bin (blob 0123 is not in the repository)", note.Unreadable},
		{"task file fix_plan.md was not read: blob 0123 is not in the repository", note.Unreadable},
		{"task files under d/d were not searched: nested deeper than 256 directories", note.Unreadable},
		{"run 3: commit 0123456789ab is not in the repository (force-pushed or not fetched); counted as an iteration without change", note.LedgerCommitMissing},
		{"something else about the history", note.GitHistory},
	}
	for _, tt := range tests {
		got := gitNotes([]string{tt.text})
		if len(got) != 1 || got[0].Code != tt.want || got[0].Text != tt.text {
			t.Errorf("gitNotes(%q): got %+v, want code %s", tt.text, got, tt.want)
		}
	}
}
