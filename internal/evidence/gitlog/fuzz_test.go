package gitlog

import (
	"net/textproto"
	"strings"
	"testing"
)

// FuzzTrailers feeds arbitrary commit messages, which the watched agent
// writes, to the trailer, subject and revert readers: trailers are bounded,
// single-line and canonically keyed, and nothing panics.
func FuzzTrailers(f *testing.F) {
	for _, s := range []string{
		"fix parser\n\nLoop-Phase: GREEN\nLoop-Progress: 45%\n",
		"subject\n\nSigned-off-by: a <a@b>\nnot a trailer\nnor this\nLoop-Reset: true\n",
		"Revert \"x\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n",
		"s\r\n\r\nKey : v\r\n  continued\r\n\tmore\r\n# comment\r\n",
		"\n\n\nLoop-Phase: RED\n",
		"s\n\n" + strings.Repeat("A: b\n", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		msg = truncateMessage(msg)
		if len(msg) > maxMessageBytes {
			t.Fatalf("message of %d bytes after truncation", len(msg))
		}
		n := 0
		for k, vs := range trailers(msg) {
			if k == "" || k != textproto.CanonicalMIMEHeaderKey(k) {
				t.Fatalf("got key %q, want a canonical token", k)
			}
			for _, v := range vs {
				n++
				if strings.ContainsAny(v, "\n") {
					t.Fatalf("got a multi-line value %q", v)
				}
			}
		}
		if n > maxTrailers {
			t.Fatalf("got %d trailers, want at most %d", n, maxTrailers)
		}
		subj := subject(msg)
		if strings.Contains(subj, "\n") {
			t.Fatalf("got a multi-line subject %q", subj)
		}
		if ok, h := revertOf(msg, subj); !ok && h != "" {
			t.Fatalf("got a reverted hash %q without a revert", h)
		}
	})
}
