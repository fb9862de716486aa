// Package githubtest is an in-memory GitHub repository that implements
// github.API, for the tests of the logic that talks to GitHub
// (internal/action, internal/audit). It keeps labels, comments, label
// events, permissions, artifacts, statuses and check runs, counts calls
// the way the REST client does when no call is retried (one a request,
// one a page of 100), and fails calls on demand. HTTP itself — retries,
// rate-limit headers, pagination links — is the business of the client's
// own tests and of the HTTP fake, internal/github/fakegithub.
package githubtest
