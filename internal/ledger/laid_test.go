package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// laidLedger returns a ledger of n records in order, read from the text
// Encode writes for them as they read back (text with invalid UTF-8 reads
// back as other text): every record laid out.
func laidLedger(t *testing.T, seed uint64, n int) *Ledger {
	t.Helper()
	var recs []Record
	for _, r := range randomRecords(seed, 4*n) {
		if r.Validate() == nil && len(recs) < n {
			recs = append(recs, r)
		}
	}
	for i := range recs {
		recs[i].RunID, recs[i].At = int64(i+1), recs[0].At.Add(time.Duration(i)*time.Hour)
	}
	var first, again bytes.Buffer
	if err := Encode(&first, recs); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&again, Decode(first.Bytes(), "first").Records); err != nil {
		t.Fatal(err)
	}
	l := Decode(again.Bytes(), "again")
	if len(l.Problems) > 0 || len(l.Records) != n || l.laid == nil || len(l.laid.ends) != n {
		t.Fatalf("seed %d: Encode's text read back with problems %v, or not laid out", seed, l.Problems)
	}
	return l
}

// TestEncodePartsWritesWhatEncodeWrites: a ledger written again, with a
// record more, some records changed or without their checkpoints, is the
// text Encode writes, whatever of it was copied.
func TestEncodePartsWritesWhatEncodeWrites(t *testing.T) {
	t.Parallel()
	for seed := range uint64(30) {
		l := laidLedger(t, seed, 6)
		more := randomRecords(seed+100, 1)[0]
		for _, c := range []struct {
			name   string
			change func([]Record) []Record
			copied int // records copied, at least
		}{
			{"a record more", func(r []Record) []Record { return append(r, more) }, len(l.Records)},
			{"as they were", func(r []Record) []Record { return r }, len(l.Records)},
			{"no checkpoints", func(r []Record) []Record {
				for i := range r {
					r[i].Checkpoint = nil
				}
				return append(r, more)
			}, 0},
			{"the fourth changed", func(r []Record) []Record { r[3].RunAttempt++; return r }, 3},
			{"a test renamed in place", func(r []Record) []Record {
				r[2].Tests = &Tests{Failing: []string{"renamed"}}
				return r
			}, 2},
			{"the same instant elsewhere", func(r []Record) []Record {
				r[1].At = r[1].At.In(time.FixedZone("", 3600))
				return r
			}, 1},
			{"the oldest dropped", func(r []Record) []Record { return r[1:] }, 0},
			{"none", func([]Record) []Record { return nil }, 0},
		} {
			recs := c.change(append([]Record(nil), l.Records...))
			var want bytes.Buffer
			if err := Encode(&want, recs); err != nil {
				t.Fatal(err)
			}
			copied, encoded, err := l.EncodeParts(recs)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(copied) + string(encoded); got != want.String() {
				t.Fatalf("seed %d, %s: EncodeParts differs from Encode:\n%s\nwant\n%s", seed, c.name, got, want.String())
			}
			if c.copied > 0 && len(copied) < l.laid.ends[c.copied-1] {
				t.Errorf("seed %d, %s: %d bytes copied, want the first %d records' %d", seed, c.name, len(copied), c.copied, l.laid.ends[c.copied-1])
			}
		}
	}
}

