package present

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/policy"
)

// foldSteps folds iterations ten minutes apart under the default policy.
func foldSteps(t *testing.T, its []breaker.Iteration) *loop.Result {
	t.Helper()
	for i := range its {
		its[i].At = t0.Add(time.Duration(i) * 10 * time.Minute)
		its[i].Commit = fmt.Sprintf("%040x", i+1)
	}
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	f, err := loop.Fold(loop.FoldInput{Policy: p, Iterations: its})
	if err != nil {
		t.Fatal(err)
	}
	return &loop.Result{Decisions: f.Decisions, Policy: p, Visible: len(its)}
}

// TestTrendWarningEverywhere: a trend warning (passing tests falling three
// times in a row) is in the job summary, the sticky comment, the check
// run and the annotations, and the charts mark it.
func TestTrendWarningEverywhere(t *testing.T) {
	t.Parallel()
	var its []breaker.Iteration
	for i, passing := range []int{40, 38, 36, 34} {
		its = append(its, breaker.Iteration{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 5, Tree: fmt.Sprint(i)},
			Tests: &breaker.Tests{Passed: passing}, ErrorsKnown: true})
	}
	res := foldSteps(t, its)
	d := res.Final()
	warning := "trend: passing tests fell in 3 iterations in a row (40 → 38 → 36 → 34)"
	_, _, checkRun := CheckRun(d, false)
	for name, text := range map[string]string{
		"summary":   Summary(res.Decisions, SummaryOptions{}),
		"comment":   StickyComment(d, nil, CommentOptions{}),
		"check run": checkRun,
	} {
		if !strings.Contains(text, "trend: passing tests fell in 3 iterations in a row") || !strings.Contains(text, "●▂!`") || !strings.Contains(text, "! marks a trend warning") {
			t.Errorf("%s: the warning or the chart's mark is missing:\n%s", name, text)
		}
	}
	found := false
	for _, a := range Annotations(res.Decisions, false) {
		found = found || (a.Level == Warning && a.Message == warning)
	}
	if !found {
		t.Errorf("no warning annotation for the trend: %+v", Annotations(res.Decisions, false))
	}
}

// TestCompleteStatus: a complete decision's commit status succeeds and
// says done with the evidence.
func TestCompleteStatus(t *testing.T) {
	t.Parallel()
	res := foldSteps(t, []breaker.Iteration{
		{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 5, Tree: "a"}, Tasks: &breaker.Tasks{Done: 1, Total: 2}},
		{Change: &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 5, Tree: "b"}, Tasks: &breaker.Tasks{Done: 2, Total: 2},
			TaskChange: &breaker.TaskChange{Checked: []string{"plan#2"}}, ProgressPercent: ptr(100.0)},
	})
	state, desc := Status(res.Final(), false)
	if state != "success" || desc != "done after iteration 2: all 2 tasks checked · no test report · 100 % reported" {
		t.Errorf("got %s %q", state, desc)
	}
}

func ptr[T any](v T) *T { return &v }
