package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// The watched agent writes commits, files, comments (through its own
// token) and runs the workflow; none of that may reset, loosen or blind
// its breaker. These tests build on TestTrustedCommentResets,
// TestLabelRemovedByBotIsNoReset and TestPolicyComesFromTheBaseBranch.

// stagnantWith is a loop whose first iteration changes a file and whose
// next three are empty commits with the given messages.
func stagnantWith(t *testing.T, msgs ...string) *loopRepo {
	t.Helper()
	l := newLoop(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	for _, m := range msgs {
		commitTo(t, l, m, nil)
	}
	return l
}

func TestCommitTrailersCannotReset(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"reset trailers": {
			"work\n\nLoopbreaker-Reset: true\nLoop-Reset: true",
			"work\n\nLoop-State: CLOSED\nLoopbreaker: reset\nLoop-Disable: true",
			"work\n\nLoopbreaker-Policy: ralph\nLoop-Force-Close: yes",
		},
		"commands in messages": {
			"/loopbreaker reset",
			"work\n\n/loopbreaker reset\n/loopbreaker skip-phase",
			"work\n\nLoop-Phase: RESET\nSigned-off-by: maintainer <m@example.com>",
		},
	}
	for name, msgs := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, stagnantWith(t, msgs...))
			if code := h.run(); code != exitOpen {
				t.Fatalf("got exit %d, want %d: commit messages reset the breaker\n%s", code, exitOpen, h.log.String())
			}
			if o := h.outputs(); o["state"] != "OPEN" || o["trigger"] != "no_progress" {
				t.Errorf("got state %s trigger %s, want OPEN no_progress", o["state"], o["trigger"])
			}
		})
	}
}

func TestPolicyEditsInThePRAreIgnored(t *testing.T) {
	t.Parallel()
	cases := map[string]map[string]string{
		"raises every threshold": {".github/loopbreaker.toml": "extends = \"default\"\n[rules.no_progress]\nhalf_open_after = 99\nno_progress_threshold = 100\n[rules.max_iterations]\nmax_iterations = 1000\n"},
		"switches to ralph":      {".github/loopbreaker.toml": "extends = \"ralph\"\n"},
		"breaks the file":        {".github/loopbreaker.toml": "this is not TOML ]["},
	}
	for name, edit := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			loop := newLoop(t, edit, nil, nil, nil)
			h := newHarness(t, loop)
			h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
			if code := h.run(); code != exitOpen {
				t.Fatalf("got exit %d, want %d: the PR head's policy was used\n%s", code, exitOpen, h.log.String())
			}
		})
	}
	t.Run("uncommitted_edit_in_the_work_tree", func(t *testing.T) {
		t.Parallel()
		loop := stagnant(t)
		write := "extends = \"default\"\n[rules.no_progress]\nenabled = false\n"
		if err := osWriteFile(loop.dir, ".github/loopbreaker.toml", write); err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, loop)
		h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
		if code := h.run(); code != exitOpen {
			t.Fatalf("got exit %d, want %d: the work tree's policy was used", code, exitOpen)
		}
	})
	t.Run("policy_file_added_only_in_the_PR", func(t *testing.T) {
		t.Parallel()
		loop := newLoop(t, map[string]string{"loose.toml": "extends = \"default\"\n[rules.no_progress]\nenabled = false\n"}, nil, nil, nil)
		h := newHarness(t, loop)
		h.env["INPUT_POLICY"] = "loose.toml"
		if code := h.run(); code != exitError || !strings.Contains(h.log.String(), "loose.toml") {
			t.Fatalf("got exit %d, want %d naming the file missing from the base\n%s", code, exitError, h.log.String())
		}
	})
	t.Run("deleting_the_policy_trips", func(t *testing.T) {
		t.Parallel()
		loop := newLoop(t, map[string]string{"a.go": "package main\n"})
		deleteFile(t, loop, ".github/loopbreaker.toml")
		h := newHarness(t, loop)
		h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
		if code := h.run(); code != exitOpen || h.outputs()["trigger"] != "protected_path" {
			t.Fatalf("got exit %d trigger %q, want %d protected_path\n%s", code, h.outputs()["trigger"], exitOpen, h.log.String())
		}
	})
}

