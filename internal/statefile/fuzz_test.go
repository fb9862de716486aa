package statefile

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

var fuzzStart = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// sampleState is a state file that a breaker wrote after a few
// iterations: an error repeated, no progress, then OPEN.
func sampleState(tb testing.TB, pol string) []byte {
	tb.Helper()
	p, err := policy.Builtin(pol)
	if err != nil {
		tb.Fatal(err)
	}
	b, err := breaker.New(p, breaker.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	pct := 12.5
	for i := 0; i < 5; i++ {
		it := breaker.Iteration{At: fuzzStart.Add(time.Duration(i) * time.Minute), Change: &breaker.Change{MeaningfulFiles: i % 2},
			Tests:  &breaker.Tests{Passed: i, Failed: 1, Failing: []string{"TestX"}},
			Errors: []breaker.Signature{{Hash: strings.Repeat("ab", 32), Sample: "undefined: x"}}, ErrorsKnown: true,
			Output: &breaker.Output{Lines: 100 - 10*i, Bytes: int64(1000 - 100*i)}, ProgressPercent: &pct,
			Tasks: &breaker.Tasks{Done: 1, Total: 3}}
		if _, err := b.Observe(it); err != nil {
			tb.Fatal(err)
		}
	}
	data, err := json.MarshalIndent(&File{Version: Version, Kind: Kind, Policy: pol, CreatedAt: fuzzStart, UpdatedAt: fuzzStart, Breaker: b.Snapshot()}, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// FuzzDecode feeds arbitrary bytes to Decode, then restores a breaker from
// whatever it accepts and drives it one more step: a state file the agent
// edited by hand must give an error naming the file, never a panic, and a
// restored breaker must keep working.
func FuzzDecode(f *testing.F) {
	f.Add(sampleState(f, "default"))
	f.Add(sampleState(f, "strict"))
	for _, s := range []string{
		"",
		"\xef\xbb\xbf{\"version\":1,\"kind\":\"loopbreaker-state\"}",
		`{"version":1,"kind":"loopbreaker-state","breaker":{"state":"OPEN","iteration":9223372036854775807,"since_reset":9223372036854775807}}`,
		`{"version":1,"kind":"loopbreaker-state","breaker":{"window":[{}],"recent":[{}],"hour":["0001-01-01T00:00:00Z"],"cooldown":-1}}`,
		`{"version":2,"kind":"loopbreaker-state"}`,
		`{"version":1,"kind":"loopbreaker-state","breaker":{"state":"HALF_OPEN","probing":true,"probes_left":0,"prev":{"percent":1e308}}}{}`,
	} {
		f.Add([]byte(s))
	}
	p, err := policy.Builtin("default")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := Decode(data, "fuzz.json")
		if err != nil {
			if sf != nil {
				t.Fatalf("got a state with error %v", err)
			}
			if !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		b, err := breaker.Restore(p, breaker.Options{}, sf.Breaker)
		if err != nil {
			return
		}
		at := sf.Breaker.LastAt.Add(time.Minute)
		if _, err := b.Status(at); err != nil {
			return
		}
		d, err := b.Observe(breaker.Iteration{At: at, Change: &breaker.Change{MeaningfulFiles: 1}})
		if err != nil {
			return
		}
		if d.Iteration != sf.Breaker.Iteration+1 && int64(sf.Breaker.Iteration) < 1<<40 {
			t.Fatalf("got iteration %d after %d", d.Iteration, sf.Breaker.Iteration)
		}
		if _, err := json.Marshal(&File{Version: Version, Kind: Kind, Breaker: b.Snapshot()}); err != nil {
			t.Fatalf("a restored breaker's state does not encode: %v", err)
		}
	})
}
