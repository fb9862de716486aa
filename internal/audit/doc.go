// Package audit evaluates every open pull request of a repository that
// matches its filters, in one run: the scheduled third use of loopbreaker,
// beside the per-iteration check and the command line.
//
// For each selected pull request it gathers the loop's iterations — from a
// local clone (refs/pull/N/head fetched with go-git, no git binary) or,
// failing that, from the API's commit list — and the ledger of earlier
// runs (the sticky comment's digest, else the newest matching record
// artifact), folds them with the resets and holds that trusted people made
// through loop.Fold (the fold check uses, dates normalised alike), labels
// the stuck pull requests, clears the labels where progress resumed, and
// returns one report.Result. It talks to GitHub through GitHub, the roles
// of the github seam it uses; the labels, the comment and the report read
// as internal/present writes them.
//
// # Evidence
//
// Iterations come only from commits and from the records loop runs left.
// Labels, comments and issue events are read for two things only: the
// controls of people with write access (a /loopbreaker command, the removal
// of the open label, the force-open label) and the digest in loopbreaker's
// own sticky comment. Every removal of the open label by such a person
// while the breaker was OPEN is a reset, by the check run's rule
// (control.LabelResets). The removals are read when one may be missing from
// the fold: the open label is gone from an OPEN pull request, or the
// ledger's newest record says its run applied such resets (once the loop
// opened again the label is back, and only that claim remembers them; the
// claim itself is never applied). They come from the repository's label
// events, read a page at a time for the whole run (events.go), or from a
// pull request's own events where those pages do not reach back far
// enough; pages already read serve every pull request at no call. Nothing
// loopbreaker writes — a label, a comment edit, the updated_at it bumps —
// is ever an iteration or progress.
//
// From the API (no clone) an iteration's diff is not known file by file:
// listing a commit's files costs one call per commit. A commit whose tree
// equals its parent's changed nothing; a commit whose tree differs counts as
// one meaningful file changed (a lower bound that gives the loop the
// benefit of the doubt). When that assumption decides the verdict (the
// fold is CLOSED with it and not without it) and the budget has room, the
// pull request's file list is read once: if none of its files is
// meaningful under the policy (only lock files, vendored or ignored paths,
// task lists), no commit counts as a meaningful change; if all of them are
// tests, the changed lines count as test lines; protected paths it deletes
// or modifies are charged to its newest changing commit. GitHub lists at
// most 250 commits and 3,000 files of a pull request; a result that hit a
// cap says so.
//
// # Budget
//
// Options.Budget is the number of API calls (github.Accounting.Calls, retries
// included) the run may make, like actions/stale's operations-per-run. The
// run checks it before listing a page and before each pull request (using
// the typical cost of the pull requests evaluated so far), before every
// optional read (artifacts, file lists, label events, permissions) and
// before a pull request's writes, which are made all together or not at
// all. When the next step does not fit, the run stops cleanly and that
// pull request is left as it was. Only the pages of one pull request's
// commit or comment lists can pass the typical estimate; the Result says
// exactly how many calls were used. The run stops the same way when
// X-RateLimit-Remaining falls under Options.Reserve, and when GitHub
// refuses a call for its rate limit. A stopped run lists the pull requests
// it did not reach and whether pages of pull requests were left unread.
//
// Pull requests are listed least recently updated first (GitHub's
// sort=updated, direction=asc): the least recently progressed ones cannot
// be known before they are evaluated, so updated_at is the proxy that
// decides who is reached when the budget cannot cover everyone. Every page
// the run will use is listed before anything is written, because the
// labels the audit adds bump updated_at and would shift the pages still to
// be read; listing stops when the pull requests already listed are
// expected to spend the budget, or when it has taken a tenth of it.
// Labelled pull requests move to the back of the next run's queue. The
// report is sorted by last progress.
//
// # Scale
//
// Options.Shard splits a repository's pull requests between parallel runs
// by a stable hash of the pull request number; the shards of one count
// cover every pull request exactly once. An organisation's audit is a
// workflow matrix over repositories: there is no scheduler here.
package audit
