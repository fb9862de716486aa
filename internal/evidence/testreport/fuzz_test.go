package testreport

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, and what
// it returns must keep the package's promises.
func FuzzParse(f *testing.F) {
	for _, rel := range fixtures(f) {
		b, err := os.ReadFile(filepath.Join(reportsDir, filepath.FromSlash(rel)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"<testsuite><testcase name=\"a\"><failure>&amp;&#10;x</failure></testcase></testsuite>",
		"<!DOCTYPE x [<!ENTITY a \"b\">]><testsuite/>",
		"<testsuite><![CDATA[ ]]]]><!-- - --><?pi ??></testsuite>",
		"{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"A/B\"}\n{\"Action\":\"fail\",\"Package\":\"p\"}\n",
		"TAP version 13\n1..2\nnot ok 1\n  ---\n  message: |\n    x\n  ...\nBail out! x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Parse(bytes.NewReader(data), "fuzz")
		checkFuzzReport(t, rep, err)
		if err != nil {
			return
		}
		if len(rep.Files) != 1 || rep.Files[0] != "fuzz" {
			t.Fatalf("got files %q, want [fuzz]", rep.Files)
		}
	})
}

// FuzzXMLGuard checks that the guard passes any input shorter than its
// limits through unchanged: it may only ever cut what is too long.
func FuzzXMLGuard(f *testing.F) {
	for _, rel := range fixtures(f) {
		b, err := os.ReadFile(filepath.Join(reportsDir, filepath.FromSlash(rel)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`<a b='>"' c=">'"><!-- > -- --><![CDATA[ ]] ]> ]]><?p ? > ?><!DOCTYPE x [ <!ENTITY y "<>"> ]>&amp;&#10;</a>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= maxValue {
			return
		}
		g := newXMLGuard(bytes.NewReader(data), false)
		got, err := io.ReadAll(g)
		if err != nil {
			t.Fatalf("got error %v", err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("got %q, want the input %q unchanged", got, data)
		}
		if g.cut != 0 || len(g.dropMark) != 0 {
			t.Fatalf("got %d cuts, %d drop marks, want none", g.cut, len(g.dropMark))
		}
	})
}

// FuzzJUnitSkip checks that skipping the content of <system-out> and
// <system-err> never changes what a well-formed report says.
func FuzzJUnitSkip(f *testing.F) {
	for _, rel := range fixtures(f) {
		if strings.HasSuffix(rel, ".xml") {
			b, err := os.ReadFile(filepath.Join(reportsDir, filepath.FromSlash(rel)))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, s := range skipSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, err := parseJUnit(bytes.NewReader(data), "f", false)
		if err != nil {
			return
		}
		got, err := parseJUnit(bytes.NewReader(data), "f", true)
		if err != nil {
			t.Fatalf("got error %v skipping output, none reading it", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("skipping output changed the report (-read +skipped):\n%s", diff)
		}
	})
}
