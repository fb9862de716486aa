package agentlog

import (
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"strings"
	"unicode"
)

var (
	// stampPrefixRe matches a timestamp that starts a log line.
	stampPrefixRe = lazyre.New(`^(?:\d{4}[-/]\d{2}[-/]\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?)\s+`)

	// exceptionRe matches an exception as it is printed: an optionally dotted
	// class name ending in Error or Exception, then ":" or the end of the
	// line (ValueError: bad, java.io.IOException: x, Error [ERR_X]: y).
	exceptionRe = lazyre.New(`^(?:Uncaught |Unhandled (?:[Ee]xception\. )?)?(?:[A-Za-z_$][\w$]*\.)*[\w$]*(?:Error|Exception)(?: \[[A-Z0-9_]+\])?(?::\s|:$|$)`)

	// tracebackEndRe matches the line that ends a Python traceback: an
	// exception name, optionally dotted, optionally followed by ": message".
	tracebackEndRe = lazyre.New(`^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::.*)?$`)

	// locErrorRe matches "file:line[:col]: [fatal] error" and
	// "file(line,col): error" diagnostics (gcc, clang, javac, tsc, MSBuild).
	locErrorRe = lazyre.New(`^(?:[A-Za-z]:)?[^\s:()\[\]]+(?::\d+(?::\d+)?:?|\(\d+(?:,\d+)*\):?) *(?:- *)?(?:fatal )?(?i:error)\b`)
	// goDiagRe matches a Go compiler or vet diagnostic: file.go:line:col: msg.
	goDiagRe = lazyre.New(`^(?:vet: )?(?:[A-Za-z]:)?[^\s:()]*\.go:\d+:\d+: \S`)
	// goTestLogRe matches a Go test's failure message: x_test.go:12: msg.
	goTestLogRe = lazyre.New(`^[^\s:()]*_test\.go:\d+: \S`)
	// eslintRe matches an eslint stylish line: "12:5  error  msg  rule".
	eslintRe = lazyre.New(`^\d+:\d+ +error +\S`)
	// codeErrorRe matches "error TS2322:" and "error CS1002:".
	codeErrorRe = lazyre.New(`^error [A-Z]{1,4}\d+\b`)
	// makeRe matches make's "make: *** [target] Error 2".
	makeRe = lazyre.New(`^g?make(?:\[\d+\])?: \*\*\* .*\bError \d+`)
	// tapRe matches a failing TAP test point.
	tapRe = lazyre.New(`^not ok \d+\b`)
)

// errorPrefixes start an error line.
var errorPrefixes = []string{"Error:", "ERROR:", "Exception in thread ", "error:", "error[", "Fatal:", "Fatal error",
	"fatal:", "fatal error", "--- FAIL:", "npm ERR!", "npm error ", "panic: ", "PHP Fatal error", "Segmentation fault"}

// tracebackHeader starts a Python traceback.
const tracebackHeader = "Traceback (most recent call last):"

