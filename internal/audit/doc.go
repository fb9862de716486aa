// Package audit evaluates every open pull request of a repository that
// matches its filters, in one run: the scheduled third use of loopbreaker,
// beside the per-iteration check and the command line. docs/audit.md is
// its user's reference (evidence, budget, sharding).
//
// For each selected pull request it gathers the loop's iterations (from a
// local clone, refs/pull/N/head fetched with go-git, or else from the API's
// commit list) and the ledger of earlier runs (the sticky comment's digest,
// else the newest matching record artifact), folds them through loop.Fold
// with the controls of people with write access, labels the stuck pull
// requests, clears the labels where progress resumed, and returns one
// report.Result. Nothing loopbreaker writes (a label, a comment edit, the
// updated_at it bumps) is ever an iteration or progress.
//
// Options.Budget bounds the API calls of a run (github.Accounting.Calls).
// It is checked before every page, every pull request (at the typical cost
// of those evaluated so far), every optional read and a pull request's
// writes, which are made all together or not at all; a step that does not
// fit stops the run cleanly and the Result lists what was not reached.
// Every page of pull requests is listed before anything is written, least
// recently updated first, because the labels the run adds bump updated_at
// and would shift the pages still to be read.
package audit
