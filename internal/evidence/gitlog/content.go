package gitlog

import "bytes"

// binaryProbe is how many leading bytes git looks at for a NUL byte.
const binaryProbe = 8000

// generatedProbe is how many leading bytes are searched for a
// "Code generated ... DO NOT EDIT." line.
const generatedProbe = 32 << 10

// isBinary reports whether content looks binary to git: a NUL byte in its
// first 8000 bytes.
func isBinary(content []byte) bool {
	return bytes.IndexByte(content[:min(len(content), binaryProbe)], 0) >= 0
}

// isGenerated reports whether the start of content has a line carrying the
// generated-file marker of Go (also used in other languages' comments):
// optional indentation and a comment marker, then "Code generated ", and
// "DO NOT EDIT." later on the same line.
func isGenerated(content []byte) bool {
	head := content[:min(len(content), generatedProbe)]
	for off := 0; ; {
		i := bytes.Index(head[off:], []byte("Code generated "))
		if i < 0 {
			return false
		}
		at := off + i
		lineStart := bytes.LastIndexByte(head[:at], '\n') + 1
		lineEnd := len(head)
		if j := bytes.IndexByte(head[at:], '\n'); j >= 0 {
			lineEnd = at + j
		}
		if markerPrefix(head[lineStart:at]) && bytes.Contains(head[at:lineEnd], []byte("DO NOT EDIT.")) {
			return true
		}
		off = at + 1
	}
}

// markerPrefix reports whether p, before the marker on its line, is only
// whitespace and comment punctuation ("//", "#", "/*", "*", "<!--", "--",
// ";", "%", "'").
func markerPrefix(p []byte) bool {
	for _, c := range p {
		if !isSpace(c) && !bytes.ContainsRune([]byte("/#*;%'-!<"), rune(c)) {
			return false
		}
	}
	return true
}

// isSpace is git's notion of whitespace for --ignore-all-space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// DigitsOnly reports whether new differs from old only in ASCII digits: a
// rewritten timestamp, counter or version. Equal contents are not a change.
func DigitsOnly(old, new []byte) bool {
	if bytes.Equal(old, new) {
		return false
	}
	// As for whitespace-only changes, the bytes both share at the start and at
	// the end drop out: only the edited middle is scanned.
	old, new = editedMiddle(old, new)
	return equalSkipping(old, new, isDigit)
}

// editedMiddle drops the bytes a and b share at the start and at the end.
func editedMiddle(a, b []byte) ([]byte, []byte) {
	p := commonPrefix(a, b)
	a, b = a[p:], b[p:]
	s := commonSuffix(a, b)
	return a[:len(a)-s], b[:len(b)-s]
}

// equalSkipping reports whether a and b are equal once the bytes skip
// reports are removed from both.
func equalSkipping(a, b []byte, skip func(byte) bool) bool {
	i, j := 0, 0
	for {
		for i < len(a) && skip(a[i]) {
			i++
		}
		for j < len(b) && skip(b[j]) {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
