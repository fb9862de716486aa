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

// ParseCommand returns the first /loopbreaker command at the start of a
// line of body: its verb and the rest of the line, cut to 500 bytes. A line
// in a code block or a quote is never a command (a pasted log must not
// steer the breaker).
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
