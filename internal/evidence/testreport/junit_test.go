package testreport

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// counts is the part of a Report most tests check.
type counts struct {
	Passed, Failed, Errored, Skipped int
	BuildFailed                      bool
	Failing                          []Failure
	Notes                            []string
}

func countsOf(r *Report) counts {
	return counts{r.Passed, r.Failed, r.Errored, r.Skipped, r.BuildFailed, r.Failing, r.Notes}
}

// wantParse parses in, named name, and checks its format and counts.
func wantParse(t *testing.T, name, in, format string, want counts) {
	t.Helper()
	got, err := Parse(strings.NewReader(in), name)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got.Format != format {
		t.Errorf("got format %q, want %q", got.Format, format)
	}
	if diff := cmp.Diff(want, countsOf(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// wantParseError parses in, named name, and checks the error's text and,
// when is is not nil, that it is is.
func wantParseError(t *testing.T, name, in string, is error, want string) error {
	t.Helper()
	_, err := Parse(strings.NewReader(in), name)
	if err == nil {
		t.Fatal("got no error")
	}
	if got := err.Error(); got != want {
		t.Errorf("got error %q, want %q", got, want)
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("got error %v, want one that is %v", err, is)
	}
	return err
}

func TestJUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want counts
	}{
		{
			name: "single testsuite root",
			in: `<testsuite name="s"><testcase classname="C" name="a"/>` +
				`<testcase classname="C" name="b"><failure message="boom">trace</failure></testcase>` +
				`<testcase classname="C" name="c"><error message="crash" type="E"/></testcase>` +
				`<testcase classname="C" name="d"><skipped/></testcase></testsuite>`,
			want: counts{Passed: 1, Failed: 2, Errored: 1, Skipped: 1, Failing: []Failure{
				{Name: "s/C.b", Message: "boom", Kind: KindFailure},
				{Name: "s/C.c", Message: "crash", Kind: KindError},
			}},
		},
		{
			name: "testcases count, not suite attributes",
			in: `<testsuites tests="99" failures="42"><testsuite name="s" tests="50" failures="7">` +
				`<testcase name="a"/><testcase name="b"/></testsuite></testsuites>`,
			want: counts{Passed: 2},
		},
		{
			name: "failure wins over skipped and counts once",
			in: `<testsuite><testcase name="x"><skipped/><failure message="first"/><error message="second"/>` +
				`<failure message="third"/></testcase></testsuite>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "x", Message: "first", Kind: KindFailure}}},
		},
		{
			name: "placeholder message falls back to the body",
			in:   `<testsuite><testcase name="T"><failure message="Failed">=== RUN   T&#xA;    x_test.go:9: real cause&#xA;--- FAIL: T (0.00s)&#xA;</failure></testcase></testsuite>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "T", Message: "x_test.go:9: real cause", Kind: KindFailure}}},
		},
		{
			name: "no message and no body: the type",
			in:   `<testsuite><testcase name="T"><failure type="AssertionError"/></testcase></testsuite>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "T", Message: "AssertionError", Kind: KindFailure}}},
		},
		{
			name: "multi-line message attribute: first non-blank line",
			in:   `<testsuite><testcase name="T"><failure message="&#10;  assert 1 == 2&#10;more"/></testcase></testsuite>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "T", Message: "assert 1 == 2", Kind: KindFailure}}},
		},
		{
			name: "CDATA body",
			in:   `<testsuite><testcase name="T"><failure><![CDATA[` + "\n  java.lang.AssertionError: <1> != <2>\n\tat X" + `]]></failure></testcase></testsuite>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "T", Message: "java.lang.AssertionError: <1> != <2>", Kind: KindFailure}}},
		},
		{
			name: "flaky failure passes, rerun failure stays failed",
			in: `<testsuite name="S"><testcase classname="S" name="a"><flakyFailure message="x"/><flakyError message="y"/></testcase>` +
				`<testcase classname="S" name="b"><failure message="still"/><rerunFailure message="again"/></testcase></testsuite>`,
			want: counts{Passed: 1, Failed: 1, Failing: []Failure{{Name: "S.b", Message: "still", Kind: KindFailure}},
				Notes: []string{"r.xml: 1 flaky test(s) passed on a rerun and count as passed"}},
		},
		{
			name: "rerun record alone is a failure",
			in:   `<testsuite><testcase name="a"><rerunError message="gone"/></testcase></testsuite>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "a", Message: "gone", Kind: KindFailure}}},
		},
		{
			name: "nested suites: innermost suite names the test, parents do not count",
			in: `<testsuites><testsuite name="outer" tests="5"><testsuite name="inner" tests="5">` +
				`<testcase classname="K" name="t"><failure message="m"/></testcase></testsuite></testsuite></testsuites>`,
			want: counts{Failed: 1, Failing: []Failure{{Name: "inner/K.t", Message: "m", Kind: KindFailure}}},
		},
		{
			name: "suite without testcases counts from its attributes",
			in: `<testsuites><testsuite name="a" tests="4" failures="1" errors="1" skipped="1"/>` +
				`<testsuite name="b"><testcase name="x"/></testsuite></testsuites>`,
			want: counts{Passed: 2, Failed: 2, Errored: 1, Skipped: 1,
				Notes: []string{`r.xml: suite "a" has no testcase elements; its counts come from its attributes`}},
		},
		{
			name: "bad suite attributes count as zero",
			in:   `<testsuite name="a" tests="-3" failures="many"/>`,
			want: counts{},
		},
		{
			name: "build failure line from a Go JUnit reporter",
			in:   `<testsuite name="p"><testcase name="TestMain"><failure message="Failed">FAIL&#x9;p [build failed]&#xA;</failure></testcase></testsuite>`,
			want: counts{Failed: 1, BuildFailed: true, Failing: []Failure{{Name: "p/TestMain", Message: "FAIL\tp [build failed]", Kind: KindBuild}}},
		},
		{
			name: "testcase inside a testcase is ignored",
			in:   `<testsuite><testcase name="a"><testcase name="b"><failure/></testcase></testcase></testsuite>`,
			want: counts{Passed: 1, Notes: []string{"r.xml: 1 testcase element(s) inside a testcase were ignored"}},
		},
		{
			name: "comments, processing instructions, namespaces and a plain DOCTYPE",
			in: `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE testsuite><!-- made by hand -->` +
				`<testsuite xmlns:x="urn:x" x:id="1"><?pi data?><testcase name="a"/></testsuite>`,
			want: counts{Passed: 1},
		},
		{
			name: "Latin-1 declared",
			in:   "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><testsuite><testcase name=\"caf\xe9\"><failure message=\"\xe9chec\"/></testcase></testsuite>",
			want: counts{Failed: 1, Failing: []Failure{{Name: "café", Message: "échec", Kind: KindFailure}}},
		},
		{
			name: "windows-1252 declared",
			in:   "<?xml version=\"1.0\" encoding=\"windows-1252\"?><testsuite><testcase name=\"a\"><failure message=\"\x93quoted\x94 \x80\"/></testcase></testsuite>",
			want: counts{Failed: 1, Failing: []Failure{{Name: "a", Message: "“quoted” €", Kind: KindFailure}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParse(t, "r.xml", tt.in, FormatJUnit, tt.want)
		})
	}
}

func TestJUnitNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		suite, class, name, want string
	}{
		{"com.example.FooTest", "com.example.FooTest", "testX", "com.example.FooTest.testX"},
		{"pytest", "tests.test_math", "test_add", "pytest/tests.test_math.test_add"},
		{"Calculator", "Calculator adds", "Calculator adds", "Calculator adds"},
		{"example.com/p", "example.com/p", "TestX/sub", "example.com/p.TestX/sub"},
		{"", "", "lonely", "lonely"},
		{"s", "", "", "s/"},
		{`Tests\Unit\MoneyTest`, "Tests.Unit.MoneyTest", "testAdd", "Tests.Unit.MoneyTest.testAdd"},
		{"crate", "crate", "tests::it_works", "crate.tests::it_works"},
		{"suite", "Klass", "Klass.method", "suite/Klass.method"},
	}
	for _, tt := range tests {
		p := &junitParser{}
		if tt.suite != "" {
			p.suites = []junitSuite{{name: tt.suite}}
		}
		if got := p.caseName(tt.class, tt.name); got != tt.want {
			t.Errorf("caseName(suite %q, class %q, name %q) = %q, want %q", tt.suite, tt.class, tt.name, got, tt.want)
		}
	}
}

func TestJUnitErrors(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("<testsuite>", MaxDepth+1) + strings.Repeat("</testsuite>", MaxDepth+1)
	tests := []struct {
		name string
		in   string
		is   error  // errors.Is target, or nil
		want string // the whole message
	}{
		{
			name: "unexpected EOF names the line",
			in:   "<testsuites>\n<testsuite>\n<testcase name=\"a\">\n",
			want: "testreport: r.xml: line 4: XML syntax error: unexpected EOF",
		},
		{
			name: "mismatched end tag",
			in:   "<testsuite>\n<testcase name=\"a\">\n</testsuite>",
			want: "testreport: r.xml: line 3: XML syntax error: element <testcase> closed by </testsuite>",
		},
		{
			name: "entity declarations",
			in:   "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n <!ENTITY lol2 \"&lol;&lol;&lol;\">\n]>\n<testsuite name=\"&lol2;\"/>",
			is:   ErrEntity,
			want: "testreport: r.xml: line 5: entity declarations are not allowed",
		},
		{
			name: "internal DTD subset",
			in:   "<!DOCTYPE testsuite [ <!ELEMENT testsuite ANY> ]><testsuite/>",
			is:   ErrDTD,
			want: "testreport: r.xml: line 1: DTD internal subsets are not allowed",
		},
		{
			name: "too deep",
			in:   deep,
			is:   ErrTooDeep,
			want: "testreport: r.xml: line 1: elements nested deeper than 64",
		},
		{
			name: "undeclared entity",
			in:   "<testsuite name=\"&bogus;\"/>",
			want: "testreport: r.xml: line 1: XML syntax error: invalid character entity &bogus;",
		},
		{
			name: "another root element",
			in:   "<?xml version=\"1.0\"?>\n<html><body/></html>",
			is:   ErrUnknownFormat,
			want: "testreport: r.xml: not a JUnit XML, go test -json or TAP report (the root element is <html>)",
		},
		{
			name: "no element at all",
			in:   "<!-- only a comment -->",
			is:   ErrUnknownFormat,
			want: "testreport: r.xml: not a JUnit XML, go test -json or TAP report",
		},
		{
			name: "unknown encoding",
			in:   "<?xml version=\"1.0\" encoding=\"EBCDIC\"?><testsuite/>",
			want: `testreport: r.xml: xml: opening charset "EBCDIC": unsupported encoding "EBCDIC"; write the report as UTF-8`,
		},
		{
			name: "a tag longer than the limit",
			in:   "<testsuite>\n<testcase " + strings.Repeat("a=\"\" ", maxMarkup/5+1) + "/></testsuite>",
			want: "testreport: r.xml: line 2: tag longer than 64 KiB",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := wantParseError(t, "r.xml", tt.in, tt.is, tt.want)
			var e *Error
			if !errors.As(err, &e) || e.File != "r.xml" {
				t.Errorf("got error %#v, want an *Error for r.xml", err)
			}
		})
	}
}

