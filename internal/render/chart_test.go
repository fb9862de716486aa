package render

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

// scored makes closed steps with the given scores.
func scored(scores ...int) []breaker.Step {
	out := make([]breaker.Step, len(scores))
	for i, s := range scores {
		out[i] = breaker.Step{Iteration: i + 1, Score: s}
	}
	return out
}

func TestSparklineHasAFixedScale(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  string
		want string
	}{
		// A healthy loop is high and a stuck one low, whatever else the
		// chart holds: the scale does not stretch to the values.
		{"healthy", Sparkline(scored(7, 7, 7), breaker.Closed), "███"},
		{"stuck", Sparkline(scored(-3, -3), breaker.Closed), "▂▂"},
		{"zero is the middle line", Sparkline(scored(0, 0), breaker.Closed), "──"},
		{"every level", Sparkline(scored(-9, -4, -3, -2, -1, 0, 1, 2, 3, 4, 6, 7, 40), breaker.Closed), "▁▁▂▂▃─▅▆▆▇▇██"},
		{"no step", Sparkline(nil, breaker.Open), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	// Negative and positive scores never share a character.
	neg, pos := Sparkline(scored(-100, -5, -4, -3, -2, -1), breaker.Closed), Sparkline(scored(1, 2, 3, 5, 8, 100), breaker.Closed)
	if strings.ContainsAny(neg, pos+"─") {
		t.Errorf("negative %q and positive %q (or zero) share a character", neg, pos)
	}
}

func TestSparklineMarksStatesAndIgnoredIterations(t *testing.T) {
	t.Parallel()
	steps := scored(2, -3, -3, -3, 0, 0, 4)
	for i, st := range []breaker.State{breaker.Closed, breaker.Closed, breaker.HalfOpen, breaker.Open, breaker.Open, breaker.Open, breaker.Closed} {
		steps[i].State = st
	}
	steps[4].IgnoredOpen, steps[5].IgnoredOpen = true, true
	if got, want := Sparkline(steps, breaker.Closed), "▆▂◐▂●▂××○▇"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A window that starts while OPEN says so, and a reset after the last
	// iteration closes the chart.
	if got, want := Sparkline(steps[4:6], breaker.Closed), "●××○"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := ScoreList(steps[3:6], ", "), "-3, ×, ×"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestStepsOfAFold(t *testing.T) {
	t.Parallel()
	ds := []breaker.Decision{
		{Iteration: 1, ProgressScore: 3, State: breaker.Closed},
		{Iteration: 2, State: breaker.Open, Recent: []breaker.Step{{Iteration: 1}, {Iteration: 2, State: breaker.Open, IgnoredOpen: true}}},
		{Iteration: 2, State: breaker.Closed}, // a status after a reset
	}
	st := Steps(ds)
	if len(st) != 2 || st[0].Score != 3 || !st[1].IgnoredOpen {
		t.Errorf("got steps %+v, want iteration 1 from its fields and iteration 2's own step", st)
	}
	if got, want := Sparkline(st, ds[2].State), "▆●×○"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMermaidChartsHoldOnlyNumbers(t *testing.T) {
	t.Parallel()
	steps := scored(2, -12, 30)
	steps[0].Tests = &breaker.Tests{Passed: 40, Failed: 2}
	steps[2].Tests = &breaker.Tests{Passed: 44}
	got := MermaidCharts(steps)
	for _, want := range []string{
		"x-axis \"iteration\" [1, 2, 3]\n", "y-axis \"score\" -12 --> 30\n", "line [0, 0, 0]\n", "line [2, -12, 30]\n",
		"x-axis \"iteration\" [1, 3]\n", "y-axis \"tests passing\" 0 --> 48\n", "bar [40, 44]\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("charts lack %q:\n%s", want, got)
		}
	}
	if got := MermaidCharts(scored(1)); strings.Contains(got, "tests passing") || !strings.Contains(got, "y-axis \"score\" -6 --> 9") {
		t.Errorf("without reports: got %s, want the score chart alone on the fixed scale", got)
	}
}
