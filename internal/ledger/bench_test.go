package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"
)

// benchRecords are n records as a long loop leaves them: test totals, a
// failing test every third iteration, an error every second.
func benchRecords(n int) []Record {
	recs := make([]Record, n)
	for i := range recs {
		sum := sha256.Sum256([]byte(fmt.Sprintf("error %d: undefined: handler", i%7)))
		r := Record{Version: Version, RunID: int64(i + 1), RunAttempt: 1, Commit: fmt.Sprintf("%040x", i+1),
			At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute), Errors: []Error{},
			Tests:  &Tests{Passed: 100 + i, Failed: i % 3 % 2, Skipped: 2, Failing: []string{}},
			Output: &Output{Lines: 200 + i%50, Bytes: int64(8000 + i)}}
		if i%3 != 0 {
			r.Tests.Failing = []string{"TestHandler"}
		}
		if i%2 == 1 {
			r.Errors = []Error{{Hash: hex.EncodeToString(sum[:]), Sample: fmt.Sprintf("error %d: undefined: handler", i%7)}}
		}
		recs[i] = r
	}
	return recs
}

// BenchmarkReadAddWrite10k reads a cumulative ledger of MaxRecords
// records, adds one (the oldest drops out) and writes them back.
func BenchmarkReadAddWrite10k(b *testing.B) {
	var buf bytes.Buffer
	if err := Encode(&buf, benchRecords(MaxRecords)); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	next := benchRecords(MaxRecords + 1)[MaxRecords]
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		l := Decode(data, "ledger.json")
		if len(l.Records) != MaxRecords || len(l.Problems) > 0 {
			b.Fatalf("got %d records, problems %v; want %d, none", len(l.Records), l.Problems, MaxRecords)
		}
		var out bytes.Buffer
		if err := Encode(&out, append(l.Records[1:], next)); err != nil {
			b.Fatal(err)
		}
	}
}
