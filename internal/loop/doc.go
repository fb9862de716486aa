// Package loop runs the whole per-iteration job once: it reads a loop's
// iterations from git (and, when given, from a ledger of earlier runs'
// records), applies the newest iteration's reports and log, interleaves the
// resets and holds that people made, folds everything through the breaker
// and returns the decisions together with the cumulative ledger to write.
// The CLI and the GitHub Action both call it; it never talks to GitHub.
package loop
