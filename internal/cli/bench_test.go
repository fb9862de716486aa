package cli

import (
	"io"
	"path/filepath"
	"testing"
	"time"
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
