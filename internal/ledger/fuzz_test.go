package ledger

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
)

// checkRecords fails unless every record is valid and the list is ordered
// and bounded, and every problem names where it was found.
func checkRecords(t *testing.T, recs []Record, probs []Problem, where string) {
	t.Helper()
	if len(recs) > MaxRecords {
		t.Fatalf("got %d records, want at most %d", len(recs), MaxRecords)
	}
	for i := range recs {
		if err := recs[i].Validate(); err != nil {
			t.Fatalf("record %d is not valid: %v", i, err)
		}
		if i > 0 && recs[i].At.Before(recs[i-1].At) {
			t.Fatalf("records are not ordered by time at %d", i)
		}
	}
	for _, p := range probs {
		if !strings.HasPrefix(p.File, where) || p.Err == nil {
			t.Fatalf("problem %v does not name %s", p, where)
		}
	}
}

// FuzzDecode feeds arbitrary bytes to the iteration record decoder: a
// record the agent forged or a truncated artifact gives problems, never a
// panic or an invalid record.
func FuzzDecode(f *testing.F) {
	one := marshalRecord(f, rec(1, 1, 1))
	f.Add(one)
	f.Add(append(append(marshalRecord(f, []Record{rec(2, 1, 2), rec(2, 2, 3)}), '\n'), one...))
	for _, s := range []string{
		"",
		"\xef\xbb\xbf[]",
		`{"version":1,"run_id":-1,"at":"2026-04-01T12:00:00Z","progress_percent":1e999}`,
		`{"version":2,"at":"2026-04-01T12:00:00Z"}` + "\n" + `{"version":1,"at":"x"}`,
		`[{"version":1,"at":"2026-04-01T12:00:00Z","tests":{"passed":-1},"tasks":{"done":5,"total":1},"errors":[{"hash":"zz"}]},3,"s",null]`,
		`{"version":1,"at":"2026-04-01T12:00:00Z","commit":"` + strings.Repeat("A", 40) + `","surprise":true}{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := Decode(data, "fuzz")
		checkRecords(t, l.Records, l.Problems, "fuzz")
		if len(data) > 0 && len(l.Records) == 0 && len(l.Problems) == 0 && len(bytes.TrimSpace(data)) > 0 {
			if c := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))); len(c) > 0 && c[0] != '[' {
				t.Fatalf("input %q gave neither records nor problems", data)
			}
		}
	})
}

// zipOf builds a zip archive of the named entries.
func zipOf(tb testing.TB, entries ...string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		if err != nil {
			tb.Fatal(err)
		}
		w.Write([]byte(entries[i+1]))
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzReadZip feeds arbitrary bytes to the artifact zip reader: corrupt
// archives, zip slip names, bombs and bad records are reported and
// skipped.
func FuzzReadZip(f *testing.F) {
	good := string(marshalRecord(f, []Record{rec(1, 1, 1), rec(2, 1, 2)}))
	f.Add(zipOf(f, "record.json", good))
	f.Add(zipOf(f, "../../evil.json", good, "dir/", "", "a.txt", "x", "B.JSON", "{"))
	f.Add(zipOf(f, "/abs/record.json", good, "record.json", "[]"))
	z := zipOf(f, "record.json", good)
	f.Add(z[:len(z)/2])
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := &Ledger{}
		recs := l.readZipFrom(bytes.NewReader(data), int64(len(data)), "fuzz.zip")
		recs, _ = newest(order(recs))
		checkRecords(t, recs, l.Problems, "fuzz.zip")
	})
}

func marshalRecord(tb testing.TB, v any) []byte {
	tb.Helper()
	var buf bytes.Buffer
	switch x := v.(type) {
	case Record:
		if err := Encode(&buf, []Record{x}); err != nil {
			tb.Fatal(err)
		}
		return bytes.TrimSuffix(bytes.TrimPrefix(bytes.TrimSpace(buf.Bytes()), []byte("[")), []byte("]"))
	case []Record:
		if err := Encode(&buf, x); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}
