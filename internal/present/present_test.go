package present

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func TestDigestRoundTrip(t *testing.T) {
	t.Parallel()
	var recs []ledger.Record
	for i := 0; i < 500; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(i + 1), RunAttempt: 1, Commit: strings.Repeat("a", 40),
			At: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC), Errors: []ledger.Error{{Hash: strings.Repeat("b", 64), Sample: strings.Repeat("long error text ", 20)}}})
	}
	text, kept := EncodeDigest(recs)
	if len(text) > MaxDigest+64 || kept == 0 || kept > len(recs) {
		t.Fatalf("digest of %d chars keeps %d records", len(text), kept)
	}
	l, err := decodeDigest("<!-- loopbreaker:sticky -->\nreport\n" + text + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != kept || l.Records[len(l.Records)-1].RunID != 500 {
		t.Errorf("got %d records ending at run %d, want the newest %d", len(l.Records), l.Records[len(l.Records)-1].RunID, kept)
	}
	for _, bad := range []string{"no digest here", "<!-- loopbreaker-digest:v1:!!!! -->", "<!-- loopbreaker-digest:v1:aGVsbG8= -->"} {
		if _, err := decodeDigest(bad); err == nil {
			t.Errorf("%q: got no error", bad)
		}
	}
}

// TestSealedDigestNamesTheRunThatWroteIt: the MAC line names the run and
// attempt that wrote the digest, and the MAC covers them: a line naming
// another run does not verify. Records' own seals are left out of the
// digest, which its MAC covers.
func TestSealedDigestNamesTheRunThatWroteIt(t *testing.T) {
	t.Parallel()
	d := &breaker.Decision{State: breaker.Open}
	rec := ledger.Record{Version: 1, RunID: 41, RunAttempt: 1, Commit: strings.Repeat("a", 40), At: t0, Errors: []ledger.Error{}, Seal: strings.Repeat("c", 64)}
	seal := Seal{Key: "k", Scope: "o/r#7", Run: 42, Attempt: 2}
	body := StickyComment(d, []ledger.Record{rec}, CommentOptions{Seal: seal})
	dg, err := ReadDigest(body, Seal{Key: "k", Scope: "o/r#7"})
	if err != nil || dg.Run != 42 || dg.Attempt != 2 || !dg.Sealed {
		t.Fatalf("got %+v, %v; want run 42 attempt 2, sealed", dg, err)
	}
	if dg.Ledger.Records[0].Seal != "" {
		t.Errorf("the digest carries the record's seal")
	}
	for _, other := range []string{"43.2:", "42.1:", "42:"} {
		if _, err := ReadDigest(strings.Replace(body, "mac:42.2:", "mac:"+other, 1), Seal{Key: "k", Scope: "o/r#7"}); err == nil {
			t.Errorf("a MAC line naming %s verifies", strings.TrimSuffix(other, ":"))
		}
	}
}

// TestDigestSaysWhetherItIsComplete: a long loop's digest drops its
// oldest records to fit; the sticky comment says so, and the Action reads
// the artifact instead of a partial digest.
func TestDigestSaysWhetherItIsComplete(t *testing.T) {
	t.Parallel()
	d := &breaker.Decision{State: breaker.Open}
	complete := func(body string) bool {
		dg, err := ReadDigest(body, Seal{})
		return err == nil && dg.Complete
	}
	few := []ledger.Record{{Version: 1, RunID: 1, RunAttempt: 1, Commit: strings.Repeat("a", 40), At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Errors: []ledger.Error{}}}
	var many []ledger.Record
	for i := 0; i < 2000; i++ {
		commit := fmt.Sprintf("%040x", uint64(i)*0x9e3779b97f4a7c15)
		many = append(many, ledger.Record{Version: 1, RunID: int64(i + 1), RunAttempt: 1, Commit: commit,
			At: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC), Errors: []ledger.Error{}})
	}
	if body := StickyComment(d, few, CommentOptions{}); !complete(body) {
		t.Error("a digest of every record reads as partial")
	}
	if body := StickyComment(d, many, CommentOptions{}); complete(body) {
		t.Error("a digest that dropped records reads as complete")
	}
	if complete("no digest at all") {
		t.Error("a body without a digest reads as complete")
	}
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
		l, err := decodeDigest(body)
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