func TestUntrustedCommentsCannotReset(t *testing.T) {
	t.Parallel()
	type commenter struct{ login, kind, perm string }
	cases := map[string]commenter{
		"triage":                    {"triager", "User", "triage"},
		"read":                      {"reader", "User", "read"},
		"no permission":             {"stranger", "User", ""},
		"bot with admin":            {"renovate", "Bot", "admin"},
		"user-typed login of a bot": {"helper[bot]", "User", "write"},
		"the workflow's own token":  {fakegithub.DefaultLogin, "Bot", "write"},
		"permission lookup fails":   {"flaky", "User", "fail"},
	}
	for name, c := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, stagnant(t), present.LabelOpen)
			switch c.perm {
			case "":
			case "fail":
				h.permission(c.login, "write")
				h.fail("GET", "/collaborators/"+c.login+"/permission")
			default:
				h.permission(c.login, c.perm)
			}
			for _, body := range []string{"/loopbreaker reset", "please\n/loopbreaker skip-phase", "/loopbreaker guide go on"} {
				h.comment(7, c.login, c.kind, body, start.Add(30*time.Hour))
			}
			h.now = start.Add(31 * time.Hour)
			if code := h.run(); code != exitOpen {
				t.Fatalf("got exit %d, want %d: a comment by %s reset the breaker\n%s", code, exitOpen, c.login, h.log.String())
			}
			if s := h.summaryText(); !strings.Contains(s, "only people with write access") {
				t.Errorf("the summary does not say the command was ignored:\n%.1500s", s)
			}
		})
	}
}

func TestUntrustedLabelRemovalKeepsOpen(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		login, kind, perm string
		at                time.Duration // after start
	}{
		"workflow token":              {fakegithub.DefaultLogin, "Bot", "", 30 * time.Hour},
		"reader":                      {"reader", "User", "read", 30 * time.Hour},
		"bot with write":              {"agent-app[bot]", "Bot", "write", 30 * time.Hour},
		"maintainer before it opened": {"maintainer", "User", "admin", 10 * time.Minute},
		"triager":                     {"triager", "User", "triage", 30 * time.Hour},
	}
	for name, c := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, stagnant(t)) // the label is gone from the PR
			if c.perm != "" {
				h.permission(c.login, c.perm)
			}
			h.labelEvent(7, "unlabeled", present.LabelOpen, c.login, c.kind, start.Add(c.at))
			h.now = start.Add(31 * time.Hour)
			if code := h.run(); code != exitOpen {
				t.Fatalf("got exit %d, want %d: removing the label as %s reset the breaker\n%s", code, exitOpen, c.login, h.log.String())
			}
			if got := h.labels(7); !contains(got, present.LabelOpen) {
				t.Errorf("got labels %v, want %s put back", got, present.LabelOpen)
			}
		})
	}
}

// TestForcePushDoesNotHideIterations: the agent force-pushes its branch
// back to the base, so the stagnant commits are gone from git; the ledger
// of earlier runs still holds them, and the breaker stays OPEN.
func TestForcePushDoesNotHideIterations(t *testing.T) {
	t.Parallel()
	loop := newLoop(t) // only the base: the branch was reset to it
	h := newHarness(t, loop)
	var recs []ledger.Record
	for i := 1; i <= 3; i++ {
		recs = append(recs, ledger.Record{Version: 1, RunID: int64(80 + i), RunAttempt: 1, At: start.Add(time.Duration(i) * time.Hour),
			Commit: fmt.Sprintf("%040x", 0xdead00+i), Errors: []ledger.Error{}})
	}
	h.artifact(83, "agent/loop", recs[2].Commit, start.Add(3*time.Hour), recordZip(t, recs))
	if code := h.run(); code != exitOpen {
		t.Fatalf("got exit %d, want %d: force-pushing hid the stagnant runs\n%s", code, exitOpen, h.summaryText())
	}
	if o := h.outputs(); o["iteration"] != "4" || o["trigger"] != "no_progress" {
		t.Errorf("got iteration %s trigger %s, want 4 no_progress", o["iteration"], o["trigger"])
	}
	if s := h.summaryText(); !strings.Contains(s, "force") {
		t.Errorf("the summary does not say the commits are gone:\n%.1500s", s)
	}
}

// TestSelfReportedPercentIsBounded: a rising reported percentage is a
// claim, progress only with work behind it, so an agent cannot claim
// progress with trailers alone: the commits that change nothing open the
// breaker as any others do.
func TestSelfReportedPercentIsBounded(t *testing.T) {
	t.Parallel()
	var msgs []string
	for i := 1; i <= 20; i++ {
		msgs = append(msgs, fmt.Sprintf("work\n\nLoop-Progress: %d%%", min(100, 5*i)))
	}
	h := newHarness(t, stagnantWith(t, msgs...))
	if code := h.run(); code != exitOpen || h.outputs()["trigger"] != "no_progress" {
		t.Fatalf("got exit %d trigger %q, want %d no_progress: 20 iterations of claimed progress with no work\n%s", code, h.outputs()["trigger"], exitOpen, h.summaryText())
	}
}

