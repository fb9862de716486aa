// Package present is loopbreaker's presenter for everything a person reads
// on GitHub: the job summary (of a check and of an audit, and the audit's
// terminal report), the sticky pull-request comment with its ledger digest,
// the managed labels' names, colours and descriptions, the log annotations,
// and the commit status's and check run's texts.
//
// The Action (internal/action) and the audit (internal/audit) decide what
// to post and call this package for how it reads; neither builds markdown
// itself. Every function is pure: agent text is escaped for its medium
// through internal/render, and each body is sized here, once, under
// GitHub's limits, so that the client never has to cut it.
//
// It stands beside internal/render rather than inside it: render turns one
// decision into text, JSON or markdown for any caller (the command line
// included), while this package knows GitHub's side: the marker and digest
// of the sticky comment, the label colours, the size budgets, annotations,
// and the audit's report.
package present
