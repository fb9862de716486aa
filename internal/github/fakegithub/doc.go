// Package fakegithub is an in-memory stand-in for the GitHub REST API (v3)
// used by loopbreaker's tests.
//
// A Server answers exactly the endpoints loopbreaker's client
// (internal/github) calls — listing open pull requests with their commits
// and files, looking up and creating labels, adding and removing a pull
// request's labels, its label events and the repository's, listing,
// creating and editing comments, creating a commit status or a check run,
// listing and downloading artifacts, a collaborator's permission, a file's
// contents and the authenticated user — and 404 to anything else. It
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
//   - Reads work without a token. A write without one answers 401
//     "Requires authentication"; an unknown token answers 401 "Bad
//     credentials" to everything; a read-only token (SetReadOnly) answers
//     403 "Resource not accessible by integration" to writes. The default
//     token DefaultToken is the bot DefaultLogin.
//   - Every API call uses one call of the rate limit; at zero, calls
//     answer 403 with X-RateLimit-Remaining: 0 until the reset time (of the
//     clock set by SetClock).
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
