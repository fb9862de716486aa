package agentlog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestLinesAndBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		lines int
	}{
		{"empty", "", 0},
		{"one without newline", "a", 1},
		{"one", "a\n", 1},
		{"two, last unterminated", "a\nb", 2},
		{"crlf", "a\r\nb\r\n", 2},
		{"blank lines", "\n\n\n", 3},
		{"bom", "\xef\xbb\xbfError: x\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := read(t, tt.in)
			if l.Lines != tt.lines || l.Bytes != int64(len(tt.in)) {
				t.Errorf("got %d lines, %d bytes, want %d lines, %d bytes", l.Lines, l.Bytes, tt.lines, len(tt.in))
			}
		})
	}
}

func TestErrorLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{
			name: "trimmed, ANSI removed, order kept",
			in:   "  \x1b[31mError: one\x1b[0m  \r\nfine\nerror: two\n",
			want: []string{"Error: one", "error: two"},
		},
		{
			name: "traceback gives its exception line only",
			in: "Traceback (most recent call last):\n" +
				"  File \"a.py\", line 3, in <module>\n" +
				"    raise ValueError(\"Error: inside\")\n" +
				"\n" +
				"ValueError: Error: inside\n" +
				"after\n",
			want: []string{"ValueError: Error: inside"},
		},
		{
			name: "chained tracebacks",
			in: "Traceback (most recent call last):\n" +
				"  File \"a.py\", line 3, in f\n" +
				"KeyError: 'x'\n" +
				"\n" +
				"During handling of the above exception, another exception occurred:\n" +
				"\n" +
				"Traceback (most recent call last):\n" +
				"  File \"a.py\", line 5, in f\n" +
				"RuntimeError: lookup failed\n",
			want: []string{"KeyError: 'x'", "RuntimeError: lookup failed"},
		},
		{
			name: "traceback ending in a bare exception name",
			in:   "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyboardInterrupt\n",
			want: []string{"KeyboardInterrupt"},
		},
		{
			name: "timestamped traceback",
			in:   "[10:00:01] Traceback (most recent call last):\n  File \"a.py\", line 1\nOSError: [Errno 28] No space left on device\n",
			want: []string{"OSError: [Errno 28] No space left on device"},
		},
		{
			name: "indented traceback inside tool output",
			in:   "    Traceback (most recent call last):\n      File \"a.py\", line 1\n    ZeroDivisionError: division by zero\n",
			want: []string{"ZeroDivisionError: division by zero"},
		},
		{
			name: "java exception and frames",
			in:   "Exception in thread \"main\" java.lang.IllegalStateException: x\n\tat com.a.B.run(B.java:4)\nCaused by: java.io.IOException: y\n",
			want: []string{"Exception in thread \"main\" java.lang.IllegalStateException: x"},
		},
		{
			name: "go panic",
			in:   "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:5 +0x25\nexit status 2\n",
			want: []string{"panic: boom"},
		},
		{
			name: "json keys in a text log are not errors",
			in:   "{\"type\":\"tool_result\",\"is_error\":false}\n  \"is_error\": false,\n  \"error_count\": 0\n",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, read(t, tt.in).Errors); diff != "" {
				t.Errorf("Errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnterminatedTraceback(t *testing.T) {
	t.Parallel()
	l := read(t, "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n")
	if len(l.Errors) != 0 {
		t.Errorf("got errors %q, want none", l.Errors)
	}
	want := []string{"traceback on line 1 has no exception line"}
	if diff := cmp.Diff(want, l.Notes); diff != "" {
		t.Errorf("Notes mismatch (-want +got):\n%s", diff)
	}
}

func TestErrorBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range MaxErrors + 7 {
		fmt.Fprintf(&b, "Error: number %d\n", i)
	}
	long := "Error: " + strings.Repeat("é", MaxErrorLen)
	l := read(t, long+"\n"+b.String())
	if len(l.Errors) != MaxErrors {
		t.Fatalf("got %d errors, want %d", len(l.Errors), MaxErrors)
	}
	if n := len(l.Errors[0]); n > MaxErrorLen || !strings.HasPrefix(l.Errors[0], "Error: éé") {
		t.Errorf("got first error of %d bytes %.20q…, want at most %d bytes of the line", n, l.Errors[0], MaxErrorLen)
	}
	if !strings.HasSuffix(l.Errors[0], "é") {
		t.Errorf("got first error ending %q, want it cut on a rune boundary", l.Errors[0][len(l.Errors[0])-4:])
	}
	if got, want := l.Errors[MaxErrors-1], fmt.Sprintf("Error: number %d", MaxErrors-2); got != want {
		t.Errorf("got last kept error %q, want %q", got, want)
	}
	want := []string{fmt.Sprintf("8 more error lines not kept (at most %d are)", MaxErrors)}
	if diff := cmp.Diff(want, l.Notes); diff != "" {
		t.Errorf("Notes mismatch (-want +got):\n%s", diff)
	}
}

