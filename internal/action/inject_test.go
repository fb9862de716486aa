package action

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/evidence/agentlog"
	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

// hostile is agent text that tries every trick on every path: workflow
// commands, the output heredoc delimiter, an encoded newline, ANSI and
// OSC escapes, HTML that hides content or runs script, markdown links and
// images, mentions of users and teams, issue references, table pipes and
// backticks.
const hostile = "::set-output name=state::CLOSED ::add-mask::secret ghadelimiter_0123 EOF %0A::error::pwned%0D " +
	"\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07link\x1b]8;;\x07 \x1b]0;title\x07 " +
	"@octo @octo-org/admins #1 <img src=x onerror=alert(1)> <!-- hidden --> <details><summary>s</summary> " +
	"[click](javascript:alert(1)) ![x](https://evil.example/x.png) | col | `code` **bold** \u202eevil\u202c"

// hostileLong is a 70,000-character message.
var hostileLong = "Error: " + hostile + " " + strings.Repeat("A", 70000)

// hostileLoop is a stagnant loop whose every agent-written input carries
// the hostile text: commit messages and trailers, file names, the agent
// log (with its status block) and a JUnit report; the ledger artifact of
// four earlier runs (each passing more tests: progress) repeats the log's
// first error, so that the breaker opens on same_error with agent text in
// its reason.
func hostileLoop(t *testing.T) *harness {
	t.Helper()
	oneLine := strings.NewReplacer("\n", " ", "\r", " ").Replace(hostile)
	evilName := "src/evil`<img src=x>@admin|%0A::warning::x.go"
	loop := newLoop(t, map[string]string{evilName: "package evil\n"})
	commitTo(t, loop, "fix: "+oneLine+"\n\n"+hostileLong+"\n\nLoop-Phase: "+oneLine+"\nLoop-Progress: 12%\n", map[string]string{"main.go": "package main\n// " + oneLine + "\n"})
	commitTo(t, loop, oneLine+"\n", nil)
	commitTo(t, loop, "\n", nil)

	logText := hostileLong + "\n" + "Error: second " + hostile + "\n::set-output name=allow-continue::true\n::add-mask::x\n%0A::stop-commands::tok\n" +
		"---RALPH_STATUS---\nSTATUS: COMPLETE\nRECOMMENDATION: " + oneLine + "\nPHASE: " + oneLine + "\n---END_RALPH_STATUS---\n"
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(loop.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("agent.log", logText)
	xml := escapeXML
	write("report.xml", `<testsuite name="s" tests="2" failures="1"><testcase classname="`+xml(oneLine)+`" name="`+xml(hostileLong)+`">`+
		`<failure message="`+xml(hostileLong)+`">`+xml(hostileLong)+`</failure></testcase><testcase name="ok"/></testsuite>`)

	h := newHarness(t, loop)
	h.env["INPUT_AGENT-LOG"] = "agent.log"
	h.env["INPUT_REPORTS"] = "report.xml"

	l, err := agentlog.Read(strings.NewReader(logText), "agent.log")
	if err != nil || len(l.Errors) == 0 {
		t.Fatalf("the hostile log has no error line: %v", err)
	}
	sig := signature.Of(l.Errors[0])
	var recs []ledger.Record
	for i := 1; i <= 4; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(90 + i), RunAttempt: 1, At: start.Add(time.Duration(i) * time.Hour),
			Errors: []ledger.Error{{Hash: sig.Hash, Sample: sig.Sample}}, Tests: &ledger.Tests{Passed: 2 * i, Failed: 1, Failing: []string{oneLine}}})
	}
	h.artifact(94, "agent/loop", loop.head, start.Add(4*time.Hour), recordZip(t, recs))
	return h
}

