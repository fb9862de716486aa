// Package present words everything a person reads on GitHub: job summaries,
// the sticky comment with its ledger digest, labels, annotations, and the
// status and check run texts. It takes values (decisions, records, an
// AuditResult) and imports nothing above render; each body is sized here
// under GitHub's limits.
package present
