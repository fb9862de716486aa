package agentlog

import "testing"

// TestWritten reads lines a loop adds to its own files: errors, state
// error values, reviewers' findings and claims of done work, and nothing
// from prose that only mentions them.
func TestWritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		kind WrittenKind
		text string
	}{
		{"2026-11-03T06:00:00Z Error: HTTP 402 Payment Required", WrittenError, "Error: HTTP 402 Payment Required"},
		{`  "last_error": "HTTP 402 Payment Required",`, WrittenError, "HTTP 402 Payment Required"},
		{"lastError: rate limited by the API", WrittenError, "lastError: rate limited by the API"},
		{`"error": null,`, WrittenNone, ""},
		{`"error_count": 3,`, WrittenNone, ""},
		{`"assertion-error": ["assertion-error@2.0.1", "", {}],`, WrittenNone, ""},
		{"continue-on-error: true", WrittenNone, ""},
		{"- **Changes requested:** the migration drops the index.", WrittenReview, "the migration drops the index."},
		{"Reviewer: the retry swallows the timeout", WrittenReview, "the retry swallows the timeout"},
		{"## Epic 16 complete", WrittenClaim, "Epic 16 complete"},
		{"Story 4.2 is done", WrittenClaim, "Story 4.2 is done"},
		{"Status: SUCCESS (committed)", WrittenClaim, "Status: SUCCESS (committed)"},
		{"All tasks are complete.", WrittenClaim, "All tasks are complete."},
		{"## Success Criteria", WrittenNone, ""},
		{"Fixed the error handling in the parser.", WrittenNone, ""},
		{"Next: finish epic 17 once the review is in.", WrittenNone, ""},
		{"", WrittenNone, ""},
	} {
		kind, text := Written(tc.line)
		if kind != tc.kind || text != tc.text {
			t.Errorf("Written(%q) = %d %q, want %d %q", tc.line, kind, text, tc.kind, tc.text)
		}
	}
}
