package testreport

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"xml declaration", `<?xml version="1.0"?><testsuites/>`, FormatJUnit},
		{"xml after blank lines and a BOM", "\xEF\xBB\xBF\n\n  <testsuite/>", FormatJUnit},
		{"test2json", `{"Action":"start","Package":"p"}`, FormatGoTest},
		{"build event first", `{"ImportPath":"p","Action":"build-output","Output":"# p\n"}`, FormatGoTest},
		{"stderr before the events", "# p\n./p.go:1:1: oops\n{\"Action\":\"start\",\"Package\":\"p\"}\n", FormatGoTest},
		{"TAP version", "TAP version 13\n1..0\n", FormatTAP},
		{"TAP plan", "1..2\nok 1\nok 2\n", FormatTAP},
		{"TAP comments first", "# running\n# more\nok 1 - a\n", FormatTAP},
		{"TAP bail out only", "Bail out! no db\n", FormatTAP},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(strings.NewReader(tt.in), "r")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got.Format != tt.want {
				t.Errorf("got format %q, want %q", got.Format, tt.want)
			}
			if diff := cmp.Diff([]string{"r"}, got.Files); diff != "" {
				t.Errorf("files mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		is   error
		want string
	}{
		{"empty", "", ErrEmpty, "testreport: r: empty file"},
		{"blank", " \n\t\r\n", ErrEmpty, "testreport: r: empty file"},
		{"BOM only", "\xEF\xBB\xBF", ErrEmpty, "testreport: r: empty file"},
		{"binary", "\x7fELF\x02\x01\x01\x00\x00\x00", ErrBinary, "testreport: r: binary file"},
		{"NUL after text", "ok 1\n\x00", ErrBinary, "testreport: r: binary file"},
		{"UTF-16", "\xFF\xFE<\x00t\x00", ErrBinary, "testreport: r: binary file: UTF-16 text; write the report as UTF-8"},
		{"prose", "Hello, world.\nThis is not a report.\n", ErrUnknownFormat, "testreport: r: not a JUnit XML, go test -json or TAP report"},
		{"only comments", "# nothing\n# here\n", ErrUnknownFormat, "testreport: r: not a JUnit XML, go test -json or TAP report"},
		{"JSON array", `[{"Action":"run"}]`, ErrUnknownFormat, "testreport: r: not a JUnit XML, go test -json or TAP report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParseError(t, "r", tt.in, tt.is, tt.want)
		})
	}
}

// endless yields a report that never ends: a TAP plan, then comments.
type endless struct{ started bool }

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	if !e.started {
		e.started = true
		n = copy(p, "1..1\nok 1\n")
	}
	for n < len(p) {
		p[n] = "# more\n"[n%7]
		n++
	}
	return n, nil
}

func TestParseSizeLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		r    func() io.Reader
	}{
		{"tap", func() io.Reader { return &endless{} }},
		{"junit", func() io.Reader {
			return io.MultiReader(strings.NewReader("<testsuite><system-out>"), &endless{started: true})
		}},
		{"gotest", func() io.Reader {
			return io.MultiReader(strings.NewReader("{\"Action\":\"start\",\"Package\":\"p\"}\n"), &endless{started: true})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parse(tt.r(), "big", 1<<20)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("got error %v, want one that is ErrTooLarge", err)
			}
			if !strings.HasPrefix(err.Error(), "testreport: big: ") {
				t.Errorf("got error %q, want it to name the file", err)
			}
		})
	}
}

func TestParseFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	big := filepath.Join(dir, "big.xml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: refused by its size before a byte is read.
	if err := f.Truncate(MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ParseFile(big)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), big+": file larger than 512 MiB (536870913 bytes); reports that large are refused") {
		t.Errorf("got error %v, want ErrTooLarge naming %s", err, big)
	}

	_, err = ParseFile(dir)
	if want := "testreport: " + dir + ": is a directory, not a report file"; err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}

	missing := filepath.Join(dir, "missing.xml")
	_, err = ParseFile(missing)
	if want := "testreport: " + missing + ": open: no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got error %v, want one that is os.ErrNotExist", err)
	}

	ok := filepath.Join(dir, "ok.tap")
	if err := os.WriteFile(ok, []byte("1..1\nok 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ParseFile(ok)
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	want := &Report{Format: FormatTAP, Passed: 1, Files: []string{ok}}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	a := &Report{Format: FormatJUnit, Passed: 3, Failed: 2, Errored: 1, Skipped: 1,
		Failing: []Failure{{Name: "a1", Kind: KindFailure}, {Name: "a2", Kind: KindError}},
		Files:   []string{"a.xml"}, Notes: []string{"a.xml: note"}}
	b := &Report{Format: FormatGoTest, Passed: 1, Failed: 2, BuildFailed: true,
		Failing: []Failure{{Name: "b0", Message: "x.go:1: undefined", Kind: KindBuild}, {Name: "b1", Kind: KindFailure}},
		Files:   []string{"b.json"}}
	got := &Report{}
	got.Merge(a)
	got.Merge(nil)
	got.Merge(b)
	want := &Report{Format: FormatMixed, Passed: 4, Failed: 4, Errored: 1, Skipped: 1, BuildFailed: true,
		Failing: []Failure{
			{Name: "b0", Message: "x.go:1: undefined", Kind: KindBuild},
			{Name: "a1", Kind: KindFailure}, {Name: "a2", Kind: KindError}, {Name: "b1", Kind: KindFailure},
		},
		Files: []string{"a.xml", "b.json"}, Notes: []string{"a.xml: note"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if got.Total() != 9 {
		t.Errorf("got total %d, want 9", got.Total())
	}

	same := &Report{Format: FormatTAP}
	same.Merge(&Report{Format: FormatTAP, Passed: 1})
	if same.Format != FormatTAP {
		t.Errorf("got format %q, want %q", same.Format, FormatTAP)
	}
}

func TestMergeBounds(t *testing.T) {
	t.Parallel()
	many := func(prefix string, n int) *Report {
		r := &Report{Format: FormatJUnit, Failed: n}
		for i := range n {
			r.Failing = append(r.Failing, Failure{Name: prefix + strconv.Itoa(i), Kind: KindFailure})
			r.Notes = append(r.Notes, prefix+" note "+strconv.Itoa(i))
		}
		r.noteFailingCut()
		return r
	}
	got := &Report{}
	got.Merge(many("a", 80))
	got.Merge(many("b", 80))
	if len(got.Failing) != MaxFailing {
		t.Fatalf("got %d failing, want %d", len(got.Failing), MaxFailing)
	}
	if got.Failing[0].Name != "a0" || got.Failing[MaxFailing-1].Name != "b19" {
		t.Errorf("got failing %s..%s, want a0..b19", got.Failing[0].Name, got.Failing[MaxFailing-1].Name)
	}
	if len(got.Notes) != MaxNotes {
		t.Fatalf("got %d notes, want %d", len(got.Notes), MaxNotes)
	}
	wantTail := []string{notesOmitted}
	if diff := cmp.Diff(wantTail, got.Notes[MaxNotes-1:]); diff != "" {
		t.Errorf("last note mismatch (-want +got):\n%s", diff)
	}

	// With room for notes, the failing-list note is kept up to date.
	small := &Report{}
	for range 3 {
		r := &Report{Format: FormatTAP, Failed: 60}
		for i := range 60 {
			r.Failing = append(r.Failing, Failure{Name: strconv.Itoa(i), Kind: KindFailure})
		}
		small.Merge(r)
	}
	want := []string{"failing list holds the first 100 of 180 failures"}
	if diff := cmp.Diff(want, small.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}

// TestParseFailingBound checks the bound on one file, build failures first.
func TestParseFailingBound(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 150 {
		b.WriteString(`{"Action":"fail","Package":"p` + strconv.Itoa(i) + `","Test":"T"}` + "\n")
	}
	b.WriteString(`{"Action":"fail","Package":"z","FailedBuild":"z"}` + "\n")
	got, err := Parse(strings.NewReader(b.String()), "r.json")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if got.Failed != 151 || len(got.Failing) != MaxFailing {
		t.Fatalf("got %d failed, %d listed, want 151 and %d", got.Failed, len(got.Failing), MaxFailing)
	}
	if f := got.Failing[0]; f.Kind != KindBuild || f.Name != "z" {
		t.Errorf("got first failing %+v, want the build failure of z", f)
	}
	want := []string{"failing list holds the first 100 of 151 failures"}
	if diff := cmp.Diff(want, got.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}

func TestBound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxText) // 2 bytes a rune
	if got := bound(long); len(got) != MaxText || !strings.HasSuffix(got, "é") {
		t.Errorf("bound cut %d bytes ending %q, want %d ending in a whole é", len(got), got[len(got)-2:], MaxText)
	}
	if got := bound("  a\xffb  "); got != "a\uFFFDb" {
		t.Errorf("bound(invalid UTF-8) = %q, want %q", got, "a\uFFFDb")
	}
	if got := firstLine("\n \n  first  \nsecond"); got != "first" {
		t.Errorf("firstLine = %q, want %q", got, "first")
	}
}
