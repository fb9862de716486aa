package agentlog

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// Admissions of no progress: what an idle or stuck agent writes about its
// own iteration (commit subjects, status lines, its log). They can only make
// the breaker stricter, so a phrase is matched only where it describes the
// iteration itself (the start of a line, or with a word that says so), not
// where it names a feature ("fix idle timeout").
var (
	// admitLeadRe: a line that starts (after a conventional-commit type)
	// with the admission itself.
	admitLeadRe = lazyre.New(`^[\s*_\-#>\[]*(?:[a-z]+(?:\([^)]*\))?!?:\s*)?(?:\[?(?:idle|no-?op|noop)\b|nothing (?:new |left )?to (?:do|commit|change|report)\b|no (?:code |file |new )?changes\b|no new (?:work|issues|tasks|findings)\b|no progress\b|(?:still |remains? |remain )?blocked\b|waiting (?:on|for)\b|health[- ]?check\b|heartbeat\b)`)
	// admitAnyRe: phrases that admit no progress wherever they stand.
	admitAnyRe = lazyre.New(`\b(?:(?:idle|no-?op|noop) (?:tick|iteration|cycle|loop|run|check|session|heartbeat|pass)|nothing (?:new |left )?to (?:do|commit|change|report)|no (?:code |file )?changes? (?:made|needed|required|to commit|this (?:tick|iteration|cycle|session|run|loop))|health[- ]?check only|(?:still|remains?|remain) blocked|still waiting (?:on|for)|re-?confirm(?:ed|s|ing)? (?:the )?(?:same )?block(?:er|ed|ing)|(?:\d+(?:st|nd|rd|th)|another|consecutive) (?:no-?op|idle)|no progress (?:made|this))\b`)
	// blockerRe finds what the agent is blocked on or waiting for.
	blockerRe = lazyre.New(`\b(?:blocked|blocker|waiting)\b(?:\s+(?:on|by|for|:|-))?\s*(.*)$`)
	// volatileRe are the parts of a blocker's text that change from one
	// report to the next: numbers, ordinals, hashes, dates.
	volatileRe = lazyre.New(`\b[0-9a-f]{7,}\b|\d+(?:st|nd|rd|th)?|[^a-z ]+`)
)

// Admits reports whether text admits that the iteration made no progress
// (idle, no-op, no changes, nothing to do, still blocked, waiting on,
// health check only, the same blocker re-confirmed), and what blocker it
// names: the text after "blocked" or "waiting", its numbers, hashes and
// punctuation removed, so that the same blocker reported again matches
// ("" when it names none). Each line is read on its own.
func Admits(text string) (admitted bool, blocker string) {
	for _, line := range strings.Split(text, "\n") {
		lower := lowerText(strings.TrimSpace(line))
		if lower == "" || len(lower) > 400 {
			continue
		}
		if !admitLeadRe().MatchString(lower) && !admitAnyRe().MatchString(lower) {
			continue
		}
		admitted = true
		if blocker == "" {
			blocker = blockerOf(lower)
		}
	}
	return admitted, blocker
}

// blockerOf is the normalised blocker a line names, "" for none.
func blockerOf(lower string) string {
	m := blockerRe().FindStringSubmatch(lower)
	if m == nil {
		return ""
	}
	rest := strings.Join(strings.Fields(volatileRe().ReplaceAllString(m[1], " ")), " ")
	if rest == "" {
		rest = "unnamed"
	}
	return "blocked: " + textcut.Bytes(rest, 120, "")
}
