package action

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// runWithTimeout runs the action like harness.run, through an HTTP client
// whose attempts wait at most timeout for an answer.
func (h *harness) runWithTimeout(timeout time.Duration) int {
	h.t.Helper()
	os.Remove(h.out)
	os.Remove(h.summary)
	h.log.Reset()
	return Run(context.Background(), Env{
		Getenv:     func(k string) string { return h.env[k] },
		Stdout:     &h.log,
		Now:        func() time.Time { return h.now },
		HTTPClient: &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: timeout}},
		Sleep: func(_ context.Context, d time.Duration) error {
			h.sleeps = append(h.sleeps, d)
			return nil
		},
	})
}

// faultCase is one way the GitHub API fails during a run of a stagnant
// loop (which opens on no_progress at iteration 4).
type faultCase struct {
	name   string
	inject func(h *harness)
	// failStops says whether on-api-error "fail" turns the fault into exit 2
	// (false: the fault is absorbed, by a retry or as a missing record).
	failStops bool
	// sleeps are waits the client must have made (Retry-After, reset).
	sleeps []time.Duration
	// noted is what the job summary must say.
	noted string
	// labels are on the PR before the run.
	labels []string
	// hit is a "METHOD /path" prefix the run must have called (the fault's).
	hit string
}

func faultCases() []faultCase {
	repo := "/repos/octo/loop"
	return []faultCase{
		{name: "500 on every call", failStops: true, noted: "failed",
			inject: func(h *harness) { h.fake.Inject("", repo, fakegithub.Fault{Status: 500}) }},
		{name: "502 once on the comment list", failStops: false, sleeps: []time.Duration{time.Second},
			inject: func(h *harness) {
				h.fake.Inject("GET", repo+"/issues/7/comments", fakegithub.Fault{Status: 502, Times: 1})
			}},
		{name: "timeout on creating the comment", failStops: true, noted: "sticky comment",
			inject: func(h *harness) {
				h.fake.Inject("POST", repo+"/issues/7/comments", fakegithub.Fault{Delay: time.Minute, Times: 1})
			}},
		{name: "timeout once on the artifact list", failStops: false, sleeps: []time.Duration{time.Second},
			inject: func(h *harness) {
				h.fake.Inject("GET", repo+"/actions/artifacts", fakegithub.Fault{Delay: time.Minute, Times: 1})
			}},
		{name: "403 primary limit until an hour later", failStops: true, noted: "rate limit",
			inject: func(h *harness) {
				h.fake.Inject("GET", repo+"/issues/7/comments", fakegithub.Fault{Status: 403, RetryAfter: 3600})
			}},
		// A primary limit is not waited out: the call fails and the client
		// refuses further calls until the reset, whatever its distance.
		{name: "403 primary limit resetting in 20 s", failStops: true, noted: "rate limit",
			inject: func(h *harness) {
				h.fake.Inject("GET", repo+"/issues/7/comments", fakegithub.Fault{Status: 403, RetryAfter: 20, Times: 1})
			}},
		{name: "secondary limit with Retry-After 30", failStops: false, sleeps: []time.Duration{30 * time.Second},
			inject: func(h *harness) {
				h.fake.Inject("POST", repo+"/statuses", fakegithub.Fault{Status: 403, Secondary: true, RetryAfter: 30, Times: 1})
			}},
		{name: "429 with Retry-After 7", failStops: false, sleeps: []time.Duration{7 * time.Second},
			inject: func(h *harness) {
				h.fake.Inject("POST", repo+"/issues/7/labels", fakegithub.Fault{Status: 429, RetryAfter: 7, Times: 1})
			}},
		{name: "404 removing a label already gone", failStops: false, labels: []string{present.LabelHalfOpen}, hit: "DELETE " + repo + "/issues/7/labels/",
			inject: func(h *harness) {
				h.fake.Inject("DELETE", repo+"/issues/7/labels/", fakegithub.Fault{Status: 404})
			}},
		{name: "expired artifact", failStops: false, noted: "has expired",
			inject: func(h *harness) { addArtifact(h, nil, true) }},
		{name: "artifact download refused as gone", failStops: false, noted: "expired",
			inject: func(h *harness) {
				addArtifact(h, []byte("PK"), false)
				h.fake.Inject("GET", repo+"/actions/artifacts/", fakegithub.Fault{Status: 410})
			}},
		{name: "artifact holding no record", failStops: false, noted: "holds no valid record",
			inject: func(h *harness) { addArtifact(h, nil, false) }},
		{name: "corrupt artifact zip", failStops: false, noted: "not a zip archive",
			inject: func(h *harness) { addArtifact(h, []byte("PK\x03\x04 this is not a zip"), false) }},
		{name: "comment refused as too long", failStops: true, noted: "sticky comment",
			inject: func(h *harness) {
				h.fake.Inject("POST", repo+"/issues/7/comments", fakegithub.Fault{Status: 422, Times: 1})
			}},
	}
}

