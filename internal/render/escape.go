package render

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// MaxField bounds one agent-supplied string in any rendering.
const MaxField = 300

// Clean makes agent text safe for a terminal or a log line: ANSI escape
// sequences and control characters are removed, newlines become spaces,
// invalid UTF-8 is replaced and the text is truncated to MaxField runes.
func Clean(s string) string {
	return textcut.Runes(cleanRunes(s), MaxField, textcut.Ellipsis)
}

func cleanRunes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b { // ESC: skip a CSI/OSC sequence
			i = skipEscape(s, i)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2066' && r <= '\u2069'):
			// dropped: control and bidirectional override characters
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func skipEscape(s string, i int) int {
	i++ // ESC
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI: parameters then a final byte 0x40-0x7e
		i++
		for i < len(s) && !(s[i] >= 0x40 && s[i] <= 0x7e) {
			i++
		}
		return i + 1
	case ']': // OSC: until BEL or ESC \
		i++
		for i < len(s) {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			i++
		}
		return i
	}
	return i + 1
}

// Markdown escapes agent text for GitHub-flavoured markdown, inline: it is
// cleaned, HTML is neutralised, markdown punctuation (and "$", which
// GitHub reads as math) is backslash-escaped,
// table pipes are escaped, and @mentions and #references cannot notify
// anyone (a zero-width joiner follows the sign).
func Markdown(s string) string {
	s = Clean(s)
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@', '#':
			b.WriteRune(r)
			b.WriteRune('\u200d')
		case '\\', '`', '*', '_', '{', '}', '[', ']', '(', ')', '!', '|', '~', '+', '-', '=', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeLookalikes replace what could break out of a code span or be read
// back from the raw markdown as markup: backticks, and the characters of
// HTML (an agent's test named "<!-- loopbreaker-digest:... -->" must not
// put a comment into loopbreaker's own).
var codeLookalikes = strings.NewReplacer("`", "ˋ", "<", "‹", ">", "›", "&", "＆")

// Code renders agent text as inline code that cannot break out of its
// backticks: cleaned, with backticks and HTML's <, > and & replaced by
// look-alikes (a code span shows entities as typed).
func Code(s string) string {
	s = codeLookalikes.Replace(Clean(s))
	if s == "" {
		return "` `"
	}
	return "`" + s + "`"
}
