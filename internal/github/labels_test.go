package github

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

func TestEnsureLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		existing  bool
		color     string
		want      fakegithub.Label
		wantCalls int
	}{
		{"missing is created", false, "#B60205", fakegithub.Label{Name: "loopbreaker:open", Color: "b60205", Description: "circuit open"}, 2},
		{"missing without colour is grey", false, "", fakegithub.Label{Name: "loopbreaker:open", Color: "ededed", Description: "circuit open"}, 2},
		{"existing is kept", true, "B60205", fakegithub.Label{Name: "loopbreaker:open", Color: "ededed"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			if tt.existing {
				h.srv.AddPull(owner, repo, fakegithub.Pull{Number: 2, Labels: []string{"loopbreaker:open"}})
			}
			if err := h.c.EnsureLabel(context.Background(), "loopbreaker:open", tt.color, "circuit open"); err != nil {
				t.Fatalf("EnsureLabel: %v", err)
			}
			if diff := cmp.Diff([]fakegithub.Label{tt.want}, h.srv.RepoLabels(owner, repo)); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if got := h.c.Calls(); got != tt.wantCalls {
				t.Errorf("got %d calls, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestEnsureLabelRejectsBadInput(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for _, tc := range []struct{ name, color string }{{"", "ffffff"}, {"x", "red"}, {"x", "12345"}} {
		if err := h.c.EnsureLabel(context.Background(), tc.name, tc.color, ""); err == nil {
			t.Errorf("EnsureLabel(%q, %q): got no error, want one", tc.name, tc.color)
		}
	}
	if got := h.c.Calls(); got != 0 {
		t.Errorf("got %d calls, want 0", got)
	}
}

// TestEnsureLabelRace: the label appears between the GET and the POST; the
// 422 already_exists answer is success.
func TestEnsureLabelRace(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	srv.AddPull(owner, repo, fakegithub.Pull{Number: 2, Labels: []string{"loopbreaker:open"}})
	hide := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/labels/") {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"Not Found"}`))
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hide.Close)
	c, _ := newClient(t, hide.URL)
	if err := c.EnsureLabel(context.Background(), "loopbreaker:open", "B60205", ""); err != nil {
		t.Errorf("EnsureLabel: got %v, want nil", err)
	}
	if got := srv.CallsTo("POST", "/repos/acme/widget/labels"); got != 1 {
		t.Errorf("got %d POSTs, want 1", got)
	}
}

func TestAddAndRemoveLabels(t *testing.T) {
	t.Parallel()
	h := setup(t)
	ctx := context.Background()
	if err := h.c.AddLabels(ctx, 1); err != nil {
		t.Fatalf("AddLabels with none: %v", err)
	}
	if got := h.c.Calls(); got != 0 {
		t.Errorf("AddLabels with none: got %d calls, want 0", got)
	}
	if err := h.c.AddLabels(ctx, 1, "loopbreaker:half-open", "loopbreaker:open"); err != nil {
		t.Fatalf("AddLabels: %v", err)
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
	if got, want := h.c.Calls(), 3; got != want {
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
