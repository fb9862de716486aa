package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// FuzzReadEvent feeds arbitrary bytes to the event payload decoder: any
// payload gives an event or an error naming the file, never a panic.
func FuzzReadEvent(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "events", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add("pull_request", b)
	}
	f.Add("issue_comment", []byte(`{"issue":{"number":-1,"pull_request":{}},"comment":{"id":1e30,"body":null,"user":[]}}`))
	f.Add("workflow_run", []byte(`{"workflow_run":{"pull_requests":[{"number":9223372036854775807}]}}`))
	f.Add("push", []byte(`{"after":"x","ref":"refs/heads/"}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ev, err := decodeEvent(name, data, "fuzz.json")
		if err != nil {
			if ev != nil || !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("got event %v and error %v, want only an error naming the file", ev, err)
			}
			return
		}
		if ev.Name != name {
			t.Fatalf("got event name %q, want %q", ev.Name, name)
		}
		ev.HasLabel(LabelOpen)
	})
}

// FuzzDecodeDigest feeds arbitrary comment bodies to the digest reader: a
// forged or corrupt digest gives an error or validated records.
func FuzzDecodeDigest(f *testing.F) {
	rec := ledger.Record{Version: 1, RunID: 1, RunAttempt: 1, At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Errors: []ledger.Error{}}
	d, _ := EncodeDigest([]ledger.Record{rec})
	f.Add(Marker + "\nreport\n" + d + "\n")
	f.Add(digestOpen + "H4sIAAAAAAAA/w==" + digestClose)
	f.Add(digestOpen + strings.Repeat("A", 100))
	f.Add(digestOpen + "!!" + digestClose + digestOpen)
	f.Fuzz(func(t *testing.T, body string) {
		l, err := DecodeDigest(body)
		if err != nil {
			if l != nil {
				t.Fatalf("got a ledger with error %v", err)
			}
			return
		}
		for i := range l.Records {
			if err := l.Records[i].Validate(); err != nil {
				t.Fatalf("digest record %d is not valid: %v", i, err)
			}
		}
	})
}

// FuzzParseCommand feeds arbitrary comment bodies to the command parser:
// only the four verbs come out, with bounded single-line text.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/loopbreaker reset", "x\n /loopbreaker guide do \x00 it\r\nmore", "/loopbreaker abort\u2028", "/loopbreakerreset", "> /loopbreaker skip-phase"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, ok := ParseCommand(body)
		if !ok {
			if c != (Command{}) {
				t.Fatalf("got command %+v with ok false", c)
			}
			return
		}
		switch c.Verb {
		case "reset", "skip-phase", "abort", "guide":
		default:
			t.Fatalf("got verb %q", c.Verb)
		}
		if len(c.Text) > 500 || strings.ContainsAny(c.Text, "\r\n") {
			t.Fatalf("got text of %d bytes or with a newline: %q", len(c.Text), c.Text)
		}
		if utf8.ValidString(body) && !utf8.ValidString(c.Text) {
			t.Fatalf("valid UTF-8 body gave invalid text %q", c.Text)
		}
	})
}
