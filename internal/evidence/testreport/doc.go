// Package testreport reads test reports into one merged Report: totals
// (passed, failed, errored, skipped), whether a build failed, the failing
// tests by name with the first line of their failure message, and notes on
// whatever was skipped or truncated on the way.
//
// Three report families are read, and the format is always detected from the
// content, never from the file name:
//
//   - JUnit XML and its dialects (pytest, jest-junit, Maven Surefire,
//     gotestsum, cargo-nextest, ...): a <testsuites> or <testsuite> root,
//     suites nested to any depth. Counts come from the <testcase> elements; a
//     suite's own tests/failures/errors/skipped attributes are used only for a
//     suite that holds neither testcases nor suites (and a Note says so). A
//     testcase with <failure> is a failure, with <error> an error, with
//     <skipped> skipped, otherwise passed. Surefire reruns: a testcase that
//     only has <flakyFailure>/<flakyError> passed on a rerun and counts as
//     passed; <rerunFailure>/<rerunError> accompany a <failure>/<error> and
//     change nothing.
//   - go test -json (the events of cmd/test2json), including the build-output
//     and build-fail events of Go 1.24 and later and the FailedBuild field of
//     a package's fail event.
//   - TAP version 12 to 14 (the version line is optional).
//
// # Naming
//
// A JUnit test is named "suite/class.test": the testcase name, prefixed by
// its classname and a dot unless the name already starts with it, then by
// the innermost suite's name and a slash unless the result already starts
// with it. Surefire gives "com.example.FooTest.testX", gotestsum
// "example.com/pkg.TestX", pytest "pytest/tests.test_math.test_add". A go
// test -json test is named "package.Test/subtest", the same name gotestsum's
// JUnit report gives it. A package failure, and a build failure, is named
// after the package. A TAP test is named by its description, or "test N"
// when it has none. Names are bounded to MaxText bytes.
//
// # Messages
//
// A failure's Message is one line, trimmed and bounded to MaxText bytes. In
// JUnit it is the first line of the message attribute, unless that is empty
// or a placeholder such as "Failed" (gotestsum writes that), in which case
// it is the first meaningful line of the element's text (lines such as
// "=== RUN" and "--- FAIL:" are not meaningful), then the type attribute. In
// go test -json it is the first meaningful output line of the test (for
// example "calc_test.go:14: Add(2, 2) = 4, want 5", or "panic: ..."); for a
// build failure it is the first compiler error from the build-output events;
// for a package that failed without a failing test (a panic in TestMain, a
// crash) it is the package's first meaningful output line. In TAP it is the
// message key of the YAML diagnostics block that follows the test line, else
// the first "#" diagnostic line after it.
//
// # Counting rules
//
// go test -json: only leaf tests count. A test that has subtests is not
// counted itself when it passes or is skipped, nor when it fails and at
// least one of its subtests failed (its failure is the subtests' failure).
// When it fails although none of its subtests failed (it failed in its own
// body) it counts as one failure. When a package fails without any failing
// test, its tests that never finished (the test binary exited or crashed
// while they ran) count as failures, and if there are none the package
// counts as one failure named after it; unfinished tests beside a real
// failure are only noted. A build failure (a package fail event with
// FailedBuild, or a build-fail event that no package fail names) counts as
// one failure of Kind "build", listed before test failures, and sets
// BuildFailed. Benchmark events are ignored.
//
// TAP: only top-level test lines count (indented subtests are left to their
// parent's line). "ok" passes and "not ok" fails, except that a SKIP
// directive makes either skipped and a TODO directive makes "not ok" skipped
// (a TODO test that fails is expected to fail) while "ok # TODO" passes.
// "Bail out!" counts as one failure named "Bail out!" whose message is the
// reason, and reading stops there; a Note says how many planned tests did
// not run. A plan that does not match the tests run gives a Note.
//
// JUnit: every testcase counts (gotestsum lists a Go test's parent as a
// testcase of its own, so a failing subtest fails its parent there too). A
// testcase with both <failure> and <error> counts once, by the first of
// them; <failure> or <error> overrides <skipped>. A failure whose message is
// go test's "FAIL pkg [build failed]" line (gotestsum copies a package's
// output into a TestMain testcase) is a build failure.
//
// # Bad input
//
// A fault in a file is a *Error naming the file and, where known, the line
// (a glob that matches no file is an error naming the glob, and so are
// globs that together match more than MaxFiles (10,000) report files or
// more than MaxTotalSize (1 GiB) in them, found before any is parsed):
//
//	testreport: reports/junit.xml: line 12: XML syntax error: unexpected EOF
//
// Empty files, binary files (a NUL byte in the first KiB), files of an
// unknown format, malformed XML, a line that starts like a JSON event but is
// not valid JSON, XML nested deeper than MaxDepth, a DOCTYPE that declares
// entities or carries an internal DTD subset, and markup (a tag or
// declaration, attribute values aside) longer than 64 KiB are errors.
// encoding/xml never expands entities a document declares, and the DOCTYPE
// is refused before it could matter. Files larger than MaxFileSize (512 MiB)
// are refused: ParseFile checks the size before reading, and Parse stops
// with an error when its reader goes past the limit.
//
// Nothing is held without bound. A guard in front of the XML decoder cuts
// every text run, CDATA section, comment and attribute value to 64 KiB, and
// the attribute values of one tag to 256 KiB together, so that the decoder
// never buffers a huge token (it also leaves out the content of
// <system-out> and <system-err>, which nothing here reads and which is
// often most of a report); lines of go test -json and TAP longer than
// 1 MiB are skipped, as are go test -json events naming a package or test
// longer than 4 KiB; at most 10,000 running tests and packages are tracked.
// A Note reports each of these. A go test -json file whose last line is cut
// short keeps what came before it, with a Note. The failing list holds at
// most MaxFailing entries, Notes at most MaxNotes, and names and messages
// at most MaxText bytes each.
package testreport
