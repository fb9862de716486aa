package audit

import (
	"net/textproto"
	"regexp"
	"strings"
)

// maxMessage bounds the part of an API commit message that is parsed.
const maxMessage = 64 << 10

// messageFacts are what a commit message says, read as git history reads
// it, for commits that come from the API instead of the clone.
type messageFacts struct {
	subject  string              // first paragraph on one line
	trailers map[string][]string // canonical key -> values, last paragraph
	revert   bool
	reverts  string
}

var revertHash = regexp.MustCompile(`This reverts commit ([0-9a-fA-F]{7,64})`)

func parseMessage(msg string) messageFacts {
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	msg = strings.ReplaceAll(msg, "\r\n", "\n")
	paras := paragraphs(msg)
	var f messageFacts
	if len(paras) > 0 {
		f.subject = strings.Join(trimmed(paras[0]), " ")
	}
	if len(paras) > 1 {
		f.trailers = trailerBlock(paras[len(paras)-1])
	}
	if m := revertHash.FindStringSubmatch(msg); m != nil {
		f.revert, f.reverts = true, strings.ToLower(m[1])
	} else if strings.Contains(msg, "This reverts commit") || strings.HasPrefix(f.subject, `Revert "`) {
		f.revert = true
	}
	return f
}

// paragraphs splits a message into runs of non-blank lines.
func paragraphs(msg string) [][]string {
	var out [][]string
	var cur []string
	for _, line := range strings.Split(msg, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func trimmed(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(l)
	}
	return out
}

// trailerBlock reads "Key: value" lines; the block counts only when every
// line is a trailer, a continuation (indented) or a comment.
func trailerBlock(lines []string) map[string][]string {
	type kv struct{ k, v string }
	var found []kv
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "#"):
			continue
		case (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && len(found) > 0:
			found[len(found)-1].v = strings.TrimSpace(found[len(found)-1].v + " " + strings.TrimSpace(line))
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key = strings.TrimRight(key, " \t")
		if !ok || !trailerKey(key) {
			return nil
		}
		found = append(found, kv{textproto.CanonicalMIMEHeaderKey(key), strings.TrimSpace(value)})
	}
	if len(found) == 0 {
		return nil
	}
	out := map[string][]string{}
	for i, t := range found {
		if i == 256 {
			break
		}
		out[t.k] = append(out[t.k], t.v)
	}
	return out
}

func trailerKey(k string) bool {
	if k == "" || k[0] == '-' {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
