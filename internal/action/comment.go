package action

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"io"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// Marker identifies the sticky comment (a hidden HTML comment).
const Marker = "<!-- loopbreaker:sticky -->"

// digest markers: the compact ledger kept in the sticky comment as a
// second source when artifacts have expired.
const (
	digestOpen  = "<!-- loopbreaker-digest:v1:"
	digestClose = " -->"
	// MaxDigest bounds the digest's characters; the oldest records are
	// dropped until it fits.
	MaxDigest = 24000
	// MaxComment is GitHub's limit on a comment body.
	MaxComment = 65536
)

// EncodeDigest packs records as gzip+base64, dropping the oldest until the
// text fits MaxDigest. Base64 cannot close the HTML comment it sits in.
func EncodeDigest(recs []ledger.Record) (string, int) {
	for len(recs) > 0 {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if err := json.NewEncoder(zw).Encode(recs); err != nil {
			return "", 0
		}
		zw.Close()
		s := base64.StdEncoding.EncodeToString(buf.Bytes())
		if len(s) <= MaxDigest {
			return digestOpen + s + digestClose, len(recs)
		}
		drop := max(1, len(recs)/4)
		recs = recs[drop:]
	}
	return "", 0
}

// DecodeDigest finds and unpacks a digest in a comment body; the records
// are validated like any ledger entry.
func DecodeDigest(body string) (*ledger.Ledger, error) {
	i := strings.Index(body, digestOpen)
	if i < 0 {
		return nil, fmt.Errorf("no ledger digest in the comment")
	}
	rest := body[i+len(digestOpen):]
	j := strings.Index(rest, digestClose)
	if j < 0 || j > MaxDigest {
		return nil, fmt.Errorf("ledger digest is not closed or too long")
	}
	raw, err := base64.StdEncoding.DecodeString(rest[:j])
	if err != nil {
		return nil, fmt.Errorf("ledger digest: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("ledger digest: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, ledger.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("ledger digest: %w", err)
	}
	if len(data) > ledger.MaxFileBytes {
		return nil, fmt.Errorf("ledger digest: more than %d bytes unpacked", ledger.MaxFileBytes)
	}
	return ledger.Decode(data, "sticky comment digest"), nil
}

// Command is a /loopbreaker command from a PR comment.
type Command struct {
	Verb  string // reset, skip-phase, abort, guide
	Text  string // guide text
	Login string
	At    time.Time
}

var commandRE = lazyre.New(`(?m)^\s*/loopbreaker\s+(reset|skip-phase|abort|guide)\b[ \t]*([^\r\n]*)`)

// ParseCommand returns the first /loopbreaker command in a comment body.
func ParseCommand(body string) (Command, bool) {
	m := commandRE().FindStringSubmatch(body)
	if m == nil {
		return Command{}, false
	}
	text := strings.TrimSpace(m[2])
	if len(text) > 500 {
		text = strings.ToValidUTF8(text[:500], "") // never half a character
	}
	return Command{Verb: m[1], Text: text}, true
}
