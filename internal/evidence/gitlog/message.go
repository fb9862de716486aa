package gitlog

import (
	"net/textproto"
	"strings"
)

// maxMessageBytes bounds the message kept and parsed per commit.
const maxMessageBytes = 64 << 10

// maxTrailers bounds the trailers kept per commit.
const maxTrailers = 256

// Message is what a commit message says, read as git reads it.
type Message struct {
	// Text is the message, at most 64 KiB of it.
	Text string
	// Subject is the first paragraph on one line (git log's %s).
	Subject string
	// Trailers are the git trailers of the last paragraph, keys canonical.
	Trailers map[string][]string
	// Revert is true when the message says it reverts a commit; Reverts is
	// the named commit, when given.
	Revert  bool
	Reverts string
}

// ParseMessage reads a commit message. It serves commits read from the
// repository and commits that come from elsewhere (the API) alike.
func ParseMessage(msg string) Message {
	msg = truncateMessage(msg)
	m := Message{Text: msg, Subject: subject(msg), Trailers: trailers(msg)}
	m.Revert, m.Reverts = revertOf(msg, m.Subject)
	return m
}

// truncateMessage keeps at most maxMessageBytes of a message, cut at a line
// end when there is one.
func truncateMessage(msg string) string {
	if len(msg) <= maxMessageBytes {
		return msg
	}
	msg = msg[:maxMessageBytes]
	if i := strings.LastIndexByte(msg, '\n'); i > 0 {
		msg = msg[:i+1]
	}
	return msg
}

// subject is the first paragraph of a message on one line, as git log's %s.
func subject(msg string) string {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	var parts []string
	for _, line := range strings.Split(strings.TrimLeft(msg, "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, " ")
}

// gitGeneratedPrefixes are trailer lines git itself writes; one of them lets
// a last paragraph that is only 25% trailers count as a trailer block, as
// git interpret-trailers decides.
var gitGeneratedPrefixes = []string{"Signed-off-by: ", "(cherry picked from commit "}

// trailers parses the git trailers of the message's last paragraph. The
// first paragraph (the subject) is never a trailer block. A block counts
// when all its lines are trailers (or continuation lines), or when at least
// a quarter are and one is written by git (Signed-off-by, cherry-pick). Keys
// are canonical ("loop-phase" becomes "Loop-Phase"); values are trimmed and
// continuation lines are joined with a space.
func trailers(msg string) map[string][]string {
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(msg, " \t\n"), "\n")
	// The last paragraph starts after the last blank line.
	start := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) == "" {
			start = i + 1
			break
		}
	}
	if start <= 0 {
		return nil // one paragraph: the subject
	}
	// Is there a non-blank line before it (a subject)?
	hasSubject := false
	for _, l := range lines[:start] {
		if strings.TrimSpace(l) != "" {
			hasSubject = true
			break
		}
	}
	if !hasSubject {
		return nil
	}
	type kv struct{ key, value string }
	var found []kv
	trailerLines, otherLines, generated := 0, 0, false
	for _, line := range lines[start:] {
		if strings.HasPrefix(line, "#") {
			continue // a comment line
		}
		if (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && len(found) > 0 {
			last := &found[len(found)-1]
			last.value = strings.TrimSpace(last.value + " " + strings.TrimSpace(line))
			continue
		}
		for _, p := range gitGeneratedPrefixes {
			if strings.HasPrefix(line, p) {
				generated = true
			}
		}
		key, value, ok := trailerLine(line)
		if !ok {
			otherLines++
			continue
		}
		trailerLines++
		found = append(found, kv{key, value})
	}
	if trailerLines == 0 || (otherLines > 0 && !(generated && 3*trailerLines >= otherLines)) {
		return nil
	}
	out := make(map[string][]string)
	for i, t := range found {
		if i == maxTrailers {
			break
		}
		out[t.key] = append(out[t.key], t.value)
	}
	return out
}

// trailerLine splits "Token: value"; the token is letters, digits and
// hyphens, possibly followed by spaces before the colon.
func trailerLine(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 {
		return "", "", false
	}
	token := strings.TrimRight(line[:i], " \t")
	if token == "" {
		return "", "", false
	}
	for j := 0; j < len(token); j++ {
		c := token[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' && j > 0) {
			return "", "", false
		}
	}
	return textproto.CanonicalMIMEHeaderKey(token), strings.TrimSpace(line[i+1:]), true
}

// revertMarker is git revert's line, before the reverted commit's name.
const revertMarker = "This reverts commit "

// revertOf reports whether the message reverts a commit and which one: the
// first "This reverts commit " followed by 7 to 64 hex digits (at most 64
// are taken).
func revertOf(msg, subj string) (bool, string) {
	for rest := msg; ; {
		i := strings.Index(rest, revertMarker)
		if i < 0 {
			break
		}
		rest = rest[i+len(revertMarker):]
		n := 0
		for n < len(rest) && n < 64 && isHexDigit(rest[n]) {
			n++
		}
		if n >= 7 {
			return true, strings.ToLower(rest[:n])
		}
	}
	if strings.Contains(msg, "This reverts commit") || strings.HasPrefix(subj, `Revert "`) {
		return true, ""
	}
	return false, ""
}
