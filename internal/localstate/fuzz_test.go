package localstate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode: a store the agent edited by
// hand gives an error naming the file, never a panic, and what Decode
// accepts is written back and read again unchanged.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"state-open.json", "state-closed.json", "repo/check/loop.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "v1", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"",
		`{"version":2,"kind":"loopbreaker-state","records":[]}`,
		`{"version":2,"kind":"loopbreaker-state","base":"x","resets":[{"at":"2026-01-01T00:00:00Z","reason":"r"}],"records":[{"version":1,"at":"2026-01-01T00:00:00Z","work":{"files":2,"uncommitted":1}}]}`,
		`{"version":2,"kind":"loopbreaker-state","offset":-1}`,
		`{"version":3,"kind":"loopbreaker-state"}`,
		`{"version":1,"kind":"loopbreaker-state","breaker":{"state":"OPEN","iteration":-5}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := Decode(data, "fuzz.json")
		if err != nil {
			if sf != nil || !strings.Contains(err.Error(), "fuzz.json") {
				t.Fatalf("got %v with error %q: want no store and an error naming the file", sf, err)
			}
			return
		}
		sf.Version, sf.Kind = Version, Kind
		out, err := json.Marshal(sf)
		if err != nil {
			t.Fatalf("a store Decode accepted does not encode: %v", err)
		}
		again, err := Decode(out, "again.json")
		if err != nil {
			t.Fatalf("a store Decode accepted, written back, is refused: %v\n%s", err, out)
		}
		if back, _ := json.Marshal(again); string(back) != string(out) {
			t.Fatalf("written back and read again, the store changed:\n%s\n%s", out, back)
		}
	})
}