// TestEncodePartsCopiesOneFileOnly: records of two files, or out of the
// order the file holds them in, are encoded, not copied.
func TestEncodePartsCopiesOneFileOnly(t *testing.T) {
	t.Parallel()
	l := laidLedger(t, 1, 4)
	var text bytes.Buffer
	if err := Encode(&text, l.Records); err != nil {
		t.Fatal(err)
	}
	one := t.TempDir()
	if err := os.WriteFile(filepath.Join(one, "ledger.json"), text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	two := t.TempDir()
	for i, name := range []string{"a.json", "b.json"} {
		var part bytes.Buffer
		if err := Encode(&part, l.Records[2*i:2*i+2]); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(two, name), part.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shuffled := append([]Record{l.Records[1], l.Records[0]}, l.Records[2:]...)
	var mixed bytes.Buffer
	if err := Encode(&mixed, shuffled); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		read func() (*Ledger, error)
		copy bool
	}{
		{"one file", func() (*Ledger, error) { return ReadDir(one) }, true},
		{"two files", func() (*Ledger, error) { return ReadDir(two) }, false},
		{"out of order", func() (*Ledger, error) { return Decode(mixed.Bytes(), "mixed"), nil }, false},
	} {
		got, err := c.read()
		if err != nil {
			t.Fatal(err)
		}
		recs := append(append([]Record(nil), got.Records...), l.Records[0])
		copied, encoded, err := got.EncodeParts(recs)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := Encode(&want, recs); err != nil {
			t.Fatal(err)
		}
		if string(copied)+string(encoded) != want.String() || (len(copied) > 0) != c.copy {
			t.Errorf("%s: %d bytes copied (want some: %v), the text Encode's: %v", c.name, len(copied), c.copy, string(copied)+string(encoded) == want.String())
		}
	}
}

// TestIdenticalSeesEveryField: a record that differs in any one value,
// at any depth, is not identical, so that its old text is never copied.
func TestIdenticalSeesEveryField(t *testing.T) {
	t.Parallel()
	build := func() *Record {
		pct := 50.0
		return &Record{Version: 1, RunID: 2, RunAttempt: 3, Commit: "c", At: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Phase: "p",
			Tests: &Tests{Passed: 1, Failed: 2, Skipped: 3, Failing: []string{"f"}}, Errors: []Error{{Hash: "h", Sample: "s"}},
			Output: &Output{Lines: 1, Bytes: 2}, PermissionDenials: 1, CompletionClaimed: true, QuestionsAsked: true,
			ProgressPercent: &pct, Tasks: &Tasks{Done: 1, Total: 2}, CurrentTask: "t",
			Checkpoint:  &Checkpoint{Program: "a", Policy: "b", Base: "c", Digest: "d", State: json.RawMessage(`{}`)},
			LabelResets: []LabelReset{{At: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), By: "maintainer"}}}
	}
	if !identical(build(), build()) {
		t.Fatal("two records of the same values are not identical")
	}
	// Every value a record holds, as the fields (or first elements) that
	// lead to it.
	var leaves [][]int
	var walk func(v reflect.Value, path []int)
	walk = func(v reflect.Value, path []int) {
		switch {
		case v.Kind() == reflect.Pointer:
			walk(v.Elem(), path)
		case v.Kind() == reflect.Struct && v.Type() != reflect.TypeOf(time.Time{}):
			for i := range v.NumField() {
				walk(v.Field(i), append(append([]int(nil), path...), i))
			}
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
			walk(v.Index(0), append(append([]int(nil), path...), -1))
		default:
			leaves = append(leaves, path)
		}
	}
	walk(reflect.ValueOf(build()), nil)
	for _, path := range leaves {
		r := build()
		v := reflect.ValueOf(r).Elem()
		for _, i := range path {
			if v.Kind() == reflect.Pointer {
				v = v.Elem()
			}
			if i < 0 {
				v = v.Index(0)
			} else {
				v = v.Field(i)
			}
		}
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		switch x := v.Addr().Interface().(type) {
		case *int:
			*x++
		case *int64:
			*x++
		case *bool:
			*x = !*x
		case *string:
			*x += "x"
		case *float64:
			*x = -*x
		case *time.Time:
			*x = x.Add(time.Nanosecond)
		case *[]string:
			*x = append(*x, "x")
		case *json.RawMessage:
			*x = json.RawMessage(`[]`)
		default:
			t.Fatalf("field path %v: no change made for a %T", path, x)
		}
		if identical(build(), r) {
			t.Errorf("field path %v changed, and the records are still identical", path)
		}
	}
	if len(leaves) < 25 {
		t.Errorf("%d values found in a record, want every one", len(leaves))
	}
}

// TestLaidTimesOfOneDay: times read on a day the reader has seen (its
// midnight kept) are the times read on their own, to the representation
// (identical compares them with ==), and a day that does not exist is
// not read as one.
func TestLaidTimesOfOneDay(t *testing.T) {
	t.Parallel()
	texts := []string{
		"2026-01-31T00:00:00Z", "2026-01-31T23:59:59.999999999Z", "2026-01-31T12:30:00.5Z",
		"2026-02-01T00:00:01Z", "2024-02-29T10:00:00.000000001Z", "2024-02-29T10:00:00Z",
		"2023-02-29T10:00:00Z", "2023-02-29T11:00:00Z", "2026-01-31T24:00:00Z", "2026-01-31T09:60:00Z",
	}
	var d day
	for _, s := range texts {
		got, ok := d.utc([]byte(s))
		want, wantOK := laidUTC([]byte(s))
		if ok != wantOK || got != want {
			t.Errorf("%s after the day before: got %v %v, want %v %v", s, got, ok, want, wantOK)
		}
		if parsed, err := time.Parse(time.RFC3339Nano, s); wantOK && (err != nil || !parsed.Equal(want)) {
			t.Errorf("%s: read as %v, time.Parse reads %v (%v)", s, want, parsed, err)
		}
	}
}

// laidUTC reads one time with a day of its own, as the first record of a
// ledger is read.
func laidUTC(s []byte) (time.Time, bool) {
	var d day
	return d.utc(s)
}
