package evidence_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/note"
)

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A JUnit report with two failing tests (the same message), a passing and
// a skipped one.
const junitReport = `<testsuite name="s" tests="4">` +
	`<testcase classname="a" name="TestA"><failure message="want 1, got 2"/></testcase>` +
	`<testcase classname="a" name="TestB"><failure message="want 1, got 2"/></testcase>` +
	`<testcase classname="a" name="TestC"/>` +
	`<testcase classname="a" name="TestD"><skipped/></testcase></testsuite>`

// A go test -json report of a package that does not build.
const buildReport = `{"ImportPath":"b [b.test]","Action":"build-output","Output":"b/b.go:4:9: undefined: y\n"}
{"ImportPath":"b [b.test]","Action":"build-fail"}
{"Action":"fail","Package":"b","FailedBuild":"b [b.test]"}
`

// An agent log with one error line twice, a permission denial and a
// status block.
const agentLog = `working on it
src/p.go:3:1: undefined: handler
src/p.go:3:1: undefined: handler
Permission to use Bash has been denied
---RALPH_STATUS---
STATUS: IN_PROGRESS
FILES_MODIFIED: 3
PROGRESS: 45%
PHASE: GREEN
CURRENT_TASK: write the parser
---END_RALPH_STATUS---
`

// sig is the signature Apply keeps for an error line.
func sig(line, test string) breaker.Signature {
	s := signature.Of(line)
	return breaker.Signature{Hash: s.Hash, Sample: s.Sample, Test: test}
}

