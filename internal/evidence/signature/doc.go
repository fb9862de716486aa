// Package signature turns an error line into a stable identity: the
// volatile parts (line and column numbers, addresses, durations, times,
// temporary directories, UUIDs, goroutine ids) become fixed tokens, what
// tells errors apart is kept, and the same-error rule compares SHA-256
// hashes of the result. Pure and bounded: only the first MaxInput bytes of
// a line count.
package signature