// isErrorLine reports whether one trimmed line, without ANSI escapes and
// timestamp, is an error line: a diagnostic, an exception, a panic, a
// failing test, an Error:/ERROR/error[ line; not prose that mentions
// errors. Read applies the traceback rule, which needs the lines before.
func isErrorLine(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, p := range errorPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	switch s[0] {
	case 'E':
		if strings.HasPrefix(s, "ERROR") && (len(s) == 5 || !isLetter(s[5])) {
			return true
		}
		// pytest marks the failing assertion's lines with "E" and spaces.
		if len(s) > 3 && (s[1] == ' ' || s[1] == '\t') && (s[2] == ' ' || s[2] == '\t') {
			return true
		}
	case 'e':
		if strings.HasPrefix(s, "error ") && (codeErrorRe().MatchString(s) || isUpper(s[6])) {
			// "error TS2322: ..." and yarn's "error Command failed ...".
			return true
		}
	case 'F':
		// A bare "FAIL" says nothing the lines around it do not.
		if strings.HasPrefix(s, "FAIL") && len(s) > 5 && (s[4] == ' ' || s[4] == '\t' || s[4] == ':') {
			return true
		}
		if strings.HasPrefix(s, "FAILED") && len(s) > 7 && (s[6] == ' ' || s[6] == ':') {
			return true
		}
		if strings.HasPrefix(s, "FATAL") && (len(s) == 5 || !isLetter(s[5])) {
			return true
		}
	case 'n':
		if tapRe().MatchString(s) {
			return true
		}
	case '[':
		if len(s) >= 7 && (strings.EqualFold(s[:7], "[ERROR]") || strings.EqualFold(s[:7], "[FATAL]")) {
			return true
		}
	case 't':
		if strings.HasPrefix(s, "thread '") && strings.Contains(s, "' panicked at") {
			return true
		}
	case 'm', 'g':
		if strings.Contains(s, "***") && makeRe().MatchString(s) {
			return true
		}
	}
	if (strings.Contains(s, "Error") || strings.Contains(s, "Exception")) && exceptionRe().MatchString(s) {
		return true
	}
	if strings.Contains(s, ".go:") && (goDiagRe().MatchString(s) || goTestLogRe().MatchString(s)) {
		return true
	}
	if strings.Contains(s, "rror") && (locErrorRe().MatchString(s) || eslintRe().MatchString(s)) {
		return true
	}
	return false
}

func isLetter(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || c == '_' }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }

// stripLogPrefix drops up to three leading timestamps ("[10:24:45]",
// "[2024-01-02 10:24:45]", "2024-01-02T10:24:45Z ") from a trimmed line.
func stripLogPrefix(s string) string {
	for range 3 {
		t := s
		switch {
		case strings.HasPrefix(s, "["):
			if end := strings.IndexByte(s, ']'); end > 1 && end <= 40 && isStamp(s[1:end]) {
				t = strings.TrimLeft(s[end+1:], " \t")
			}
		case len(s) > 0 && '0' <= s[0] && s[0] <= '9':
			if m := stampPrefixRe().FindStringIndex(s); m != nil {
				t = s[m[1]:]
			}
		}
		if t == s {
			break
		}
		s = t
	}
	return s
}

// isStamp reports whether s looks like a date or a time.
func isStamp(s string) bool {
	digits, seps := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
		case c == ':' || c == '-':
			seps++
		case strings.IndexByte("./ ,TZ+", c) >= 0:
		default:
			return false
		}
	}
	return digits >= 4 && seps >= 1
}

// stripANSI removes ANSI escape sequences (CSI, OSC and two-byte escapes).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '[': // CSI: parameters and intermediates, then a final byte.
			i++
			for i < len(s) && (s[i] < 0x40 || s[i] > 0x7e) && s[i] >= 0x20 {
				i++
			}
			if i < len(s) {
				i++
			}
		case ']': // OSC: up to BEL or ESC \.
			i++
			for i < len(s) {
				if s[i] == 0x07 {
					i++
					break
				}
				if s[i] == 0x1b {
					if i+1 < len(s) && s[i+1] == '\\' {
						i += 2
					}
					break
				}
				i++
			}
		case '(', ')', '*', '+': // character set designation: one more byte.
			i += 2
		default:
			i++
		}
	}
	return b.String()
}

// Permission denials in plain text.
func isDenial(lower string) bool {
	if !strings.Contains(lower, "perm") && !strings.Contains(lower, "approv") && !strings.Contains(lower, "grant") {
		return false
	}
	return strings.Contains(lower, "permission denied") ||
		(strings.Contains(lower, "permission to use") && strings.Contains(lower, "denied")) ||
		strings.Contains(lower, "requires approval") ||
		strings.Contains(lower, "haven't granted it yet") ||
		strings.Contains(lower, "have not granted it yet") ||
		strings.Contains(lower, "permission was denied")
}