func TestFilesApply(t *testing.T) {
	t.Parallel()
	// Every claim a log makes is the same one.
	claimSig := signature.Of("the agent claims the work is done")
	logClaimed := &breaker.Signature{Hash: claimSig.Hash, Sample: claimSig.Sample}
	dir := t.TempDir()
	junit := writeFile(t, dir, "junit.xml", junitReport)
	build := writeFile(t, dir, "build.json", buildReport)
	log := writeFile(t, dir, "agent.log", agentLog)
	const completeLog = "done here\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---\n"
	const exitLog = "---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nEXIT_SIGNAL: true\n---END_RALPH_STATUS---\n"
	complete := writeFile(t, dir, "complete.log", completeLog)
	exit := writeFile(t, dir, "exit.log", exitLog)

	logErr := sig("src/p.go:3:1: undefined: handler", "")
	buildErr := sig("b/b.go:4:9: undefined: y", "")
	earlier := breaker.Signature{Hash: "e", Sample: "from the record"}
	pct := func(v float64) *float64 { return &v }

	tests := []struct {
		name    string
		reports []string
		log     string
		it      breaker.Iteration // before Apply
		want    breaker.Iteration
	}{
		{
			name: "nothing read: nothing known",
			it:   breaker.Iteration{Commit: "c"},
			want: breaker.Iteration{Commit: "c"},
		},
		{
			name: "agent log: its errors once, its output and its status block",
			log:  log,
			it:   breaker.Iteration{Commit: "c"},
			want: breaker.Iteration{Commit: "c", ErrorsKnown: true, Errors: []breaker.Signature{logErr},
				Output: &breaker.Output{Lines: 11, Bytes: int64(len(agentLog))}, PermissionDenials: 1,
				ClaimedFiles: intp(3), ProgressPercent: pct(45), Phase: "GREEN", PhaseByAgent: true, CurrentTask: breaker.StatusTask("write the parser")},
		},
		{
			name: "agent log: the commit's phase and progress win over the status block's",
			log:  log,
			it:   breaker.Iteration{Phase: "RED", ProgressPercent: pct(10)},
			want: breaker.Iteration{ErrorsKnown: true, Errors: []breaker.Signature{logErr},
				Output: &breaker.Output{Lines: 11, Bytes: int64(len(agentLog))}, PermissionDenials: 1,
				ClaimedFiles: intp(3), ProgressPercent: pct(10), Phase: "RED", CurrentTask: breaker.StatusTask("write the parser")},
		},
		{
			name: "agent log: STATUS COMPLETE claims completion",
			log:  complete,
			want: breaker.Iteration{ErrorsKnown: true, Output: &breaker.Output{Lines: 4, Bytes: int64(len(completeLog))}, CompletionClaimed: true, Claim: logClaimed},
		},
		{
			name: "agent log: EXIT_SIGNAL claims completion",
			log:  exit,
			want: breaker.Iteration{ErrorsKnown: true, Output: &breaker.Output{Lines: 4, Bytes: int64(len(exitLog))}, CompletionClaimed: true, Claim: logClaimed},
		},
		{
			name:    "reports: the build failure before the failing tests, each test's message kept",
			reports: []string{junit, build},
			want: breaker.Iteration{ErrorsKnown: true,
				Tests:  &breaker.Tests{Passed: 1, Failed: 3, Skipped: 1, BuildFailed: true, Failing: []string{"s/a.TestA", "s/a.TestB"}},
				Errors: []breaker.Signature{buildErr, sig("want 1, got 2", "s/a.TestA"), sig("want 1, got 2", "s/a.TestB")}},
		},
		{
			name:    "both, after a record's errors: the log's first, then the build's, then the tests'",
			reports: []string{filepath.Join(dir, "*.xml"), filepath.Join(dir, "*.json")},
			log:     log,
			it:      breaker.Iteration{Errors: []breaker.Signature{earlier}},
			want: breaker.Iteration{ErrorsKnown: true,
				Tests:  &breaker.Tests{Passed: 1, Failed: 3, Skipped: 1, BuildFailed: true, Failing: []string{"s/a.TestA", "s/a.TestB"}},
				Errors: []breaker.Signature{earlier, logErr, buildErr, sig("want 1, got 2", "s/a.TestA"), sig("want 1, got 2", "s/a.TestB")},
				Output: &breaker.Output{Lines: 11, Bytes: int64(len(agentLog))}, PermissionDenials: 1,
				ClaimedFiles: intp(3), ProgressPercent: pct(45), Phase: "GREEN", PhaseByAgent: true, CurrentTask: breaker.StatusTask("write the parser")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := evidence.ReadFiles(tt.reports, tt.log)
			if err != nil {
				t.Fatalf("ReadFiles: %v", err)
			}
			it := tt.it
			f.Apply(&it)
			if diff := cmp.Diff(tt.want, it); diff != "" {
				t.Errorf("iteration (-want +got):\n%s", diff)
			}
		})
	}
}

// Apply keeps at most MaxErrors signatures and lists at most 20 failing
// tests, though every failure is counted.
func TestFilesApplyBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// word is a distinct word for each i: the signatures differ.
	word := func(i int) string { return string([]byte{byte('a' + i/26), byte('a' + i%26)}) }
	var logText strings.Builder
	for i := range 40 {
		fmt.Fprintf(&logText, "error: step %s failed\n", word(i))
	}
	var junit strings.Builder
	junit.WriteString(`<testsuite name="s">`)
	for i := range 40 {
		fmt.Fprintf(&junit, `<testcase name="T%02d"><failure message="case %s is wrong"/></testcase>`, i, word(i))
	}
	junit.WriteString(`</testsuite>`)
	f, err := evidence.ReadFiles([]string{writeFile(t, dir, "r.xml", junit.String())}, writeFile(t, dir, "a.log", logText.String()))
	if err != nil {
		t.Fatalf("ReadFiles: %v", err)
	}
	var it breaker.Iteration
	f.Apply(&it)
	if len(it.Errors) != evidence.MaxErrors {
		t.Fatalf("got %d errors, want %d", len(it.Errors), evidence.MaxErrors)
	}
	if got, want := it.Errors[39].Sample, "error: step "+word(39)+" failed"; got != want {
		t.Errorf("got last log error %q, want %q", got, want)
	}
	if got, want := it.Errors[evidence.MaxErrors-1].Test, "s/T23"; got != want {
		t.Errorf("got last error's test %q, want %q", got, want)
	}
	if it.Tests.Failed != 40 || len(it.Tests.Failing) != 20 || it.Tests.Failing[19] != "s/T19" {
		t.Errorf("got %d failed, failing %q, want 40 failed and the first 20 listed", it.Tests.Failed, it.Tests.Failing)
	}
}

