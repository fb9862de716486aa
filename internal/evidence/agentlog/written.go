package agentlog

import (
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// WrittenKind is what a line the loop wrote into one of its own files
// says.
type WrittenKind int

// The kinds of written lines that count.
const (
	// WrittenNone: nothing the breaker reads.
	WrittenNone WrittenKind = iota
	// WrittenError: an error the loop recorded (an error line, a state
	// file's error value).
	WrittenError
	// WrittenReview: a reviewer's finding or rejection the loop recorded.
	WrittenReview
	// WrittenClaim: a claim that the work, or a part of it, is done.
	WrittenClaim
)

var (
	// errorValueRe matches an error kept as a value in a state file:
	// "last_error": "402 Payment Required", error: rate limited.
	errorValueRe = lazyre.New(`(?i)^["']?(?:last[_-]?|latest[_-]?)?error(?:[_-]?(?:message|msg|text|detail|details|reason))?["']?\s*[:=]\s*["']?([^\s\[{].*?)["']?,?$`)
	// reviewRe matches a reviewer's finding or a rejection, as a loop
	// writes it into its memory or notes.
	reviewRe = lazyre.New(`(?i)^(?:review(?:er)?(?:\s+(?:finding|comment|feedback|note))?s?|code review|changes requested|requested changes|rejected|rejection)(?:\s+by\s+\S+)?\s*[:—–-]\s*(\S.*)$`)
	// doneRe matches a part of the work said to be done: "epic 16
	// complete", "Story 4.2 is done", "phase 3 verified complete".
	doneRe = lazyre.New(`(?i)\b(?:epic|story|phase|milestone|feature|sprint|stage|step|task|issue|ticket|part|day)\s+#?[\w.-]+(?:\s*\([^)]*\))?\s+(?:is\s+)?(?:now\s+)?(?:fully\s+)?(?:verified\s+)?(?:complete|completed|done|finished)\b`)
	// successRe matches a status that says the run succeeded: "SUCCESS",
	// "Status: success (committed)", "Result: SUCCEEDED".
	successRe = lazyre.New(`(?i)^(?:(?:status|result|outcome)\s*[:=]\s*)?(?:success|succeeded|successful)\b\s*(?:[(:!.—–-].*)?$`)
)

// Written reads one line the loop added to a committed file that is not
// source code: an error it recorded, a reviewer's finding, or a claim that
// work is done (not a bare "done": a script's loop reads like one), with
// the text that identifies it. Markdown marks, a timestamp and ANSI
// escapes are dropped first; a word each kind needs is looked for before
// any pattern.
func Written(line string) (WrittenKind, string) {
	s := strings.TrimSpace(stripANSI(line))
	if len(s) < 4 || len(s) > 4<<10 {
		return WrittenNone, ""
	}
	s = stripLogPrefix(strings.TrimLeft(s, "-*+#>•✅❌ \t"))
	s = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(s, "**", ""), "__", ""))
	if s == "" {
		return WrittenNone, ""
	}
	lower := lowerText(s)
	has := func(words ...string) bool {
		return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(lower, w) })
	}
	if has("review", "request", "reject") {
		if m := reviewRe().FindStringSubmatch(s); m != nil {
			return WrittenReview, m[1]
		}
	}
	if isErrorLine(s) {
		return WrittenError, s
	}
	if has("error") {
		if m := errorValueRe().FindStringSubmatch(s); m != nil && meaningfulValue(m[1]) {
			return WrittenError, m[1]
		}
	}
	if has("complete", "done", "finished", "nothing", "exit_signal", "status", "succe") &&
		(claimsPhrase(lower) || doneRe().MatchString(s) || successRe().MatchString(s)) {
		return WrittenClaim, s
	}
	return WrittenNone, ""
}

// meaningfulValue reports whether an error value says something in words:
// not a count, a flag, null or none.
func meaningfulValue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(strings.Trim(v, `"' `))) {
	case "", "null", "nil", "none", "false", "true", "n/a":
		return false
	}
	return strings.IndexFunc(v, func(r rune) bool { return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') }) >= 0
}

// IsWritten reports whether a line the loop added to one of its files is
// one Written reads.
func IsWritten(line string) bool {
	k, _ := Written(line)
	return k != WrittenNone
}