// claimRe matches a claim of being done, in lower case, at the start of
// the text; isCompletion applies it at the word starts before a keyword.
var claimRe = lazyre.New(`^(?:` +
	`all (?:the |of the )?(?:tasks|items|work items|todos) (?:are |have been )?(?:now )?(?:complete|completed|done|finished)\b` +
	`|(?:the )?task (?:is )?(?:now )?complete\b` +
	`|i'?m (?:all )?(?:done|finished)\b` +
	`|i am (?:all )?(?:done|finished)\b` +
	`|(?:the )?project is (?:now )?(?:fully )?(?:complete|completed|done|finished)\b` +
	`|project complete\b` +
	`|(?:the )?implementation is (?:now )?(?:fully )?complete\b` +
	`|(?:all )?(?:the )?work is (?:now )?(?:complete|done|finished)\b` +
	`|everything is (?:now )?(?:complete|done|finished)\b` +
	`|nothing (?:left|more|else) to do\b` +
	`|exit_signal:\s*true\b` +
	`|status:\s*complete\b` +
	`)`)

// claimKeywords end (or, for the last three, start) every claim claimRe
// knows; claimWords is how many words before a keyword a claim may start.
var claimKeywords = []string{"complete", "done", "finished", "nothing", "exit_signal", "status"}

const (
	claimWords = 8
	// maxClaimChecks bounds the keyword occurrences looked at in one line.
	maxClaimChecks = 16
)

// negators, found among the few words before a claim, cancel it.
var negators = map[string]bool{
	"not": true, "no": true, "never": true, "nor": true, "neither": true,
	"cannot": true, "without": true, "hardly": true,
}

// hedges, found anywhere in the claim's clause, make it a plan or a
// condition rather than a claim ("once all tasks complete", "I will set
// EXIT_SIGNAL: true").
var hedges = map[string]bool{
	"if": true, "once": true, "when": true, "whenever": true, "until": true,
	"unless": true, "before": true, "after": true, "whether": true,
	"will": true, "would": true, "should": true, "shall": true, "could": true,
	"can": true, "must": true, "might": true, "may": true, "going": true,
	"need": true, "needs": true, "want": true, "wants": true, "set": true,
	"output": true, "emit": true, "print": true, "i'll": true, "we'll": true,
	"it'll": true,
}

// isCompletion reports whether a lower-cased line claims completion.
func isCompletion(lower string) bool { return claimsPhrase(lower) || saysDone(lower) }

// claimsPhrase reports whether a lower-cased line claims completion in
// words ("all tasks complete", "the project is done"): isCompletion without
// a bare "done".
func claimsPhrase(lower string) bool {
	if strings.HasSuffix(strings.TrimRight(lower, " *_`\"')]"), "?") {
		return false
	}
	checks := 0
	for _, kw := range claimKeywords {
		for off := 0; checks < maxClaimChecks; checks++ {
			i := strings.Index(lower[off:], kw)
			if i < 0 {
				break
			}
			k := off + i
			off = k + len(kw)
			for n, p := 0, k; n < claimWords && p >= 0; n, p = n+1, prevWordStart(lower, p) {
				if p > 0 && isWordByte(lower[p-1]) {
					continue // the keyword inside a longer word (tests_status)
				}
				if claimRe().MatchString(lower[p:]) && !hedged(lower[:p]) {
					return true
				}
			}
		}
	}
	return false
}

// saysDone reports a clause that is a bare "done" or "all done" ("Fixed
// the parser. Done!"), not negated or conditioned by the sentence before
// ("If the tests pass, done."); "Done with the parser" is not bare.
func saysDone(lower string) bool {
	start := 0
	for i := 0; i <= len(lower); i++ {
		if i < len(lower) && !isClauseEnd(lower[i]) {
			continue
		}
		core := strings.TrimFunc(lower[start:i], func(r rune) bool { return !unicode.IsLetter(r) })
		question := i < len(lower) && lower[i] == '?'
		// The sentence before the clause is read commas and all: "if the
		// tests pass, done" is conditional.
		before := strings.ReplaceAll(lower[sentenceStart(lower, start):start], ",", " ")
		if (core == "done" || core == "all done") && !question && !hedged(before) {
			return true
		}
		start = i + 1
	}
	return false
}

