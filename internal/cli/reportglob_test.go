//go:build unix

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/cli"
	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
)

// TestReportGlobIsBounded: a --reports glob matching more than 10,000
// files, or files of more than 1 GiB together, is refused (exit 2) naming
// the glob and the bound, before any report is parsed. Before, every file
// matched was parsed, with no bound on their number or their bytes.
func TestReportGlobIsBounded(t *testing.T) {
	t.Parallel()
	repo := twoCommits(t)
	many := t.TempDir()
	n := 0
	if cli.LongTests() {
		n = testreport.MaxFiles + 1 // 10,001 files, as .ci/run writes them
	}
	for i := range n {
		name := filepath.Join(many, fmt.Sprintf("TEST-%05d.xml", i))
		if err := os.WriteFile(name, []byte(`<testsuite tests="1"><testcase name="t"/></testsuite>`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	large := t.TempDir()
	for i := range 3 {
		// Sparse, each under the 512 MiB bound of one report.
		sparse(t, filepath.Join(large, fmt.Sprintf("TEST-%d.xml", i)), "<testsuite>", testreport.MaxTotalSize/3+1)
	}
	cases := []struct{ glob, says string }{
		{filepath.Join(large, "*.xml"), fmt.Sprintf("hold more than %d MiB", testreport.MaxTotalSize>>20)},
	}
	if cli.LongTests() {
		cases = append(cases, []struct{ glob, says string }{
			{filepath.Join(many, "*.xml"), fmt.Sprintf("matches more than %d report files", testreport.MaxFiles)},
			{filepath.Join(many, "**"), fmt.Sprintf("matches more than %d report files", testreport.MaxFiles)},
		}...)
	}
	for _, c := range cases {
		code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--reports", c.glob)
		if code != 2 || !strings.Contains(errs, fmt.Sprintf("glob %q", c.glob)) || !strings.Contains(errs, c.says) {
			t.Errorf("--reports %s: got exit %d %s%s, want 2 naming the glob and saying %q", c.glob, code, out, errs, c.says)
		}
	}
}
