package signature

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// Signature identifies an error independent of volatile details.
type Signature struct {
	Hash   string `json:"hash"`   // lowercase hex SHA-256 of the normalised text
	Sample string `json:"sample"` // the normalised text, truncated for display to MaxSample bytes (valid UTF-8, ends with "…" when cut)
}

// MaxSample is the largest Sample in bytes, the ellipsis included.
const MaxSample = 200

// MaxInput is how many leading bytes of a line Normalize considers; the rest
// is dropped before normalising, so the work per line is bounded.
const MaxInput = 8 << 10

// Tokens that replace volatile parts of a line.
const (
	tokNumber    = "N"
	tokAddr      = "0xADDR"
	tokTime      = "TIME"
	tokDate      = "DATE"
	tokTimestamp = "TIMESTAMP"
	tokDuration  = "DURATION"
	tokSize      = "SIZE"
	tokUUID      = "UUID"
	tokTmp       = "$TMP/"
)

// Of normalises line and returns its signature.
func Of(line string) Signature {
	n := Normalize(line)
	sum := sha256.Sum256([]byte(n))
	return Signature{Hash: hex.EncodeToString(sum[:]), Sample: sample(n)}
}

// sample cuts s to MaxSample bytes on a rune boundary, ending with an
// ellipsis when anything was cut.
func sample(s string) string {
	return textcut.Bytes(s, MaxSample, textcut.Ellipsis)
}

