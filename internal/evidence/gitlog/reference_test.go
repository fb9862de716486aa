package gitlog

import "io"

// equalIgnoringSpace reports whether a and b are equal once all whitespace
// is removed from both: the whitespace-only check of a change, on whole
// contents, for the tests.
func equalIgnoringSpace(a, b []byte) bool {
	// Bytes both share at the start or at the end drop out of the
	// comparison (removing whitespace from a concatenation removes it from
	// each part): only the edited middle is scanned.
	a, b = editedMiddle(a, b)
	return equalSkipping(a, b, isSpace)
}

// readTaskList reads a task list without a shared text cache.
func readTaskList(r io.Reader, size int64) (taskList, error) {
	return readTaskListWith(r, size, nil)
}
