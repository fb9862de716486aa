// Package docscheck holds the tests that keep the documentation honest:
// README.md, CHANGELOG.md and every page of docs/ render as CommonMark with
// GitHub's tables, their relative links lead somewhere, and the tables that
// mirror the code (the Action's inputs and outputs, the policy keys, the
// record fields, the note codes) are equal to it. It has no code of its own.
package docscheck
