package control

import (
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// maxCommandText bounds a command's text (the guide's), in bytes.
const maxCommandText = 500

var commandRE = lazyre.New(`(?m)^\s*/loopbreaker\s+(reset|resume|skip-phase|abort|guide)\b[ \t]*([^\r\n]*)`)

// ParseCommand returns the first /loopbreaker command of a comment body:
// its verb (reset, resume, skip-phase, abort or guide) and the rest of its line,
// trimmed and cut to 500 bytes on a character boundary. ok is false when
// the body holds no command at the start of a line. Whether its author may
// give it is the caller's to check (FromCommand turns it into a control).
func ParseCommand(body string) (verb, text string, ok bool) {
	m := commandRE().FindStringSubmatch(body)
	if m == nil {
		return "", "", false
	}
	text = strings.TrimSpace(m[2])
	if len(text) > maxCommandText {
		text = strings.ToValidUTF8(text[:maxCommandText], "") // never half a character
	}
	return m[1], text, true
}
