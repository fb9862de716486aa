package testreport

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// maxBody is how much of a <failure> or <error> element's text is kept to
// find its first meaningful line.
const maxBody = 8 << 10

// Outcomes of a testcase.
const (
	casePassed = iota
	caseSkipped
	caseFailed
	caseErrored
)

// junitSuite is an open <testsuite>.
type junitSuite struct {
	depth    int
	name     string
	hasCases bool
	hasInner bool
	// the suite's own counts, used only when it holds no testcase
	tests, failures, errors, skipped int
}

// junitCase is the open <testcase>.
type junitCase struct {
	depth     int
	class     string // the testcase's classname attribute
	outcome   int
	kind      string
	msg, typ  string
	body      []byte
	bodyDepth int    // depth of the <failure>/<error> whose text is kept; 0 when none
	short     string // the testcase's name attribute
	flaky     bool
	rerun     bool
}

type junitParser struct {
	name  string
	g     *xmlGuard
	d     *xml.Decoder
	rep   *Report
	fails failures

	depth  int
	root   bool
	suites []junitSuite
	tc     *junitCase
	cur    junitCase // storage for tc, reused

	flaky       int
	summarised  []string // suites counted from their attributes
	summaryMore int
	nested      int // testcases inside testcases, ignored
}

// parseJUnit reads a JUnit XML report token by token. skipOutput leaves
// the content of <system-out> and <system-err> unread (Parse always does;
// tests compare).
func parseJUnit(r io.Reader, name string, skipOutput bool) (*Report, error) {
	g := newXMLGuard(r, skipOutput)
	d := xml.NewDecoder(g)
	d.Strict = true
	d.CharsetReader = charsetReader
	p := &junitParser{name: name, g: g, d: d, rep: &Report{}}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, p.fault(err)
		}
		if err := p.token(tok); err != nil {
			return nil, err
		}
	}
	if !p.root {
		return nil, &Error{File: name, Err: ErrUnknownFormat}
	}
	p.finish()
	return p.rep, nil
}

// fault turns a decoder error into an *Error with the file's line.
func (p *junitParser) fault(err error) error {
	var ge *guardError
	var se *xml.SyntaxError
	switch {
	case errors.As(err, &ge):
		return &Error{File: p.name, Line: ge.line, Err: errors.New(ge.msg)}
	case errors.As(err, &se):
		line := se.Line + p.g.droppedBefore(p.d.InputOffset())
		return &Error{File: p.name, Line: line, Err: fmt.Errorf("XML syntax error: %s", se.Msg)}
	case !errors.Is(err, ErrTooLarge) && strings.HasPrefix(err.Error(), "xml: "):
		return &Error{File: p.name, Err: err} // the decoder's own, e.g. an unknown charset
	default:
		return &Error{File: p.name, Err: readErr(err)}
	}
}

// errAt returns an *Error at the decoder's current line.
func (p *junitParser) errAt(err error) error {
	line, _ := p.d.InputPos()
	return &Error{File: p.name, Line: line + p.g.droppedBefore(p.d.InputOffset()), Err: err}
}

func (p *junitParser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		p.depth++
		if p.depth > MaxDepth {
			return p.errAt(ErrTooDeep)
		}
		return p.start(t)
	case xml.EndElement:
		p.end()
		p.depth--
	case xml.CharData:
		if p.tc != nil && p.tc.bodyDepth > 0 && len(p.tc.body) < maxBody {
			p.tc.body = append(p.tc.body, t[:min(len(t), maxBody-len(p.tc.body))]...)
		}
	case xml.Directive:
		return p.directive(t)
	}
	return nil
}

func (p *junitParser) directive(t xml.Directive) error {
	if containsFold(t, "<!ENTITY") || bytes.HasPrefix(t, []byte("ENTITY")) {
		return p.errAt(ErrEntity)
	}
	if bytes.HasPrefix(t, []byte("DOCTYPE")) && bytes.IndexByte(t, '[') >= 0 {
		return p.errAt(ErrDTD)
	}
	return nil
}

func containsFold(b []byte, s string) bool {
	return bytes.Contains(bytes.ToUpper(b), []byte(s))
}