func TestLongLine(t *testing.T) {
	t.Parallel()
	lim := Limits{MaxLine: 100}
	in := "Error: " + strings.Repeat("x", 500) + "\nsecond line\nError: short\n"
	l, err := readFrom(strings.NewReader(in), "agent.log", lim, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Lines != 3 || l.Bytes != int64(len(in)) {
		t.Errorf("got %d lines, %d bytes, want 3 lines, %d bytes", l.Lines, l.Bytes, len(in))
	}
	want := []string{"Error: " + strings.Repeat("x", 93), "Error: short"}
	if diff := cmp.Diff(want, l.Errors); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
	wantNotes := []string{"line 1 is longer than 100 bytes; only its first 100 bytes were read"}
	if diff := cmp.Diff(wantNotes, l.Notes); diff != "" {
		t.Errorf("Notes mismatch (-want +got):\n%s", diff)
	}
}

// TestLongLineDefault checks the 1 MiB default on a line that spans many
// buffer fills.
func TestLongLineDefault(t *testing.T) {
	t.Parallel()
	in := "Error: " + strings.Repeat("y", DefaultMaxLine+70000) + "\nok\n"
	l := read(t, in)
	if l.Lines != 2 || l.Bytes != int64(len(in)) {
		t.Errorf("got %d lines, %d bytes, want 2 lines, %d bytes", l.Lines, l.Bytes, len(in))
	}
	if len(l.Errors) != 1 || len(l.Errors[0]) != MaxErrorLen {
		t.Errorf("got %d errors, want 1 cut to %d bytes", len(l.Errors), MaxErrorLen)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0], "line 1 is longer than 1048576 bytes") {
		t.Errorf("got notes %q, want one about line 1", l.Notes)
	}
}

func TestMaxBytes(t *testing.T) {
	t.Parallel()
	in := "Error: early\n" + strings.Repeat("filler line\n", 100) + "Error: late\n"
	l, err := readFrom(strings.NewReader(in), "agent.log", Limits{MaxBytes: 200}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.Bytes != 200 {
		t.Errorf("got %d bytes, want 200", l.Bytes)
	}
	if diff := cmp.Diff([]string{"Error: early"}, l.Errors); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
	wantNotes := []string{"stopped reading after 200 bytes; the rest was not read"}
	if diff := cmp.Diff(wantNotes, l.Notes); diff != "" {
		t.Errorf("Notes mismatch (-want +got):\n%s", diff)
	}

	// Exactly at the limit nothing is left, so nothing is said.
	exact := "Error: x\n"
	l, err = readFrom(strings.NewReader(exact), "agent.log", Limits{MaxBytes: int64(len(exact))}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Notes) != 0 || len(l.Errors) != 1 {
		t.Errorf("got notes %q and %d errors, want no notes and 1 error", l.Notes, len(l.Errors))
	}
}

func TestNotesBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for range 3 * MaxNotes {
		b.WriteString("---RALPH_STATUS---\nFILES_MODIFIED: many\n---END_RALPH_STATUS---\n")
	}
	l := read(t, b.String())
	if len(l.Notes) != MaxNotes {
		t.Fatalf("got %d notes, want %d", len(l.Notes), MaxNotes)
	}
	if got, want := l.Notes[MaxNotes-1], fmt.Sprintf("%d more notes not kept", 3*MaxNotes-(MaxNotes-1)); got != want {
		t.Errorf("got last note %q, want %q", got, want)
	}
}

