// Package signature turns an error line into a stable identity.
//
// Two occurrences of the same error rarely print the same text: line and
// column numbers move as code is edited, addresses, durations, timestamps,
// temporary directories, UUIDs and goroutine ids change on every run. Normalize
// replaces exactly those volatile parts with fixed tokens and keeps what tells
// errors apart (identifiers, messages, file names, exception types, error
// codes), so the same-error rule can compare SHA-256 hashes of the result.
//
// Everything here is pure and bounded: the same input always gives the same
// signature, and only the first MaxInput bytes of a line are considered.
package signature