func TestFilesNotes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tap := writeFile(t, dir, "t.tap", "TAP version 13\n1..3\nok 1 - one\n")
	log := writeFile(t, dir, "a.log", "work\n---RALPH_STATUS---\nSTATUS: COMPLETE\n")
	f, err := evidence.ReadFiles([]string{tap}, log)
	if err != nil {
		t.Fatalf("ReadFiles: %v", err)
	}
	want := []note.Note{
		{Code: note.TestReport, Text: tap + ": planned 3 test(s) but 1 ran"},
		{Code: note.AgentLog, Text: "status block on line 2 has no ---END_RALPH_STATUS---; ignored"},
	}
	if diff := cmp.Diff(want, f.Notes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if got := (&evidence.Files{}).Notes(); got != nil {
		t.Errorf("got notes %v without files, want none", got)
	}
}

// TestAMissingReportIsABuildFailure: a report glob that matches nothing
// is a build that produced no report: a build failure with its error and
// a note naming the glob, not an error.
func TestAMissingReportIsABuildFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeFile(t, dir, "good.xml", junitReport)
	missing := filepath.Join(dir, "missing*.xml")
	f, err := evidence.ReadFiles([]string{good, missing}, "")
	if err != nil || f.MissingReport != missing {
		t.Fatalf("got %+v, %v; want the missing glob", f, err)
	}
	if n := f.Notes(); len(n) != 1 || n[0].Code != note.ReportMissing || !strings.Contains(n[0].Text, missing) {
		t.Errorf("notes %v, want one report_missing naming the glob", n)
	}
	var it breaker.Iteration
	f.Apply(&it)
	if it.Tests == nil || !it.Tests.BuildFailed || len(it.Errors) != 1 || !strings.Contains(it.Errors[0].Sample, "no test report") {
		t.Errorf("iteration %+v %+v, want a build failure with its error", it.Tests, it.Errors)
	}
}

func TestReadFilesErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeFile(t, dir, "good.xml", junitReport)
	notReport := writeFile(t, dir, "notes.txt", "just words\n")
	tests := []struct {
		name    string
		reports []string
		log     string
		want    string // the error names this
	}{
		{"a file that is no report", []string{notReport}, "", notReport},
		{"a missing log", nil, filepath.Join(dir, "agent.log"), filepath.Join(dir, "agent.log")},
		{"a log that is a directory", []string{good}, dir, dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := evidence.ReadFiles(tt.reports, tt.log)
			if err == nil {
				t.Fatalf("got files %+v, want an error", f)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %q, want one naming %s", err, tt.want)
			}
		})
	}
}

// The status block decides completion even in a log built by hand, whose
// reader did not already say so.
func TestFilesApplyStatusClaimsCompletion(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tests := []struct {
		name   string
		status agentlog.StatusBlock
		want   bool
	}{
		{"complete", agentlog.StatusBlock{Status: "COMPLETE"}, true},
		{"exit signal", agentlog.StatusBlock{Status: "IN_PROGRESS", ExitSignal: &yes}, true},
		{"in progress", agentlog.StatusBlock{Status: "IN_PROGRESS", ExitSignal: &no}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &evidence.Files{Log: &agentlog.Log{Status: &tt.status}}
			var it breaker.Iteration
			f.Apply(&it)
			if it.CompletionClaimed != tt.want {
				t.Errorf("got completion claimed %v, want %v", it.CompletionClaimed, tt.want)
			}
		})
	}
}
