package fakegithub

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestStickyCommentFlow(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 3})
	s.AddComment("o", "r", 3, "alice", "User", "looks good", t0.Add(-2*time.Hour))
	sticky := s.AddComment("o", "r", 3, DefaultLogin, "Bot", "<!-- loopbreaker -->\nstate: CLOSED", t0.Add(-time.Hour))
	gh := ghClient(t, s, DefaultToken)

	comments, _, err := gh.Issues.ListComments(ctx, "o", "r", 3, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		t.Fatalf("list comments: %v", err)
	}
	var found *github.IssueComment
	for _, c := range comments {
		if c.GetUser().GetType() == "Bot" && strings.HasPrefix(c.GetBody(), "<!-- loopbreaker -->") {
			found = c
		}
	}
	if found == nil || found.GetID() != sticky {
		t.Fatalf("sticky comment: got %v, want id %d", found, sticky)
	}
	s.SetClock(func() time.Time { return t0.Add(time.Minute) })
	edited, _, err := gh.Issues.EditComment(ctx, "o", "r", found.GetID(), &github.IssueComment{Body: github.String("<!-- loopbreaker -->\nstate: OPEN")})
	if err != nil {
		t.Fatalf("edit comment: %v", err)
	}
	if !edited.GetUpdatedAt().Time.Equal(t0.Add(time.Minute)) || !edited.GetCreatedAt().Time.Equal(t0.Add(-time.Hour)) {
		t.Errorf("edited times: got created %v updated %v", edited.GetCreatedAt(), edited.GetUpdatedAt())
	}
	want := []Comment{
		{ID: comments[0].GetID(), Login: "alice", UserType: "User", Body: "looks good", CreatedAt: t0.Add(-2 * time.Hour), UpdatedAt: t0.Add(-2 * time.Hour)},
		{ID: sticky, Login: DefaultLogin, UserType: "Bot", Body: "<!-- loopbreaker -->\nstate: OPEN", CreatedAt: t0.Add(-time.Hour), UpdatedAt: t0.Add(time.Minute)},
	}
	if diff := cmp.Diff(want, s.Comments("o", "r", 3)); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}

	since := t0
	recent, _, err := gh.Issues.ListComments(ctx, "o", "r", 3, &github.IssueListCommentsOptions{Since: &since})
	if err != nil || len(recent) != 1 || recent[0].GetID() != sticky {
		t.Errorf("since filter: got %d comments, %v, want only the edited one", len(recent), err)
	}

	created, resp, err := gh.Issues.CreateComment(ctx, "o", "r", 3, &github.IssueComment{Body: github.String("/loopbreaker reset")})
	if err != nil || resp.StatusCode != http.StatusCreated || created.GetUser().GetLogin() != DefaultLogin {
		t.Fatalf("create comment: got %v, %v", created, err)
	}
	if cs := s.Comments("o", "r", 3); len(cs) != 3 || cs[2].ID != created.GetID() || cs[2].Body != "/loopbreaker reset" {
		t.Errorf("after create: got %+v, want the new comment last", cs)
	}
	if _, _, err := gh.Issues.EditComment(ctx, "o", "r", 424242, &github.IssueComment{Body: github.String("x")}); errStatus(err) != http.StatusNotFound {
		t.Errorf("edit a missing comment: got %v, want 404", err)
	}
}

func TestCommentBodyLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body any
		code int
		msg  string
	}{
		{"exactly the maximum", map[string]string{"body": strings.Repeat("é", MaxCommentLength)}, http.StatusCreated, ""},
		{"one too many", map[string]string{"body": strings.Repeat("x", MaxCommentLength+1)}, http.StatusUnprocessableEntity, "body is too long (maximum is 65536 characters)"},
		{"blank", map[string]string{"body": "  "}, http.StatusUnprocessableEntity, ""},
		{"missing", map[string]string{}, http.StatusUnprocessableEntity, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			id := s.AddComment("o", "r", 1, DefaultLogin, "Bot", "old", t0)
			for _, path := range []string{"/repos/o/r/issues/1/comments", "/repos/o/r/issues/comments/" + itoa(id)} {
				method := "POST"
				if strings.Contains(path, "/issues/comments/") {
					method = "PATCH"
				}
				code := tt.code
				if method == "PATCH" && code == http.StatusCreated {
					code = http.StatusOK
				}
				resp, body := do(t, s, method, path, DefaultToken, tt.body)
				wantStatus(t, resp, body, code)
				if tt.msg != "" {
					e := decodeJSON[github.ErrorResponse](t, body)
					if e.Message != "Validation Failed" || len(e.Errors) != 1 || e.Errors[0].Message != tt.msg {
						t.Errorf("%s %s: got %+v, want message %q", method, path, e, tt.msg)
					}
				}
			}
		})
	}
}