// TestCommentBodyFitsTheLimit: a decision whose report would be longer
// than the budget is cut, and the ledger digest at its end survives.
func TestCommentBodyFitsTheLimit(t *testing.T) {
	t.Parallel()
	var recent []breaker.Step
	for i := 0; i < breaker.MaxRecent; i++ {
		var errs []string
		for j := 0; j < 64; j++ {
			errs = append(errs, strings.Repeat("é", 1000))
		}
		recent = append(recent, breaker.Step{Iteration: i + 1, At: t0, Errors: errs, Files: []string{strings.Repeat("f", 4000)}})
	}
	reason, trig := strings.Repeat("x", 70000), "same_error"
	d := breaker.Decision{State: breaker.Open, Iteration: 50, Reason: &reason, Trigger: &trig, Recent: recent}
	var recs []ledger.Record
	for i := 1; i <= 30; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(i), RunAttempt: 1, At: t0.Add(time.Duration(i) * time.Minute), Errors: []ledger.Error{}})
	}
	body := StickyComment(&d, recs, CommentOptions{})
	if n := len(body); n > CommentBudget {
		t.Fatalf("comment body is %d bytes, want at most %d", n, CommentBudget)
	}
	if !strings.HasPrefix(body, Marker+"\n") || !utf8.ValidString(body) {
		t.Errorf("the cut body lost its marker or is not valid UTF-8")
	}
	if !strings.Contains(body, "(truncated)") {
		t.Errorf("the cut body does not say it was truncated")
	}
	l, err := decodeDigest(body)
	if err != nil || len(l.Records) != len(recs) {
		t.Errorf("digest after the cut: %v, %d records, want all %d", err, len(l.Records), len(recs))
	}
}

func TestStickyCommentOfTheAudit(t *testing.T) {
	t.Parallel()
	reason, trig := "no progress in 3 iterations", "no_progress"
	d := &breaker.Decision{State: breaker.Open, Iteration: 4, Reason: &reason, Trigger: &trig}
	var notes []string
	for i := 1; i <= 8; i++ {
		notes = append(notes, fmt.Sprintf("note %d", i))
	}
	check := StickyComment(d, nil, CommentOptions{})
	audit := StickyComment(d, nil, CommentOptions{Audit: true, Notes: notes})
	if strings.Contains(check, "Scheduled loopbreaker audit") || !strings.Contains(audit, "_Scheduled loopbreaker audit._") {
		t.Errorf("only the audit's comment says it comes from the audit")
	}
	for _, want := range []string{"note 5", "3 more notes in the audit report", "`/loopbreaker reset` (people with write access), or remove the `loopbreaker:open` label", "<details><summary>Commands</summary>"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the audit's comment lacks %q:\n%s", want, audit)
		}
	}
	if strings.Contains(audit, "note 6") || strings.Contains(check, "loopbreaker-digest") {
		t.Errorf("got a sixth note or a digest of no records")
	}
}

func TestLabelsAreOneListPerState(t *testing.T) {
	t.Parallel()
	seen := map[breaker.State]bool{}
	for _, l := range Labels() {
		if l.State == breaker.Closed || seen[l.State] {
			t.Errorf("label %s announces %s, which is CLOSED or taken", l.Name, l.State)
		}
		seen[l.State] = true
		if len(l.Color) != 6 || strings.Trim(l.Color, "0123456789abcdef") != "" || l.Description == "" || len(l.Description) > 100 {
			t.Errorf("label %s: colour %q or description %q is not what GitHub takes", l.Name, l.Color, l.Description)
		}
	}
	if !seen[breaker.Open] || !seen[breaker.HalfOpen] {
		t.Errorf("got labels for %v, want OPEN and HALF_OPEN", seen)
	}
}

func TestStatusAndCheckRun(t *testing.T) {
	t.Parallel()
	reason, trig := strings.Repeat("same \x1b[31merror\n", 5000), "same_error"
	d := &breaker.Decision{State: breaker.Open, Iteration: 9, Reason: &reason, Trigger: &trig}
	for i := 0; i < breaker.MaxRecent; i++ {
		var errs []string
		for j := 0; j < 64; j++ {
			errs = append(errs, strings.Repeat("é", 1000))
		}
		d.Recent = append(d.Recent, breaker.Step{Iteration: i + 1, At: t0, Errors: errs})
	}
	tests := []struct {
		dryRun bool
		want   string
	}{{false, "failure"}, {true, "success"}}
	for _, tt := range tests {
		state, desc := Status(d, tt.dryRun)
		conclusion, title, summary := CheckRun(d, tt.dryRun)
		if state != tt.want || conclusion != tt.want || !strings.HasPrefix(title, strings.TrimSuffix(desc, "…")) {
			t.Errorf("dry run %v: got %s, %s and title %.60q, want %s twice and the description", tt.dryRun, state, conclusion, title, tt.want)
		}
		if !strings.HasPrefix(desc, "OPEN after iteration 9: same") || strings.ContainsAny(desc, "\x1b\n") || utf8.RuneCountInString(desc) != maxStatus {
			t.Errorf("got description %.60q (%d characters), want the state, the iteration and the cleaned reason in %d", desc, utf8.RuneCountInString(desc), maxStatus)
		}
		if n := utf8.RuneCountInString(title); n > maxCheckTitle {
			t.Errorf("got a title of %d characters, want at most %d", n, maxCheckTitle)
		}
		if n := utf8.RuneCountInString(summary); n > maxCheckSummary || !strings.HasSuffix(summary, "characters)\n") {
			t.Errorf("got a check-run summary of %d characters, want at most %d ending in the note", n, maxCheckSummary)
		}
	}
}

// decodeDigest reads a comment's digest without a key.
func decodeDigest(body string) (*ledger.Ledger, error) {
	d, err := ReadDigest(body, Seal{})
	if err != nil {
		return nil, err
	}
	return d.Ledger, nil
}