// addArtifact adds the previous run's record artifact holding zip (nil: a
// valid archive of no records).
func addArtifact(h *harness, zip []byte, expired bool) {
	if zip == nil {
		zip = recordZip(h.t, nil)
	}
	h.fake.AddRun("octo", "loop", fakegithub.Run{ID: 99, HeadBranch: "agent/loop", HeadSHA: h.loop.head, CreatedAt: start.Add(time.Hour)})
	h.fake.AddArtifact("octo", "loop", 99, "loopbreaker-record", zip, expired)
}

// TestFaultsStillDecide: whatever the API does, the run decides from git
// (OPEN, exit 1, outputs and summary written) when on-api-error is
// "continue"; "fail" makes a fault that the client could not absorb exit 2;
// and a clean run afterwards leaves exactly one sticky comment and the
// label.
func TestFaultsStillDecide(t *testing.T) {
	t.Parallel()
	for _, c := range faultCases() {
		for _, mode := range []string{"continue", "fail"} {
			t.Run(strings.ReplaceAll(c.name, " ", "_")+"/"+mode, func(t *testing.T) {
				t.Parallel()
				h := newHTTPHarness(t, stagnant(t), c.labels...)
				h.fake.SetClock(func() time.Time { return h.now })
				h.env["INPUT_ON-API-ERROR"] = mode
				c.inject(h)
				code := h.runWithTimeout(250 * time.Millisecond)
				want := exitOpen
				if mode == "fail" && c.failStops {
					want = exitError
				}
				if code != want {
					t.Fatalf("got exit %d, want %d\n%s", code, want, h.log.String())
				}
				if want == exitOpen {
					if o := h.outputs(); o["state"] != "OPEN" || o["iteration"] != "4" {
						t.Errorf("got state %s iteration %s, want the decision from git: OPEN at 4", o["state"], o["iteration"])
					}
					if c.noted != "" && !strings.Contains(h.summaryText()+h.log.String(), c.noted) {
						t.Errorf("neither the summary nor the log says %q:\n%s\n%s", c.noted, h.summaryText(), h.log.String())
					}
				} else if !strings.Contains(h.log.String(), "::error::loopbreaker:") {
					t.Errorf("no error annotation for the failed call:\n%s", h.log.String())
				}
				for _, w := range c.sleeps {
					if !containsDuration(h.sleeps, w) {
						t.Errorf("got waits %v, want one of %s", h.sleeps, w)
					}
				}
				for _, d := range h.sleeps {
					if d > time.Minute {
						t.Errorf("waited %s, longer than the client's bound", d)
					}
				}
				if m, p, ok := strings.Cut(c.hit, " "); ok && h.fake.CallsTo(m, p) == 0 {
					t.Errorf("the run never called %s: the fault was not exercised", c.hit)
				}
				if n := len(h.fake.Comments("octo", "loop", 7)); n > 1 {
					t.Fatalf("got %d comments after the faulty run, want at most one", n)
				}

				h.fake.ClearFaults()
				h.env["GITHUB_RUN_ID"] = "101"
				h.now = h.now.Add(time.Hour)
				if code := h.runWithTimeout(5 * time.Second); code != exitOpen {
					t.Fatalf("clean run after the fault: got exit %d, want %d\n%s", code, exitOpen, h.log.String())
				}
				if cs := h.fake.Comments("octo", "loop", 7); len(cs) != 1 || !strings.Contains(cs[0].Body, present.Marker) {
					t.Errorf("got %d comments after a clean run, want exactly one sticky comment", len(cs))
				}
				if got := h.fake.IssueLabels("octo", "loop", 7); !contains(got, present.LabelOpen) {
					t.Errorf("got labels %v after a clean run, want %s", got, present.LabelOpen)
				}
			})
		}
	}
}

func containsDuration(list []time.Duration, d time.Duration) bool {
	for _, x := range list {
		if x == d {
			return true
		}
	}
	return false
}
