package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestCuts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		cut  func(string, int, string) string
		s    string
		n    int
		mark string
		want string
	}{
		{"Runes", Runes, "short", 5, Ellipsis, "short"},
		{"Runes", Runes, "longer", 5, Ellipsis, "long…"},
		{"Runes", Runes, "héllo wörld", 6, Ellipsis, "héllo…"},
		{"Runes", Runes, "abcdef", 4, " (cut)", ""},
		{"Runes", Runes, "abcdefghijkl", 10, " (cut)", "abcd (cut)"},
		{"Runes", Runes, "abc", 0, Ellipsis, ""},
		{"Bytes", Bytes, "short", 5, Ellipsis, "short"},
		{"Bytes", Bytes, "abcdefgh", 7, Ellipsis, "abcd…"},
		{"Bytes", Bytes, "aébcdef", 5, Ellipsis, "a…"}, // é is two bytes: never split
		{"Bytes", Bytes, "aébcdef", 3, "", "aé"},
		{"Bytes", Bytes, "aébcdef", 2, "", "a"},
		{"Bytes", Bytes, "abc", 1, Ellipsis, Ellipsis},
	} {
		got := c.cut(c.s, c.n, c.mark)
		if got != c.want {
			t.Errorf("%s(%q, %d, %q) = %q, want %q", c.name, c.s, c.n, c.mark, got, c.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s(%q, %d, %q) = %q: not valid UTF-8", c.name, c.s, c.n, c.mark, got)
		}
	}
}

func TestHash(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"0123456789abcdef0123456789abcdef01234567": "0123456789ab",
		"abc": "abc",
		"":    "",
	} {
		if got := Hash(s); got != want {
			t.Errorf("Hash(%q) = %q, want %q", s, got, want)
		}
	}
}
