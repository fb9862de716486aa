package gitlog

import "testing"

func TestChurnOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string
		want     bool
	}{
		{"a refreshed timestamp", "updated: 2026-11-28T01:00:00Z\n", "updated: 2026-11-28T01:10:00Z\n", true},
		{"a new fingerprint", "{\"fp\": \"9f86d081884c7d65\"}\n", "{\"fp\": \"a3c1e0bf2d44e6f1\"}\n", true},
		{"a fingerprint sharing its first characters", "fp 9f86d081884c\n", "fp 9f1ee0bf2d44\n", true},
		{"a counter and an ordinal", "idle tick 3 (3rd in a row)\n", "idle tick 4 (4th in a row)\n", true},
		{"a word changed", "status: green\n", "status: red\n", false},
		{"a short hex-looking word", "see cafe 12\n", "see beef 13\n", false},
		{"equal", "x 1\n", "x 1\n", false},
	}
	for _, tc := range tests {
		if got := ChurnOnly([]byte(tc.old), []byte(tc.new)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestProse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, old, new string
		want                 bool
	}{
		{"a paragraph appended to a board", "BOARD.md", "# Board\n", "# Board\n\nRoutine check of the queue: nothing new, see [the log](log.md).\n", true},
		{"a line of config code", "settings.conf", "a = 1\n", "a = 1\nretries = compute(limit) ; b = {x}\n", false},
		{"source code is never prose", "notes.py", "", "# just a comment in words\n", false},
		{"a removed paragraph reads the old lines", "NOTES.md", "keep\nthis went away entirely\n", "keep\n", true},
	}
	for _, tc := range tests {
		if got := Prose(tc.path, []byte(tc.old), []byte(tc.new)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
