// Package report holds what one audit run found and did: the Result the
// audit (internal/audit) fills in, whose JSON form is the Action's report
// output and the command's --format json, and which the presenter
// (internal/present) turns into the job summary, the terminal report and
// the annotations.
package report
