package present

import (
	"bytes"
	"compress/gzip"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
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

// CommentBudget is the sticky comment's size in bytes, under GitHub's
// 65,536 characters; a longer report is cut, the digest kept whole.
const CommentBudget = 60000

// maxCommentNotes is how many notes the sticky comment shows.
const maxCommentNotes = 5

// EncodeDigest packs records as gzip+base64 (which cannot close the HTML
// comment), dropping the oldest to fit MaxDigest, and returns it with the
// number kept. Records' own seals are left out: the digest's covers them.
func EncodeDigest(recs []ledger.Record) (string, int) {
	recs = slices.Clone(recs)
	for i := range recs {
		recs[i].Seal = ""
	}
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

// digestMAC opens the line that authenticates the digest above it.
const digestMAC = "<!-- loopbreaker-digest-mac:"

// Seal authenticates a digest: an HMAC-SHA256 keyed by Key over Scope (the
// repository and pull request), the writing Run and Attempt (so an older
// digest written back is known as older) and the digest's lines.
type Seal struct {
	Key, Scope string
	Run        int64
	Attempt    int
}

// writer names the run that wrote the digest on its MAC line: "run.attempt".
func (s Seal) writer() string { return fmt.Sprintf("%d.%d", s.Run, s.Attempt) }

func (s Seal) mac(block string) string {
	m := hmac.New(sha256.New, []byte(s.Key))
	io.WriteString(m, s.Scope+"\n"+s.writer()+"\n"+block)
	return hex.EncodeToString(m.Sum(nil))
}

// Digest is the ledger digest a sticky comment ends with.
type Digest struct {
	Ledger *ledger.Ledger
	// Complete says it holds every record it was written with.
	Complete bool
	// Sealed says its MAC was checked with the key; Run and Attempt are
	// then the run that wrote it.
	Sealed  bool
	Run     int64
	Attempt int
}

// ReadDigest reads the digest block the comment ends with (never one
// elsewhere, where agent text may have put it). With seal.Key its MAC must
// verify; without, it is unsealed and must not outweigh the artifacts.
func ReadDigest(body string, seal Seal) (*Digest, error) {
	rest := strings.TrimRight(body, " \t\r\n")
	mac := ""
	if i := strings.LastIndex(rest, "\n"); i >= 0 && strings.HasPrefix(rest[i+1:], digestMAC) && strings.HasSuffix(rest, digestClose) {
		mac = strings.TrimSuffix(strings.TrimPrefix(rest[i+1:], digestMAC), digestClose)
		rest = strings.TrimRight(rest[:i], " \t\r\n")
	}
	d := &Digest{Complete: true}
	if strings.HasSuffix(rest, digestPartial) {
		d.Complete = false
		rest = strings.TrimRight(strings.TrimSuffix(rest, digestPartial), " \t\r\n")
	}
	i := strings.LastIndex(rest, digestOpen)
	if i < 0 || !strings.HasSuffix(rest, digestClose) || i+len(digestOpen) > len(rest)-len(digestClose) {
		return nil, fmt.Errorf("no ledger digest at the end of the comment")
	}
	block := rest[i:]
	text := block[len(digestOpen) : len(block)-len(digestClose)]
	if len(text) > MaxDigest {
		return nil, fmt.Errorf("ledger digest is longer than %d characters", MaxDigest)
	}
	if seal.Key != "" {
		if mac == "" {
			return nil, fmt.Errorf("ledger digest carries no MAC: not written with the digest key")
		}
		writer, sum, _ := strings.Cut(mac, ":")
		run, attempt, _ := strings.Cut(writer, ".")
		n, err1 := strconv.ParseInt(run, 10, 64)
		a, err2 := strconv.Atoi(attempt)
		if err1 != nil || err2 != nil || n < 0 || a < 0 {
			return nil, fmt.Errorf("ledger digest's MAC names no run: written by an older loopbreaker or forged")
		}
		seal.Run, seal.Attempt = n, a
		if seal.writer() != writer || !hmac.Equal([]byte(sum), []byte(seal.mac(sealed(block, d.Complete)))) {
			return nil, fmt.Errorf("ledger digest's MAC does not verify with the digest key")
		}
		d.Sealed, d.Run, d.Attempt = true, n, a
	}
	raw, err := base64.StdEncoding.DecodeString(text)
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
	d.Ledger = ledger.Decode(data, "sticky comment digest")
	return d, nil
}

// sealed is what a digest's MAC covers: the digest block and whether it
// is partial.
func sealed(block string, complete bool) string {
	if complete {
		return block
	}
	return block + "\n" + digestPartial
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
	// Seal authenticates the digest when its key is set.
	Seal Seal
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
	if digest != "" {
		complete := kept == len(recs)
		if !complete {
			digest += "\n" + digestPartial
		}
		if o.Seal.Key != "" {
			digest += "\n" + digestMAC + o.Seal.writer() + ":" + o.Seal.mac(sealed(strings.TrimSuffix(digest, "\n"+digestPartial), complete)) + digestClose
		}
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

// AlertLine calls the alert's people and teams (validated as logins when
// the policy loaded): "" unless d is an OPEN breaker's alert with someone to
// call.
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
