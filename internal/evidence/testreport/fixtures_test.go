package testreport

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the .golden.json files of testdata/reports")

// reportsDir holds one folder of sample reports per dialect. The gotest
// folder also holds the module its reports were produced from (sample/).
const reportsDir = "../../../testdata/reports"

// fixtures returns the report files under testdata/reports, relative to it
// and slash-separated.
func fixtures(tb testing.TB) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir(reportsDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "sample" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".golden.json") || strings.HasSuffix(path, ".md") {
			return nil
		}
		rel, err := filepath.Rel(reportsDir, path)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatalf("no report fixtures under %s", reportsDir)
	}
	return out
}

// TestFixtures parses every sample report and compares the Report with the
// golden file beside it (run with -update to rewrite the golden files after
// checking the differences by hand).
func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, rel := range fixtures(t) {
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(reportsDir, filepath.FromSlash(rel))
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := Parse(f, rel)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			golden := path + ".golden.json"
			if *update {
				b, err := json.MarshalIndent(got, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			var want Report
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("%s: %v", golden, err)
			}
			if diff := cmp.Diff(&want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse(%s) mismatch (-want +got):\n%s", rel, diff)
			}
		})
	}
}
