// Package fakegithub is an in-memory stand-in for the GitHub REST API (v3)
// used by loopbreaker's tests.
//
// A Server answers exactly the endpoints loopbreaker's client
// (internal/github) calls — listing pull requests (by head too) and getting
// one, with their commits and files, looking up, creating and updating
// labels, adding and removing a pull request's labels, its issue events
// and the repository's, listing, creating and editing comments, creating a
// commit status or a check run, listing and downloading artifacts, a
// collaborator's permission, a file's contents, the authenticated user and
// the issues search for pull requests (the qualifiers discovery sends), and
// the workflow_dispatch event the agent loop's workflow makes (Dispatches)
// — and 404 to anything else. It also builds the event payloads of the
// workflows loopbreaker runs in (PullRequestEvent, PullRequestTargetEvent,
// IssueCommentEvent, WorkflowRunEvent, WorkflowDispatchEvent,
// MergeGroupEvent, ScheduleEvent), each with the ref whose workflow file
// its run uses, as GitHub's events page gives it (dispatch.go), and takes
// artifact uploads as upload-artifact makes them (UploadArtifact;
// UploadWithRuntimeToken with a run's RuntimeToken, which any step of the
// run holds). Each handler cites the GitHub page it follows;
// where the field differs from the page (label permissions), it follows the
// field and cites that. It
// answers with the JSON field names GitHub returns, keeps state between
// calls, paginates with Link headers, sends rate-limit headers on every
// answer, authenticates tokens, counts calls and can be told to fail (5xx,
// primary and secondary rate limits, slow answers, corrupt bodies). Tests seed it with the Add*, Set* and Put* methods, drive it
// through a real HTTP client and inspect the result with the accessor
// methods. The runnable program cmd/fakegithub serves the same handler for
// end-to-end tests and loads and dumps its state as JSON (see State).
//
// Conventions, as on GitHub:
//
//   - An unknown repository, issue, pull request, comment, run or artifact
//     answers 404. Repositories and issues come into being when a seeding
//     method names them (AddRepo, AddPull, AddComment, AddLabelEvent, ...).
//   - Reads of a public repository work without a token. A write without
//     one answers 401 "Requires authentication"; an unknown token answers
//     401 "Bad credentials" to everything. A token has the permissions of
//     its job's permissions: block (SetPermissions; SetReadOnly for a
//     fork's pull request): an endpoint whose scope it lacks answers 403
//     "Resource not accessible by integration" (by personal access token,
//     for a user's) with the x-accepted-github-permissions header. A
//     private repository's reads need the scope too (SetPrivate). The
//     default token DefaultToken is the workflow's GITHUB_TOKEN, an
//     installation token of the bot DefaultLogin with every scope: GET
//     /user answers it 403, and only installation tokens create check runs.
//   - Errors carry the endpoint's documentation page and the status as a
//     string, as today's API sends them.
//   - The repository's artifacts are listed in no particular order (GitHub
//     documents none); issue events come in every type, not only label
//     events; a pull request's commits have trees and parents.
//   - Every API call uses one call of its rate limit: the search API's
//     (30 a minute, renewed each minute, SetSearchRateLimit) or the rest's
//     (5,000 an hour, SetRateLimit), named in X-RateLimit-Resource; at
//     zero, calls answer 403 with X-RateLimit-Remaining: 0 until the reset
//     time (of the clock set by SetClock).
//   - A GET answered 200 carries an ETag; the same GET with If-None-Match
//     holding it (and the same token) is answered 304 Not Modified, which
//     an authenticated call is not charged for. Charged counts the calls
//     that were.
//   - per_page defaults to the page size (30, SetPageSize) and is capped at
//     100; pull request commits are capped at 250 and files at 3000.
//   - An artifact's zip endpoint redirects (302) to /_blobs/{id} on the same
//     server, which needs no token, is not counted and not rate-limited, and
//     serves the archive; an expired artifact answers 410 Gone.
//   - Paths may carry the GitHub Enterprise prefix /api/v3 (go-github's
//     WithEnterpriseURLs); calls are logged and faults matched without it.
//   - /_fake/dump (GET or POST) answers the Dump JSON, POST /_fake/seed
//     loads a seed, POST /_fake/reset-calls forgets the calls.
package fakegithub
