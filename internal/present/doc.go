// Package present is loopbreaker's presenter for everything a person reads
// on GitHub: the job summary (of a check and of an audit, and the audit's
// terminal report), the sticky pull-request comment with its ledger digest,
// the managed labels, the log annotations, and the commit status's and
// check run's texts.
//
// The Action (internal/action) and the audit (internal/audit) decide what
// to post and hand this package what it shows as values (decisions,
// records, an AuditResult); it imports nothing above render. Agent text is
// escaped for its medium through internal/render, and each body is sized
// here, once, under GitHub's limits.
package present