// isClauseEnd is the punctuation that ends a clause ("—" and "–" are
// multi-byte: their last byte is not ASCII and never matches).
func isClauseEnd(c byte) bool {
	return c == '.' || c == '!' || c == ';' || c == ',' || c == '?'
}

// sentenceStart is where the sentence holding position p begins.
func sentenceStart(s string, p int) int {
	if i := strings.LastIndexAny(s[:p], ".;!?"); i >= 0 {
		return i + 1
	}
	return 0
}

// prevWordStart returns the start of the word before the one at p, or -1.
func prevWordStart(s string, p int) int {
	for p > 0 && isWordByte(s[p-1]) { // to the start of p's own word
		p--
	}
	for p > 0 && !isWordByte(s[p-1]) { // back over the gap
		p--
	}
	if p == 0 {
		return -1
	}
	for p > 0 && isWordByte(s[p-1]) {
		p--
	}
	return p
}

func isWordByte(c byte) bool { return isLetter(c) || ('0' <= c && c <= '9') }

// hedged reports whether the text before a claim, within its clause,
// negates it or makes it conditional.
func hedged(before string) bool {
	if i := strings.LastIndexAny(before, ".;!?,"); i >= 0 {
		before = before[i+1:]
	}
	words := strings.Fields(before)
	for i, w := range words {
		w = strings.Trim(w, "*_`\"'()[]")
		if hedges[w] {
			return true
		}
		if i >= len(words)-3 && (negators[w] || strings.HasSuffix(w, "n't")) {
			return true
		}
	}
	return false
}

// questionPhrases are ways an agent asks the user for a decision.
var questionPhrases = []string{
	"should i ", "should i?", "shall i ", "shall i?",
	"would you like", "do you want me to", "would you prefer", "do you prefer",
	"please confirm", "can you confirm", "could you confirm",
	"can you clarify", "could you clarify", "please clarify",
	"which approach would you", "which option would you", "which would you prefer",
	"how would you like", "what would you like", "let me know which",
	"let me know if you'd like me to", "let me know if you want me to",
	"awaiting your", "waiting for your",
}

// youRe finds the user addressed as "you".
var youRe = lazyre.New(`\byou(?:r|rs|'d|'ll|'re|'ve)?\b`)

// isQuestion reports whether a lower-cased line asks the user something.
func isQuestion(lower string) bool {
	if !strings.HasSuffix(strings.TrimRight(lower, " *_`\"')]"), "?") &&
		!strings.Contains(lower, "you") && !strings.Contains(lower, "shall i") &&
		!strings.Contains(lower, "should i") && !strings.Contains(lower, "confirm") &&
		!strings.Contains(lower, "clarify") && !strings.Contains(lower, "waiting") {
		return false // every phrase holds one of these
	}
	for _, p := range questionPhrases {
		if strings.Contains(lower, p) {
			return true
		}
	}
	if !strings.HasSuffix(strings.TrimRight(lower, " *_`\"')]"), "?") {
		return false
	}
	return youRe().MatchString(lower) ||
		strings.HasPrefix(lower, "should we ") || strings.HasPrefix(lower, "shall we ") ||
		strings.HasPrefix(lower, "can i ") || strings.HasPrefix(lower, "may i ")
}

// lowerText lower-cases s and straightens typographic apostrophes.
func lowerText(s string) string {
	s = strings.ToLower(s)
	if strings.Contains(s, "’") {
		s = strings.ReplaceAll(s, "’", "'")
	}
	return s
}
