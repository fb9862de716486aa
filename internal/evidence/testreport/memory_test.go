package testreport

import (
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields head, then body repeated to at most n bytes, then
// tail.
func repeatReader(head, body string, n int64, tail string) io.Reader {
	unit := strings.Repeat(body, 4096/len(body)+1)
	n -= n % int64(len(body)) // whole copies of body only
	return io.MultiReader(strings.NewReader(head), io.LimitReader(&cycle{s: unit}, n), strings.NewReader(tail))
}

// cycle repeats s without end.
type cycle struct {
	s string
	i int // offset in s of the next byte
}

func (c *cycle) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], c.s[c.i:])
		n += k
		c.i = (c.i + k) % len(c.s)
	}
	return n, nil
}

// TestBoundedMemory reads hostile reports with one huge token each and
// checks that the bytes allocated stay far below the size of the token. It
// does not call t.Parallel: it measures the whole process's allocations.
func TestBoundedMemory(t *testing.T) {
	const huge = 8 << 20
	tests := []struct {
		name string
		r    func() io.Reader
		want string // a note the result must carry
	}{
		{"XML text", func() io.Reader {
			return repeatReader("<testsuite><testcase name=\"a\"><failure>", "log line &amp; more\n", huge, "</failure></testcase></testsuite>")
		}, "r: 1 over-long text or attribute value(s) were cut (at most 64 KiB a value, 256 KiB for all the attributes of a tag)"},
		{"XML system-out, skipped", func() io.Reader {
			return repeatReader("<testsuite><testcase name=\"a\"><system-out>", "<![CDATA[</system-out>]]>&amp;<x>\n</x>", huge, "</system-out></testcase></testsuite>")
		}, ""},
		{"XML CDATA", func() io.Reader {
			return repeatReader("<testsuite><testcase name=\"a\"><failure><![CDATA[", "]] > x\n", huge, "]]></failure></testcase></testsuite>")
		}, "r: 1 over-long text or attribute value(s) were cut (at most 64 KiB a value, 256 KiB for all the attributes of a tag)"},
		{"XML attribute", func() io.Reader {
			return repeatReader("<testsuite><testcase name=\"a\"><failure message=\"", "é&lt;x&gt;", huge, "\"/></testcase></testsuite>")
		}, "r: 1 over-long text or attribute value(s) were cut (at most 64 KiB a value, 256 KiB for all the attributes of a tag)"},
		{"go test -json line", func() io.Reader {
			return repeatReader(`{"Action":"start","Package":"p"}`+"\n"+`{"Action":"output","Package":"p","Output":"`, "x", huge, "\"}\n")
		}, "r: 1 line(s) longer than 1 MiB were skipped"},
		{"TAP line", func() io.Reader {
			return repeatReader("1..1\nok 1 ", "y", huge, "\n")
		}, "r: 1 line(s) longer than 1 MiB were skipped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			rep, err := Parse(tt.r(), "r")
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
				t.Errorf("got %d bytes allocated for a %d-byte token, want at most %d", alloc, huge, 2<<20)
			}
			found := tt.want == ""
			for _, n := range rep.Notes {
				found = found || n == tt.want
			}
			if !found {
				t.Errorf("got notes %q, want %q among them", rep.Notes, tt.want)
			}
		})
	}
}
