package fakegithub

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestIssueLabelsWithEvents(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 5, Labels: []string{"bug"}})
	s.AddLabelEvent("o", "r", 5, "labeled", "bug", "alice", "User", t0.Add(-time.Hour))
	gh := ghClient(t, s, DefaultToken)

	labels, _, err := gh.Issues.AddLabelsToIssue(ctx, "o", "r", 5, []string{"loopbreaker:open", "bug"})
	if err != nil {
		t.Fatalf("add labels: %v", err)
	}
	var names []string
	for _, l := range labels {
		names = append(names, l.GetName())
	}
	if diff := cmp.Diff([]string{"bug", "loopbreaker:open"}, names); diff != "" {
		t.Errorf("labels after add (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Label{{Name: "bug", Color: DefaultLabelColor}, {Name: "loopbreaker:open", Color: DefaultLabelColor}}, s.RepoLabels("o", "r")); diff != "" {
		t.Errorf("repo labels (-want +got):\n%s", diff)
	}

	if _, err := gh.Issues.RemoveLabelForIssue(ctx, "o", "r", 5, "loopbreaker:open"); err != nil {
		t.Fatalf("remove label: %v", err)
	}
	_, err = gh.Issues.RemoveLabelForIssue(ctx, "o", "r", 5, "loopbreaker:open")
	if errStatus(err) != http.StatusNotFound {
		t.Errorf("remove absent label: got %v, want 404", err)
	}
	if diff := cmp.Diff([]string{"bug"}, s.IssueLabels("o", "r", 5)); diff != "" {
		t.Errorf("issue labels (-want +got):\n%s", diff)
	}

	events, _, err := gh.Issues.ListIssueEvents(ctx, "o", "r", 5, nil)
	if err != nil {
		t.Fatalf("list events: %v", err)
	}
	type ev struct {
		Event, Label, Actor, Type string
		At                        time.Time
	}
	var got []ev
	for _, e := range events {
		got = append(got, ev{e.GetEvent(), e.GetLabel().GetName(), e.GetActor().GetLogin(), e.GetActor().GetType(), e.GetCreatedAt().Time})
	}
	want := []ev{
		{"labeled", "bug", "alice", "User", t0.Add(-time.Hour)},
		{"labeled", "loopbreaker:open", DefaultLogin, "Bot", t0},
		{"unlabeled", "loopbreaker:open", DefaultLogin, "Bot", t0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestAddLabelsBodyForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		code int
		want []string
	}{
		{"array", `["a","b"]`, http.StatusOK, []string{"a", "b"}},
		{"object", `{"labels":["a"]}`, http.StatusOK, []string{"a"}},
		{"named objects", `{"labels":[{"name":"c"}]}`, http.StatusOK, []string{"c"}},
		{"case-insensitive duplicate", `["A","a"]`, http.StatusOK, []string{"A"}},
		{"blank name", `[""]`, http.StatusUnprocessableEntity, nil},
		{"name too long", `["` + strings.Repeat("n", 51) + `"]`, http.StatusUnprocessableEntity, nil},
		{"not json", `[`, http.StatusBadRequest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			s.AddPull("o", "r", Pull{Number: 1})
			resp, body := do(t, s, "POST", "/repos/o/r/issues/1/labels", DefaultToken, []byte(tt.body))
			wantStatus(t, resp, body, tt.code)
			if diff := cmp.Diff(tt.want, s.IssueLabels("o", "r", 1)); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRepoLabels(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRepo("o", "r")
	gh := ghClient(t, s, DefaultToken)
	_, _, err := gh.Issues.GetLabel(ctx, "o", "r", "loopbreaker:open")
	if errStatus(err) != http.StatusNotFound {
		t.Fatalf("get missing label: got %v, want 404", err)
	}
	l, resp, err := gh.Issues.CreateLabel(ctx, "o", "r", &github.Label{Name: github.String("loopbreaker:open"),
		Color: github.String("B60205"), Description: github.String("breaker is open")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create label: got %v, want 201", err)
	}
	if l.GetColor() != "b60205" || l.GetDescription() != "breaker is open" {
		t.Errorf("created label: got %q %q, want b60205 and the description", l.GetColor(), l.GetDescription())
	}
	_, _, err = gh.Issues.CreateLabel(ctx, "o", "r", &github.Label{Name: github.String("LoopBreaker:Open"), Color: github.String("ffffff")})
	var e *github.ErrorResponse
	if errStatus(err) != http.StatusUnprocessableEntity {
		t.Fatalf("create duplicate: got %v, want 422", err)
	}
	if e = err.(*github.ErrorResponse); len(e.Errors) != 1 || e.Errors[0].Code != "already_exists" {
		t.Errorf("create duplicate: got errors %+v, want already_exists", e.Errors)
	}
	got, _, err := gh.Issues.GetLabel(ctx, "o", "r", "loopbreaker:open")
	if err != nil || got.GetName() != "loopbreaker:open" {
		t.Errorf("get label: got %v, %v", got, err)
	}
	if _, _, err := gh.Issues.CreateLabel(ctx, "o", "r", &github.Label{Name: github.String("x"), Color: github.String("zzz")}); errStatus(err) != http.StatusUnprocessableEntity {
		t.Errorf("create with bad colour: got %v, want 422", err)
	}
	if diff := cmp.Diff([]Label{{Name: "loopbreaker:open", Color: "b60205", Description: "breaker is open"}}, s.RepoLabels("o", "r")); diff != "" {
		t.Errorf("repo labels (-want +got):\n%s", diff)
	}
}

func TestLabelMissingIssue(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRepo("o", "r")
	gh := ghClient(t, s, DefaultToken)
	if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "o", "r", 99, []string{"x"}); errStatus(err) != http.StatusNotFound {
		t.Errorf("label a missing issue: got %v, want 404", err)
	}
}
