// Package note holds the notes a decision carries: facts about the
// evidence that a person should know and a program can act on (a shallow
// clone, a skipped ledger entry, a clamped commit date, no base found).
// Each note has a stable machine-readable code, defined here and nowhere
// else, and a text for people.
package note
