package testreport

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
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
			g := newXMLGuard(strings.NewReader(tt.in))
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
