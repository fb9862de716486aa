// Package checkout is the git side of a run on GitHub, with go-git only:
// fetching what actions/checkout's clone lacks (and repairing .git/shallow,
// which go-git leaves stale), the walks a run needs (parents, merge bases,
// shallow boundaries), views of a commit that is not checked out, and the
// owner of what a run writes into the workspace (a Docker action runs as
// root; the next checkout on a self-hosted runner must clean it).
package checkout
