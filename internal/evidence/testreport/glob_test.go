package testreport

import (
	"os"
	"path/filepath"
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
		{"*.xml", []string{"a.xml", "dir.xml"}},
		{"reports/**/TEST-*.xml", []string{"reports/TEST-0.xml", "reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"**/*.xml", []string{"a.xml", "reports/TEST-0.xml", "reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"reports/**", []string{"reports/TEST-0.xml", "reports/other.txt", "reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"reports/*/**/*.xml", []string{"reports/x/TEST-1.xml", "reports/x/y/TEST-2.xml"}},
		{"nothing/**/*.xml", nil},
	}
	for _, tt := range tests {
		got, err := glob(filepath.Join(dir, filepath.FromSlash(tt.pattern)))
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
		if _, err := glob(bad); err == nil {
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
		{[]string{j("dir.xml")}, `testreport: glob "` + j("dir.xml") + `" matches no file`},
		{[]string{j("[")}, `testreport: glob "` + j("[") + `": syntax error in pattern`},
		{[]string{j("*.xml")}, "testreport: " + j("bad.xml") + ": line 2: XML syntax error: unexpected EOF"},
	} {
		_, err := ParseGlobs(tt.globs)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseGlobs(%q): got error %v, want %q", tt.globs, err, tt.want)
		}
	}
}
