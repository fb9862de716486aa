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
	for _, ref := range []string{"abc", "loop"} {
		list, _, err := gh.Repositories.ListStatuses(ctx, "o", "r", ref, nil)
		if err != nil || len(list) != 2 || list[0].GetState() != "failure" {
			t.Errorf("list statuses of %s: got %d, %v, want 2 newest first", ref, len(list), err)
		}
	}
	combined, _, err := gh.Repositories.GetCombinedStatus(ctx, "o", "r", "abc", nil)
	if err != nil || combined.GetState() != "failure" || combined.GetTotalCount() != 1 {
		t.Errorf("combined status: got %v, %v, want failure with 1 context", combined, err)
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
		Name: "loopbreaker", HeadSHA: "abc", Status: github.String("in_progress"),
		Output: &github.CheckRunOutput{Title: github.String("evaluating"), Summary: github.String("…")},
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create check run: %v", err)
	}
	_, _, err = gh.Checks.UpdateCheckRun(ctx, "o", "r", cr.GetID(), github.UpdateCheckRunOptions{
		Name: "loopbreaker", Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("OPEN"), Summary: github.String("same error 5 times")},
	})
	if err != nil {
		t.Fatalf("update check run: %v", err)
	}
	want := []CheckRun{{ID: cr.GetID(), Name: "loopbreaker", HeadSHA: "abc", Status: "completed", Conclusion: "failure", Title: "OPEN", Summary: "same error 5 times"}}
	if diff := cmp.Diff(want, s.CheckRuns("o", "r", "abc")); diff != "" {
		t.Errorf("check runs (-want +got):\n%s", diff)
	}
	list, _, err := gh.Checks.ListCheckRunsForRef(ctx, "o", "r", "abc", &github.ListCheckRunsOptions{CheckName: github.String("loopbreaker")})
	if err != nil || list.GetTotal() != 1 || list.CheckRuns[0].GetConclusion() != "failure" || list.CheckRuns[0].GetCompletedAt().IsZero() {
		t.Errorf("list check runs: got %+v, %v", list, err)
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
	if _, _, err := gh.Checks.UpdateCheckRun(ctx, "o", "r", 999999, github.UpdateCheckRunOptions{Name: "x"}); errStatus(err) != http.StatusNotFound {
		t.Errorf("update missing check run: got %v, want 404", err)
	}
}
