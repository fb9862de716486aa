// Package github is loopbreaker's narrow adapter over the GitHub REST API
// (go-github v60): labels, the sticky pull-request comment, the commit
// status and check run, the previous run's record artifact, files read from
// the base branch, collaborator permissions and the open pull requests an
// audit walks. The seam is cut by role (PullService, CommentService,
// LabelService, EventService, ArtifactService, StatusService,
// ContentService, Accounting); Client implements them all, API is their
// union, and the HTTP fake in fakegithub stands in for GitHub in tests.
//
// Every request goes through one transport that counts it, adds the token
// (to API requests only, never to the storage host an artifact download is
// redirected to), retries transient failures (500, 502, 503, 504 and
// network errors) with exponential backoff, waits out a secondary rate
// limit or a 429 when GitHub's Retry-After is short, and fails at once on a
// primary rate limit or on a wait longer than Options.MaxWait, so that a
// run never sleeps for an hour. Waiting goes through Options.Sleep, so
// tests assert the waits without sleeping. go-github v60 alone neither
// retries nor takes a 429 for a rate limit, and its own rate-limit memory
// reads the wall clock. Every list follows go-github's NextPage with
// per_page=100 and is bounded.
//
// In dry-run mode reads still happen but every write is skipped and
// described by Planned instead. Calls reports how many API requests the
// client made (each retry counts), the figure a run reports as its API
// budget.
package github