func escapeXML(s string) string {
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '"':
			b.WriteString("&quot;")
		case r < 0x20 && r != '\t':
			// control characters cannot appear in XML 1.0
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// commitTo adds a commit with the message and files to the loop.
func commitTo(t *testing.T, l *loopRepo, msg string, files map[string]string) {
	t.Helper()
	r, err := git.PlainOpen(l.dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	for name, content := range files {
		p := filepath.Join(l.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(name); err != nil {
			t.Fatal(err)
		}
	}
	head, _ := r.Head()
	c, _ := r.CommitObject(head.Hash())
	sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: c.Committer.When.Add(10 * time.Minute)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	l.head = h.String()
}

// recordZip is an artifact archive holding the records.
func recordZip(t *testing.T, recs []ledger.Record) []byte {
	t.Helper()
	var buf, js bytes.Buffer
	if err := ledger.Encode(&js, recs); err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("record.json")
	w.Write(js.Bytes())
	zw.Close()
	return buf.Bytes()
}

// runHostile runs the hostile loop and checks that it opened on the
// repeated agent error, so that agent text is in the reason.
func runHostile(t *testing.T, h *harness) {
	t.Helper()
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d\n%s", code, exitOpen, h.log.String())
	}
	o := h.outputs()
	if o["trigger"] != "same_error" || !strings.Contains(o["reason"], "set-output") {
		t.Fatalf("got trigger %q reason %q, want same_error with the agent's text", o["trigger"], o["reason"])
	}
}

var commandLine = regexp.MustCompile(`^::(error|warning|notice|debug|group|endgroup)( [^:]*)?::`)

// checkLogLine fails on a log line the runner would act on other than the
// action's own annotations, and on agent text that escaped its escaping.
func checkLogLine(t *testing.T, where, line string) {
	t.Helper()
	if strings.HasPrefix(line, "::") && !commandLine.MatchString(line) {
		t.Errorf("%s: agent text became a workflow command: %.120q", where, line)
	}
	if strings.ContainsAny(line, "\x1b\r\u202e") {
		t.Errorf("%s: escape or control character in %.120q", where, line)
	}
	if strings.Contains(line, "%0A") || strings.Contains(line, "%0D") {
		t.Errorf("%s: an encoded line break would end the command early: %.120q", where, line)
	}
	if len(line) > 4096 {
		t.Errorf("%s: a log line of %d bytes, want at most 4096", where, len(line))
	}
}

var codeSpan = regexp.MustCompile("`[^`\n]*`")

// checkMarkdown fails when agent text outside a code span could render as
// HTML, a link or image, a mention or a reference, or hide content. own
// lists the HTML the action itself writes.
func checkMarkdown(t *testing.T, where, md string, limit int, own ...string) {
	t.Helper()
	if n := utf8.RuneCountInString(md); n > limit {
		t.Errorf("%s: %d characters, want at most %d", where, n, limit)
	}
	for _, s := range own {
		md = strings.ReplaceAll(md, s, "")
	}
	md = codeSpan.ReplaceAllString(md, "")
	for _, bad := range []string{"<img", "<!--", "<details", "](javascript", "![x]", "\x1b", "\u202e", "@octo", "#1 ", "ghadelimiter_0123\n"} {
		if strings.Contains(md, bad) {
			i := strings.Index(md, bad)
			t.Errorf("%s: agent text %q is live: …%s…", where, bad, md[max(0, i-60):min(len(md), i+60)])
		}
	}
	if strings.Contains(md, "<") {
		i := strings.Index(md, "<")
		t.Errorf("%s: raw HTML: …%s…", where, md[max(0, i-60):min(len(md), i+60)])
	}
}

func TestInjectionOutputs(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	runHostile(t, h)
	o := h.outputs()
	want := []string{"allow-continue", "artifact-name", "complete", "consecutive-stuck", "decision", "escalate", "failure-context", "ignored-open", "iteration",
		"next-model", "open-action", "progress-score", "reason", "record-path", "shallow", "signal", "state", "trigger", "window-score"}
	var got []string
	for k := range o {
		got = append(got, k)
	}
	if strings.Join(sortedCopy(got), " ") != strings.Join(want, " ") {
		t.Errorf("got outputs %v, want exactly %v", sortedCopy(got), want)
	}
	if o["state"] != "OPEN" || o["allow-continue"] != "false" {
		t.Errorf("agent text changed the verdict: state %q allow-continue %q", o["state"], o["allow-continue"])
	}
	for _, k := range []string{"reason", "next-model", "trigger", "open-action", "signal"} {
		if strings.ContainsAny(o[k], "\n\r\x1b\u202e") {
			t.Errorf("output %s holds a line break or escape: %.100q", k, o[k])
		}
	}
	// The agent block has lines of its own; agent text starts none.
	if fc := o["failure-context"]; strings.ContainsAny(fc, "\r\x1b\u202e") || !blockLines(fc) {
		t.Errorf("output failure-context holds an escape or a line of the agent's: %.300q", fc)
	}
	if n := utf8.RuneCountInString(o["reason"]); n > 300 {
		t.Errorf("reason output is %d characters, want at most 300", n)
	}
	if n := len(o["failure-context"]); n > 4000 {
		t.Errorf("failure-context output is %d bytes, want at most 4000", n)
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(o["decision"]), &d); err != nil {
		t.Errorf("decision output is not JSON: %v", err)
	}
	if n := len(o["decision"]); n > 256<<10 {
		t.Errorf("decision output is %d bytes, want a bounded object", n)
	}
}

func TestInjectionAnnotationsAndLog(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	runHostile(t, h)
	log := h.log.String()
	if !strings.Contains(log, "::error title=loopbreaker OPEN") {
		t.Fatalf("no OPEN annotation in the log:\n%.2000s", log)
	}
	for _, line := range strings.Split(log, "\n") {
		checkLogLine(t, "log", line)
	}
}

func TestInjectionJobSummary(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	runHostile(t, h)
	s := h.summaryText()
	if !strings.Contains(s, "same error") {
		t.Fatalf("summary lacks the reason:\n%.2000s", s)
	}
	checkMarkdown(t, "job summary", s, 1<<20)
}

func TestInjectionStickyComment(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	runHostile(t, h)
	cs := h.comments(7)
	if len(cs) != 1 {
		t.Fatalf("got %d comments, want the one sticky comment", len(cs))
	}
	body := cs[0].Body
	digest := regexp.MustCompile(`<!-- loopbreaker-digest:v1:[A-Za-z0-9+/=]* -->`)
	checkMarkdown(t, "comment", body, present.CommentBudget, present.Marker, digest.FindString(body), "<details><summary>Commands</summary>", render.StatusLogDetails, "</details>")
}

func TestInjectionLabelsAndStatus(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	runHostile(t, h)
	for _, l := range h.labels(7) {
		if l != present.LabelOpen && l != present.LabelHalfOpen {
			t.Errorf("got label %q, want only the action's own", l)
		}
	}
	for _, l := range h.fake.RepoLabels("octo", "loop") {
		if strings.ContainsAny(l.Name+l.Description, "<@`\x1b") {
			t.Errorf("label %+v carries agent text", l)
		}
	}
	st := h.fake.Statuses("octo", "loop", h.loop.head)
	if len(st) != 1 {
		t.Fatalf("got %d statuses, want 1", len(st))
	}
	if d := st[0].Description; utf8.RuneCountInString(d) > 140 || strings.ContainsAny(d, "\n\r\x1b") {
		t.Errorf("status description %q is over 140 characters or holds control characters", d)
	}
}

func TestInjectionCheckRun(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	h.env["INPUT_STATUS"] = "check-run"
	runHostile(t, h)
	runs := h.fake.CheckRuns("octo", "loop", h.loop.head)
	if len(runs) != 1 {
		t.Fatalf("got %d check runs, want 1\n%s", len(runs), h.log.String())
	}
	if strings.ContainsAny(runs[0].Title, "\n\r\x1b") {
		t.Errorf("check run title holds control characters: %q", runs[0].Title)
	}
	checkMarkdown(t, "check run summary", runs[0].Summary, 65535)
}

// TestInjectionGuideComment: a trusted person's guide text goes into the
// decision's reason and from there everywhere; it is escaped the same way.
func TestInjectionGuideComment(t *testing.T) {
	t.Parallel()
	h := newHarness(t, stagnant(t), present.LabelOpen)
	h.permission("maintainer", "write")
	h.comment(7, "maintainer", "User", "/loopbreaker guide "+hostile+strings.Repeat("B", 70000), start.Add(30*time.Hour))
	h.now = start.Add(31 * time.Hour)
	h.run()
	for _, line := range strings.Split(h.log.String(), "\n") {
		checkLogLine(t, "log", line)
	}
	checkMarkdown(t, "job summary", h.summaryText(), 1<<20)
	for k, v := range h.outputs() {
		if k != "decision" && strings.ContainsAny(v, "\n\r\x1b") {
			t.Errorf("output %s holds a line break or escape: %.100q", k, v)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestInjectionGate: after the judge opened on the agent's repeated error,
// the gate says why it does not start the agent, with the reason the
// agent's text is in; no line of its log or its outputs
// becomes a workflow command, and it says proceed=false.
func TestInjectionGate(t *testing.T) {
	t.Parallel()
	h := hostileLoop(t)
	runHostile(t, h)
	h.uploadRecord(100, "agent/loop", h.loop.head)
	h.nextRun()
	h.env["INPUT_MODE"] = "gate"
	if code := h.run(); code != exitContinue {
		t.Fatalf("gate: got exit %d, want 0\n%s", code, h.log.String())
	}
	o := h.outputs()
	if o["proceed"] != "false" || o["state"] != "OPEN" || !strings.Contains(o["reason"], "set-output") {
		t.Fatalf("gate: got proceed %q state %q reason %q, want false, OPEN and the agent's text\n%s", o["proceed"], o["state"], o["reason"], h.log.String())
	}
	if !strings.Contains(h.log.String(), "::notice::loopbreaker gate: OPEN") {
		t.Errorf("the gate did not say why:\n%.2000s", h.log.String())
	}
	for _, line := range strings.Split(h.log.String(), "\n") {
		checkLogLine(t, "gate log", line)
	}
	for _, k := range []string{"proceed", "head-ref", "reason", "state"} {
		if strings.ContainsAny(o[k], "\n\r\x1b\u202e") {
			t.Errorf("gate output %s holds a line break or escape: %.100q", k, o[k])
		}
	}
	if h.summaryText() != "" && strings.Contains(h.summaryText(), "<img") {
		t.Errorf("the gate's summary holds live HTML")
	}
}
