// Package org is the audit's view of an organisation: discovery finds the
// repositories whose open pull requests are to be audited and sizes the
// matrix of audit jobs (repositories, shards by pull-request count); each
// audit job keeps its State (the answers of its reads, each pull
// request's head and updated_at when last read, so that an unchanged one
// is not read again, and the cursor of a run cut by the quota) from one
// run to the next and writes a
// small Job result; Fold turns the jobs' results into one Report of the
// stuck and OPEN pull requests, sorted by the iterations they wasted.
package org
