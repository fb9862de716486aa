// Package loop holds the one fold of loopbreaker and the per-iteration job
// around it.
//
// Fold runs the breaker over iterations with the resets and holds that
// people made interleaved by time, and owns the normalisation of the
// commit dates an agent can choose (before the previous iteration, after
// the run). check, replay, the Action (through Run) and the audit all
// decide through it.
//
// Run does the whole job once: it reads a loop's iterations from git (and,
// when given, from a ledger of earlier runs' records), applies the newest
// iteration's reports and log, folds them and returns the decisions
// together with the cumulative ledger to write. It never talks to GitHub.
package loop
