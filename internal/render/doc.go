// Package render turns a breaker decision into text for a person, JSON for
// a program, or markdown for a job summary or PR comment. Renderers are pure
// functions of the decision; every string that may come from the watched
// agent (error samples, test and file names, reasons quoting them) is
// escaped for the medium before it is written.
package render
