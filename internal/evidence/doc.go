// Package evidence turns what an iteration left behind — its diff, test
// reports and agent output — into the breaker's Iteration. The readers live
// in subpackages (gitlog, testreport, agentlog, signature); this package
// combines their results in this order for the primary error:
// the agent log's first error line, else the build failure, else the first
// failing test's message.
package evidence
