// Package localstate places the state of a local loop (the Claude Code
// hook's breaker, check's own start and ledger, the resets a person made)
// in the user's state directory, outside the working tree the watched
// agent can write, one directory per repository.
package localstate
