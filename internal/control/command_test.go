package control

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body       string
		ok         bool
		verb, text string
	}{
		{"/loopbreaker reset", true, "reset", ""},
		{"Please.\n  /loopbreaker guide use the v2 API\nthanks", true, "guide", "use the v2 API"},
		{"/loopbreaker skip-phase", true, "skip-phase", ""},
		{"/loopbreaker abort", true, "abort", ""},
		{"/loopbreaker resume", true, "resume", ""},
		{"/loopbreaker resumed", false, "", ""},
		{"I typed /loopbreaker reset in the middle", false, "", ""},
		{"/loopbreaker resetting", false, "", ""},
		{"/loopbreaker disable", false, "", ""},
	}
	for _, c := range cases {
		verb, text, ok := ParseCommand(c.body)
		if ok != c.ok || verb != c.verb || text != c.text {
			t.Errorf("%q: got %q %q %v, want %q %q %v", c.body, verb, text, ok, c.verb, c.text, c.ok)
		}
	}
}

func TestParseCommandKeepsUTF8(t *testing.T) {
	t.Parallel()
	_, text, ok := ParseCommand("/loopbreaker guide " + strings.Repeat("a", 499) + "é and more")
	if !ok || !utf8.ValidString(text) || len(text) > 500 {
		t.Errorf("got %q (%d bytes, valid %v), want at most 500 bytes of valid UTF-8", text, len(text), utf8.ValidString(text))
	}
}

// FuzzParseCommand feeds arbitrary comment bodies to the command parser:
// only the five verbs come out, with bounded single-line text.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/loopbreaker reset", "x\n /loopbreaker guide do \x00 it\r\nmore", "/loopbreaker abort\u2028", "/loopbreakerreset", "> /loopbreaker skip-phase"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		verb, text, ok := ParseCommand(body)
		if !ok {
			if verb != "" || text != "" {
				t.Fatalf("got command %q %q with ok false", verb, text)
			}
			return
		}
		switch verb {
		case "reset", "resume", "skip-phase", "abort", "guide":
		default:
			t.Fatalf("got verb %q", verb)
		}
		if len(text) > 500 || strings.ContainsAny(text, "\r\n") {
			t.Fatalf("got text of %d bytes or with a newline: %q", len(text), text)
		}
		if utf8.ValidString(body) && !utf8.ValidString(text) {
			t.Fatalf("valid UTF-8 body gave invalid text %q", text)
		}
	})
}