func (p *junitParser) start(t xml.StartElement) error {
	local := t.Name.Local
	if !p.root {
		if p.depth != 1 || local != "testsuites" && local != "testsuite" {
			return &Error{File: p.name, Err: fmt.Errorf("%w (the root element is <%s>)", ErrUnknownFormat, bound(local))}
		}
		p.root = true
	}
	if tc := p.tc; tc != nil {
		if p.depth != tc.depth+1 {
			return nil
		}
		switch local {
		case "failure", "error":
			if tc.outcome == caseFailed || tc.outcome == caseErrored {
				return nil
			}
			tc.outcome, tc.kind = caseFailed, KindFailure
			if local == "error" {
				tc.outcome, tc.kind = caseErrored, KindError
			}
			tc.msg, tc.typ = attr(t, "message"), attr(t, "type")
			tc.bodyDepth = p.depth
		case "skipped":
			if tc.outcome == casePassed {
				tc.outcome = caseSkipped
			}
		case "flakyFailure", "flakyError":
			tc.flaky = true
		case "rerunFailure", "rerunError":
			tc.rerun = true
			if tc.msg == "" {
				tc.msg, tc.typ = attr(t, "message"), attr(t, "type")
			}
		case "testcase":
			p.nested++
		}
		return nil
	}
	switch local {
	case "testsuite":
		if n := len(p.suites); n > 0 {
			p.suites[n-1].hasInner = true
		}
		p.suites = append(p.suites, junitSuite{
			depth:    p.depth,
			name:     attr(t, "name"),
			tests:    intAttr(t, "tests"),
			failures: intAttr(t, "failures"),
			errors:   intAttr(t, "errors"),
			skipped:  max(intAttr(t, "skipped"), intAttr(t, "skip"), intAttr(t, "disabled")),
		})
	case "testcase":
		if n := len(p.suites); n > 0 {
			p.suites[n-1].hasCases = true
		}
		p.cur = junitCase{depth: p.depth, body: p.cur.body[:0]}
		p.tc = &p.cur
		p.tc.short = strings.TrimSpace(attr(t, "name"))
		p.tc.class = attr(t, "classname")
	}
	return nil
}

func (p *junitParser) end() {
	tc := p.tc
	if tc == nil {
		if n := len(p.suites); n > 0 && p.suites[n-1].depth == p.depth {
			p.endSuite()
		}
		return
	}
	switch p.depth {
	case tc.bodyDepth:
		tc.bodyDepth = -1 // the text of the first result element only
	case tc.depth:
		p.endCase()
		p.tc = nil
	}
}

func (p *junitParser) endCase() {
	tc := p.tc
	rep := p.rep
	if tc.rerun && tc.outcome == casePassed && !tc.flaky {
		// A rerun record without the <failure> it reruns: still a failure.
		tc.outcome, tc.kind = caseFailed, KindFailure
	}
	if tc.flaky && tc.outcome == casePassed {
		p.flaky++
	}
	switch tc.outcome {
	case casePassed:
		rep.Passed++
	case caseSkipped:
		rep.Skipped++
	case caseFailed, caseErrored:
		rep.Failed++
		if p.fails.testsFull() && !bytes.Contains(tc.body, buildFailed) && !strings.Contains(tc.msg, "[build failed]") {
			// Counted; the list has no room for it.
			if tc.outcome == caseErrored {
				rep.Errored++
			}
			return
		}
		msg := failureMessage(tc.msg, string(tc.body), tc.typ, tc.short)
		kind := tc.kind
		if strings.HasSuffix(msg, "[build failed]") {
			// go test's line for a package that did not compile, as
			// gotestsum copies it into a TestMain testcase.
			kind = KindBuild
			rep.BuildFailed = true
		} else if tc.outcome == caseErrored {
			rep.Errored++
		}
		p.fails.add(p.caseName(tc.class, tc.short), msg, kind)
	}
}

var buildFailed = []byte("[build failed]")

// failureMessage picks the first line of a JUnit failure: the message
// attribute unless it is a placeholder, then the body, then the type.
func failureMessage(msg, body, typ, self string) string {
	m := firstLine(msg)
	if m != "" && !placeholder(m) {
		return m
	}
	if b := bodyLine(body, self); b != "" {
		return b
	}
	if m != "" {
		return m
	}
	return firstLine(typ)
}

