package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// loopWorkflow is the agent loop's workflow file in the tests of this file.
const loopWorkflow = ".github/workflows/loop.yml"

// sealedLoop is the agent loop's workflow against the HTTP fake, with the
// digest key: each run of loop.yml is a workflow_dispatch run on the
// loop's branch whose gate and judge run the action, and whose upload step
// uploads the judge's record file with the run's runtime token.
type sealedLoop struct {
	t   *testing.T
	h   *harness
	run int64
}

func newSealedLoop(t *testing.T, loop *loopRepo, onOpen string) *sealedLoop {
	t.Helper()
	h := newHarness(t, loop)
	h.env["INPUT_DIGEST-KEY"] = "judge-secret"
	h.env["GITHUB_WORKFLOW_REF"] = "octo/loop/" + loopWorkflow + "@refs/heads/main"
	if onOpen != "" {
		h.env["INPUT_ON-OPEN"], h.env["INPUT_ON-HALF-OPEN"] = onOpen, "label"
	}
	h.dispatched()
	return &sealedLoop{t: t, h: h, run: 99}
}

// next starts the next run of the workflow, an hour after the last.
func (s *sealedLoop) next() {
	s.run++
	s.h.now = s.h.now.Add(time.Hour)
	s.h.env["GITHUB_RUN_ID"] = fmt.Sprint(s.run)
	s.h.fake.AddRun("octo", "loop", fakegithub.Run{ID: s.run, Path: loopWorkflow, HeadBranch: "agent/loop", HeadSHA: s.h.loop.head,
		Event: "workflow_dispatch", CreatedAt: s.h.now})
}

// judge runs the next run's judge and its record upload, and returns the
// state it decided.
func (s *sealedLoop) judge() string {
	s.t.Helper()
	s.next()
	delete(s.h.env, "INPUT_MODE")
	if code := s.h.run(); code != exitContinue && code != exitOpen {
		s.t.Fatalf("judge of run %d: exit %d\n%s", s.run, code, s.h.log.String())
	}
	data, err := os.ReadFile(filepath.Join(s.h.loop.dir, ".loopbreaker", "record.json"))
	if err != nil {
		s.t.Fatal(err)
	}
	s.upload(s.run, recordZipOf(s.t, data))
	return s.h.outputs()["state"]
}

// upload uploads zip as run's record artifact with the run's runtime
// token, replacing one of the name (upload-artifact's overwrite: true):
// what the judge's upload step does, and what any other step of the run
// holding the token can do.
func (s *sealedLoop) upload(run int64, zip []byte) {
	s.t.Helper()
	if _, err := s.h.fake.UploadWithRuntimeToken(s.h.fake.RuntimeToken("octo", "loop", run), "loopbreaker-record", zip, true); err != nil {
		s.t.Fatal(err)
	}
}

// gate runs the gate of the current run and returns its outputs.
func (s *sealedLoop) gate() map[string]string {
	s.t.Helper()
	s.h.env["INPUT_MODE"] = "gate"
	defer delete(s.h.env, "INPUT_MODE")
	if code := s.h.run(); code != exitContinue {
		s.t.Fatalf("gate of run %d: exit %d\n%s", s.run, code, s.h.log.String())
	}
	return s.h.outputs()
}

// recordZipOf is an artifact archive holding a record file as written.
func recordZipOf(t *testing.T, data []byte) []byte {
	t.Helper()
	return recordZip(t, ledger.Decode(data, "record.json").Records)
}

// noteCodes are the codes of the notes in a run's decision output.
func noteCodes(o map[string]string) []string {
	var codes []string
	for _, c := range note.Codes() {
		if strings.Contains(o["decision"], `"code":"`+string(c)+`"`) {
			codes = append(codes, string(c))
		}
	}
	return codes
}

