// Package gitlog turns a git repository into iteration evidence: the loop's
// commits on the first-parent chain from a base to HEAD, and for each one its
// diff against its first parent (changed paths, line counts, renames, what is
// meaningful), tree hash, message, trailers, author, times, reverts and the
// checkbox counts of the task lists at that commit.
//
// It never runs the git binary, so it works as root over a workspace owned
// by another user and in minimal images. The repository is go-git's
// storage over the git directory, where every file is opened without
// blocking and read only when it is a regular file inside the repository:
// a named pipe, socket or device in .git, or a symbolic link leaving it, is
// an error naming the file (ErrNotRegular), never a wait. Version 2 pack
// files are read by this package's pack reader first (small packs read
// whole into memory, larger ones by positional reads of the file, never
// mapped; delta chains resolved against a bounded cache), measured faster
// than go-git's on the bench and real loop histories (docs/performance.md);
// go-git reads loose objects and what the pack reader leaves (objects over
// the size limit, packs with a version 1 index or stored as links). An
// object the readers find damaged, or a pack truncated while it is open, is an error
// naming its file or pack, never read again through go-git. A linked work
// tree reads the objects of its common directory, and a repository made
// with git clone --shared or --reference those of its alternate object
// stores (objects/info/alternates), found as git finds them (relative
// paths from the objects directory that names them, at most five levels of
// nesting). Blobs are kept in a bounded cache for their second use (a
// file's content is the new side of one diff and the old side of the
// next).
//
// # Iterations
//
// History walks HEAD's first parents down to Options.Base (exclusive). When
// Base is empty it is the merge base of HEAD with the default branch (the
// first of origin/HEAD, main, master, origin/main, origin/master that
// exists); with no default branch, or none sharing history with HEAD, the
// walk goes to the root. When HEAD is itself on the default branch the merge
// base is HEAD and there are zero iterations (a Note says to pass a base):
// counting the whole history of a main branch as loop iterations would trip
// limits falsely.
//
// Awkward repositories:
//
//   - An empty repository (HEAD names no commit) gives zero iterations and a
//     Note, not an error.
//   - A merge commit is one iteration, diffed against its first parent.
//   - A base that is an ancestor of HEAD but not on its first-parent chain
//     (it arrived through a merge) ends the walk at the newest first-parent
//     commit the base contains; a Note says so. A base that is not an
//     ancestor of HEAD is an error naming both.
//   - In a shallow clone the walk stops at the shallow boundary: a commit
//     whose parent is not in the clone (a commit .git/shallow lists while
//     its parents are present is no boundary: the file cannot hide history).
//     The boundary commit itself is not an iteration, because its diff
//     cannot be known; History.Shallow is set and one Note says exactly how
//     many iterations were visible.
//   - Histories longer than Options.MaxCommits keep the newest MaxCommits
//     commits (History.Truncated and a Note).
//
// # Diffs
//
// Tree diffs are this package's (go-git's DiffTree took 8 to 28 times as
// long), with exact rename detection by go-git's detector; renames with
// edits are paired by a bounded content-similarity pass of this package
// (50% similar lines, like git's default). Added and deleted line counts
// come from this package's Myers line diff and match git diff --numstat
// for ordinary edits. Binary files (a NUL byte in the first 8000 bytes, as
// git decides) have no line counts. Files larger than Options.MaxFileBytes
// are compared by size only: their blobs are streamed, never loaded whole.
//
// A change is meaningful unless its paths are all ignored
// (Options.IgnorePaths), it only changes whitespace, or the file carries a
// "Code generated ... DO NOT EDIT." header. A file change also says whether
// it changes digits only (a rewritten timestamp or counter), whether the
// path is a notes file (Options.NotesPaths), test data
// (Options.TestDataPaths, never a test file then) or a submodule, whose
// pointer moving is a change without line counts; the breaker decides what
// to count.
//
// An object that is not in the repository (a partial clone, a copy without
// large files) does not stop the walk: the file counts as changed, marked
// Unreadable, and a note names the commit and the object. So does a
// directory nested deeper than the diff descends (256 levels). A damaged
// object is still an error.
//
// # Tasks
//
// The task lists' checkboxes are read at each commit. A task is identified
// by its file and its text, lowercased with its spacing collapsed; a
// commit's TaskChange lists the tasks it checked (ticked, ticked with its
// text edited, or added already checked) and counts those it unchecked.
// Tasks are followed through the lists by their text, in all task files
// together, then edited tasks by their place (see compareTasks). The tasks
// checked at the base are listed too (History.BaseChecked).
//
// Paths are returned as git stores them, byte for byte; they may not be
// valid UTF-8.
//
// A Repo is not safe for concurrent use.
package gitlog
