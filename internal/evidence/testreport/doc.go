// Package testreport reads test reports (JUnit XML and its dialects, go test
// -json, TAP 12 to 14, detected from the content) into one merged Report:
// totals, whether a build failed, the failing tests by name with the first
// line of their failure message, and notes on whatever was skipped or cut.
// docs/reports.md gives the naming, message and counting rules and what is
// refused.
//
// A fault in a file is a *Error naming the file and, where known, the line.
// Nothing is held without bound: xmlguard.go keeps encoding/xml from
// buffering a huge token, and the line formats skip over-long lines.
package testreport
