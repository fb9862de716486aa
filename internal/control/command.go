package control

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// maxCommandText bounds a command's text (the guide's), in bytes.
const maxCommandText = 500

// commandRE matches a command line: at most three spaces before it, as
// markdown allows a paragraph (four make it code).
var commandRE = lazyre.New(`^ {0,3}/loopbreaker\s+(reset|resume|skip-phase|abort|guide)\b[ \t]*([^\r\n]*)`)

// ParseCommand returns the first /loopbreaker command of a comment body:
// its verb (reset, resume, skip-phase, abort or guide) and the rest of its line,
// trimmed and cut to 500 bytes on a character boundary. ok is false when
// the body holds no command at the start of a line. A line inside a fenced
// or indented code block or a quote is never a command: a pasted log or a
// quoted agent message must not steer the breaker. Whether its author may
// give it is the caller's to check (FromCommand turns it into a control).
func ParseCommand(body string) (verb, text string, ok bool) {
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		if f := fenceOf(trimmed); f != "" && indent < 4 {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence) && strings.TrimSpace(strings.TrimLeft(trimmed, f[:1])) == "":
				fence = ""
			}
			continue
		}
		if fence != "" || strings.HasPrefix(trimmed, ">") {
			continue
		}
		m := commandRE().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text = strings.TrimSpace(m[2])
		if len(text) > maxCommandText {
			text = strings.ToValidUTF8(text[:maxCommandText], "") // never half a character
		}
		return m[1], text, true
	}
	return "", "", false
}

// fenceOf returns the code fence a line opens or closes (three or more
// backticks or tildes), "" when it is none.
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}
