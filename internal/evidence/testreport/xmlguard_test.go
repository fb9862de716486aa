package testreport

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestXMLGuardCuts checks that what the guard passes on after cutting a
// value is still well-formed XML, wherever the cut falls.
func TestXMLGuardCuts(t *testing.T) {
	t.Parallel()
	x := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name string
		in   string
	}{
		{"text", "<a>" + x(2*maxValue) + "</a>"},
		{"entity across the limit", "<a>" + x(maxValue-2) + "&amp;&lt;" + x(10) + "</a>"},
		{"character reference across the limit", "<a>" + x(maxValue-3) + "&#x1F600;" + x(10) + "</a>"},
		{"UTF-8 across the limit", "<a>" + x(maxValue-1) + "ééé" + x(10) + "</a>"},
		{"attribute with > and quotes", `<a b="` + x(maxValue-1) + `>'x'` + x(10) + `" c='"'/>`},
		{"attribute entity across the limit", `<a b='` + x(maxValue-1) + `&quot;` + x(10) + `'/>`},
		{"CDATA with ]] across the limit", "<a><![CDATA[" + x(maxValue-1) + "]]" + x(10) + "]]></a>"},
		{"CDATA ending at the limit", "<a><![CDATA[" + x(maxValue-2) + "]]]]></a>"},
		{"comment with - across the limit", "<!--" + x(maxValue-1) + "-" + x(10) + "--><a/>"},
		{"comment ending at the limit", "<a><!--" + x(maxValue-1) + "--></a>"},
		{"processing instruction", "<?pi " + x(maxValue) + "?" + x(3) + "?><a/>"},
		{"newlines in a cut value", "<a>" + strings.Repeat("x\n", maxValue) + "</a>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := newXMLGuard(strings.NewReader(tt.in), false)
			d := xml.NewDecoder(g)
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("decoding the guarded stream: %v", err)
				}
			}
			if g.cut != 1 {
				t.Errorf("got %d cuts, want 1", g.cut)
			}
		})
	}
}

// skipSamples hold <system-out> and <system-err> content that could fool a
// careless skip.
var skipSamples = []string{
	"<testsuite><testcase name=\"a\"><system-out><![CDATA[</system-out><failure/>]]></system-out><failure message=\"m\"/></testcase></testsuite>",
	"<testsuite><testcase name=\"a\"><system-out><!-- </system-out> --><x><system-out>in</system-out></x></system-out><error/></testcase></testsuite>",
	"<testsuite><testcase name=\"a\"><system-out/><system-err a=\">\" b='/'>x</system-err><skipped/></testcase></testsuite>",
	"<testsuite><testcase name=\"a\"><system-out ><?pi </system-out>?>&lt;failure/&gt;</system-out ></testcase></testsuite>",
	"<testsuite>\n<system-err>\n\n</system-err>\n<testcase name=\"a\"><failure>\nline\n</failure></testcase></testsuite>",
}

func TestSkipOutput(t *testing.T) {
	t.Parallel()
	for i, s := range skipSamples {
		want, err := parseJUnit(strings.NewReader(s), "r.xml", false)
		if err != nil {
			t.Fatalf("sample %d: reading output: %v", i, err)
		}
		got, err := parseJUnit(strings.NewReader(s), "r.xml", true)
		if err != nil {
			t.Fatalf("sample %d: skipping output: %v", i, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sample %d: skipping output changed the report (-read +skipped):\n%s", i, diff)
		}
		if want.Total() == 0 {
			t.Errorf("sample %d: got no test counted", i)
		}
	}

	// What the decoder sees, and the line of an error after skipped lines.
	g := newXMLGuard(strings.NewReader("<a><system-out x=\"1\">\n<b>\n</b>\n</system-out><system-err/>\n</a>"), true)
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := "<a><system-out x=\"1\"></system-out><system-err/>\n</a>"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
	_, err = Parse(strings.NewReader("<testsuite><system-out>\n\n\n</system-out>\n<bad></testsuite>"), "r.xml")
	if want := "testreport: r.xml: line 5: XML syntax error: element <bad> closed by </testsuite>"; err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}