// bodyLine returns the first meaningful line of a failure's text, skipping
// a line that only names the test (PHPUnit starts with "Class::test"). A
// Rust panic header ("thread 'x' panicked at src/lib.rs:9:5:") is joined
// with the panic message on the next line, as Rust before 1.73 printed it.
func bodyLine(body, self string) string {
	var head string
	for body != "" {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if !meaningful(line) {
			continue
		}
		t := strings.TrimSpace(line)
		if head != "" {
			return bound(head + " " + t)
		}
		if self != "" && (t == self || strings.HasSuffix(t, "::"+self) || strings.HasSuffix(t, "."+self)) {
			continue
		}
		if strings.HasPrefix(t, "thread '") && strings.Contains(t, "' panicked at ") && strings.HasSuffix(t, ":") {
			head = t
			continue
		}
		return bound(t)
	}
	return bound(head)
}

func placeholder(m string) bool {
	switch strings.ToLower(m) {
	case "failed", "failure", "error", "fail":
		return true
	}
	return false
}

func (p *junitParser) endSuite() {
	n := len(p.suites) - 1
	s := p.suites[n]
	p.suites = p.suites[:n]
	if s.hasCases || s.hasInner || s.tests+s.failures+s.errors+s.skipped == 0 {
		return
	}
	rep := p.rep
	failed := s.failures + s.errors
	rep.Failed += failed
	rep.Errored += s.errors
	rep.Skipped += s.skipped
	rep.Passed += max(0, s.tests-failed-s.skipped)
	if len(p.summarised) < 5 {
		p.summarised = append(p.summarised, strconv.Quote(bound(s.name)))
	} else {
		p.summaryMore++
	}
}

func (p *junitParser) finish() {
	rep := p.rep
	rep.Failing = p.fails.list()
	if len(p.summarised) > 0 {
		more := ""
		if p.summaryMore > 0 {
			more = fmt.Sprintf(" and %d more", p.summaryMore)
		}
		rep.note(fmt.Sprintf("%s: suite %s%s has no testcase elements; its counts come from its attributes",
			p.name, strings.Join(p.summarised, ", "), more))
	}
	if p.flaky > 0 {
		rep.note(fmt.Sprintf("%s: %d flaky test(s) passed on a rerun and count as passed", p.name, p.flaky))
	}
	if p.nested > 0 {
		rep.note(fmt.Sprintf("%s: %d testcase element(s) inside a testcase were ignored", p.name, p.nested))
	}
	if p.g.cut > 0 {
		rep.note(fmt.Sprintf("%s: %d over-long text or attribute value(s) were cut (at most %d KiB a value, %d KiB for all the attributes of a tag)", p.name, p.g.cut, maxValue>>10, maxTagValues>>10))
	}
}

// caseName qualifies a testcase name as "suite/class.test".
func (p *junitParser) caseName(class, name string) string {
	class, name = strings.TrimSpace(class), strings.TrimSpace(name)
	full := name
	if class != "" && class != name && !strings.HasPrefix(name, class) {
		if full == "" {
			full = class
		} else {
			full = class + "." + name
		}
	}
	if n := len(p.suites); n > 0 {
		suite := strings.TrimSpace(p.suites[n-1].name)
		if norm := dotted(suite); suite != "" && norm != dotted(class) && !strings.HasPrefix(dotted(full), norm) {
			full = suite + "/" + full
		}
	}
	return full
}

// dotted writes the namespace separators of PHP (a backslash), C++ and Rust
// (::) as dots, to compare suite names with class names.
func dotted(s string) string {
	if strings.ContainsAny(s, "\\:") {
		s = dotReplacer.Replace(s)
	}
	return s
}

var dotReplacer = strings.NewReplacer("\\", ".", "::", ".")

// attr returns the value of the attribute named local, or "".
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// intAttr returns a count attribute, 0 when absent, bad or negative, and
// bounded so that sums cannot overflow.
func intAttr(t xml.StartElement, local string) int {
	v := strings.TrimSpace(attr(t, local))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return min(n, 1<<30)
}

// charsetReader lets the decoder read the 8-bit encodings some reporters
// declare.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "us-ascii", "ascii", "utf8":
		return input, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1":
		return charmap.ISO8859_1.NewDecoder().Reader(input), nil
	case "windows-1252", "cp1252":
		return charmap.Windows1252.NewDecoder().Reader(input), nil
	}
	return nil, fmt.Errorf("unsupported encoding %q; write the report as UTF-8", charset)
}
