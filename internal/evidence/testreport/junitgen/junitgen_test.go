package junitgen_test

import (
	"bytes"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport"
	"github.com/loopbreaker/loopbreaker/internal/evidence/testreport/junitgen"
)

// TestWriteIsAValidReportOfTheSize: the report reaches the size asked for,
// stops soon after, and reads back with the counts its suites declare.
func TestWriteIsAValidReportOfTheSize(t *testing.T) {
	t.Parallel()
	const size = 300 << 10
	var buf bytes.Buffer
	if err := junitgen.Write(&buf, size); err != nil {
		t.Fatal(err)
	}
	if n := buf.Len(); n < size || n > size+200<<10 {
		t.Fatalf("wrote %d bytes for a size of %d", n, size)
	}
	r, err := testreport.Parse(&buf, "junit.xml")
	if err != nil {
		t.Fatal(err)
	}
	total := r.Passed + r.Failed + r.Skipped
	suites := total / junitgen.Cases
	if suites < 1 || total != suites*junitgen.Cases {
		t.Fatalf("%d testcases, not whole suites of %d", total, junitgen.Cases)
	}
	if r.Failed != 24*suites || r.Errored != 4*suites || r.Skipped != 8*suites {
		t.Errorf("got failed %d errored %d skipped %d over %d suites, want 24, 4 and 8 per suite", r.Failed, r.Errored, r.Skipped, suites)
	}
}
