// Package worktree measures what a loop's iteration changed in a working
// tree, committed or not: it keeps a snapshot of the tree's files (their
// hashes, with and without whitespace) and compares the next snapshot with
// it, counting the files whose change is meaningful under the policy.
package worktree
