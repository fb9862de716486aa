package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// BenchmarkRecordFullHistory measures one `record` call (lock, load, fold
// one iteration, atomic save, render) against a state file whose event
// history is full. Target: at most 5 ms per call.
func BenchmarkRecordFullHistory(b *testing.B) {
	state := filepath.Join(b.TempDir(), "s.json")
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	env := Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Now: func() time.Time { return clock }}
	tick := func() string {
		clock = clock.Add(time.Minute)
		return clock.Format(time.RFC3339)
	}
	for cycle := 0; cycle < 60; cycle++ { // 60 open+reset cycles: more than the 100 kept events
		for i := 0; i < 3; i++ {
			Main([]string{"record", "--state", state, "--at", tick()}, env)
		}
		Main([]string{"reset", "--state", state, "--reason", "bench", "--at", tick()}, env)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := Main([]string{"record", "--state", state, "--files-changed", "1", "--error", "boom", "--format", "json", "--at", tick()}, env); code == 2 {
			b.Fatalf("record: exit %d", code)
		}
	}
}

// BenchmarkRecordFile10k is one `record --record FILE` append to a
// cumulative ledger file at its cap: lock, read 10,000 records, add one
// (the oldest drops out), write them back atomically.
func BenchmarkRecordFile10k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ledger.json")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := func(i int) ledger.Record {
		return ledger.Record{Version: ledger.Version, RunID: int64(i + 1), RunAttempt: 1, Commit: fmt.Sprintf("%040x", i+1),
			At: at.Add(time.Duration(i) * time.Minute), Errors: []ledger.Error{},
			Tests: &ledger.Tests{Passed: 100 + i, Failed: 1, Skipped: 2, Failing: []string{"TestHandler"}}, Output: &ledger.Output{Lines: 200, Bytes: 8000}}
	}
	recs := make([]ledger.Record, ledger.MaxRecords)
	for i := range recs {
		recs[i] = r(i)
	}
	var buf bytes.Buffer
	if err := ledger.Encode(&buf, recs); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := ledger.MaxRecords
	for b.Loop() {
		if _, err := appendRecord(path, r(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
