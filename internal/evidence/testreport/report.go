package testreport

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// Limits on what a Report holds and on what is read.
const (
	// MaxFailing bounds Report.Failing.
	MaxFailing = 100
	// MaxNotes bounds Report.Notes; the last kept note says that more
	// were left out.
	MaxNotes = 32
	// MaxText bounds a failure's Name and Message, in bytes.
	MaxText = 1024
	// MaxFileSize is the largest report read, in bytes (512 MiB).
	MaxFileSize = 512 << 20
	// MaxDepth bounds the nesting of XML elements.
	MaxDepth = 64
	// MaxFiles bounds the report files that the globs of one call match
	// together.
	MaxFiles = 10000
	// MaxTotalSize bounds the bytes of those files together (1 GiB): twice
	// the largest report read. A file larger than MaxFileSize does not
	// count: it is refused on its own, naming it.
	MaxTotalSize = 2 * MaxFileSize
)

// Kinds of Failure.
const (
	KindFailure = "failure" // a test assertion failed
	KindError   = "error"   // a test errored (JUnit <error>)
	KindBuild   = "build"   // the code did not build
)

// Formats of a Report.
const (
	FormatJUnit  = "junit"
	FormatGoTest = "gotest-json"
	FormatTAP    = "tap"
	FormatMixed  = "mixed"
)

// Sentinel faults, wrapped in an *Error that names the file.
var (
	ErrEmpty         = errors.New("empty file")
	ErrBinary        = errors.New("binary file")
	ErrUnknownFormat = errors.New("not a JUnit XML, go test -json or TAP report")
	ErrTooLarge      = fmt.Errorf("file larger than %d MiB", MaxFileSize>>20)
	ErrEntity        = errors.New("entity declarations are not allowed")
	ErrDTD           = errors.New("DTD internal subsets are not allowed")
	ErrTooDeep       = fmt.Errorf("elements nested deeper than %d", MaxDepth)
	ErrTooManyFiles  = fmt.Errorf("matches more than %d report files", MaxFiles)
	ErrTooMuchReport = fmt.Errorf("the report files matched hold more than %d MiB", MaxTotalSize>>20)
	// ErrNoMatch: a glob matched no report file.
	ErrNoMatch = errors.New("matches no file")
)

// Error is a fault in one report file. Line is 0 when it is not known.
type Error struct {
	File string
	Line int
	Err  error
}

// Error returns "testreport: FILE: line N: fault".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("testreport: %s: line %d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("testreport: %s: %v", e.File, e.Err)
}

// Unwrap returns the fault.
func (e *Error) Unwrap() error { return e.Err }

// Failure is one failing test (or a build failure).
type Failure struct {
	Name    string // "suite/class.test" style qualified name, or package for build failures
	Message string // first line of the failure message (trimmed, bounded to 1 KiB)
	Kind    string // "failure", "error" or "build"
}

// Report is the merged result of one or more test report files.
type Report struct {
	Format      string    // "junit", "gotest-json", "tap"; "mixed" when several formats merged
	Passed      int       // tests that passed
	Failed      int       // failures + errors (Errored is the errors part of it)
	Errored     int       // tests that errored
	Skipped     int       // tests skipped
	BuildFailed bool      // a build failure (go test -json build-fail, compile error); scores worse than a failing test
	Failing     []Failure // bounded to MaxFailing, in document order; build failures first
	Files       []string  // files read
	Notes       []string  // what was skipped or truncated, human readable (bounded)
}

// Merge adds o into r: counts add up, failing lists join (build failures of
// both first, then test failures of both, bounded to MaxFailing), files and
// notes append. Merging reports of different formats makes r "mixed". A nil
// o changes nothing.
func (r *Report) Merge(o *Report) {
	if o == nil {
		return
	}
	switch {
	case r.Format == "":
		r.Format = o.Format
	case o.Format != "" && o.Format != r.Format:
		r.Format = FormatMixed
	}
	r.Passed += o.Passed
	r.Failed += o.Failed
	r.Errored += o.Errored
	r.Skipped += o.Skipped
	r.BuildFailed = r.BuildFailed || o.BuildFailed

	var all failures
	for _, f := range slices.Concat(r.Failing, o.Failing) {
		all.add(f.Name, f.Message, f.Kind)
	}
	r.Failing = all.list()

	r.Files = append(r.Files, o.Files...)
	notes := slices.DeleteFunc(slices.Concat(r.Notes, o.Notes), func(n string) bool {
		return n == notesOmitted || strings.HasPrefix(n, failingPrefix)
	})
	r.Notes = nil
	for _, n := range notes {
		r.note(n)
	}
	r.noteFailingCut()
}

const (
	notesOmitted  = "further notes were left out"
	failingPrefix = "failing list holds "
)

// note appends a note, keeping at most MaxNotes.
func (r *Report) note(s string) {
	switch {
	case len(r.Notes) < MaxNotes-1:
		r.Notes = append(r.Notes, s)
	case len(r.Notes) == MaxNotes-1:
		r.Notes = append(r.Notes, notesOmitted)
	}
}

// noteFailingCut adds a note when the failing list is full and more
// failures were counted than it holds.
func (r *Report) noteFailingCut() {
	if len(r.Failing) == MaxFailing && r.Failed > MaxFailing {
		r.note(fmt.Sprintf("%sthe first %d of %d failures", failingPrefix, MaxFailing, r.Failed))
	}
}

// failures collects failures while a file is read: build failures and test
// failures apart, each bounded, so that build failures come first.
type failures struct {
	builds, tests []Failure
}

func (f *failures) add(name, msg, kind string) {
	x := Failure{Name: bound(name), Message: firstLine(msg), Kind: kind}
	if kind == KindBuild {
		if len(f.builds) < MaxFailing {
			f.builds = append(f.builds, x)
		}
		return
	}
	if len(f.tests) < MaxFailing {
		f.tests = append(f.tests, x)
	}
}

// testsFull reports whether no more test failures can be listed.
func (f *failures) testsFull() bool { return len(f.tests) >= MaxFailing }

// list is the build failures then the test failures, bounded to MaxFailing.
func (f *failures) list() []Failure {
	n := min(len(f.builds)+len(f.tests), MaxFailing)
	if n == 0 {
		return nil
	}
	out := append(make([]Failure, 0, n), f.builds[:min(len(f.builds), n)]...)
	return append(out, f.tests[:min(len(f.tests), n-len(out))]...)
}

// firstLine returns the first non-blank line of s, trimmed and bounded.
func firstLine(s string) string {
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if t := strings.TrimSpace(line); t != "" {
			return bound(t)
		}
	}
	return ""
}

// bound trims s, makes it valid UTF-8 and cuts it to MaxText bytes at a
// rune boundary. The result is a copy, so that it does not keep a large
// string it was cut from alive.
func bound(s string) string {
	s = cutText(strings.TrimSpace(s))
	if !utf8.ValidString(s) {
		// Each invalid byte becomes a three-byte replacement character:
		// cut again after replacing.
		return cutText(strings.ToValidUTF8(s, "\uFFFD"))
	}
	return strings.Clone(s)
}

// cutText cuts s to MaxText bytes at a rune boundary.
func cutText(s string) string { return textcut.Bytes(s, MaxText, "") }

// meaningful reports whether a line of test output says something about a
// failure: not blank, and not one of the framing lines that go test (and
// reports that embed its output) print around every test.
func meaningful(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	for _, p := range [...]string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL:", "--- PASS:", "--- SKIP:"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}
