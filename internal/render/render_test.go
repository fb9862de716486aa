package render

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fold runs a small scenario and returns the final decision.
func fold(t *testing.T, name string, its []breaker.Iteration) breaker.Decision {
	t.Helper()
	p, err := policy.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return foldPolicy(t, p, its)
}

// foldPolicy is fold under a policy.
func foldPolicy(t *testing.T, p *policy.Policy, its []breaker.Iteration) breaker.Decision {
	t.Helper()
	b, err := breaker.New(p, breaker.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var d breaker.Decision
	start := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	for i, it := range its {
		it.At = start.Add(time.Duration(i) * 10 * time.Minute)
		it.Commit = strings.Repeat(string(rune('a'+i)), 40)
		if d, err = b.Observe(it); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// errs are n error signatures named after prefix.
func errs(prefix string, n int) []breaker.Signature {
	var out []breaker.Signature
	for i := range n {
		s := fmt.Sprintf("%s.%d: %s", prefix, i, hostile)
		out = append(out, breaker.Signature{Hash: fmt.Sprintf("%x", sha256.Sum256([]byte(s))), Sample: s})
	}
	return out
}

func files(n int, tree string, names ...string) *breaker.Change {
	return &breaker.Change{MeaningfulFiles: n, MeaningfulLines: 10 * n, Tree: tree, Files: names}
}

const hostile = "TypeError: x is undefined \x1b[31m@octo-org/admins <script>alert(1)</script> ::error::pwned\n| `code` | [link](http://x)"

func scenarios(t *testing.T) map[string]breaker.Decision {
	sig := breaker.Signature{Hash: strings.Repeat("1", 64), Sample: hostile}
	return map[string]breaker.Decision{
		"closed": fold(t, "default", []breaker.Iteration{
			{Change: files(2, "t1", "main.go", "lib/a.go"), Tests: &breaker.Tests{Passed: 4, Failed: 1}},
			{Change: files(1, "t2", "lib/a.go"), Tests: &breaker.Tests{Passed: 5}},
		}),
		"half_open": fold(t, "default", []breaker.Iteration{
			{Change: files(1, "t1", "main.go")},
			{Change: files(0, "t1")},
			{Change: files(0, "t1")},
		}),
		"complete": fold(t, "default", []breaker.Iteration{
			{Change: files(2, "t1", "main.go", "lib/a.go"), Tests: &breaker.Tests{Passed: 4, Failed: 1}, Tasks: &breaker.Tasks{Done: 1, Total: 2}},
			{Change: files(1, "t2", "lib/a.go"), Tests: &breaker.Tests{Passed: 5, Skipped: 1}, Tasks: &breaker.Tasks{Done: 2, Total: 2},
				TaskChange: &breaker.TaskChange{Checked: []string{"plan#2"}}, CompletionClaimed: true},
		}),
		"trend": fold(t, "default", []breaker.Iteration{
			{Change: files(1, "t1", "a.go"), ErrorsKnown: true},
			{Change: files(1, "t2", "a.go"), ErrorsKnown: true, Errors: errs("e2", 1)},
			{Change: files(1, "t3", "a.go"), ErrorsKnown: true, Errors: errs("e3", 2)},
			{Change: files(1, "t4", "a.go"), ErrorsKnown: true, Errors: errs("e4", 3)},
		}),
		"open_spend": foldPolicy(t, spendPolicy(t), []breaker.Iteration{
			{Change: files(1, "t1", "parse.go"), Cost: cost(1.25, 150000)},
			{Change: files(0, "t1"), Cost: cost(2.10, 260000)},
			{Change: files(0, "t1"), Cost: cost(2.05, 240000)},
		}),
		"open_same_error": fold(t, "default", []breaker.Iteration{
			{Change: files(1, "t1", "a.go"), ErrorsKnown: true, Errors: []breaker.Signature{sig}},
			{Change: files(1, "t2", "a.go"), ErrorsKnown: true, Errors: []breaker.Signature{sig}},
			{Change: files(1, "t3", "a.go"), ErrorsKnown: true, Errors: []breaker.Signature{sig}},
			{Change: files(1, "t4", "a.go"), ErrorsKnown: true, Errors: []breaker.Signature{sig}},
			{Change: files(1, "t5", "<img src=x>.go"), ErrorsKnown: true, Errors: []breaker.Signature{sig}},
		}),
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for name, d := range scenarios(t) {
		for _, format := range Formats {
			t.Run(name+"."+format, func(t *testing.T) {
				t.Parallel()
				var buf bytes.Buffer
				if err := Write(&buf, format, &d, Options{ResetHint: "loopbreaker reset --state s.json --reason \"...\"", Notes: []note.Note{{Code: note.GitHistory, Text: "note from " + hostile}}}); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", name+"."+format+".golden")
				if *update {
					if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if diff := cmp.Diff(string(want), buf.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", path, diff)
				}
			})
		}
	}
}

func TestAgentTextNeverRawOutsideCode(t *testing.T) {
	t.Parallel()
	d := scenarios(t)["open_same_error"]
	md := MarkdownReport(&d, Options{Notes: []note.Note{{Code: note.GitHistory, Text: hostile}}})
	outside := regexpCode.ReplaceAllString(md, "")
	for _, bad := range []string{"<script", "@octo-org", "\x1b", "](http", "\n| `code`", "::error::pwned\n"} {
		if strings.Contains(outside, bad) {
			t.Errorf("markdown has %q outside code spans", bad)
		}
	}
	for _, line := range strings.Split(Text(&d, Options{Notes: []note.Note{{Code: note.GitHistory, Text: hostile}}}), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsRune(line, 0x1b) {
			t.Errorf("text line could act as a workflow command or escape: %q", line)
		}
	}
}

func TestEscapers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		fn       func(string) string
		in, want string
	}{
		{Clean, "a\x1b[1;31mb\x1b[0m\tc\r\nd", "ab c  d"},
		{Clean, "osc\x1b]0;title\x07end", "oscend"},
		{Clean, "bidi\u202eevil", "bidievil"},
		{Clean, "bad\xffutf8", "bad\uFFFDutf8"},
		{Clean, strings.Repeat("x", 400), strings.Repeat("x", MaxField-1) + "…"},
		{Markdown, "@team #12 <b>", "@\u200dteam #\u200d12 &lt;b&gt;"},
		{Markdown, "a|b*c_`d`", "a\\|b\\*c\\_\\`d\\`"},
		{Code, "x`y", "`xˋy`"},
		{Code, "", "` `"},
	}
	for _, c := range cases {
		if got := c.fn(c.in); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestStrategiesForEveryRule(t *testing.T) {
	t.Parallel()
	for _, r := range policy.RuleOrder {
		if len(Strategies(r)) == 0 {
			t.Errorf("no recovery strategies for rule %s", r)
		}
	}
}

var regexpCode = regexp.MustCompile("`[^`\n]*`")

// doubled is a warning label followed by a warning's own "warning:".
var doubled = regexp.MustCompile(`(?i)warning:\W+warning:`)

// TestWarningIsSaidOnce: the max_iterations warning's own "warning: " is
// not repeated after a label that already says it.
func TestWarningIsSaidOnce(t *testing.T) {
	t.Parallel()
	var its []breaker.Iteration
	for i := 0; i < 8; i++ {
		its = append(its, breaker.Iteration{Change: files(1, string(rune('a'+i)), "main.go")})
	}
	d := fold(t, "default", its)
	if len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], "warning: ") {
		t.Fatalf("got warnings %q, want the iteration warning", d.Warnings)
	}
	for name, out := range map[string]string{"text": Text(&d, Options{}), "markdown": MarkdownReport(&d, Options{}), "failure context": FailureContext(&d)} {
		if doubled.MatchString(out) || !strings.Contains(out, "iteration 8 of at most 20") {
			t.Errorf("%s: the warning is doubled or missing:\n%s", name, out)
		}
	}
}

// TestThreeNextSteps: a decision that is not CLOSED leads with three next
// steps; markdown keeps the others after them; CLOSED has none.
func TestThreeNextSteps(t *testing.T) {
	t.Parallel()
	d := scenarios(t)["half_open"]
	next, more := NextSteps(&d)
	if len(next) != 3 || len(more) != 1 || next[0] != Strategies("no_progress")[0] {
		t.Errorf("got next %q and more %q, want the first three strategies and the fourth", next, more)
	}
	text := Text(&d, Options{})
	if !strings.Contains(text, "  next:       1. "+next[0]+"\n") || !strings.Contains(text, "              3. "+next[2]+"\n") || strings.Contains(text, more[0]) {
		t.Errorf("text does not lead with the three steps:\n%s", text)
	}
	if md := MarkdownReport(&d, Options{}); !strings.Contains(md, "3. "+next[2]+"\n\nAlso: "+more[0]+".") {
		t.Errorf("markdown lacks the steps or the others:\n%s", md)
	}
	closed := scenarios(t)["closed"]
	if next, _ := NextSteps(&closed); next != nil {
		t.Errorf("CLOSED: got next steps %q", next)
	}
}

// TestFailingTestsAreNamedAndEscaped: the newest measured iteration's
// failing tests, at most five, as code spans.
func TestFailingTestsAreNamedAndEscaped(t *testing.T) {
	t.Parallel()
	names := []string{"TestA`<b>@x", "TestB", "TestC", "TestD", "TestE", "TestF"}
	d := fold(t, "default", []breaker.Iteration{
		{Change: files(1, "t1", "a.go"), Tests: &breaker.Tests{Passed: 1, Failed: 6, Failing: names}},
	})
	got, total := Failing(&d)
	if total != 6 || len(got) != 5 || got[0] != "TestA`<b>@x" {
		t.Errorf("got %q of %d, want the first five of 6", got, total)
	}
	md := MarkdownReport(&d, Options{})
	if !strings.Contains(md, "**Failing tests (6):** `TestAˋ‹b›@x`, `TestB`, `TestC`, `TestD`, `TestE` and 1 more\n") {
		t.Errorf("markdown does not list the failing tests:\n%s", md)
	}
}

// spendPolicy is default with $4.00 allowed without progress.
func spendPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte("extends = \"default\"\n[rules.spend]\nmax_usd_without_progress = 4.0\n"), "spend.toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cost(usd float64, tokens int64) *breaker.Cost { return &breaker.Cost{USD: &usd, Tokens: &tokens} }
