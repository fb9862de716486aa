package agentlog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func intp(n int) *int            { return &n }
func boolp(b bool) *bool         { return &b }
func floatp(f float64) *float64  { return &f }
func fixture(name string) string { return filepath.Join("..", "..", "..", "testdata", "logs", name) }
func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestFixtures reads every log under testdata/logs and compares all of
// what it says. Bytes is checked against the file's size.
func TestFixtures(t *testing.T) {
	t.Parallel()
	claudeStatus := &StatusBlock{
		Status:         "IN_PROGRESS",
		TasksCompleted: intp(1),
		FilesModified:  intp(3),
		TestsStatus:    "PASSING",
		WorkType:       "IMPLEMENTATION",
		ExitSignal:     boolp(false),
		Recommendation: "Grant Bash(git push:*) and Write(.ralph/**), then continue with task 4",
	}
	tests := []struct {
		file string
		want Log
	}{
		{
			// One-line json output: two denials in permission_denials; the
			// prose "were denied" is not counted on top of them.
			file: "claude-json-denials.json",
			want: Log{Lines: 1, PermissionDenials: 2, Status: claudeStatus},
		},
		{
			// The same object pretty-printed (jq): read as one document.
			file: "claude-json-pretty.json",
			want: Log{Lines: 40, PermissionDenials: 2, Status: claudeStatus},
		},
		{
			// stream-json: errors come from tool results; the prompt's
			// status block and "all tasks complete" are not the agent's;
			// "is_error" keys and "fixed the error handling" are not errors;
			// the denial is counted once (from permission_denials, not
			// again from the tool result text).
			file: "stream-json.jsonl",
			want: Log{
				Lines: 12,
				Errors: []string{
					"internal/parse/parse.go:42:9: undefined: tokenKind",
					"internal/parse/parse.go:57:2: missing return",
					"--- FAIL: TestParseEmpty (0.00s)",
					"parse_test.go:31: got <nil>, want error",
					"FAIL\tgithub.com/acme/app/internal/parse\t0.012s",
				},
				PermissionDenials: 1,
				Status: &StatusBlock{
					Status:         "IN_PROGRESS",
					TasksCompleted: intp(0),
					FilesModified:  intp(1),
					TestsStatus:    "FAILING",
					WorkType:       "IMPLEMENTATION",
					ExitSignal:     boolp(false),
					Recommendation: "Make Parse return ErrEmpty for empty input",
				},
			},
		},
		{
			// The traceback's exception line, pytest's E line and summary;
			// not the prose about errors, not "0 errors".
			file: "python-traceback.log",
			want: Log{
				Lines: 33,
				Errors: []string{
					"ValueError: invalid literal for int() with base 10: 'abc'",
					"E       KeyError: 'price'",
					"FAILED tests/test_importer.py::test_bad_quantity - KeyError: 'price'",
				},
			},
		},
		{
			// Compiler, vet and test lines. The test's "permission denied"
			// is a plain-text denial as the rule reads it.
			file: "go-build-failure.log",
			want: Log{
				Lines: 25,
				Errors: []string{
					"internal/store/store.go:27:15: undefined: sql.NullTime",
					"internal/store/store.go:63:2: too many return values",
					"vet: internal/store/store.go:27:15: undefined: sql.NullTime",
					"--- FAIL: TestOpen (0.01s)",
					"store_test.go:19: open /tmp/TestOpen3417842791/001/app.db: permission denied",
					"FAIL\tgithub.com/acme/app/internal/store\t0.019s",
				},
				PermissionDenials: 1,
			},
		},
		{
			// The second block wins; the third has no end marker.
			file: "ralph-status.log",
			want: Log{
				Lines: 33,
				Status: &StatusBlock{
					Status:          "IN_PROGRESS",
					TasksCompleted:  intp(1),
					FilesModified:   intp(4),
					TestsStatus:     "PASSING",
					WorkType:        "IMPLEMENTATION",
					ExitSignal:      boolp(false),
					ProgressPercent: floatp(57),
					Phase:           "GREEN",
					Recommendation:  "Continue with task 5 (reject unknown keys)",
				},
				Notes: []string{"status block on line 31 has no ---END_RALPH_STATUS---; ignored"},
			},
		},
		{
			file: "questions-only.log",
			want: Log{Lines: 9, QuestionsAsked: true},
		},
		{
			// Negated and conditional claims come first; the last line claims.
			file: "done-claim.log",
			want: Log{Lines: 10, CompletionClaimed: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			p := fixture(tt.file)
			got, err := ReadFile(p)
			if err != nil {
				t.Fatalf("ReadFile(%s): got error %v, want none", tt.file, err)
			}
			want := tt.want
			want.Bytes = fileSize(t, p)
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("ReadFile(%s) mismatch (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

// TestFixturesCovered fails when a fixture is added without a test case,
// so none is read by nothing.
func TestFixturesCovered(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(fixture("*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 8 {
		t.Errorf("got %d fixtures under testdata/logs, want 8 (add the new one to TestFixtures)", len(files))
	}
}