// TestJUnitLongValues checks that values past the guard's limit are cut,
// the result says so, and line numbers after the cut stay right.
func TestJUnitLongValues(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x\n", maxValue) // twice the limit, with newlines
	in := "<testsuite>\n" +
		`<testcase name="a"><failure message="` + strings.Repeat("é", maxValue) + `">` + long + "</failure>\n" +
		"<system-out><![CDATA[" + long + "]]></system-out><!--" + long + "--></testcase>\n" +
		`<testcase name="b"><failure>` + strings.Repeat("&amp;", maxValue) + "</failure></testcase>\n" +
		"</testsuite>\n"
	got, err := Parse(strings.NewReader(in), "r.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got.Failed != 2 || len(got.Failing) != 2 {
		t.Fatalf("got %d failed, %v, want 2 failing", got.Failed, got.Failing)
	}
	if m := got.Failing[0].Message; len(m) > MaxText || !strings.HasPrefix(m, "ééé") {
		t.Errorf("got message of %d bytes starting %q, want at most %d bytes of é", len(m), m[:min(len(m), 6)], MaxText)
	}
	if m := got.Failing[1].Message; !strings.HasPrefix(m, "&&&") {
		t.Errorf("got message %q..., want &&&...", m[:min(len(m), 6)])
	}
	// The CDATA is in <system-out>, whose content is skipped, not cut.
	want := []string{"r.xml: 4 over-long text or attribute value(s) were cut (at most 64 KiB a value, 256 KiB for all the attributes of a tag)"}
	if diff := cmp.Diff(want, got.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}

	// All the attribute values of one tag share a budget.
	var attrs strings.Builder
	for i := range 8 {
		attrs.WriteString(" a" + strconv.Itoa(i) + `="` + strings.Repeat("v", 60<<10) + `"`)
	}
	got, err = Parse(strings.NewReader(`<testsuite><testcase name="x"`+attrs.String()+`/></testsuite>`), "r.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want = []string{"r.xml: 4 over-long text or attribute value(s) were cut (at most 64 KiB a value, 256 KiB for all the attributes of a tag)"}
	if diff := cmp.Diff(want, got.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}

	// A syntax error after cut or skipped values is reported at the
	// file's line.
	for _, elem := range []string{"system-out", "failure"} {
		bad := "<testsuite>\n<testcase name=\"a\"><" + elem + ">" + long + "</" + elem + "></testcase>\n<oops>\n</testsuite>\n"
		_, err = Parse(strings.NewReader(bad), "r.xml")
		wantErr := "testreport: r.xml: line " + strconv.Itoa(4+maxValue) + ": XML syntax error: element <oops> closed by </testsuite>"
		if err == nil || err.Error() != wantErr {
			t.Errorf("%s: got error %v, want %q", elem, err, wantErr)
		}
	}
}
