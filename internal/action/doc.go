// Package action is loopbreaker's GitHub Actions seam: it reads the
// action's inputs and event payload, gathers the ledger from the previous
// run's artifact (or the sticky comment's digest), collects resets from
// trusted people, runs the per-iteration job, and then writes the outputs,
// the job summary, annotations, the commit status, labels and the sticky PR
// comment. What those say is internal/present's; GitHub is reached through
// the github.API seam (Env.Connect). Every string that came from the
// watched agent is escaped before it reaches a workflow command, an output
// file or markdown.
package action
