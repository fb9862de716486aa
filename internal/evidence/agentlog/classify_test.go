package agentlog

import (
	"strings"
	"testing"
)

// IsErrorLine classifies one raw line as Read does: leading ANSI escapes,
// whitespace and a log timestamp are ignored.
func IsErrorLine(line string) bool {
	return isErrorLine(stripLogPrefix(strings.TrimSpace(stripANSI(line))))
}

func TestIsErrorLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want bool
	}{
		// Generic prefixes.
		{"Error: Cannot find module 'express'", true},
		{"ERROR: relation \"users\" does not exist", true},
		{"error: could not compile `app` (bin \"app\") due to 2 previous errors", true},
		{"ERROR in ./src/index.js 3:0-28", true},
		{"ERROR tests/test_app.py - ModuleNotFoundError: No module named 'app'", true},
		{"[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile", true},
		{"[error] boom", true},
		{"[10:24:45] ERROR: request failed", true},
		{"[2026-01-15 10:24:12] [ERROR] loop failed", true},
		{"2024-01-02T15:04:05.1234567Z Error: Process completed with exit code 1.", true},
		{"\x1b[31mError:\x1b[0m build failed", true},
		{"   Error: indented", true},
		// Compilers and linters.
		{"./main.go:12:5: undefined: foo", true},
		{"internal/x/x.go:41:14: fmt.Sprintf format %d has arg s of wrong type string", true},
		{`C:\src\app\main.go:3:1: syntax error: non-declaration statement outside function body`, true},
		{"vet: internal/x/x.go:27:15: undefined: sql.NullTime", true},
		{"    parse_test.go:42: got 3, want 4", true},
		{"error[E0308]: mismatched types", true},
		{"error[E0425]: cannot find value `x` in this scope", true},
		{"src/a.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.", true},
		{"src/a.ts:12:5 - error TS2322: Type 'string' is not assignable to type 'number'.", true},
		{"error TS5023: Unknown compiler option 'foo'.", true},
		{"Program.cs(12,5): error CS1002: ; expected", true},
		{"parse.c:3:10: fatal error: stdio.h: No such file or directory", true},
		{"parse.c:3:10: error: expected ';' before '}' token", true},
		{"Foo.java:12: error: cannot find symbol", true},
		{"  12:5  error  'x' is not defined  no-undef", true},
		{"make: *** [Makefile:12: all] Error 2", true},
		{"make[1]: *** [build] Error 1", true},
		// Exceptions and panics.
		{"ValueError: invalid literal for int() with base 10: 'abc'", true},
		{"requests.exceptions.ConnectionError: HTTPSConnectionPool(host='x', port=443)", true},
		{"AssertionError", true},
		{"TypeError: Cannot read properties of undefined (reading 'map')", true},
		{"Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/app/x.js'", true},
		{"Uncaught ReferenceError: x is not defined", true},
		{`Exception in thread "main" java.lang.IllegalStateException: not started`, true},
		{"java.lang.NullPointerException: Cannot invoke \"String.length()\"", true},
		{"Unhandled exception. System.InvalidOperationException: Sequence contains no elements", true},
		{"panic: runtime error: index out of range [5] with length 3", true},
		{"fatal error: all goroutines are asleep - deadlock!", true},
		{"thread 'main' panicked at src/main.rs:4:5:", true},
		{"fatal: not a git repository (or any of the parent directories): .git", true},
		{"FATAL: database \"app\" does not exist", true},
		{"FATAL[0000] cannot connect", true},
		{"Fatal error: Uncaught Exception: boom", true},
		{"PHP Fatal error:  Uncaught Error: Call to undefined function foo()", true},
		{"Segmentation fault (core dumped)", true},
		// Package managers and test runners.
		{"npm ERR! code ELIFECYCLE", true},
		{"npm error code E404", true},
		{"error Command failed with exit code 1.", true},
		{"--- FAIL: TestParse (0.00s)", true},
		{"    --- FAIL: TestParse/empty (0.00s)", true},
		{"FAIL\tgithub.com/acme/app\t0.012s", true},
		{"FAIL src/parse.test.ts (5.1 s)", true},
		{"FAILED tests/test_x.py::test_y - AssertionError: assert 1 == 2", true},
		{"E       AssertionError: assert 1 == 2", true},
		{"not ok 3 - parses empty input", true},

		// Prose and JSON that only mention errors.
		{"no errors found", false},
		{"0 errors", false},
		{"Found 0 errors.", false},
		{"Errors: 0", false},
		{"ERRORS: 0", false},
		{"I fixed the error handling in parse.go.", false},
		{"Error handling is now consistent across the package.", false},
		{"Errors are wrapped with %w now.", false},
		{"The error was a missing import; fixed.", false},
		{"Exception handling was refactored.", false},
		{"The ValueError in parse_row is fixed.", false},
		{"All tests pass, no failures.", false},
		{"Failed tests: none", false},
		{"FAILURES: 0", false},
		{"FAIL", false},
		{"PASS", false},
		{"ok  \tgithub.com/acme/app\t0.004s", false},
		{"fatalism is not a strategy", false},
		{"errorlint reports nothing", false},
		{"error handling", false},
		{`"is_error": false,`, false},
		{`{"type":"tool_result","is_error":false}`, false},
		{`"error_count": 0`, false},
		{`error_count: 0`, false},
		{`{"level":"error","msg":"x"}`, false},
		{"main.go:12: some grep -n match", false},
		{"main.go:12:5:func main() {", false},
		{"Traceback (most recent call last):", false},
		{"Caused by: java.io.IOException: x", false},
		{"", false},
		{"   ", false},
	}
	for _, tt := range tests {
		if got := IsErrorLine(tt.line); got != tt.want {
			t.Errorf("IsErrorLine(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestCompletionWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want bool
	}{
		{"All tasks complete.", true},
		{"All tasks are now completed!", true},
		{"all of the tasks have been done", true},
		{"Task complete.", true},
		{"The task is complete.", true},
		{"I'm done.", true},
		{"I’m done with everything in the plan.", true},
		{"I am done", true},
		{"The project is complete.", true},
		{"Project complete 🎉", true},
		{"The implementation is now complete and all tests pass.", true},
		{"Everything is done.", true},
		{"Nothing left to do.", true},
		{"EXIT_SIGNAL: true", true},
		{"STATUS: COMPLETE", true},
		{"Done!", true},
		{"✅ All done.", true},
		{"There are no open issues and all tasks are complete.", true},
		{"I'm happy to say the project is complete.", true},
		{"Fixed the last failing test. Done!", true},
		{"All done, the tests pass.", true},
		{"Refactored the parser; all done ✅", true},
		{"Ran the suite again - done.", false},
		{"If the tests pass, done.", false},
		{"Not done, two tasks remain.", false},
		{"Parser done, lexer next.", false},
		{"Step 3 of 7: done.", false},
		{"Is it done?", false},
		{"The tests fail. Not done.", false},
		{"When CI is green, all done.", false},
		{"Not yet. Done!", true},
		{"Done? Not quite, one test fails.", false},

		{"I'm not done yet.", false},
		{"not done yet", false},
		{"Not all tasks complete: two remain.", false},
		{"The task is not complete yet.", false},
		{"I am not sure the task is complete.", false},
		{"Once all tasks complete, I will print the summary.", false},
		{"When the project is complete I will set EXIT_SIGNAL: true.", false},
		{"I will set EXIT_SIGNAL: true after the last task.", false},
		{"I'll output STATUS: COMPLETE only when every box is ticked.", false},
		{"If everything is done we can stop.", false},
		{"Are all tasks complete?", false},
		{"Is the project complete?", false},
		{"EXIT_SIGNAL: false", false},
		{"STATUS: IN_PROGRESS", false},
		{"Completed task 3 of 7.", false},
		{"Done with the parser, now the lexer.", false},
		{"The download is complete.", false},
		{"TESTS_STATUS: COMPLETE", false},
		{"The work is undone.", false},
		{"", false},
	}
	for _, tt := range tests {
		got := read(t, tt.line+"\n").CompletionClaimed
		if got != tt.want {
			t.Errorf("CompletionClaimed for %q: got %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestQuestions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want bool
	}{
		{"Should I keep SQLite for the tests?", true},
		{"Shall I proceed with the migration?", true},
		{"Would you like me to add a docker-compose file?", true},
		{"Do you want me to delete the old handler?", true},
		{"Which approach would you prefer: goose or plain SQL?", true},
		{"Please confirm the port before I continue.", true},
		{"Could you clarify what \"done\" means for task 5?", true},
		{"Is this what you had in mind?", true},
		{"Do you have credentials for the staging database?", true},
		{"Should we drop Python 3.8?", true},
		{"**Should I continue?**", true},

		{"Why does the test fail?", false},
		{"What does Parse return for empty input?", false},
		{"I wondered whether the cache was stale, so I cleared it.", false},
		{"I asked myself: is this needed? It was.", false},
		{"You can run the tests with make test.", false},
		{"No questions; continuing with task 5.", false},
		{"", false},
	}
	for _, tt := range tests {
		got := read(t, tt.line+"\n").QuestionsAsked
		if got != tt.want {
			t.Errorf("QuestionsAsked for %q: got %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestPermissionDenialsText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		log  string
		want int
	}{
		{"bash: ./deploy.sh: Permission denied\n", 1},
		{"open /etc/shadow: permission denied\n", 1},
		{"Permission to use Bash with command git push has been denied.\n", 1},
		{"permission to use WebFetch was denied\n", 1},
		{"This command requires approval\n", 1},
		{"Claude requested permissions to use Bash, but you haven't granted it yet.\n", 1},
		{"Claude requested permissions to write to /app/x.go, but you haven’t granted it yet.\n", 1},
		{"Permission denied\nPermission denied\nok\nThis command requires approval\n", 3},
		{"Permission denied (publickey). Permission denied again on one line.\n", 1},

		{"All permissions are fine.\n", 0},
		{"chmod +x deploy.sh granted execute rights\n", 0},
		{"The approval workflow is documented.\n", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := read(t, tt.log).PermissionDenials; got != tt.want {
			t.Errorf("PermissionDenials for %q: got %d, want %d", tt.log, got, tt.want)
		}
	}
}

func TestStripLogPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"[10:24:45] ERROR: x", "ERROR: x"},
		{"[2026-01-15 10:24:12] [ERROR] x", "[ERROR] x"},
		{"2024-01-02T15:04:05.1234567Z Error: x", "Error: x"},
		{"2024/01/02 15:04:05 panic: x", "panic: x"},
		{"15:04:05.123 FAIL x", "FAIL x"},
		{"[5] item", "[5] item"},
		{"[ERROR] x", "[ERROR] x"},
		{"2024 was a good year", "2024 was a good year"},
	}
	for _, tt := range tests {
		if got := stripLogPrefix(tt.in); got != tt.want {
			t.Errorf("stripLogPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripANSI(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;31mred\x1b[0m", "red"},
		{"\x1b]8;;https://x\x07link\x1b]8;;\x07", "link"},
		{"\x1b]0;title\x1b\\after", "after"},
		{"\x1b(Bx", "x"},
		{"cut\x1b", "cut"},
		{"cut\x1b[", "cut"},
		{"cut\x1b[31", "cut"},
		{"\x1b]unterminated", ""},
	}
	for _, tt := range tests {
		if got := stripANSI(tt.in); got != tt.want {
			t.Errorf("stripANSI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// read reads s as a log and fails the test on an error.
func read(t *testing.T, s string) *Log {
	t.Helper()
	l, err := Read(strings.NewReader(s), "agent.log")
	if err != nil {
		t.Fatalf("Read(%q): got error %v, want none", s, err)
	}
	return l
}
