package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

// foldCase is one loop that check and the audit both decide: commits on a
// loop branch after the base on main, a policy, and the run's time.
type foldCase struct {
	name string
	// policyTOML, when set, is the policy (else the default policy).
	policyTOML string
	// build commits the loop after the base and returns the run's time.
	build func(r *scnRepo) time.Time
	// state and trigger are the final decision's.
	state, trigger string
}

// commitAt commits a step at an explicit time, whatever its parent's.
func commitAt(r *scnRepo, s *scnStep, label string, at time.Time) {
	r.tb.Helper()
	r.clock = at.Add(-scnGap)
	r.apply(s, label)
}

func foldCases() []foldCase {
	return []foldCase{
		{
			name: "in-order",
			build: func(r *scnRepo) time.Time {
				r.buildLoop([]*scnStep{code(1), empty("wip"), empty("wip")})
				return r.now
			},
			state: "HALF_OPEN", trigger: "no_progress",
		},
		{
			// c3 is dated before c1: it is taken at c2's time, and the
			// stuck loop opens as it would with honest dates.
			name: "back-dated",
			build: func(r *scnRepo) time.Time {
				r.buildLoop([]*scnStep{code(1), empty("wip")})
				commitAt(r, empty("wip"), "c3", scnStart.Add(-time.Hour))
				commitAt(r, empty("wip"), "c4", scnStart.Add(40*time.Minute))
				commitAt(r, empty("wip"), "c5", scnStart.Add(50*time.Minute))
				return r.clock.Add(scnGap)
			},
			state: "OPEN", trigger: "no_progress",
		},
		{
			// The loop opens at c4 with a 30-minute cooldown; c5 is dated
			// two hours after the run. Taken at its own date it would be a
			// probe after the cooldown, and its change would close the
			// circuit; taken at the run's time (ten minutes after c4) it ran
			// while OPEN.
			name:       "future-dated",
			policyTOML: "extends = \"default\"\nname = \"cooling\"\n\n[breaker]\ncooldown = \"30m\"\n",
			build: func(r *scnRepo) time.Time {
				r.buildLoop([]*scnStep{code(1), empty("wip"), empty("wip"), empty("wip")})
				now := r.clock.Add(scnGap)
				commitAt(r, code(2), "c5", now.Add(2*time.Hour))
				return now
			},
			state: "OPEN", trigger: "no_progress",
		},
	}
}

