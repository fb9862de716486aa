// Package pathmatch matches repository paths against gitignore-like
// patterns. The policy's path lists (ignore_paths, test_paths,
// protected_paths, task_files, ...) are compiled once into a Set and asked
// about slash-separated paths relative to the repository root.
//
// Pattern syntax:
//
//   - A pattern without a slash matches a name at any depth: "go.sum",
//     "*.lock" and "fix_plan.md" match that file in any directory. As in
//     gitignore, a name that matches a directory matches everything below
//     it, so "node_modules" matches "web/node_modules/x/index.js".
//   - A pattern ending in a slash matches directories only, never a file of
//     that name. "vendor/" (no other slash) matches a directory named vendor
//     at any depth, so it matches "vendor/x.go" and "a/vendor/x.go" but not
//     a file named "vendor". ".github/workflows/" (a slash inside) matches
//     from the root only.
//   - A pattern with a slash at the start or in the middle is anchored at the
//     root: "docs/api.md" matches that one path, "/Makefile" matches only the
//     top-level Makefile. It also matches everything below a directory it
//     names ("specs/v1" matches "specs/v1/a.md").
//   - Within a path segment, "*" matches any run of characters, "?" one
//     character, "[a-z]" / "[!a-z]" a character class, and "\" escapes the
//     next character (the syntax of path.Match); braces are plain
//     characters.
//   - "**" as a whole segment matches any number of segments, including
//     none: "**/test/**" matches "test/a.go" and "x/y/test/z/a.go";
//     "src/**/*_test.go" matches "src/a_test.go" and "src/p/q/a_test.go".
//   - A leading "!" negates: a path that matches a negated pattern is not
//     matched, unless a later pattern matches it again (the last matching
//     pattern decides). Write "\!" for a pattern that starts with "!".
//
// Patterns may not be empty and may not contain empty, "." or ".."
// segments; Compile reports the first bad pattern by position and text.
// Paths are compared case-sensitively, character by character; a byte that
// is not valid UTF-8 is read as the character U+FFFD, so paths that are not
// valid UTF-8 are matched like any other.
package pathmatch
