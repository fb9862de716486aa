// Package cost reads what an iteration cost from where the agent reports
// it: dollars and tokens, never a price table. One file per source:
//
//   - claude.go: Claude Code's result (`-p --output-format json`, and the
//     result event that ends `stream-json`), whose total_cost_usd and usage
//     are the run's totals;
//   - messages.go: the usage of each assistant message (a Claude Code
//     transcript, or a stream-json run that ended before its result):
//     tokens, and dollars only where a line carries costUSD;
//   - codex.go: Codex's `exec --json` turn.completed usage (tokens only);
//   - execution.go: claude-code-action's execution file, a JSON array of
//     the same messages.
//
// A figure that is missing where the format promises one, or is not a
// plausible number, is no figure: the Cost says so in a note and never
// holds an invented one. The log is untrusted and read within bounds; no
// input makes Read panic.
package cost
