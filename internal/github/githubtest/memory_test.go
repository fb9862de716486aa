package githubtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func TestStickyCommentIsKeptOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New()
	m.SetClock(func() time.Time { return t0 })
	sticky := github.Sticky{Marker: "<!-- m -->", Author: "agent[bot]"}
	m.AddComment(1, "agent[bot]", "Bot", "<!-- m --> planted", t0)
	id, err := m.UpsertComment(ctx, 1, 0, sticky, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := m.UpsertComment(ctx, 1, 0, sticky, "v2"); err != nil || again != id {
		t.Fatalf("second upsert: got id %d (%v), want %d", again, err, id)
	}
	cs := m.IssueComments(1)
	if len(cs) != 2 || cs[0].Body != "<!-- m --> planted" || cs[1].Body != "<!-- m -->\nv2" {
		t.Errorf("got comments %+v, want the author's untouched and one sticky edited to v2", cs)
	}
	if _, err := m.UpsertComment(ctx, 1, id, sticky, strings.Repeat("x", github.MaxCommentLength)); err == nil {
		t.Errorf("an over-long body was accepted")
	}
	if got, want := m.CallLog(), []string{"Comments 1", "CreateComment 1", "Comments 1", "EditComment 3"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got calls %v, want %v", got, want)
	}
}

func TestLabelsLeaveEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New()
	m.SetClock(func() time.Time { return t0 })
	open := github.LabelSpec{Name: "loopbreaker:open", Color: "b60205", Description: "stuck"}
	if err := m.AddLabel(ctx, 4, open); err != nil {
		t.Fatal(err)
	}
	if err := m.AddLabel(ctx, 3, open); err != nil {
		t.Fatal(err)
	}
	if err := m.RemoveLabel(ctx, 3, "LOOPBREAKER:OPEN"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.CallLog(), ","); got != "AddLabels 4 loopbreaker:open,UpdateLabel loopbreaker:open,AddLabels 3 loopbreaker:open,RemoveLabel 3 LOOPBREAKER:OPEN" {
		t.Errorf("got calls %s, want add and colour once, add, remove", got)
	}
	if l := m.RepoLabels(); len(l) != 1 || l[0].Color != "b60205" {
		t.Errorf("got repository labels %+v, want the label coloured", l)
	}
	ev, err := m.LabelEvents(ctx, 3)
	if err != nil || len(ev) != 2 || ev[0].Event != "labeled" || ev[1].Event != "unlabeled" || ev[1].Actor != Login {
		t.Errorf("got events %+v (%v), want labeled then unlabeled by %s", ev, err, Login)
	}
	if l := m.IssueLabels(3); len(l) != 0 {
		t.Errorf("got labels %v, want none", l)
	}
}

func TestPagesAndFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New()
	for n := 1; n <= 250; n++ {
		m.AddPull(Pull{AuditPull: github.AuditPull{Pull: github.Pull{Number: n, UpdatedAt: t0.Add(time.Duration(-n) * time.Minute)}}})
	}
	pp, err := m.ListPulls(ctx, github.PullQuery{Sort: "updated", Direction: "asc", Page: 3})
	if err != nil || len(pp.Pulls) != 50 || pp.Pulls[0].Number != 50 || pp.Next != 0 {
		t.Errorf("page 3: got %d pulls from #%d, next %d (%v), want 50 from #50 and no next", len(pp.Pulls), pp.Pulls[0].Number, pp.Next, err)
	}
	if pp, _ := m.ListPulls(ctx, github.PullQuery{Sort: "updated", Direction: "asc"}); pp.Next != 2 || pp.Last != 3 {
		t.Errorf("page 1: got next %d last %d, want 2 and 3", pp.Next, pp.Last)
	}
	m.Fail("Permission alice", 1, &github.APIError{Status: 403, RateLimited: true})
	if _, err := m.Permission(ctx, "alice"); !errors.Is(err, github.ErrRateLimited) || !strings.HasPrefix(err.Error(), "Permission alice") {
		t.Errorf("got %v, want a rate limit naming the call", err)
	}
	if p, err := m.Permission(ctx, "alice"); err != nil || p != "none" {
		t.Errorf("after the fault: got %q, %v, want none", p, err)
	}
	m.SetReadOnly()
	if err := m.AddLabel(ctx, 1, github.LabelSpec{Name: "x"}); !errors.Is(err, github.ErrForbidden) {
		t.Errorf("read-only write: got %v, want ErrForbidden", err)
	}
}

func TestDryRunPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := New()
	m.SetDryRun(true)
	if err := m.AddLabel(ctx, 1, github.LabelSpec{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetStatus(ctx, "abc1234", "failure", "OPEN", ""); err != nil {
		t.Fatal(err)
	}
	if len(m.Planned()) != 2 || m.Calls() != 0 || len(m.IssueLabels(1)) != 0 {
		t.Errorf("got %d planned, %d calls, labels %v; want 2 planned and nothing done", len(m.Planned()), m.Calls(), m.IssueLabels(1))
	}
}
