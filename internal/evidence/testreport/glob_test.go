package testreport

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree writes files (slash-separated paths) under a new temporary
// directory and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestGlob(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"a.xml":                  "",
		"b.json":                 "",
		"reports/x/TEST-1.xml":   "",
		"reports/x/y/TEST-2.xml": "",
		"reports/TEST-0.xml":     "",
		"reports/other.txt":      "",
		"dir.xml/inner.txt":      "",
	})
	tests := []struct {
		pattern string
		want    []string
	}{
		{"*.xml", []string{"a.xml"}}, // a directory is no report file
		{"reports/**/TEST-*.xml", []string{"reports/TEST-0.xml", "reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"**/*.xml", []string{"a.xml", "reports/TEST-0.xml", "reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"reports/**", []string{"reports/TEST-0.xml", "reports/other.txt", "reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"reports/*/**/*.xml", []string{"reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"nothing/**/*.xml", nil},
		{"{a,dir,reports/x/y/TEST-2}.xml", []string{"a.xml", "reports/x/y/TEST-2.xml"}},
	}
	for _, tt := range tests {
		got, _, err := glob(filepath.Join(dir, filepath.FromSlash(tt.pattern)), MaxFiles)
		if err != nil {
			t.Errorf("glob(%q): %v", tt.pattern, err)
			continue
		}
		var rel []string
		for _, g := range got {
			r, err := filepath.Rel(dir, g)
			if err != nil {
				t.Fatal(err)
			}
			rel = append(rel, filepath.ToSlash(r))
		}
		if diff := cmp.Diff(tt.want, rel); diff != "" {
			t.Errorf("glob(%q) mismatch (-want +got):\n%s", tt.pattern, diff)
		}
	}
	for _, bad := range []string{"", "a**b/*.xml", "[", "x/**/[/y"} {
		if _, _, err := glob(bad, MaxFiles); err == nil {
			t.Errorf("glob(%q): got no error", bad)
		}
	}
}

func TestParseGlobs(t *testing.T) {
	t.Parallel()
	dir := tree(t, map[string]string{
		"junit/a.xml": `<testsuite><testcase name="a"/><testcase name="b"><failure message="m"/></testcase></testsuite>`,
		"junit/b.xml": `<testsuite><testcase name="c"><skipped/></testcase></testsuite>`,
		"go.json":     `{"Action":"pass","Package":"p","Test":"T"}` + "\n",
		"bad.xml":     "<testsuite>\n<testcase>",
		"dir.xml/x":   "",
	})
	j := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }

	got, err := ParseGlobs([]string{j("junit/*.xml"), j("**/*.json"), j("junit/a.xml")})
	if err != nil {
		t.Fatalf("ParseGlobs: %v", err)
	}
	want := &Report{Format: FormatMixed, Passed: 2, Failed: 1, Skipped: 1,
		Failing: []Failure{{Name: "b", Message: "m", Kind: KindFailure}},
		Files:   []string{j("junit/a.xml"), j("junit/b.xml"), j("go.json")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}

	empty, err := ParseGlobs(nil)
	if err != nil || empty.Total() != 0 || empty.Format != "" {
		t.Errorf("ParseGlobs(nil) = %+v, %v; want an empty report", empty, err)
	}

	for _, tt := range []struct {
		globs []string
		want  string
	}{
		{[]string{j("junit/*.xml"), j("*.tap")}, `testreport: glob "` + j("*.tap") + `" matches no file`},
		{[]string{j("dir.xml")}, `testreport: glob "` + j("dir.xml") + `" matches ` + j("dir.xml") + `, which is not a regular file`},
		{[]string{j("[")}, `testreport: glob "` + j("[") + `": syntax error in pattern`},
		{[]string{j("*.xml")}, "testreport: " + j("bad.xml") + ": line 2: XML syntax error: unexpected EOF"},
	} {
		_, err := ParseGlobs(tt.globs)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseGlobs(%q): got error %v, want %q", tt.globs, err, tt.want)
		}
	}
}

// manyFiles writes n empty files named r00000.xml, ... in a new directory.
func manyFiles(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%05d.xml", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGlobBounds: globs matching more than MaxFiles report files, or more
// than MaxTotalSize bytes, are an error naming the glob and the bound; at
// the bounds they are read.
func TestGlobBounds(t *testing.T) {
	t.Parallel()
	over := manyFiles(t, MaxFiles+1)
	big := t.TempDir()
	for i := range 3 {
		f, err := os.Create(filepath.Join(big, fmt.Sprintf("r%d.xml", i)))
		if err != nil {
			t.Fatal(err)
		}
		// Sparse: the size is what counts, and it costs no disk.
		if err := f.Truncate(MaxTotalSize/3 + 1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	cases := []struct {
		name  string
		globs []string
		want  error
		says  string
	}{
		{"one glob", []string{filepath.Join(over, "*.xml")}, ErrTooManyFiles, fmt.Sprintf("glob %q: matches more than %d report files", filepath.Join(over, "*.xml"), MaxFiles)},
		{"one glob with **", []string{filepath.Join(over, "**", "*.xml")}, ErrTooManyFiles, "matches more than"},
		{"two globs together", []string{filepath.Join(over, "r0*.xml"), filepath.Join(over, "r0000*.xml"), filepath.Join(over, "r1*.xml")}, ErrTooManyFiles, fmt.Sprintf("glob %q: with the globs before it", filepath.Join(over, "r1*.xml"))},
		{"the bytes of three files", []string{filepath.Join(big, "*.xml")}, ErrTooMuchReport, fmt.Sprintf("more than %d MiB", MaxTotalSize>>20)},
	}
	for _, c := range cases {
		_, err := Files(c.globs)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: got %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
	if err := os.Remove(filepath.Join(over, "r00000.xml")); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{filepath.Join(over, "*.xml"), filepath.Join(over, "**")} {
		if files, err := Files([]string{g}); err != nil || len(files) != MaxFiles {
			t.Errorf("%d files: got %d, %v; want them all", MaxFiles, len(files), err)
		}
	}
	if err := os.Truncate(filepath.Join(big, "r2.xml"), MaxTotalSize/3-1); err != nil {
		t.Fatal(err)
	}
	if files, err := Files([]string{filepath.Join(big, "*.xml")}); err != nil || len(files) != 3 {
		t.Errorf("%d bytes: got %d files, %v; want all 3", MaxTotalSize, len(files), err)
	}
	// A file over MaxFileSize is left to ParseFile, which names it.
	if err := os.Truncate(filepath.Join(big, "r2.xml"), 2*MaxTotalSize); err != nil {
		t.Fatal(err)
	}
	if files, err := Files([]string{filepath.Join(big, "*.xml")}); err != nil || len(files) != 3 {
		t.Errorf("a file over %d bytes: got %d files, %v; want all 3", MaxFileSize, len(files), err)
	}
}
