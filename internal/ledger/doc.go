// Package ledger holds iteration records: the JSON summary of one
// iteration's evidence that every run writes and later runs read back (from
// workflow artifacts or a directory). Records are validated and bounded on
// read; a record is evidence, never authority — what git can recompute is
// recomputed from git by the caller.
package ledger
