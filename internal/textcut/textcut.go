// Package textcut shortens text for people to read: a message, a sample or
// a subject cut to a size, never splitting a character, and a commit hash
// cut to the digits people quote.
package textcut

import "unicode/utf8"

// Ellipsis marks a cut.
const Ellipsis = "…"

// Runes returns s when it has at most n characters (runes), else its first
// characters followed by mark, n characters in all ("" when mark alone is
// longer).
func Runes(s string, n int, mark string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	keep := n - utf8.RuneCountInString(mark)
	if keep < 0 {
		return ""
	}
	r := []rune(s)
	return string(r[:keep]) + mark
}

// Bytes returns s when it is at most n bytes long, else its longest prefix
// that leaves room for mark and does not split a rune, followed by mark.
func Bytes(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	i := max(n-len(mark), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + mark
}

// Hash is a commit hash as people quote it: its first 12 digits (the whole
// of a shorter one).
func Hash(h string) string { return h[:min(len(h), 12)] }