var (
	// ansiRe matches ANSI escape sequences: CSI (colours, cursor), OSC
	// (titles, hyperlinks) and two-byte escapes.
	ansiRe = lazyre.New(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])`)

	// tmpRe matches a path under a temporary directory (the system's, or an
	// Actions runner's _temp, hosted or self-hosted). Group 1 is the
	// character before it, group 2 the path. The path ends at whitespace,
	// quotes, brackets or a colon (so "x.go:12:5" keeps its line numbers out).
	tmpRe = lazyre.New(`(^|[\s"'(=\[,<>` + "`" + `])((?:(?:/private)?(?:/tmp|/var/tmp|/var/folders|/dev/shm)|/home/[^/\s"']+/(?:actions-runner/_work|work)/_temp|(?i:[a-z]:[\\/](?:users[\\/][^\\/\s"']+[\\/]appdata[\\/]local[\\/]temp|windows[\\/]temp|a[\\/]_temp)))[\\/][^\s"'()<>\[\]{},;:` + "`" + `]*)`)

	uuidRe = lazyre.New(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

	// datetimeRe matches RFC 3339 and common "date time" stamps.
	datetimeRe = lazyre.New(`\b\d{4}[-/]\d{2}[-/]\d{2}[T _]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2}\b| ?UTC\b)?`)
	// weekdayRe matches "Mon Jan  2" and "Monday, January 2".
	weekdayRe = lazyre.New(`\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? +(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* +\d{1,2}\b`)
	// monthDayRe matches a syslog "Jan  2 15:04:05" stamp.
	monthDayRe = lazyre.New(`\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} +(\d{1,2}:\d{2}:\d{2})`)
	dateRe     = lazyre.New(`\b\d{4}-\d{2}-\d{2}\b`)
	// timeRe matches a clock time not glued to a preceding number or colon
	// (so "x.go:12:5" is not a time). Group 1 is the preceding character.
	timeRe = lazyre.New(`(^|[^\d:.])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b`)

	// regAddrRe matches registers and addresses in Go signal reports and
	// program-counter offsets in stack frames, whatever their length.
	regAddrRe = lazyre.New(`(\b(?:addr|pc|sp|fp|lr)=|\+)0x[0-9a-fA-F]+\b`)
	// hexRe matches hex numbers long enough to be addresses.
	hexRe = lazyre.New(`\b0x[0-9a-fA-F]{4,}\b`)
	// javaHashRe matches Java identity hash codes (Object@1b6d3586).
	javaHashRe = lazyre.New(`([A-Za-z_$][\w$]*)@[0-9a-f]{5,8}\b`)

	goroutineRe = lazyre.New(`\bgoroutine \d+\b`)
	goMachineRe = lazyre.New(`\b(m|mp|gp)=\d+\b`)

	durationWordRe = lazyre.New(`(?i)\b\d+(?:\.\d+)? ?(?:nanoseconds?|microseconds?|milliseconds?|seconds?|secs?|minutes?|mins?|hours?)\b`)
	durationRe     = lazyre.New(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|s|m|h))+\b`)
	// durationSpacedRe matches "5.123 s" and "5000 ms" (jest, Surefire).
	durationSpacedRe = lazyre.New(`\b\d+(?:\.\d+)? (?:ns|us|µs|μs|ms|s)\b`)
	sizeRe           = lazyre.New(`\b(?:\d+(?:\.\d+)? ?(?:bytes?|[KMGTP]i?B|kB)|\d+(?:\.\d+)?B)\b`)

	// lineColRe matches ":12:5" after a file extension (file.go:12:5,
	// Y.java:42, a.js:10:3). Group 1 is the extension, group 2 the numbers.
	lineColRe = lazyre.New(`(\.[A-Za-z][A-Za-z0-9_]{0,11})((?::\d+){1,3})`)
	// parenPosRe matches "(12,5)" after a file extension (tsc, MSBuild).
	parenPosRe = lazyre.New(`(\.[A-Za-z][A-Za-z0-9_]{0,11})\((\d+(?:,\d+){0,3})\)`)
	// bracketPosRe matches ":[12,5]" after a file extension (javac via Maven).
	bracketPosRe = lazyre.New(`(\.[A-Za-z][A-Za-z0-9_]{0,11}):\[(\d+(?:,\d+){0,3})\]`)
	// lineWordRe matches "line 42", "column: 5", "col 3".
	lineWordRe = lazyre.New(`(?i)\b(line|column|col)(\s*:\s*|\s+)\d+\b`)

	digitsRe = lazyre.New(`\d+`)
)

// Normalize returns line with its volatile parts replaced by fixed tokens
// (the tok constants), whitespace collapsed, ANSI escapes and control
// characters removed, invalid UTF-8 as U+FFFD; only MaxInput bytes count.
func Normalize(line string) string {
	s := textcut.Bytes(line, MaxInput, "")
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiRe().ReplaceAllString(s, "")
	}
	s = dropControls(s)
	s = strings.Join(strings.Fields(s), " ")

	if strings.Contains(s, "tmp") || strings.Contains(s, "emp") ||
		strings.Contains(s, "/var/folders/") || strings.Contains(s, "/dev/shm/") {
		s = replaceSubmatch(tmpRe(), s, func(m []string) string { return m[1] + tmpName(m[2]) })
	}
	if strings.IndexFunc(s, isDigit) < 0 {
		return s // every other volatile part holds a digit
	}
	if strings.Count(s, "-") >= 4 {
		s = uuidRe().ReplaceAllString(s, tokUUID)
	}
	s = datetimeRe().ReplaceAllString(s, tokTimestamp)
	s = weekdayRe().ReplaceAllString(s, tokDate)
	s = monthDayRe().ReplaceAllString(s, tokDate+" "+tokTime)
	s = dateRe().ReplaceAllString(s, tokDate)
	if strings.IndexByte(s, ':') >= 0 {
		s = replaceSubmatch(timeRe(), s, func(m []string) string { return m[1] + tokTime })
	}

	if strings.Contains(s, "0x") {
		s = regAddrRe().ReplaceAllString(s, "${1}"+tokAddr)
		s = hexRe().ReplaceAllString(s, tokAddr)
	}
	if strings.IndexByte(s, '@') >= 0 {
		s = javaHashRe().ReplaceAllString(s, "${1}@HASH")
	}
	if strings.Contains(s, "goroutine ") {
		s = goroutineRe().ReplaceAllString(s, "goroutine "+tokNumber)
	}
	if strings.IndexByte(s, '=') >= 0 {
		s = goMachineRe().ReplaceAllString(s, "${1}="+tokNumber)
	}

	s = durationWordRe().ReplaceAllString(s, tokDuration)
	s = durationRe().ReplaceAllString(s, tokDuration)
	s = durationSpacedRe().ReplaceAllString(s, tokDuration)
	s = sizeRe().ReplaceAllString(s, tokSize)

	if strings.IndexByte(s, '.') >= 0 {
		s = replaceSubmatch(lineColRe(), s, func(m []string) string {
			return m[1] + digitsRe().ReplaceAllString(m[2], tokNumber)
		})
		s = replaceSubmatch(parenPosRe(), s, func(m []string) string {
			return m[1] + "(" + digitsRe().ReplaceAllString(m[2], tokNumber) + ")"
		})
		s = replaceSubmatch(bracketPosRe(), s, func(m []string) string {
			return m[1] + ":[" + digitsRe().ReplaceAllString(m[2], tokNumber) + "]"
		})
	}
	return lineWordRe().ReplaceAllString(s, "${1}${2}"+tokNumber)
}

// dropControls removes C0 and C1 control characters other than whitespace
// and DEL, which a terminal would not print.
func dropControls(s string) string {
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

func isControl(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r':
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// tmpName maps a temporary path to "$TMP/" plus its last element when that
// looks like a file name (has an extension); random directory names vanish.
func tmpName(path string) string {
	path = strings.TrimRight(path, `/\.`)
	last := path
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		last = path[i+1:]
	}
	if dot := strings.LastIndexByte(last, '.'); dot > 0 && dot < len(last)-1 {
		return tokTmp + last
	}
	return tokTmp
}

// replaceSubmatch replaces every match of re in s by repl applied to the
// match's submatches (index 0 is the whole match; unmatched groups are "").
func replaceSubmatch(re *regexp.Regexp, s string, repl func([]string) string) string {
	idx := re.FindAllStringSubmatchIndex(s, -1)
	if idx == nil {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	groups := make([]string, re.NumSubexp()+1)
	for _, m := range idx {
		for g := range groups {
			groups[g] = ""
			if m[2*g] >= 0 {
				groups[g] = s[m[2*g]:m[2*g+1]]
			}
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(repl(groups))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}
