// Package checkout is the git side of a run on GitHub: the clone
// actions/checkout left in the workspace, read and extended with go-git
// only (no git binary), for the Action's check (internal/action) and the
// audit (internal/audit) alike:
//
//   - fetching what the clone lacks — a pull request's head, the history a
//     shallow clone cut (actions/checkout fetches one commit by default) —
//     from the repository on GitHub with the run's token, and repairing
//     .git/shallow after a deepen, which go-git leaves stale;
//   - the walks a run needs: a commit's parents (to tell GitHub's test
//     merge commit from the pull request's head), merge bases, the commits
//     of a head's history, and whether a shallow boundary cuts it;
//   - views: a temporary git directory whose HEAD is another commit and
//     whose objects are the clone's, so that a commit that is not checked
//     out is read like any repository, the work tree untouched;
//   - the owner of what a run writes into the workspace: a Docker action
//     runs as root, and the files it leaves must belong to the workspace's
//     owner, or the next actions/checkout on a self-hosted runner cannot
//     clean them.
package checkout
