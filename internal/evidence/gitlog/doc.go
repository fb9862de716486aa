// Package gitlog turns a git repository into iteration evidence: the loop's
// commits on the first-parent chain from a base to HEAD, and for each one its
// diff against its first parent (changed paths, line counts, renames, what is
// meaningful), tree hash, message, trailers, author, times, reverts and the
// checkbox counts of the task lists at that commit.
//
// It never runs the git binary. The repository is go-git's storage over the
// git directory, every file opened without blocking and read only when it is
// a regular file inside the repository: a named pipe, socket or device in
// .git, or a symbolic link leaving it, is an error naming the file
// (ErrNotRegular), never a wait. Version 2 packs are read by this package's
// pack reader, go-git reads the rest; docs/performance.md says why. A damaged
// object is an error naming its file or pack. Linked work trees read their
// common directory, and alternate object stores are found as git finds them
// (at most five levels deep).
//
// # Iterations
//
// History walks HEAD's first parents down to Options.Base (exclusive). When
// Base is empty it is the merge base of HEAD with the default branch (the
// first of origin/HEAD, main, master, origin/main, origin/master that
// exists), or the root when there is none. When HEAD is on the default
// branch there are zero iterations and a Note says to pass a base.
//
//   - An empty repository gives zero iterations and a Note, not an error.
//   - A merge commit is one iteration, diffed against its first parent.
//   - A base that HEAD reached through a merge ends the walk at the newest
//     first-parent commit it contains (a Note says so); a base that is not
//     an ancestor of HEAD is an error naming both.
//   - A shallow clone's walk stops at a commit whose parent is not in the
//     clone; that commit is not an iteration, History.Shallow is set and a
//     Note counts the visible iterations.
//   - Only the newest Options.MaxCommits commits are iterations
//     (History.Truncated and a Note).
//
// # Diffs
//
// Exact renames are found by go-git's detector; renames with edits by a
// bounded similarity pass (50% similar lines, git's default). Line counts
// match git diff --numstat for ordinary edits. Binary files (a NUL byte in
// the first 8000 bytes) have no line counts; files larger than
// Options.MaxFileBytes are compared by size only, streamed.
//
// A change is meaningful unless its paths are all ignored, it only changes
// whitespace, or the file is generated ("Code generated ... DO NOT EDIT.").
// An object that is not in the repository (a partial clone), or a directory
// nested deeper than 256 levels, does not stop the walk: the file counts as
// changed, marked Unreadable, with a note.
//
// # Tasks
//
// A task is identified by its file and its text, lowercased with its
// spacing collapsed; TaskChange lists the tasks a commit checked and counts
// those it unchecked, following tasks through edits (see compareTasks).
//
// Paths are returned as git stores them, byte for byte. A Repo is not safe
// for concurrent use.
package gitlog
