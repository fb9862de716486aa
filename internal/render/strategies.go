package render

import "github.com/loopbreaker/loopbreaker/policy"

// Strategies returns what a person (or the next prompt) can try after the
// breaker opened on the given trigger: a few concrete recovery steps per
// rule, the most direct first. The slice is shared: do not change it.
func Strategies(trigger string) []string { return strategies[trigger] }

var replan = []string{
	"Regenerate the plan with a fresh analysis",
	"Break the stuck task into 3 or more subtasks",
	"Skip to the next task and return to this one later",
	"Escalate to a person",
}

var strategies = map[string][]string{
	policy.RuleNoProgress: replan,
	policy.RuleScore:      replan,
	"probe":               replan,
	// Stuck on the same task: change the task first.
	policy.RuleTaskStuck: {replan[1], replan[2], replan[0], replan[3]},
	policy.RuleSameError: {
		"Change the approach entirely",
		"Check whether the error is environmental (dependencies, services, permissions)",
		"Search for a known issue or workaround",
		"Escalate with the error log",
	},
	policy.RuleTestOnly: {
		"Review the test assumptions",
		"Check whether the implementation approach is flawed",
		"Simplify the implementation scope",
		"Escalate with a test analysis",
	},
	policy.RuleCircular: {
		"Step back and re-analyse the root cause",
		"Try an approach not yet attempted",
		"Reduce the scope to a minimal working version",
		"Escalate with the approach history",
	},
	policy.RuleProtectedPath: {
		"Restore the protected path from the base branch",
		"Find out why the agent touched it and tighten its instructions",
		"If the change was intended, make it yourself and reset the breaker",
	},
	policy.RulePermissionDenied: {
		"Grant the tool the loop needs, or remove the task that needs it",
		"Tell the agent which tools it may use",
		"Escalate to a person",
	},
	policy.RuleOutputDecline: {
		"Check whether the agent hit a context, token or rate limit",
		"Start the next iteration with a fresh context and a narrower task",
		"Escalate to a person",
	},
	policy.RuleCompletionClaim: {
		"Do not accept the claim: run the tests and read the task list",
		"Tell the agent which tests fail and which tasks remain",
		"Escalate to a person",
	},
	// Money spent without progress: spend less before trying again.
	policy.RuleSpend: {
		"Review what the money bought: the iterations since the last progress",
		"Narrow the task, or give the agent a cheaper model or a smaller context",
		"Raise the limit only if the work is worth it, then reset the breaker",
		"Escalate to a person",
	},
	policy.RuleRate: {
		"Slow the loop down (longer interval between runs)",
		"Check for a retry storm in the workflow",
	},
	policy.RuleMaxIterations: {
		"Review what the loop achieved and decide whether to continue",
		"Split the remaining work into a new, smaller loop",
		"Escalate to a person",
	},
	"force_open": {"A person holds the breaker open: reset it when the loop may continue"},
}
