package testreport

import (
	"testing"
)

func TestTAP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want counts
	}{
		{
			name: "directives",
			in: "1..6\nok 1 - a # SKIP no db\nnot ok 2 - b # skipped\nnot ok 3 - c # TODO later\n" +
				"ok 4 - d # todo bonus\nok 5 - e # a plain comment\nnot ok 6 f\\# not a directive\n",
			want: counts{Passed: 2, Failed: 1, Skipped: 3, Failing: []Failure{{Name: "f# not a directive", Kind: KindFailure}}},
		},
		{
			name: "no description: named by number",
			in:   "1..2\nnot ok 1\nnot ok\n",
			want: counts{Failed: 2, Failing: []Failure{{Name: "test 1", Kind: KindFailure}, {Name: "test 2", Kind: KindFailure}}},
		},
		{
			name: "YAML message forms",
			in: "TAP version 13\n1..4\n" +
				"not ok 1 - dq\n  ---\n  message: \"tab\\there\"\n  ...\n" +
				"not ok 2 - plain\n  ---\n  severity: fail\n  at:\n    message: nested, not this\n  message: top level\n  ...\n" +
				"not ok 3 - folded\n  ---\n  message: >-\n\n    folded first line\n    second\n  ...\n" +
				"not ok 4 - no YAML message: the diagnostic line\n  ---\n  severity: fail\n  ...\n# a comment\n",
			want: counts{Failed: 4, Failing: []Failure{
				{Name: "dq", Message: "tab\there", Kind: KindFailure},
				{Name: "plain", Message: "top level", Kind: KindFailure},
				{Name: "folded", Message: "folded first line", Kind: KindFailure},
				{Name: "no YAML message: the diagnostic line", Message: "a comment", Kind: KindFailure},
			}},
		},
		{
			name: "YAML block not closed ends at the next unindented line",
			in:   "1..2\nnot ok 1 - a\n  ---\n  message: 'it''s broken'\nok 2 - b\n",
			want: counts{Passed: 1, Failed: 1, Failing: []Failure{{Name: "a", Message: "it's broken", Kind: KindFailure}},
				Notes: []string{`r.tap: 1 YAML block(s) not closed by "..."`}},
		},
		{
			name: "plan at the end, mismatched",
			in:   "ok 1\nok 2\n1..3\n",
			want: counts{Passed: 2, Notes: []string{"r.tap: planned 3 test(s) but 2 ran"}},
		},
		{
			name: "no plan",
			in:   "ok 1 - a\n",
			want: counts{Passed: 1, Notes: []string{"r.tap: no plan (1..N) line; the output may have ended early"}},
		},
		{
			name: "skip all",
			in:   "1..0 # Skipped: no database\n",
			want: counts{Notes: []string{"r.tap: plan 1..0: every test was skipped (Skipped: no database)"}},
		},
		{
			name: "bail out without reason or plan",
			in:   "ok 1\nBail out!\nnot ok 2\n",
			want: counts{Passed: 1, Failed: 1, Failing: []Failure{{Name: "Bail out!", Kind: KindFailure}},
				Notes: []string{"r.tap: bailed out after 1 test(s)"}},
		},
		{
			name: "other lines and two plans",
			in:   "1..1\nhello\nok 1\nokay then\n1..1\n",
			want: counts{Passed: 1, Notes: []string{
				"r.tap: 2 plan lines; the first one was used",
				"r.tap: 2 line(s) that are not TAP were ignored",
			}},
		},
		{
			name: "CRLF line endings",
			in:   "TAP version 13\r\n1..2\r\nok 1 - a\r\nnot ok 2 - b\r\n  ---\r\n  message: crlf\r\n  ...\r\n",
			want: counts{Passed: 1, Failed: 1, Failing: []Failure{{Name: "b", Message: "crlf", Kind: KindFailure}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParse(t, "r.tap", tt.in, FormatTAP, tt.want)
		})
	}
}

func TestTAPTestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want tapResult
		ok   bool
	}{
		{"ok", tapResult{ok: true}, true},
		{"ok 12", tapResult{ok: true, num: 12}, true},
		{"not ok 3 - x # TODO soon", tapResult{num: 3, desc: "x", directive: "TODO", reason: "soon"}, true},
		{"ok 1 2 apples", tapResult{ok: true, num: 1, desc: "2 apples"}, true},
		{"ok 7 -", tapResult{ok: true, num: 7}, true},
		{"ok\tdesc", tapResult{ok: true, desc: "desc"}, true},
		{"okay", tapResult{}, false},
		{"not okay", tapResult{}, false},
		{"nothing", tapResult{}, false},
	}
	for _, tt := range tests {
		got, ok := tapTestLine(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("tapTestLine(%q) = %+v, %v, want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
