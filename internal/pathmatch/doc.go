// Package pathmatch matches repository paths against the gitignore-like
// patterns of the policy's path lists (ignore_paths, test_paths,
// protected_paths, task_files, ...), compiled once into a Set. The syntax
// is in docs/policies.md ("Path patterns").
package pathmatch
