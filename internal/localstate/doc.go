// Package localstate is the one store of the loops that run on a person's
// machine: the shell loop's `loopbreaker check`, the Claude Code and Codex
// hook (one store per session), `loopbreaker record --repo` (the ralph
// drop-in) and the state files `record --state FILE` names. Every store is
// one JSON file of one format: the loop's iteration records (the ledger's
// format), the resets a person made, and what the next iteration is
// measured from (the working tree's snapshot, how far a transcript was
// read). Nothing else is kept: the breaker is the fold of the records.
//
// The stores of a repository live in the user's state directory, outside
// the working tree the watched agent can write, in one directory per
// repository: check.json, record.json (or the name --loop gives) and
// session-ID.json, each read under regularfile's lock.
package localstate