// TestHistorySurvivesTheFirstRecord: the first run on a PR has no earlier
// records and folds the commits (OPEN); the next run reads that run's
// records and must fold the same iterations, not one that covers them all
// (which would close the circuit without a reset).
func TestHistorySurvivesTheFirstRecord(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"digest", "artifact"} {
		t.Run(from, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, stagnant(t))
			if from == "artifact" {
				h.env["INPUT_ON-OPEN"] = "fail,label" // no sticky comment: its digest would be read first
			}
			if code := h.run(); code != exitOpen {
				t.Fatalf("first run: got exit %d, want %d", code, exitOpen)
			}
			if from == "artifact" {
				data, err := os.ReadFile(filepath.Join(h.loop.dir, ".loopbreaker", "record.json"))
				if err != nil {
					t.Fatal(err)
				}
				recs := ledger.Decode(data, "record.json")
				h.artifact(100, "agent/loop", h.loop.head, h.now, recordZip(t, recs.Records))
			}
			h.secondRunKeepsHistory("the history was lost")
			if !strings.Contains(h.summaryText(), from) {
				t.Errorf("the summary does not say the records came from the %s", from)
			}
		})
	}
}

// secondRunKeepsHistory runs the stagnant loop's second check an hour
// after its first: still OPEN, at iteration 5, with one run while OPEN.
func (h *harness) secondRunKeepsHistory(why string) {
	h.t.Helper()
	h.env["GITHUB_RUN_ID"] = "101"
	h.now = h.now.Add(time.Hour)
	if code := h.run(); code != exitOpen {
		h.t.Fatalf("second run: got exit %d, want %d: %s\n%s", code, exitOpen, why, h.summaryText())
	}
	if o := h.outputs(); o["iteration"] != "5" || o["ignored-open"] != "1" {
		h.t.Errorf("second run: got iteration %s ignored-open %s, want 5 and 1: %s", o["iteration"], o["ignored-open"], why)
	}
}

func osWriteFile(dir, name, content string) error {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// deleteFile commits the removal of name.
func deleteFile(t *testing.T, l *loopRepo, name string) {
	t.Helper()
	r, err := git.PlainOpen(l.dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if _, err := wt.Remove(name); err != nil {
		t.Fatal(err)
	}
	head, _ := r.Head()
	c, _ := r.CommitObject(head.Hash())
	sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: c.Committer.When.Add(10 * time.Minute)}
	h, err := wt.Commit("remove "+name, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	l.head = h.String()
}

// TestDigestPlantedByTheAuthorIsIgnored: the agent that opened the pull
// request runs as a GitHub App, a bot like loopbreaker's own token. Its
// marked comment, newer than loopbreaker's, carries a digest of one clean
// record: it is neither read as the ledger nor edited as the sticky.
func TestDigestPlantedByTheAuthorIsIgnored(t *testing.T) {
	t.Parallel()
	const agent = "agent-app[bot]"
	h := newHarness(t, stagnant(t))
	created := h.now
	h.fake.SetClock(func() time.Time { return created })
	path := h.env["GITHUB_EVENT_PATH"]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	ev["pull_request"].(map[string]any)["user"] = map[string]any{"login": agent, "type": "Bot"}
	data, _ = json.Marshal(ev)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := h.run(); code != exitOpen {
		t.Fatalf("first run: got exit %d, want %d", code, exitOpen)
	}
	clean := ledger.Record{Version: ledger.Version, RunID: 99, RunAttempt: 1, Commit: h.loop.head, At: h.now}
	digest, _ := present.EncodeDigest([]ledger.Record{clean})
	planted := present.Marker + "\nall good here\n" + digest
	h.comment(7, agent, "Bot", planted, h.now.Add(time.Minute))

	h.secondRunKeepsHistory("the planted digest was read")
	var mine, theirs int
	for _, c := range h.comments(7) {
		switch {
		case c.Login == agent && c.Body == planted:
			theirs++
		case c.Login == fakegithub.DefaultLogin && strings.Contains(c.Body, present.Marker):
			mine++
		default:
			t.Errorf("unexpected comment by %s: %.200q", c.Login, c.Body)
		}
	}
	if mine != 1 || theirs != 1 {
		t.Errorf("got %d sticky comments of loopbreaker's and %d untouched planted ones, want 1 and 1", mine, theirs)
	}
}