func TestBinary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		lim  Limits
		want string
	}{
		{"nul in first line", "ab\x00cd\n", Limits{}, "read agent log run.log: binary file (NUL byte at offset 2)"},
		{"nul in a later line", "hello\nwor\x00ld\n", Limits{}, "read agent log run.log: binary file (NUL byte at offset 9)"},
		{"nul past the line limit", "0123456789\x00\n", Limits{MaxLine: 4}, "read agent log run.log: binary file (NUL byte at offset 10)"},
		{"nul in a long line", strings.Repeat("z", 100000) + "\x00", Limits{MaxLine: 50}, "read agent log run.log: binary file (NUL byte at offset 100000)"},
		{"utf-16le", "\xff\xfeE\x00r\x00", Limits{}, "read agent log run.log: binary file (UTF-16 text; convert it to UTF-8)"},
		{"utf-16be", "\xfe\xff\x00E\x00r", Limits{}, "read agent log run.log: binary file (UTF-16 text; convert it to UTF-8)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, err := readFrom(strings.NewReader(tt.in), "run.log", tt.lim, 0)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got error %v, want %q", err, tt.want)
			}
			if l != nil {
				t.Errorf("got a log %+v with the error, want nil", l)
			}
		})
	}
}

func TestReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader("Error: x\n"), iotest.ErrReader(boom))
	_, err := Read(r, "run.log")
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "run.log") {
		t.Errorf("got error %v, want one wrapping %v and naming run.log", err, boom)
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "out.log")
	if err := os.WriteFile(p, []byte("Error: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := ReadFile(p)
	if err != nil || len(l.Errors) != 1 {
		t.Fatalf("ReadFile: got %+v, %v, want one error line", l, err)
	}

	missing := filepath.Join(dir, "missing.log")
	if _, err := ReadFile(missing); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.log") {
		t.Errorf("got error %v, want a not-exist error naming missing.log", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file (a directory)") {
		t.Errorf("got error %v, want an is-a-directory error", err)
	}
	bin := filepath.Join(dir, "bin.log")
	if err := os.WriteFile(bin, []byte("\x7fELF\x02\x01\x01\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bin); err == nil || !strings.Contains(err.Error(), bin+": binary file") {
		t.Errorf("got error %v, want a binary file error naming %s", err, bin)
	}
}

func TestStatusBlock(t *testing.T) {
	t.Parallel()
	block := func(lines ...string) string {
		return statusStart + "\n" + strings.Join(lines, "\n") + "\n" + statusEnd + "\n"
	}
	tests := []struct {
		name      string
		in        string
		want      *StatusBlock
		claimed   bool
		wantNotes []string
	}{
		{name: "none", in: "hello\n"},
		{
			name: "all keys",
			in: block("STATUS: IN_PROGRESS", "TASKS_COMPLETED_THIS_LOOP: 2", "FILES_MODIFIED: 5",
				"TESTS_STATUS: FAILING", "WORK_TYPE: TESTING", "EXIT_SIGNAL: false",
				"PROGRESS_PERCENT: 45", "PHASE: Red", "RECOMMENDATION: fix TestX: it panics", "CURRENT_TASK: **Parse** the config"),
			want: &StatusBlock{Status: "IN_PROGRESS", TasksCompleted: intp(2), FilesModified: intp(5),
				TestsStatus: "FAILING", WorkType: "TESTING", ExitSignal: boolp(false),
				ProgressPercent: floatp(45), Phase: "Red", Recommendation: "fix TestX: it panics", CurrentTask: "Parse** the config"},
		},
		{
			name:    "complete claims",
			in:      block("STATUS: COMPLETE"),
			want:    &StatusBlock{Status: "COMPLETE"},
			claimed: true,
		},
		{
			name:    "exit signal claims",
			in:      block("STATUS: IN_PROGRESS", "EXIT_SIGNAL: TRUE"),
			want:    &StatusBlock{Status: "IN_PROGRESS", ExitSignal: boolp(true)},
			claimed: true,
		},
		{
			name:    "explicit status outranks prose",
			in:      "All tasks complete.\n" + block("STATUS: IN_PROGRESS", "EXIT_SIGNAL: false"),
			want:    &StatusBlock{Status: "IN_PROGRESS", ExitSignal: boolp(false)},
			claimed: false,
		},
		{
			name:    "block without status leaves prose alone",
			in:      "All tasks complete.\n" + block("FILES_MODIFIED: 1"),
			want:    &StatusBlock{FilesModified: intp(1)},
			claimed: true,
		},
		{
			name: "markdown decoration and lower case",
			in:   "```\n" + block("- **STATUS:** in_progress", "* `FILES_MODIFIED`: 3", "  work_type: refactoring", "PROGRESS: 12.5 %") + "```\n",
			want: &StatusBlock{Status: "IN_PROGRESS", FilesModified: intp(3), WorkType: "REFACTORING", ProgressPercent: floatp(12.5)},
		},
		{
			name: "last complete block wins",
			in:   block("STATUS: COMPLETE") + "more work\n" + block("STATUS: BLOCKED", "RECOMMENDATION: need a key"),
			want: &StatusBlock{Status: "BLOCKED", Recommendation: "need a key"},
		},
		{
			name:      "block without end marker is ignored",
			in:        block("STATUS: IN_PROGRESS") + statusStart + "\nSTATUS: COMPLETE\nEXIT_SIGNAL: true\n",
			want:      &StatusBlock{Status: "IN_PROGRESS"},
			wantNotes: []string{"status block on line 4 has no ---END_RALPH_STATUS---; ignored"},
		},
		{
			name:      "restarted block",
			in:        statusStart + "\nSTATUS: COMPLETE\n" + block("STATUS: BLOCKED"),
			want:      &StatusBlock{Status: "BLOCKED"},
			wantNotes: []string{"status block on line 1 restarted on line 3; the first one is ignored"},
		},
		{
			name:      "runaway block",
			in:        statusStart + "\nSTATUS: COMPLETE\n" + strings.Repeat("text\n", maxStatusLines) + "Error: after\n" + statusEnd + "\n",
			wantNotes: []string{"status block on line 1 runs past 40 lines; ignored"},
		},
		{
			name: "bad values",
			in: block("FILES_MODIFIED: -1", "TASKS_COMPLETED_THIS_LOOP: lots", "EXIT_SIGNAL: maybe",
				"PROGRESS: 140%", "PROGRESS_PERCENT: NaN"),
			want: &StatusBlock{},
			wantNotes: []string{
				`status block on line 2: FILES_MODIFIED "-1" is not a count; ignored`,
				`status block on line 3: TASKS_COMPLETED_THIS_LOOP "lots" is not a count; ignored`,
				`status block on line 4: EXIT_SIGNAL "maybe" is not true or false; ignored`,
				`status block on line 5: PROGRESS "140%" is not a percentage from 0 to 100; ignored`,
				`status block on line 6: PROGRESS_PERCENT "NaN" is not a percentage from 0 to 100; ignored`,
			},
		},
		{
			name: "huge count",
			in:   block("FILES_MODIFIED: 99999999999999999999999"),
			want: &StatusBlock{},
			wantNotes: []string{
				`status block on line 2: FILES_MODIFIED "99999999999999999999999" is not a count; ignored`,
			},
		},
		{
			name: "end marker alone",
			in:   statusEnd + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := read(t, tt.in)
			if diff := cmp.Diff(tt.want, l.Status); diff != "" {
				t.Errorf("Status mismatch (-want +got):\n%s", diff)
			}
			if l.CompletionClaimed != tt.claimed {
				t.Errorf("got CompletionClaimed %v, want %v", l.CompletionClaimed, tt.claimed)
			}
			if diff := cmp.Diff(tt.wantNotes, l.Notes); diff != "" {
				t.Errorf("Notes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunawayBlockKeepsErrors checks that a block that never ends does not
// hide the error lines after it.
func TestRunawayBlockKeepsErrors(t *testing.T) {
	t.Parallel()
	in := statusStart + "\n" + strings.Repeat("x\n", 100) + "Error: after the block\n"
	l := read(t, in)
	if diff := cmp.Diff([]string{"Error: after the block"}, l.Errors); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
}

func TestJSONForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Log
	}{
		{
			name: "verbose json array",
			in: `[{"type":"system","subtype":"init"},` +
				`{"type":"assistant","message":{"content":[{"type":"text","text":"Error: from the agent\nShould I go on?"}]}},` +
				`{"type":"result","result":"Error: from the agent\nShould I go on?","permission_denials":[{"tool_name":"Bash"}]}]` + "\n",
			want: Log{Lines: 1, Errors: []string{"Error: from the agent"}, QuestionsAsked: true, PermissionDenials: 1},
		},
		{
			name: "result alone is read",
			in:   `{"type":"result","subtype":"success","is_error":false,"result":"All tasks complete.","permission_denials":[]}` + "\n",
			want: Log{Lines: 1, CompletionClaimed: true},
		},
		{
			name: "empty denial list is authoritative",
			in: `{"type":"user","message":{"content":[{"type":"tool_result","content":"cat: /root/x: Permission denied","is_error":true}]}}` + "\n" +
				`{"type":"result","result":"ok","permission_denials":[]}` + "\n",
			want: Log{Lines: 2},
		},
		{
			name: "denials from several results add up",
			in: `{"type":"result","result":"a","permission_denials":[{},{}]}` + "\n" +
				`{"type":"result","result":"b","permission_denials":[{}]}` + "\n",
			want: Log{Lines: 2, PermissionDenials: 3},
		},
		{
			name: "text denials count without a denial list",
			in:   `{"type":"user","message":{"content":[{"type":"tool_result","content":"This command requires approval","is_error":true}]}}` + "\n",
			want: Log{Lines: 1, PermissionDenials: 1},
		},
		{
			name: "assistant string content",
			in:   `{"type":"assistant","message":{"content":"I'm done."}}` + "\n",
			want: Log{Lines: 1, CompletionClaimed: true},
		},
		{
			name: "AskUserQuestion is a question",
			in:   `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"AskUserQuestion","input":{"questions":[]}}]}}` + "\n",
			want: Log{Lines: 1, QuestionsAsked: true},
		},
		{
			name: "the prompt claims nothing",
			in:   `{"type":"user","message":{"content":"All tasks complete? Should I stop? EXIT_SIGNAL: true"}}` + "\n",
			want: Log{Lines: 1},
		},
		{
			name: "tool output claims nothing and holds no status block",
			in:   `{"type":"user","message":{"content":[{"type":"tool_result","content":"# PROMPT.md\nWhen all tasks complete, say I'm done.\nShould I ask?\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---\nerror: real tool error"}]}}` + "\n",
			want: Log{Lines: 1, Errors: []string{"error: real tool error"}},
		},
		{
			name: "status block split across messages is not a block",
			in: `{"type":"assistant","message":{"content":[{"type":"text","text":"---RALPH_STATUS---\nSTATUS: COMPLETE"}]}}` + "\n" +
				`{"type":"assistant","message":{"content":[{"type":"text","text":"---END_RALPH_STATUS---"}]}}` + "\n",
			want: Log{Lines: 2, Notes: []string{"status block in the JSON on line 1 has no ---END_RALPH_STATUS---; ignored"}},
		},
		{
			name: "error result is noted",
			in:   `{"type":"result","subtype":"error_max_turns","is_error":true,"permission_denials":[]}` + "\n",
			want: Log{Lines: 1, Notes: []string{`agent run on line 1 ended with "error_max_turns"`}},
		},
		{
			name: "malformed JSON line is text",
			in:   `{"type":"assistant", "message": Error: not json}` + "\n" + "Error: plain\n",
			want: Log{Lines: 2, Errors: []string{"Error: plain"}},
		},
		{
			name: "unknown JSON object is text",
			in:   `{"level":"error","msg":"Permission denied"}` + "\n",
			want: Log{Lines: 1, PermissionDenials: 1},
		},
		{
			name: "a field of the wrong type is skipped, not the event",
			in: `{"type":"assistant","message":{"content":[{"type":"text","text":5},{"type":"text","text":"Error: y"}]}}` + "\n" +
				`{"type":"result","result":{"x":1},"permission_denials":"none"}` + "\n" +
				`{"type":"user","message":"hi"}` + "\n" +
				"Permission denied\n",
			want: Log{Lines: 4, Errors: []string{"Error: y"}, PermissionDenials: 1},
		},
		{
			name: "pretty document that is not agent JSON is text",
			in:   "{\n  \"note\": \"Error: inside a config\"\n}\nError: after\n",
			want: Log{Lines: 4, Errors: []string{"Error: after"}},
		},
		{
			name: "code block with braces is text",
			in:   "{\nError: in braces\n}\n",
			want: Log{Lines: 3, Errors: []string{"Error: in braces"}},
		},
		{
			name: "pretty document that never ends",
			in:   "{\n  \"type\": \"result\",\nError: cut short\n",
			want: Log{Lines: 3, Errors: []string{"Error: cut short"}, Notes: []string{"JSON document from line 1 never ends; read as text"}},
		},
		{
			name: "two pretty documents",
			in:   "{\n \"type\": \"result\",\n \"permission_denials\": [{}]\n}\n[\n {\"type\": \"result\", \"permission_denials\": [{}, {}]}\n]\n",
			want: Log{Lines: 7, PermissionDenials: 3},
		},
		{
			name: "mixed text and json lines",
			in: "starting loop 3\n" +
				`{"type":"user","message":{"content":[{"type":"tool_result","content":"npm ERR! missing script: test"}]}}` + "\n" +
				"Error: loop 3 failed\n",
			want: Log{Lines: 3, Errors: []string{"npm ERR! missing script: test", "Error: loop 3 failed"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := tt.want
			want.Bytes = int64(len(tt.in))
			if diff := cmp.Diff(&want, read(t, tt.in)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrettyDocumentTooLarge(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{\n")
	line := "  \"k\": \"" + strings.Repeat("v", 1000) + "\",\n"
	for b.Len() < maxDocument+len(line) {
		b.WriteString(line)
	}
	b.WriteString("Error: after the cap\n")
	l := read(t, b.String())
	if diff := cmp.Diff([]string{"Error: after the cap"}, l.Errors); diff != "" {
		t.Errorf("Errors mismatch (-want +got):\n%s", diff)
	}
	if len(l.Notes) != 1 || !strings.HasPrefix(l.Notes[0], "JSON document from line 1 is larger than") {
		t.Errorf("got notes %q, want one saying the document was too large", l.Notes)
	}
}

func TestClaimsCompletionNil(t *testing.T) {
	t.Parallel()
	var b *StatusBlock
	if b.ClaimsCompletion() {
		t.Error("nil block claims completion, want false")
	}
}

func FuzzRead(f *testing.F) {
	files, err := filepath.Glob(fixture("*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("Traceback (most recent call last):\n  x\n"))
	f.Add([]byte("{\n\"type\":\"result\"\n}\n"))
	f.Add([]byte("---RALPH_STATUS---\nPROGRESS: 1e308%\n---END_RALPH_STATUS---\n"))
	f.Add([]byte("\x1b[31mError\x1b]8;;\x07"))
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := readFrom(strings.NewReader(string(in)), "fuzz.log", Limits{MaxLine: 256}, 0)
		if err != nil {
			if !strings.Contains(err.Error(), "binary file") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if l.Bytes != int64(len(in)) {
			t.Fatalf("got %d bytes, want %d", l.Bytes, len(in))
		}
		if len(l.Errors) > MaxErrors || len(l.Notes) > MaxNotes {
			t.Fatalf("got %d errors, %d notes, want at most %d, %d", len(l.Errors), len(l.Notes), MaxErrors, MaxNotes)
		}
		for _, e := range l.Errors {
			if len(e) > MaxErrorLen || e == "" {
				t.Fatalf("got error line of %d bytes, want 1 to %d", len(e), MaxErrorLen)
			}
		}
		if l.PermissionDenials < 0 || l.Lines < 0 || l.Lines > len(in) {
			t.Fatalf("got %d denials, %d lines for %d bytes", l.PermissionDenials, l.Lines, len(in))
		}
		if st := l.Status; st != nil {
			if st.ProgressPercent != nil && (*st.ProgressPercent < 0 || *st.ProgressPercent > 100) {
				t.Fatalf("got progress %v, want 0 to 100", *st.ProgressPercent)
			}
			if len(st.Recommendation) > MaxErrorLen {
				t.Fatalf("got recommendation of %d bytes", len(st.Recommendation))
			}
		}
	})
}
