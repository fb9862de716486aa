package gitlog

import (
	"bytes"
	"path"
	"strings"
)

// The shape of a text change: whether only volatile tokens (digits, hex
// strings, timestamps) changed, and whether the edited lines read as prose
// or as code. A loop's journal is recognised by the shape of its changes,
// not by its name.

// sourceExts are the extensions of program source files: their changes
// are code whatever their lines look like. Markup pages (.html) are not
// among them: a site's loop rewrites their dates and counters.
var sourceExts = map[string]bool{
	".go": true, ".py": true, ".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true,
	".rs": true, ".java": true, ".kt": true, ".kts": true, ".scala": true, ".c": true, ".h": true, ".cc": true,
	".cpp": true, ".hpp": true, ".cs": true, ".fs": true, ".rb": true, ".php": true, ".swift": true, ".m": true,
	".sh": true, ".bash": true, ".zsh": true, ".ps1": true, ".lua": true, ".ex": true, ".exs": true, ".erl": true,
	".hs": true, ".ml": true, ".clj": true, ".dart": true, ".r": true, ".jl": true, ".zig": true, ".nim": true,
	".vue": true, ".svelte": true, ".sql": true, ".css": true, ".scss": true, ".sol": true,
	".pl": true, ".pm": true, ".groovy": true, ".elm": true, ".v": true, ".vhd": true, ".tf": true, ".proto": true,
}

// IsSource reports whether a path names a program source file by its
// extension.
func IsSource(p string) bool {
	return sourceExts[strings.ToLower(path.Ext(p))]
}

// ChurnOnly reports whether new differs from old only in volatile tokens:
// runs of digits (counters, dates, times), hex strings of 7 or more
// characters (hashes, fingerprints) and timestamp pieces such as "28T01"
// or "03Z". Equal contents are not a change.
func ChurnOnly(old, new []byte) bool {
	if bytes.Equal(old, new) {
		return false
	}
	old, new = tokenMiddle(old, new)
	return bytes.Equal(skeleton(old), skeleton(new))
}

// tokenMiddle is editedMiddle widened to whole tokens, so that a hash
// whose first characters happen to agree is still seen whole.
func tokenMiddle(a, b []byte) ([]byte, []byte) {
	p := commonPrefix(a, b)
	for p > 0 && isAlnum(a[p-1]) {
		p--
	}
	a, b = a[p:], b[p:]
	s := commonSuffix(a, b)
	for s > 0 && isAlnum(a[len(a)-s]) {
		s--
	}
	return a[:len(a)-s], b[:len(b)-s]
}

// skeleton replaces each volatile token of p by one NUL byte.
func skeleton(p []byte) []byte {
	out := make([]byte, 0, len(p))
	for i := 0; i < len(p); {
		if !isAlnum(p[i]) {
			out = append(out, p[i])
			i++
			continue
		}
		j := i
		for j < len(p) && isAlnum(p[j]) {
			j++
		}
		if volatile(p[i:j]) {
			out = append(out, 0)
		} else {
			out = append(out, p[i:j]...)
		}
		i = j
	}
	return out
}

// volatile reports a token that changes by itself from run to run: it has
// a digit and is all digits, a hex string of 7 or more characters, or
// digits with the letters of a timestamp or an ordinal ("28T01", "03Z",
// "4th").
func volatile(tok []byte) bool {
	digits, hex := 0, true
	var rest []byte
	for _, c := range tok {
		switch {
		case isDigit(c):
			digits++
		default:
			if !strings.ContainsRune("abcdefABCDEF", rune(c)) {
				hex = false
			}
			rest = append(rest, c|0x20)
		}
	}
	if digits == 0 {
		return false
	}
	if len(rest) == 0 || (hex && len(tok) >= 7) {
		return true
	}
	switch string(rest) {
	case "t", "z", "tz", "st", "nd", "rd", "th", "s", "ms", "h", "m":
		return true
	}
	return false
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// Prose reports whether the edited lines of a change read as prose (notes,
// logs, boards, documentation) rather than code: the lines new gained
// within its edited middle (those old lost, for a change that only
// removes), with few of the marks that code is made of. A file named as
// source code is never prose.
func Prose(p string, old, new []byte) bool {
	if IsSource(p) {
		return false
	}
	gained, lost := editedLines(old, new), editedLines(new, old)
	text := linesNotIn(gained, lost)
	if len(bytes.TrimSpace(text)) == 0 {
		text = linesNotIn(lost, gained)
	}
	return looksProse(text)
}

// editedLines is the part of b that differs from a, widened to whole lines;
// of a long part, its first and last 32 KiB (edits are at the ends: a
// paragraph appended, a header rewritten).
func editedLines(a, b []byte) []byte {
	p := commonPrefix(a, b)
	s := commonSuffix(a[p:], b[p:])
	start, end := p, len(b)-s
	for start > 0 && b[start-1] != '\n' {
		start--
	}
	for end < len(b) && b[end] != '\n' {
		end++
	}
	mid := b[start:end]
	const half = 32 << 10
	if len(mid) <= 2*half {
		return mid
	}
	head, tail := mid[:half], mid[len(mid)-half:]
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return append(append(make([]byte, 0, len(head)+len(tail)), head...), tail...)
}

// linesNotIn is the lines of b that are not lines of a: roughly what a
// line diff adds.
func linesNotIn(b, a []byte) []byte {
	have := map[string]bool{}
	for _, l := range bytes.Split(a, []byte("\n")) {
		have[string(l)] = true
	}
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !have[string(l)] {
			out = append(append(out, l...), '\n')
		}
	}
	return out
}

// looksProse reports text with letters for at least half of its visible
// characters and fewer than one code mark in 30: braces, semicolons,
// equals and angle signs, and a parenthesis that opens a call.
func looksProse(text []byte) bool {
	visible, letters, marks := 0, 0, 0
	for i, c := range text {
		if isSpace(c) {
			continue
		}
		visible++
		switch {
		case c|0x20 >= 'a' && c|0x20 <= 'z', c >= 0x80:
			letters++
		case c == '{' || c == '}' || c == ';' || c == '=' || c == '<' || c == '>':
			marks++
		case c == '(' && i > 0 && (isAlnum(text[i-1]) || text[i-1] == '_'):
			marks++
		}
	}
	return visible > 0 && 2*letters >= visible && 30*marks < visible
}
