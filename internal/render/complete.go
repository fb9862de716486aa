package render

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

// doneVerdict is the verdict of a complete decision.
const doneVerdict = "done: stop the loop"

// Evidence says in one line why a decision is complete: the tasks, the
// tests and the claim; "" when it is not complete.
func Evidence(d *breaker.Decision) string {
	c := d.Completion
	if !d.Complete || c == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("all %d %s checked", c.Tasks.Total, plural(c.Tasks.Total, "task", "tasks"))}
	if t := c.Tests; t != nil {
		parts = append(parts, fmt.Sprintf("tests green (%d passed, %d skipped)", t.Passed, t.Skipped))
	} else {
		parts = append(parts, "no test report")
	}
	if c.Claimed {
		parts = append(parts, "the agent says it is done")
	}
	if c.Percent != nil {
		parts = append(parts, fmt.Sprintf("%g %% reported", *c.Percent))
	}
	return strings.Join(parts, " · ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
