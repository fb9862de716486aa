// Package org is the audit's view of an organisation: discovery sizes the
// matrix of audit jobs, each job keeps its State (answers, marks, cursor)
// between runs, and Fold turns the jobs' results into one Report.
package org
