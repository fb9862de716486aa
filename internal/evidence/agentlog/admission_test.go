package agentlog

import "testing"

func TestAdmits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text    string
		want    bool
		blocker string
	}{
		{"chore: idle tick, nothing to do", true, ""},
		{"Idle tick 14", true, ""},
		{"no-op iteration (5th in a row)", true, ""},
		{"loop: 3rd no-op", true, ""},
		{"Routine health check only, no new issues", true, ""},
		{"status: no changes this iteration", true, ""},
		{"Still blocked on staging database credentials (check #3)", true, "blocked: staging database credentials check"},
		{"Still blocked on staging database credentials (check #4)", true, "blocked: staging database credentials check"},
		{"Re-confirmed the same blocker: CI runner offline", true, "blocked: ci runner offline"},
		{"waiting on review from the API team", true, "blocked: review from the api team"},
		{"feat: add idle timeout to the HTTP client", false, ""},
		{"fix: handle no changes in the diff", false, ""},
		{"docs: explain what to do when blocked", false, ""},
		{"feat: parser\n\nLoop-Phase: GREEN", false, ""},
	}
	for _, tc := range tests {
		got, blocker := Admits(tc.text)
		if got != tc.want || blocker != tc.blocker {
			t.Errorf("Admits(%q): got %v %q, want %v %q", tc.text, got, blocker, tc.want, tc.blocker)
		}
	}
}
