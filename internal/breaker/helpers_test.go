package breaker_test

import (
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// t0 is the time of the first iteration in the tests.
var t0 = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// pol returns a built-in policy changed by the mutators, validated.
func pol(t testing.TB, name string, mutate ...func(*policy.Policy)) *policy.Policy {
	t.Helper()
	p, err := policy.Builtin(name)
	if err != nil {
		t.Fatalf("Builtin(%q): %v", name, err)
	}
	for _, m := range mutate {
		m(p)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("test policy is invalid: %v", err)
	}
	return p
}

func withCooldown(d string) func(*policy.Policy) {
	return func(p *policy.Policy) {
		if err := p.Breaker.Cooldown.UnmarshalText([]byte(d)); err != nil {
			panic(err)
		}
	}
}

func newBreaker(t testing.TB, p *policy.Policy, opts breaker.Options) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(p, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

// observe folds one iteration and fails the test on an error.
func observe(t testing.TB, b *breaker.Breaker, it breaker.Iteration) breaker.Decision {
	t.Helper()
	d, err := b.Observe(it)
	if err != nil {
		t.Fatalf("Observe(iteration at %s): %v", it.At.Format(time.RFC3339), err)
	}
	checkInvariants(t, d)
	return d
}

// checkInvariants checks what holds of every decision.
func checkInvariants(t testing.TB, d breaker.Decision) {
	t.Helper()
	if d.AllowContinue != (d.State != breaker.Open && !d.Complete) {
		t.Errorf("iteration %d: allow_continue %v in state %s (complete %v)", d.Iteration, d.AllowContinue, d.State, d.Complete)
	}
	if d.Complete != (d.Completion != nil) || (d.Complete && d.State == breaker.Open) {
		t.Errorf("iteration %d: complete %v with evidence %v in state %s", d.Iteration, d.Complete, d.Completion, d.State)
	}
	if (d.Trigger == nil) != (d.Reason == nil) {
		t.Errorf("iteration %d: trigger %v and reason %v: want both or neither", d.Iteration, d.Trigger, d.Reason)
	}
	if d.State == breaker.Closed && d.Trigger != nil {
		t.Errorf("iteration %d: CLOSED with trigger %q, want none", d.Iteration, *d.Trigger)
	}
	if d.State != breaker.Closed && d.Trigger == nil {
		t.Errorf("iteration %d: %s without a trigger", d.Iteration, d.State)
	}
	if d.State == breaker.Closed && (d.OpenedAt != nil || d.CooldownUntil != nil) {
		t.Errorf("iteration %d: CLOSED with opened_at %v cooldown_until %v", d.Iteration, d.OpenedAt, d.CooldownUntil)
	}
	if d.State == breaker.Open && d.OpenedAt == nil {
		t.Errorf("iteration %d: OPEN without opened_at", d.Iteration)
	}
	if len(d.History) > breaker.MaxHistory || len(d.Recent) > breaker.MaxRecent {
		t.Errorf("iteration %d: history %d recent %d, over the bounds", d.Iteration, len(d.History), len(d.Recent))
	}
	if d.Warnings == nil || d.ErrorCounts == nil || d.OutputTrend == nil {
		t.Errorf("iteration %d: nil list in the decision (warnings, error_counts or output_trend)", d.Iteration)
	}
}

// change is a diff with files meaningful files of 10 lines each.
func change(files int, tree string) *breaker.Change {
	return &breaker.Change{MeaningfulFiles: files, MeaningfulLines: 10 * files, Tree: tree}
}

// progressIt is an iteration that changed one meaningful file.
func progressIt(at time.Time, tree string) breaker.Iteration {
	return breaker.Iteration{At: at, Change: change(1, tree), ErrorsKnown: true, Output: &breaker.Output{Lines: 100}}
}

// stallIt is an iteration that changed nothing.
func stallIt(at time.Time) breaker.Iteration {
	return breaker.Iteration{At: at, Change: &breaker.Change{}, ErrorsKnown: true, Output: &breaker.Output{Lines: 100}}
}

func sig(sample string) breaker.Signature {
	return breaker.Signature{Hash: "h-" + sample, Sample: sample}
}

func ptr[T any](v T) *T { return &v }

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
