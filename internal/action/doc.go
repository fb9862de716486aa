// Package action is loopbreaker's GitHub Actions seam: inputs and event,
// the commit to evaluate (the pull request's head, never the test merge),
// the ledger of earlier runs, the controls of trusted people, one fold,
// then the record, outputs, summary, annotations, status, labels and the
// sticky comment (worded by internal/present). Agent text is escaped
// before it reaches a workflow command, an output file or markdown.
package action
