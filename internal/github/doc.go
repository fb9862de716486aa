// Package github is loopbreaker's narrow adapter over the GitHub REST API
// (go-github), cut by role (PullService, CommentService, ...; API is their
// union); fakegithub stands in for GitHub in tests.
//
// One transport counts every request, adds the token to API requests only
// (never to an artifact's storage host), retries transient failures and
// short rate-limit waits through Options.Sleep, and fails at once where
// the wait would be long: go-github neither retries nor takes a 429 for a
// rate limit. In dry-run mode writes are skipped and listed by Planned.
package github
