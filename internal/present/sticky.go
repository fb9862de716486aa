package present

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Marker identifies the sticky comment (a hidden HTML comment).
const Marker = "<!-- loopbreaker:sticky -->"

// The ledger digest: the compact records kept in the sticky comment as a
// second source when artifacts have expired.
const (
	digestOpen  = "<!-- loopbreaker-digest:v1:"
	digestClose = " -->"
	// digestPartial follows a digest that lost its oldest records.
	digestPartial = "<!-- loopbreaker-digest:partial -->"
	// MaxDigest bounds the digest's characters; the oldest records are
	// dropped until it fits.
	MaxDigest = 24000
)

// CommentBudget is the sticky comment's size in bytes, report and digest
// together: under GitHub's limit of 65,536 characters with room to spare
// (a byte is at most a character). A longer report is cut before the
// digest, which is always kept whole.
const CommentBudget = 60000

// maxCommentNotes is how many notes the sticky comment shows.
const maxCommentNotes = 5

// EncodeDigest packs records as gzip+base64, dropping the oldest until the
// text fits MaxDigest, and returns it with the number of records kept ("",
// 0 for none). Base64 cannot close the HTML comment it sits in.
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

// DigestComplete reports whether a comment's digest holds every record it
// was written with: a long loop's drops its oldest ones to fit.
func DigestComplete(body string) bool {
	return strings.Contains(body, digestOpen) && !strings.Contains(body, digestPartial)
}

// CommentOptions say who writes the sticky comment.
type CommentOptions struct {
	// Audit marks the comment of the scheduled audit.
	Audit bool
	// Notes are the audit's notes on the evidence: the first five are
	// shown, the rest counted.
	Notes []string
	// Mentions are the people and teams an alert calls (the policy's
	// alert.mentions, validated when it loaded): named at the top when the
	// decision is an OPEN breaker's alert.
	Mentions []string
}

// StickyComment is the sticky comment's body: the marker, the report of the
// decision, the commands people can give, and the digest of recs (so that
// the fallback survives an edit), within CommentBudget.
func StickyComment(d *breaker.Decision, recs []ledger.Record, o CommentOptions) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	if o.Audit {
		b.WriteString("_Scheduled loopbreaker audit._\n\n")
	}
	if line := AlertLine(d, o.Mentions); line != "" {
		b.WriteString(line + "\n\n")
	}
	b.WriteString(render.MarkdownReport(d, render.Options{FoldLog: true, Notes: note.Of(note.GitHub, limitNotes(o.Notes, maxCommentNotes)),
		ResetHint: "comment `/loopbreaker reset` (people with write access), or remove the `" + LabelOpen + "` label"}))
	b.WriteString("\n<details><summary>Commands</summary>\n\n")
	b.WriteString("People with write access can comment `/loopbreaker reset`, `/loopbreaker resume` (a paused loop), `/loopbreaker skip-phase` (to the next phase), `/loopbreaker abort` or `/loopbreaker guide <text>` (text for the agent's next prompt).\n\n</details>\n")
	body := b.String()
	digest, kept := EncodeDigest(recs)
	if digest != "" && kept < len(recs) {
		digest += "\n" + digestPartial
	}
	if len(body)+len(digest)+1 > CommentBudget {
		cut := max(0, CommentBudget-len(digest)-200)
		body = strings.ToValidUTF8(body[:min(len(body), cut)], "") + "\n\n… (truncated)\n"
	}
	if digest != "" {
		body += digest + "\n"
	}
	return body
}

// AlertLine calls the people and teams of an alert: "" unless the
// decision is an OPEN breaker whose on_open is "alert" and there is
// someone to call. The names were validated as GitHub logins and teams
// when the policy loaded, so that they cannot carry markdown.
func AlertLine(d *breaker.Decision, mentions []string) string {
	if d.State != breaker.Open || d.OpenAction != policy.OnOpenAlert || len(mentions) == 0 {
		return ""
	}
	at := make([]string, len(mentions))
	for i, m := range mentions {
		at[i] = "@" + policy.MentionName(m)
	}
	return "**Alert:** " + strings.Join(at, " ") + " — the breaker opened and the loop goes on (on_open = \"alert\"); please look."
}

func limitNotes(notes []string, n int) []string {
	if len(notes) <= n {
		return notes
	}
	return append(append([]string{}, notes[:n]...), fmt.Sprintf("%d more notes in the audit report", len(notes)-n))
}
