package loop

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/note"
)

// gitNoteCodes give the notes of the git history reader (and of the
// ledger's iterations, which it diffs) their codes: the first
// entry whose prefix and fragment the text has wins.
var gitNoteCodes = []struct {
	prefix, fragment string
	code             note.Code
}{
	{"run ", "force-pushed or not fetched", note.LedgerCommitMissing},
	{"empty repository", "", note.EmptyRepository},
	{"HEAD is on the default branch", "", note.NoBase},
	{"shallow clone", "", note.ShallowClone},
	{"", "shallow clone", note.ShallowClone},
	{"no default branch", "", note.NoDefaultBranch},
	{"HEAD shares no history with", "", note.UnrelatedHistory},
	{"base ", "first-parent chain", note.BaseOffChain},
	{"history longer than", "", note.HistoryTruncated},
	{"commit ", "counted as changed without reading", note.Unreadable},
	{"task file", "not in the repository", note.Unreadable},
	{"task files under", "", note.Unreadable},
}

// gitNotes codes the notes of the git history reader; a note it does not
// know is git_history.
func gitNotes(texts []string) []note.Note {
	out := make([]note.Note, 0, len(texts))
	for _, t := range texts {
		code := note.GitHistory
		for _, c := range gitNoteCodes {
			if strings.HasPrefix(t, c.prefix) && strings.Contains(t, c.fragment) {
				code = c.code
				break
			}
		}
		out = append(out, note.Note{Code: code, Text: t})
	}
	return out
}
