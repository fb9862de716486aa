// Package cli is loopbreaker's command-line surface: it parses commands and
// flags, wires evidence, policy and breaker together, renders the decision
// and picks the exit code (0 continue, 1 OPEN, 2 bad usage, bad input or an
// internal error). Main takes its environment — arguments, streams,
// environment lookup and clock — as values, so tests run it in-process.
package cli