// buildFoldCase builds the case's repository and writes its policy; it
// returns the repository, the --policy argument and the run's time.
func buildFoldCase(t *testing.T, fc foldCase) (*scnRepo, string, time.Time) {
	t.Helper()
	r := newScnRepo(t, "loop")
	r.buildBase(nil)
	now := fc.build(r)
	pol := "default"
	if fc.policyTOML != "" {
		pol = filepath.Join(t.TempDir(), "policy.toml")
		if err := os.WriteFile(pol, []byte(fc.policyTOML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r, pol, now
}

// loopPull is the fake GitHub's pull request for a loop built by scnRepo:
// an agent's, from the loop branch onto the base.
func loopPull(r *scnRepo) fakegithub.Pull {
	head := r.head.String()
	return fakegithub.Pull{Number: 1, Title: "agent task", User: "Copilot", UserType: "Bot", HeadSHA: head, HeadRef: "copilot/task",
		BaseRef: "main", BaseSHA: r.byLabel["base"].String(), CreatedAt: scnStart, UpdatedAt: scnStart, Commits: []string{head}, Files: []string{"main.go"}}
}

// TestCheckAndAuditDecideAlike runs check and the audit (reading the same
// repository as its clone) on each loop: both go through one fold, so the
// final decisions must be identical, dates the agent chose included.
func TestCheckAndAuditDecideAlike(t *testing.T) {
	t.Parallel()
	for _, fc := range foldCases() {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			r, pol, now := buildFoldCase(t, fc)

			res := scnMain(nil, now, []string{"check", "--repo", r.dir, "--base", "main", "--policy", pol, "--format", "json", "--dry-run"})
			if res.code != 0 {
				t.Fatalf("check: got exit %d\n%s", res.code, res.stderr)
			}
			var checked breaker.Decision
			if err := json.Unmarshal([]byte(res.stdout), &checked); err != nil {
				t.Fatalf("check output is not a JSON decision: %v\n%s", err, res.stdout)
			}
			if checked.State.String() != fc.state || checked.Trigger == nil || *checked.Trigger != fc.trigger {
				t.Errorf("check: got %s %v, want %s %s", checked.State, checked.Trigger, fc.state, fc.trigger)
			}

			fake := fakegithub.New()
			t.Cleanup(fake.Close)
			fake.AddPull("octo", "loop", loopPull(r))
			client, err := github.New(github.Options{Token: fakegithub.DefaultToken, BaseURL: fake.URL, Owner: "octo", Repo: "loop", DryRun: true,
				Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			clone, err := audit.OpenClone(r.dir, "", "")
			if err != nil {
				t.Fatal(err)
			}
			defer clone.Close()
			p, err := policy.Load(pol)
			if err != nil {
				t.Fatal(err)
			}
			out, err := audit.Run(context.Background(), client, audit.Options{Owner: "octo", Repo: "loop", Policy: p, Budget: 100, Now: now,
				Artifact: "", DryRun: true, Clone: clone,
				Filters: audit.Filters{Authors: []string{"*"}}})
			if err != nil {
				t.Fatalf("audit: %v", err)
			}
			if len(out.Pulls) != 1 || out.Pulls[0].Decision == nil {
				t.Fatalf("audit: got pulls %+v, skipped %+v; want #1 decided", out.Pulls, out.Skipped)
			}
			if pr := out.Pulls[0]; pr.Evidence != "git" {
				t.Errorf("audit: got evidence %q, want git (the repository is the clone)", pr.Evidence)
			}
			if diff := cmp.Diff(checked, *out.Pulls[0].Decision); diff != "" {
				t.Errorf("check and audit decide differently (-check +audit):\n%s", diff)
			}
		})
	}
}

// TestBackdatedCommitIsDecided: a stuck pull request with one commit dated
// before its parent is decided OPEN, with a note, by `loopbreaker audit`
// against GitHub and by `loopbreaker check` — never left undecided.
func TestBackdatedCommitIsDecided(t *testing.T) {
	t.Parallel()
	var fc foldCase
	for _, c := range foldCases() {
		if c.name == "back-dated" {
			fc = c
		}
	}
	r, _, _ := buildFoldCase(t, fc)

	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.AddPull("octo", "loop", loopPull(r))
	vars := map[string]string{"AUDIT_TOKEN": fakegithub.DefaultToken}
	code, out, errOut := runAuditCmd(fake, vars, "--token-env", "AUDIT_TOKEN", "--repo", r.dir, "--format", "json")
	if code != 0 {
		t.Fatalf("audit: got exit %d, want 0\n%s", code, errOut)
	}
	var res struct {
		Pulls []struct {
			Number  int      `json:"number"`
			State   string   `json:"state"`
			Trigger string   `json:"trigger"`
			Notes   []string `json:"notes"`
		} `json:"pulls"`
		Skipped []struct {
			Number int    `json:"number"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("audit output is not JSON: %v\n%s", err, out)
	}
	if len(res.Pulls) != 1 || res.Pulls[0].State != "OPEN" || res.Pulls[0].Trigger != "no_progress" {
		t.Fatalf("audit: got pulls %+v, skipped %+v; want #1 OPEN by no_progress", res.Pulls, res.Skipped)
	}
	if notes := strings.Join(res.Pulls[0].Notes, "\n"); !strings.Contains(notes, "before the iteration it follows") {
		t.Errorf("audit: got notes %q, want one on the back-dated commit", notes)
	}
	if l := fake.IssueLabels("octo", "loop", 1); len(l) != 1 || l[0] != present.LabelOpen {
		t.Errorf("audit: got labels %v, want %s", l, present.LabelOpen)
	}

	now := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	check := scnMain(nil, now, []string{"check", "--repo", r.dir, "--base", "main", "--format", "json"})
	var d struct {
		State   string `json:"state"`
		Trigger string `json:"trigger"`
	}
	if err := json.Unmarshal([]byte(check.stdout), &d); err != nil {
		t.Fatalf("check output is not a JSON decision: %v\n%s%s", err, check.stdout, check.stderr)
	}
	if check.code != 1 || d.State != "OPEN" || d.Trigger != "no_progress" {
		t.Errorf("check: got exit %d %s %s, want 1 OPEN no_progress", check.code, d.State, d.Trigger)
	}
	if text := scnMain(nil, now, []string{"check", "--repo", r.dir, "--base", "main"}); !strings.Contains(text.stdout, "before the iteration it follows") {
		t.Errorf("check: the report does not note the back-dated commit:\n%s", text.stdout)
	}
}
