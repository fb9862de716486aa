// Package statefile stores a breaker snapshot in a JSON state file for
// loops that run outside git and GitHub (`loopbreaker record|status|reset
// --state FILE`). Writes are atomic (temporary file, fsync, rename) and
// serialised by an advisory lock; a corrupt or foreign file is an error that
// leaves the file untouched, so the watched agent cannot escape its breaker
// by breaking the file.
package statefile
