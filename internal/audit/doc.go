// Package audit evaluates the open pull requests of a repository in one
// scheduled run (docs/audit.md): for each it gathers the iterations (a
// clone or the API) and the ledger (the sticky comment's digest or a record
// artifact), folds them with the controls of trusted people, and labels and
// comments. Options.Budget bounds the API calls; every page is listed
// before anything is written, since the labels written bump updated_at and
// would shift the pages still to be read.
package audit
