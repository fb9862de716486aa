package breaker_test

import (
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// overclaim is a new rule written as the rule table in rules.go holds
// one: its check reads the policy's rules, the breaker's state after the
// iteration was counted and the iteration itself, and fires or not. It
// warns when the agent says it modified more files than the diff shows
// while the loop has gone two iterations or more without progress.
//
// In the package the check takes a *ruleCheck, whose fields are these
// three values (c.r, c.s, c.it, plus what measure.go measured), and
// fires with c.fire(kindWarn, ...); the row that registers it is
//
//	{
//		name:  policy.RuleOverclaim,
//		on:    func(r *policy.Rules) bool { return r.Overclaim.Enabled },
//		check: checkOverclaim,
//	},
//
// at its place in trigger order (a cause before the caps), with the name
// in policy.RuleOrder and its keys (rules.overclaim.*) in policy.Rules. Until those keys
// exist, this sketch borrows no_progress's half_open_after.
func overclaim(r *policy.Rules, s *breaker.Snapshot, it *breaker.Iteration) (fire bool, reason string) {
	if it.ClaimedFiles == nil || it.Change == nil {
		return false, "" // not measured: a rule never fires on what is unknown
	}
	claimed, seen := *it.ClaimedFiles, it.Change.MeaningfulFiles
	if claimed <= seen || s.ConsecutiveNoProgress < r.NoProgress.HalfOpenAfter {
		return false, ""
	}
	return true, fmt.Sprintf("the agent claims %d files modified, the diff shows %d, after %d iterations without progress",
		claimed, seen, s.ConsecutiveNoProgress)
}

// Example_rule folds a small history through the breaker's public API and
// asks the new rule about every iteration, as evaluate does after the
// iteration is counted: the breaker's own rules decide the state, the new
// one adds its verdict.
func Example_rule() {
	p, err := policy.Builtin("default")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := breaker.New(p, breaker.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	claims := func(n int) *int { return &n }
	history := []breaker.Iteration{
		// Real work: three files changed, three claimed.
		{Change: &breaker.Change{MeaningfulFiles: 3, MeaningfulLines: 40, Tree: "t1"}, ClaimedFiles: claims(3)},
		// Nothing changed, each time "4 files modified".
		{Change: &breaker.Change{Tree: "t1"}, ClaimedFiles: claims(4)},
		{Change: &breaker.Change{Tree: "t1"}, ClaimedFiles: claims(4)},
		{Change: &breaker.Change{Tree: "t1"}, ClaimedFiles: claims(4)},
	}
	for i, it := range history {
		it.At = start.Add(time.Duration(i) * 10 * time.Minute)
		it.ErrorsKnown = true
		d, err := b.Observe(it)
		if err != nil {
			fmt.Println(err)
			return
		}
		s := b.Snapshot()
		fire, reason := overclaim(&b.Policy().Rules, &s, &it)
		fmt.Printf("iteration %d: %s, progress %v", d.Iteration, d.State, d.Progress)
		if d.Trigger != nil {
			fmt.Printf(" (trigger %s)", *d.Trigger)
		}
		if fire {
			fmt.Printf("; overclaim: %s", reason)
		}
		fmt.Println()
	}
	// Output:
	// iteration 1: CLOSED, progress true
	// iteration 2: CLOSED, progress false
	// iteration 3: HALF_OPEN, progress false (trigger no_progress); overclaim: the agent claims 4 files modified, the diff shows 0, after 2 iterations without progress
	// iteration 4: OPEN, progress false (trigger no_progress); overclaim: the agent claims 4 files modified, the diff shows 0, after 3 iterations without progress
}
