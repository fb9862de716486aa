package github

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// TestAddLabelCreatesOnce: adding a label the repository lacks creates it
// in GitHub's grey; AddLabel colours it with one more call, once: the next
// add is one call. A label a person made is never recoloured.
func TestAddLabelCreatesOnce(t *testing.T) {
	t.Parallel()
	open := LabelSpec{Name: "loopbreaker:open", Color: "b60205", Description: "circuit open"}
	tests := []struct {
		name      string
		seed      string
		spec      LabelSpec
		want      fakegithub.Label
		wantCalls int
	}{
		{"missing is created and coloured", "", open, fakegithub.Label{Name: "loopbreaker:open", Color: "b60205", Description: "circuit open"}, 2},
		{"missing without colour stays grey", "", LabelSpec{Name: "loopbreaker:open"}, fakegithub.Label{Name: "loopbreaker:open", Color: "ededed"}, 1},
		{"existing is kept", `{"name":"loopbreaker:open","color":"00ff00","description":"ours"}`, open, fakegithub.Label{Name: "loopbreaker:open", Color: "00ff00", Description: "ours"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 2})
			if tt.seed != "" {
				if err := h.srv.LoadSeed(strings.NewReader(`{"repos":[{"owner":"` + owner + `","name":"` + repo + `","labels":[` + tt.seed + `]}]}`)); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.c.AddLabel(context.Background(), 1, tt.spec); err != nil {
				t.Fatalf("AddLabel: %v", err)
			}
			if diff := cmp.Diff([]fakegithub.Label{tt.want}, h.srv.RepoLabels(owner, repo)); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if got := h.c.Calls(); got != tt.wantCalls {
				t.Errorf("got %d calls, want %d", got, tt.wantCalls)
			}
			if err := h.c.AddLabel(context.Background(), 2, tt.spec); err != nil || h.c.Calls() != tt.wantCalls+1 {
				t.Errorf("second add: got %v and %d calls, want one more call", err, h.c.Calls()-tt.wantCalls)
			}
		})
	}
}

// TestAddLabelNeedsIssuesWriteToCreate: with pull-requests: write alone a
// missing label cannot be created (403); an existing one is added.
func TestAddLabelNeedsIssuesWriteToCreate(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetPermissions(fakegithub.DefaultToken, map[string]string{"pull-requests": "write"})
	err := h.c.AddLabel(context.Background(), 1, LabelSpec{Name: "loopbreaker:open", Color: "b60205"})
	if !errors.Is(err, ErrForbidden) {
		t.Fatalf("got %v, want ErrForbidden", err)
	}
	h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 3, Labels: []string{"loopbreaker:open"}})
	if err := h.c.AddLabel(context.Background(), 1, LabelSpec{Name: "loopbreaker:open", Color: "b60205"}); err != nil {
		t.Errorf("adding an existing label with pull-requests: write: %v", err)
	}
}

func TestAddAndRemoveLabels(t *testing.T) {
	t.Parallel()
	h := setup(t)
	ctx := context.Background()
	for _, l := range []string{"loopbreaker:half-open", "loopbreaker:open"} {
		if err := h.c.AddLabel(ctx, 1, LabelSpec{Name: l}); err != nil {
			t.Fatalf("AddLabel: %v", err)
		}
	}
	if diff := cmp.Diff([]string{"loopbreaker:half-open", "loopbreaker:open"}, h.srv.IssueLabels(owner, repo, 1)); diff != "" {
		t.Errorf("labels after add (-want +got):\n%s", diff)
	}
	if err := h.c.RemoveLabel(ctx, 1, "loopbreaker:half-open"); err != nil {
		t.Fatalf("RemoveLabel: %v", err)
	}
	if err := h.c.RemoveLabel(ctx, 1, "loopbreaker:half-open"); err != nil {
		t.Errorf("RemoveLabel of an absent label: got %v, want nil", err)
	}
	if diff := cmp.Diff([]string{"loopbreaker:open"}, h.srv.IssueLabels(owner, repo, 1)); diff != "" {
		t.Errorf("labels after remove (-want +got):\n%s", diff)
	}
	if got, want := h.c.Calls(), 4; got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
}

func TestRemoveLabelOtherErrorsStay(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetReadOnly(fakegithub.DefaultToken)
	err := h.c.RemoveLabel(context.Background(), 1, "loopbreaker:open")
	if !errors.Is(err, ErrForbidden) {
		t.Errorf("got %v, want ErrForbidden", err)
	}
}

func TestLabelEventsPaginate(t *testing.T) {
	t.Parallel()
	h := setup(t)
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var want []LabelEvent
	for i := range 150 {
		ev := "labeled"
		if i%2 == 1 {
			ev = "unlabeled"
		}
		who, typ := "alice", "User"
		if i%3 == 0 {
			who, typ = "github-actions[bot]", "Bot"
		}
		when := at.Add(time.Duration(i) * time.Minute)
		h.srv.AddLabelEvent(owner, repo, 1, ev, "loopbreaker:open", who, typ, when)
		want = append(want, LabelEvent{Number: 1, Event: ev, Label: "loopbreaker:open", Actor: who, ActorType: typ, At: when})
	}
	got, err := h.c.LabelEvents(context.Background(), 1)
	if err != nil {
		t.Fatalf("LabelEvents: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got, want := h.c.Calls(), 2; got != want {
		t.Errorf("got %d calls, want %d", got, want)
	}
}

// TestRepoLabelEvents: the repository's label events of every issue,
// newest first, a page per call, each with its number; other events are
// left out.
func TestRepoLabelEvents(t *testing.T) {
	t.Parallel()
	h := setup(t)
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 130 {
		h.srv.AddLabelEvent(owner, repo, 1+i%3, "unlabeled", "loopbreaker:open", "alice", "User", at.Add(time.Duration(i)*time.Minute))
	}
	h.srv.AddLabelEvent(owner, repo, 2, "closed", "", "alice", "User", at.Add(200*time.Minute))
	var got []LabelEvent
	page, calls := 1, 0
	for page != 0 {
		events, next, err := h.c.RepoLabelEvents(context.Background(), page)
		if err != nil {
			t.Fatalf("RepoLabelEvents page %d: %v", page, err)
		}
		calls++
		got = append(got, events...)
		page = next
	}
	if calls != 2 || len(got) != 130 {
		t.Fatalf("got %d events in %d calls, want 130 in 2", len(got), calls)
	}
	for i, e := range got {
		want := 1 + (129-i)%3
		if e.Number != want || !e.At.Equal(at.Add(time.Duration(129-i)*time.Minute)) {
			t.Fatalf("event %d: #%d at %s, want #%d, newest first", i, e.Number, e.At, want)
		}
	}
}
