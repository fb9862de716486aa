// Package action is loopbreaker's GitHub Actions seam: it reads the
// action's inputs and event payload, completes the pull request from the
// API where the payload lacks it (an issue_comment's head, a fork's
// workflow_run), picks the commit to evaluate — the pull request's head,
// never GitHub's test merge commit — and deepens a shallow clone with the
// token (internal/checkout), gathers the ledger from the sticky comment's
// digest or the previous run's artifact (dropping another loop's records),
// collects the controls of trusted people (one trust rule for commands and
// labels), runs the per-iteration job, and then writes the record (inside
// the workspace, with its owner), the outputs, the job summary,
// annotations, the commit status, labels and the sticky PR comment. What
// those say is internal/present's; GitHub is reached through the
// github seam (github.API, every role of it), with a small number of
// calls per run. Every string that came from the watched agent is escaped before it
// reaches a workflow command, an output file or markdown.
package action
