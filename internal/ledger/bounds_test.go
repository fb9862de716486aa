package ledger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

func problemsSay(l *Ledger, text string) bool {
	for _, p := range l.Problems {
		if strings.Contains(p.Err.Error(), text) {
			return true
		}
	}
	return false
}

func TestProblemsAreBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := 0; i < 3*MaxProblems; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("bad%03d.json", i)), []byte("{}"), 0o644)
	}
	l, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Problems) != MaxProblems+1 {
		t.Errorf("got %d problems, want %d and a count of the rest", len(l.Problems), MaxProblems+1)
	}
	if last := l.Problems[len(l.Problems)-1]; !strings.Contains(last.Err.Error(), fmt.Sprintf("%d more problems", 2*MaxProblems)) {
		t.Errorf("got last problem %v, want the count of the unlisted ones", last)
	}
}

func TestJunkFileIsCutShort(t *testing.T) {
	t.Parallel()
	for _, junk := range []string{strings.Repeat("{}\n", 1<<20), "[" + strings.Repeat("{},", 1<<20) + "{}]"} {
		l := Decode([]byte(junk), "junk.json")
		if len(l.Records) != 0 || !problemsSay(l, fmt.Sprintf("%d invalid entries; the rest of the file was skipped", MaxBadEntries)) {
			t.Errorf("got %d records and %d problems, want none and the file cut short", len(l.Records), len(l.Problems))
		}
		if len(l.Problems) > 2*MaxProblems {
			t.Errorf("got %d problems", len(l.Problems))
		}
	}
}

func TestHugeLedgerKeepsTheNewest(t *testing.T) {
	t.Parallel()
	// Records arrive newest first, as decode hands them to keep one by
	// one: the order of a file does not matter, and no more than twice
	// MaxRecords are ever held.
	n := 2*MaxRecords + MaxRecords/2
	var recs []Record
	l := &Ledger{}
	for i := n; i >= 1; i-- {
		recs = l.keep(recs, []Record{rec(int64(i), 1, i)})
		if len(recs) >= 2*MaxRecords {
			t.Fatalf("holding %d records, want fewer than %d", len(recs), 2*MaxRecords)
		}
	}
	l.done(recs, "huge.json")
	got := l.Records
	if l.Dropped != n-MaxRecords || !problemsSay(l, fmt.Sprintf("more than %d records: the %d oldest were not read", MaxRecords, n-MaxRecords)) {
		t.Errorf("got %d dropped and problems %v, want the %d oldest dropped and said so", l.Dropped, l.Problems, n-MaxRecords)
	}
	if len(got) != MaxRecords || got[0].RunID != int64(n-MaxRecords+1) || got[MaxRecords-1].RunID != int64(n) {
		t.Errorf("got %d records from run %d to %d, want the newest %d (%d to %d)", len(got), got[0].RunID,
			got[len(got)-1].RunID, MaxRecords, n-MaxRecords+1, n)
	}
}

func TestLedgerByteBudget(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	one := marshal(t, rec(1, 1, 1))
	for i := 0; i < 3; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.json", i)), marshal(t, rec(int64(i+1), 1, i)), 0o644)
	}
	l, err := readDir(dir, int64(2*len(one)+len(one)/2))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Records) != 2 || !problemsSay(l, "bytes of records in the ledger; the rest were skipped") {
		t.Errorf("got %d records and problems %v, want 2 and the budget reported", len(l.Records), l.Problems)
	}
}

func TestArrayFaults(t *testing.T) {
	t.Parallel()
	good := string(marshal(t, rec(1, 1, 1)))
	cases := []struct {
		in, want string
		recs     int
	}{
		{"[" + good + "]", "", 1},
		{"[" + good + "] []", "data after the closing bracket", 1},
		{"[" + good + ",", "not a JSON array of records", 1},
		{"[" + good + " " + good + "]", "not a JSON array of records", 1},
		{"[1, \"x\", null, " + good + "]", "not a record", 1},
	}
	for _, c := range cases {
		l := Decode([]byte(c.in), "a.json")
		if len(l.Records) != c.recs {
			t.Errorf("%.40q: got %d records, want %d", c.in, len(l.Records), c.recs)
		}
		if (c.want == "") != (len(l.Problems) == 0) || (c.want != "" && !problemsSay(l, c.want)) {
			t.Errorf("%.40q: got problems %v, want %q", c.in, l.Problems, c.want)
		}
	}
}

// TestRecordOfAnyIterationIsReadBack: whatever the agent wrote (a failing
// test named with 600 bytes or with bytes that are not UTF-8, a phase or
// a status task cut inside a character, an error sample over its bound),
// the record made of the iteration validates, so that the next run reads
// it back rather than skipping it with the iteration it holds.
func TestRecordOfAnyIterationIsReadBack(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 400) // 800 bytes, two to a character
	it := &breaker.Iteration{Commit: strings.Repeat("a", 40), At: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		Phase: "x" + long, CurrentTask: breaker.StatusTask("x" + long),
		Tests:  &breaker.Tests{Failed: 3, Failing: []string{strings.Repeat("t", 600), "bad \xff\xfe name", "x" + long}},
		Errors: []breaker.Signature{{Hash: strings.Repeat("b", 64), Sample: "x" + long + long + long}}}
	rec := FromIteration(it, 100, 1)
	if err := rec.Validate(); err != nil {
		t.Fatalf("the record made of the iteration does not validate: %v", err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, []Record{rec}); err != nil {
		t.Fatal(err)
	}
	if l := Decode(buf.Bytes(), "record.json"); len(l.Records) != 1 || len(l.Problems) != 0 {
		t.Errorf("read back: %d records, problems %v; want the record", len(l.Records), l.Problems)
	}
}
