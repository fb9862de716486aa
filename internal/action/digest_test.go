package action

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// forgedDigest is the digest an agent would plant: one clean record of the
// loop's head, which makes the loop look one iteration old.
func forgedDigest(t *testing.T, h *harness) string {
	t.Helper()
	clean := ledger.Record{Version: ledger.Version, RunID: 99, RunAttempt: 1, Commit: h.loop.head, At: h.now.Add(-time.Hour), Errors: []ledger.Error{}}
	d, _ := present.EncodeDigest([]ledger.Record{clean})
	if d == "" {
		t.Fatal("no digest")
	}
	return d
}

// failingTestNamed writes a JUnit report, in the workspace, with one
// failing test of that name, and points the reports input at it.
func failingTestNamed(t *testing.T, h *harness, name string) {
	t.Helper()
	var esc bytes.Buffer
	xml.EscapeText(&esc, []byte(name))
	report := `<testsuite name="s" tests="1" failures="1"><testcase classname="x" name="` + esc.String() + `"><failure message="m">m</failure></testcase></testsuite>`
	if err := os.WriteFile(filepath.Join(h.loop.dir, "report.xml"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	h.env["INPUT_REPORTS"] = "report.xml"
}

// stickyBody is loopbreaker's sticky comment on pull request 7.
func (h *harness) stickyBody() string {
	h.t.Helper()
	for _, c := range h.fake.Comments("octo", "loop", 7) {
		if c.Login == fakegithub.DefaultLogin && strings.HasPrefix(c.Body, present.Marker) {
			return c.Body
		}
	}
	h.t.Fatal("no sticky comment")
	return ""
}

// TestTestNamedAfterADigestIsNoDigest: the agent names a failing test after
// a digest of one clean record. The sticky comment shows the name with
// look-alikes instead of < and >, holds one digest (its own, at the end),
// and the next run stays OPEN.
func TestTestNamedAfterADigestIsNoDigest(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"", "judge-secret"} {
		h := newHTTPHarness(t, stagnant(t))
		h.env["INPUT_DIGEST-KEY"] = key
		failingTestNamed(t, h, forgedDigest(t, h))
		if code := h.run(); code != exitOpen {
			t.Fatalf("key %q: first run: got exit %d, want %d\n%s", key, code, exitOpen, h.log.String())
		}
		body := h.stickyBody()
		if n := strings.Count(body, "<!-- loopbreaker-digest:v1:"); n != 1 {
			t.Errorf("key %q: the sticky comment holds %d digests, want 1 (its own):\n%s", key, n, body)
		}
		if !strings.Contains(body, "‹!-- loopbreaker-digest:v1:") {
			t.Errorf("key %q: the test's name is not shown with look-alikes:\n%s", key, body)
		}
		want := h.outputs()["iteration"]
		h.nextRun()
		if code := h.run(); code != exitOpen {
			t.Fatalf("key %q: second run: got exit %d, want %d: the test's name was read as the ledger\n%s", key, code, exitOpen, h.summaryText())
		}
		if got := h.outputs()["iteration"]; got < want {
			t.Errorf("key %q: second run at iteration %s, want at least %s", key, got, want)
		}
	}
}

// TestForgedStickyCommentCannotLoosen: the agent's token is the identity
// loopbreaker writes as; it posts a newer marked comment carrying a digest
// of one clean record, or edits loopbreaker's own. With a digest key the
// forgery does not verify and is not read; without one the digest may add
// records but cannot loosen the decision. Either way the loop stays OPEN
// for the reason an untouched run gives.
func TestForgedStickyCommentCannotLoosen(t *testing.T) {
	t.Parallel()
	forgeries := map[string]func(h *harness, digest string){
		"a new marked comment": func(h *harness, digest string) {
			h.fake.AddComment("octo", "loop", 7, fakegithub.DefaultLogin, "Bot", present.Marker+"\nall good\n"+digest+"\n", h.now.Add(time.Minute))
		},
		"an edit of the sticky comment": func(h *harness, digest string) {
			for _, c := range h.fake.Comments("octo", "loop", 7) {
				if strings.HasPrefix(c.Body, present.Marker) {
					c.Body = present.Marker + "\nall good\n" + digest + "\n"
					c.ID, c.UpdatedAt = 0, h.now.Add(time.Minute)
					h.fake.AddCommentAs("octo", "loop", 7, c)
				}
			}
		},
	}
	for name, forge := range forgeries {
		for _, key := range []string{"", "judge-secret"} {
			t.Run(strings.ReplaceAll(name, " ", "_")+"/key_"+map[bool]string{true: "set", false: "none"}[key != ""], func(t *testing.T) {
				t.Parallel()
				honest := newHTTPHarness(t, stagnant(t))
				h := newHTTPHarness(t, stagnant(t))
				for _, x := range []*harness{honest, h} {
					x.fake.SetClock(func() time.Time { return x.now })
					x.env["INPUT_DIGEST-KEY"] = key
					if code := x.run(); code != exitOpen {
						t.Fatalf("first run: got exit %d, want %d", code, exitOpen)
					}
				}
				forge(h, forgedDigest(t, h))
				forged := map[int64]string{}
				for _, c := range h.fake.Comments("octo", "loop", 7) {
					if strings.Contains(c.Body, "all good") {
						forged[c.ID] = c.Body
					}
				}
				for _, x := range []*harness{honest, h} {
					x.nextRun()
					if code := x.run(); code != exitOpen {
						t.Fatalf("second run: got exit %d, want %d: the forged digest loosened the breaker\n%s", code, exitOpen, x.summaryText())
					}
				}
				// The forged comment left aside, the run may count fewer runs
				// while OPEN; the breaker opened for the same reason.
				if got, want := h.outputs()["reason"], honest.outputs()["reason"]; got != want {
					t.Errorf("second run: got reason %q, want %q (as without the forgery)", got, want)
				}
				// With a key, loopbreaker keeps editing its own sealed comment and
				// leaves the forgery as it was.
				for _, c := range h.fake.Comments("octo", "loop", 7) {
					if body, ok := forged[c.ID]; ok && key != "" && c.Body != body && name == "a new marked comment" {
						t.Errorf("the forged comment %d was edited:\n%.300s", c.ID, c.Body)
					}
				}
			})
		}
	}
}

// TestSealedDigestStandsForTheArtifacts: with a digest key the run reads
// its own sealed digest: the workflow's runs are listed (no later run left
// a record artifact) and no artifact is read; the same digest moved to
// another pull request, or read with another key, does not verify.
func TestSealedDigestStandsForTheArtifacts(t *testing.T) {
	t.Parallel()
	h := newHTTPHarness(t, stagnant(t))
	h.env["INPUT_DIGEST-KEY"] = "judge-secret"
	h.env["GITHUB_WORKFLOW_REF"] = "octo/loop/.github/workflows/loop.yml@refs/heads/main"
	if code := h.run(); code != exitOpen {
		t.Fatalf("first run: got exit %d", code)
	}
	h.uploadRecord(100, "agent/loop", h.loop.head)
	h.fake.AddRun("octo", "loop", fakegithub.Run{ID: 100, Path: ".github/workflows/loop.yml", HeadBranch: "agent/loop", HeadSHA: h.loop.head, CreatedAt: h.now})
	body := h.stickyBody()
	h.nextRun()
	h.fake.ResetCalls()
	if code := h.run(); code != exitOpen {
		t.Fatalf("second run: got exit %d", code)
	}
	if n, runs := h.fake.CallsTo("GET", "/repos/octo/loop/actions/"), h.calls("GET", "/actions/workflows/loop.yml/runs.*"); n != 1 || runs != 1 {
		t.Errorf("the sealed digest was not used: %d artifact calls (%d to the runs), want the runs listed once: %v", n, runs, h.fake.CallLog())
	}
	if !strings.Contains(h.summaryText(), "sealed digest") {
		t.Errorf("the summary does not say the sealed digest was read:\n%s", h.summaryText())
	}
	if _, err := present.ReadDigest(body, present.Seal{Key: "judge-secret", Scope: "octo/loop#8"}); err == nil {
		t.Errorf("a digest of #7 verified for #8")
	}
	if _, err := present.ReadDigest(body, present.Seal{Key: "guess", Scope: "octo/loop#7"}); err == nil {
		t.Errorf("a digest verified with another key")
	}
}
