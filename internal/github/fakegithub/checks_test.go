package fakegithub

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v60/github"
)

func TestStatuses(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddPull("o", "r", Pull{Number: 1, HeadSHA: "abc", HeadRef: "loop"})
	gh := ghClient(t, s, DefaultToken)
	for _, state := range []string{"pending", "failure"} {
		st, resp, err := gh.Repositories.CreateStatus(ctx, "o", "r", "abc", &github.RepoStatus{State: github.String(state),
			Context: github.String("loopbreaker"), Description: github.String("breaker " + state), TargetURL: github.String("https://example.test/run")})
		if err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("create status %s: %v", state, err)
		}
		if st.GetCreator().GetLogin() != DefaultLogin || st.GetState() != state {
			t.Errorf("created status: got %s by %s, want %s by %s", st.GetState(), st.GetCreator().GetLogin(), state, DefaultLogin)
		}
	}
	want := []Status{
		{State: "pending", Context: "loopbreaker", Description: "breaker pending", TargetURL: "https://example.test/run", Creator: DefaultLogin},
		{State: "failure", Context: "loopbreaker", Description: "breaker failure", TargetURL: "https://example.test/run", Creator: DefaultLogin},
	}
	if diff := cmp.Diff(want, s.Statuses("o", "r", "abc")); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	bad := []github.RepoStatus{
		{State: github.String("done")},
		{State: github.String("success"), Description: github.String(strings.Repeat("d", 141))},
	}
	for _, b := range bad {
		if _, _, err := gh.Repositories.CreateStatus(ctx, "o", "r", "abc", &b); errStatus(err) != http.StatusUnprocessableEntity {
			t.Errorf("bad status %v: got %v, want 422", b, err)
		}
	}
}

func TestCheckRuns(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	s.AddRepo("o", "r")
	gh := ghClient(t, s, DefaultToken)
	cr, resp, err := gh.Checks.CreateCheckRun(ctx, "o", "r", github.CreateCheckRunOptions{
		Name: "loopbreaker", HeadSHA: "abc", Status: github.String("completed"), Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("OPEN"), Summary: github.String("same error 5 times")},
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create check run: %v", err)
	}
	if cr.GetCompletedAt().IsZero() || cr.GetConclusion() != "failure" {
		t.Errorf("created check run: got %+v, want completed with failure", cr)
	}
	want := []CheckRun{{ID: cr.GetID(), Name: "loopbreaker", HeadSHA: "abc", Status: "completed", Conclusion: "failure", Title: "OPEN", Summary: "same error 5 times"}}
	if diff := cmp.Diff(want, s.CheckRuns("o", "r", "abc")); diff != "" {
		t.Errorf("check runs (-want +got):\n%s", diff)
	}
	bad := []github.CreateCheckRunOptions{
		{HeadSHA: "abc"},
		{Name: "x"},
		{Name: "x", HeadSHA: "abc", Status: github.String("completed")},
		{Name: "x", HeadSHA: "abc", Conclusion: github.String("great")},
		{Name: "x", HeadSHA: "abc", Output: &github.CheckRunOutput{Title: github.String("t"), Summary: github.String(strings.Repeat("s", 65536))}},
	}
	for _, b := range bad {
		if _, _, err := gh.Checks.CreateCheckRun(ctx, "o", "r", b); errStatus(err) != http.StatusUnprocessableEntity {
			t.Errorf("bad check run %+v: got %v, want 422", b, err)
		}
	}
}