// TestOldStickyBodyWrittenBackCannotLoosen: the loop goes CLOSED,
// HALF_OPEN, OPEN, each judge sealing the sticky comment's digest. The
// HALF_OPEN run's sealed body is then written back, over loopbreaker's
// comment with the workflow token or as a new comment of its identity.
// The seal verifies, but the digest is older than the loop's newest
// record: the gate reads the newer record artifact and stays OPEN, the
// agent not started (before: HALF_OPEN, proceed).
func TestOldStickyBodyWrittenBackCannotLoosen(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"edit", "new comment"} {
		t.Run(strings.ReplaceAll(how, " ", "_"), func(t *testing.T) {
			t.Parallel()
			s := newSealedLoop(t, newLoop(t, map[string]string{"a.go": "package a\n"}), "")
			var states []string
			var halfOpen string
			for i := 0; i < 4; i++ {
				states = append(states, s.judge())
				if states[i] == "HALF_OPEN" {
					halfOpen = s.h.stickyBody()
				}
			}
			if states[len(states)-1] != "OPEN" || halfOpen == "" {
				t.Fatalf("the loop went %v, want it through HALF_OPEN to OPEN", states)
			}
			later := s.h.now.Add(time.Minute)
			switch how {
			case "edit":
				var id int64
				for _, c := range s.h.comments(7) {
					if strings.HasPrefix(c.Body, present.Marker) {
						id = c.ID
					}
				}
				if _, err := s.h.client().UpsertComment(context.Background(), 7, id, github.Sticky{Marker: present.Marker}, halfOpen); err != nil {
					t.Fatal(err)
				}
			default:
				s.h.fake.AddComment("octo", "loop", 7, fakegithub.DefaultLogin, "Bot", halfOpen, later)
			}
			if got := s.h.stickyBody(); got != halfOpen && how == "edit" {
				t.Fatalf("the old body was not written back")
			}
			s.next()
			o := s.gate()
			if o["state"] != "OPEN" || o["proceed"] != "false" {
				t.Errorf("gate after the old sealed body was written back: got %s, proceed %s; want OPEN, false\n%s", o["state"], o["proceed"], s.h.summaryText())
			}
			// Written over loopbreaker's comment, the old digest is read and
			// found stale; posted beside it, the digest of the newest run is
			// read.
			if how == "edit" && !slices.Contains(noteCodes(o), string(note.RecordStale)) {
				t.Errorf("no %s note: %v", note.RecordStale, noteCodes(o))
			}
		})
	}
}

// TestRecordPlantedInTheRunCannotLoosen: the loop has no sticky comment
// (on-open: label), so no sealed digest; it is OPEN. In the next run a step
// of the agent's job, holding the run's runtime token, uploads a
// loopbreaker-record artifact into the run, and the judge never uploads its
// own (it refused the handover): one clean record, or a copy of an earlier
// run's sealed artifact from when the loop was CLOSED. The next gate
// ignores the planted artifact (no seal verifies for that run), reads the
// run before it, and stays OPEN (before: CLOSED, proceed).
func TestRecordPlantedInTheRunCannotLoosen(t *testing.T) {
	t.Parallel()
	plants := map[string]func(s *sealedLoop, closed []byte) []byte{
		"one clean record": func(s *sealedLoop, _ []byte) []byte {
			return recordZip(s.t, []ledger.Record{{Version: ledger.Version, RunID: s.run, RunAttempt: 1, Iteration: 1, Commit: s.h.loop.head,
				At: s.h.now, Errors: []ledger.Error{}, Seal: strings.Repeat("0", 64)}})
		},
		"an earlier run's sealed artifact": func(s *sealedLoop, closed []byte) []byte { return closed },
	}
	for name, plant := range plants {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			s := newSealedLoop(t, newLoop(t, map[string]string{"a.go": "package a\n"}), "label")
			var closed []byte
			states := []string{}
			for i := 0; i < 4; i++ {
				states = append(states, s.judge())
				if i == 0 {
					data, _ := os.ReadFile(filepath.Join(s.h.loop.dir, ".loopbreaker", "record.json"))
					closed = recordZipOf(t, data)
				}
			}
			if states[0] != "CLOSED" || states[3] != "OPEN" || len(s.h.comments(7)) != 0 {
				t.Fatalf("the loop went %v with %d comments, want CLOSED to OPEN with none", states, len(s.h.comments(7)))
			}
			s.next()
			s.upload(s.run, plant(s, closed))
			s.next()
			o := s.gate()
			if o["state"] != "OPEN" || o["proceed"] != "false" {
				t.Errorf("gate after the planted record: got %s, proceed %s; want OPEN, false\n%s", o["state"], o["proceed"], s.h.summaryText())
			}
			if !slices.Contains(noteCodes(o), string(note.RecordUnsealed)) {
				t.Errorf("no %s note: %v", note.RecordUnsealed, noteCodes(o))
			}
			// The same run's judge reads the same records.
			s.h.run()
			if got := s.h.outputs()["state"]; got != "OPEN" {
				t.Errorf("judge after the planted record: got %s, want OPEN\n%s", got, s.h.summaryText())
			}
		})
	}
}
