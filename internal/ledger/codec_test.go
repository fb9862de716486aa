package ledger

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// oddTexts are strings that encoding/json escapes, or that are awkward to
// read back: the hand-written codec must treat them as it does.
var oddTexts = []string{"", "plain", `say "hi"`, `C:\path`, "<b>&amp;</b>", "tab\there\nnew line\r", "\x00\x01\x1f\x7f",
	"ünïcödé ✓ 🎉", "line\u2028sep\u2029", "bad \xff utf-8", "ends with \\", "/slash/", strings.Repeat("é", 300)}

// randomRecord makes a valid record of every shape the schema allows.
func randomRecord(r *rand.Rand) Record {
	pick := func() string { return oddTexts[r.IntN(len(oddTexts))] }
	hex := func(n int) string {
		const digits = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = digits[r.IntN(16)]
		}
		return string(b)
	}
	rec := Record{Version: 1, RunID: r.Int64N(1 << 40), RunAttempt: r.IntN(5),
		At: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(1e15))), Phase: pick()}
	if len(rec.Phase) > MaxPhase {
		rec.Phase = ""
	}
	if r.IntN(4) > 0 {
		rec.Commit = hex(40)
	}
	if r.IntN(3) == 0 {
		rec.At = rec.At.In(time.FixedZone("", 5*3600+1800))
	}
	if r.IntN(3) > 0 {
		t := &Tests{Passed: r.IntN(1000), Failed: r.IntN(50), Skipped: r.IntN(5)}
		switch r.IntN(3) {
		case 1:
			t.Failing = []string{}
		case 2:
			for range r.IntN(4) + 1 {
				t.Failing = append(t.Failing, pick())
			}
		}
		rec.Tests = t
	}
	switch r.IntN(3) {
	case 1:
		rec.Errors = []Error{}
	case 2:
		for range r.IntN(3) + 1 {
			rec.Errors = append(rec.Errors, Error{Hash: hex(64), Sample: pick()})
		}
	}
	if r.IntN(2) == 0 {
		rec.Output = &Output{Lines: r.IntN(5000), Bytes: r.Int64N(1 << 33)}
	}
	rec.PermissionDenials = r.IntN(3)
	rec.CompletionClaimed, rec.QuestionsAsked = r.IntN(2) == 0, r.IntN(2) == 0
	if r.IntN(2) == 0 {
		p := []float64{0, 1e-7, 0.5, 33.333333333333336, 99.99, 100}[r.IntN(6)]
		rec.ProgressPercent = &p
	}
	if r.IntN(2) == 0 {
		total := r.IntN(40)
		rec.Tasks = &Tasks{Done: r.IntN(total + 1), Total: total}
	}
	if r.IntN(3) == 0 {
		rec.CurrentTask = pick()
		if len(rec.CurrentTask) > MaxTask {
			rec.CurrentTask = ""
		}
	}
	if r.IntN(3) == 0 {
		rec.Checkpoint = &Checkpoint{Program: "fold/1 " + pick(), Policy: hex(64), Base: "rev " + hex(40), Digest: hex(64)}
		if r.IntN(2) == 0 {
			rec.Checkpoint.State = json.RawMessage(`{"breaker": {"state":"OPEN","n":[1, 2.5e3, -0],"s":"<\"x\">","e":{},"a":[]}, "ok": true, "no": null}`)
		}
	}
	switch r.IntN(4) {
	case 1:
		rec.LabelResets = []LabelReset{}
	case 2:
		for range r.IntN(3) + 1 {
			by := pick()
			if by == "" || len(by) > MaxName || !utf8.ValidString(by) {
				by = "maintainer"
			}
			rec.LabelResets = append(rec.LabelResets, LabelReset{At: rec.At.Add(-time.Duration(r.Int64N(1e12))), By: by})
		}
	}
	return rec
}

func randomRecords(seed uint64, n int) []Record {
	r := rand.New(rand.NewPCG(seed, 7))
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = randomRecord(r)
	}
	return recs
}

// TestEncodeWritesWhatMarshalIndentWrites: the cumulative ledger file is
// byte for byte what encoding/json wrote before.
func TestEncodeWritesWhatMarshalIndentWrites(t *testing.T) {
	t.Parallel()
	for seed := range uint64(40) {
		recs := randomRecords(seed, int(seed%7))
		var got bytes.Buffer
		if err := Encode(&got, recs); err != nil {
			t.Fatal(err)
		}
		if recs == nil {
			recs = []Record{}
		}
		want, err := json.MarshalIndent(recs, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(append(want, '\n')), got.String()); diff != "" {
			t.Fatalf("seed %d: Encode differs from json.MarshalIndent (-want +got):\n%s", seed, diff)
		}
	}
}

// TestFastDecodeReadsWhatEncodingJSONReads: whatever the hand-written
// reader accepts, encoding/json reads to the same records; what it does
// not accept still decodes, through encoding/json.
func TestFastDecodeReadsWhatEncodingJSONReads(t *testing.T) {
	t.Parallel()
	laidOut := 0
	defer func() {
		if laidOut < 5 {
			t.Errorf("%d of 40 ledgers were read as laid out, want at least 5", laidOut)
		}
	}()
	for seed := range uint64(40) {
		recs := randomRecords(seed, 5)
		indented, err := json.MarshalIndent(recs, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		compact, err := json.Marshal(recs)
		if err != nil {
			t.Fatal(err)
		}
		for _, data := range [][]byte{indented, compact, append([]byte("\xef\xbb\xbf \n"), compact...)} {
			slow := (&Ledger{}).decodeFrom(bytes.NewReader(data), "slow")
			fast, ends, ok := readRecords(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
			if !ok {
				continue // a record with text the hand-written reader leaves to encoding/json
			}
			// Text that Encode writes for the records it reads is laid out
			// (text with invalid UTF-8 reads back as other text).
			again, err := appendRecords(nil, fast)
			if err != nil {
				t.Fatal(err)
			}
			laid := bytes.Equal(again, append(data, '\n'))
			if laid != (len(ends) == len(fast)) {
				t.Fatalf("seed %d: %d of %d records read as laid out, laid out as Encode writes them: %v", seed, len(ends), len(fast), laid)
			}
			if laid {
				laidOut++
			}
			checkLaid(t, data, fast, ends)
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Fatalf("seed %d: the readers differ (-encoding/json +fast):\n%s", seed, diff)
			}
			if l := Decode(data, "both"); len(l.Problems) > 0 || !cmp.Equal(l.Records, ordered(slow)) {
				t.Fatalf("seed %d: Decode gave %d records and problems %v", seed, len(l.Records), l.Problems)
			}
		}
	}
}

// TestFastDecodeLeavesTheOddToEncodingJSON: layouts and values the
// hand-written reader does not take apart are decoded (and reported) by
// encoding/json, as before.
func TestFastDecodeLeavesTheOddToEncodingJSON(t *testing.T) {
	t.Parallel()
	const at = `"at":"2026-04-01T12:00:00Z"`
	for _, in := range []string{
		`{"version":1,` + at + `}`, // one record, not an array
		`[{"version":1,` + at + `}]` + "\n" + `[]`,
		`[{"version":1,"Version":1,` + at + `}]`,
		`[{"version":1,"version":1,` + at + `}]`,
		`[{"version":1.0,` + at + `}]`,
		`[{"version":1,` + at + `,"surprise":1}]`,
		`[{"version":1,` + at + `,"phase":"\ud83c\udf89"}]`,
		`[{"version":1,` + at + `,"tests":{"passed":-1}}]`,
		`[{"version":1,` + at + `,"checkpoint":{"digest":"` + strings.Repeat("0", 64) + `","state":null}}]`,
		`[{"version":1,"at":"2026-04-01T12:00:00Z","progress_percent":1e999}]`,
	} {
		if recs, _, ok := readRecords([]byte(in)); ok {
			t.Errorf("readRecords(%s) took it apart: %+v", in, recs)
		}
		slow := &Ledger{}
		want := slow.decodeFrom(strings.NewReader(in), "x")
		got := Decode([]byte(in), "x")
		if !cmp.Equal(ordered(want), got.Records) || len(got.Problems) != len(slow.Problems) {
			t.Errorf("Decode(%s) = %d records, problems %v; encoding/json: %d, %v", in, len(got.Records), got.Problems, len(want), slow.Problems)
		}
	}
}

// ordered orders records as a ledger keeps them.
func ordered(recs []Record) []Record {
	recs, _ = newest(order(recs))
	return recs
}

// FuzzFastDecode: on any input the hand-written reader accepts, it reads
// what encoding/json reads, with no problem.
func FuzzFastDecode(f *testing.F) {
	for seed := range uint64(4) {
		b, _ := json.MarshalIndent(randomRecords(seed, 2), "", "  ")
		f.Add(b)
	}
	f.Add([]byte(`[{"version":1,"at":"2026-04-01T12:00:00Z","errors":[{"hash":"` + strings.Repeat("a", 64) + `","sample":"x\u00e9\n"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ends, ok := readRecords(data)
		if !ok {
			return
		}
		checkLaid(t, data, fast, ends)
		l := &Ledger{}
		slow := l.decodeFrom(bytes.NewReader(data), "fuzz")
		if len(l.Problems) > 0 {
			t.Fatalf("encoding/json found problems in what readRecords took: %v", l.Problems)
		}
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("the readers differ (-encoding/json +fast):\n%s", diff)
		}
	})
}

// checkLaid fails unless the records the reader took as laid out are
// byte for byte what appendRecords writes for them.
func checkLaid(t *testing.T, data []byte, recs []Record, ends []int) {
	t.Helper()
	if len(ends) == 0 {
		return
	}
	all, err := appendRecords(nil, recs[:len(ends)])
	if err != nil {
		t.Fatal(err)
	}
	for k, end := range ends {
		if !bytes.HasPrefix(all, data[:end]) || end < len(all) && all[end] != ',' && k < len(ends)-1 {
			t.Fatalf("the first %d records read as laid out are not what appendRecords writes:\n%q\n%q", k+1, data[:end], all)
		}
	}
	if last := ends[len(ends)-1]; string(all[last:]) != "\n]\n" {
		t.Fatalf("the laid-out records end at %d, appendRecords's at %d", last, len(all)-3)
	}
}

// TestParseIntIsStrconv: the hand-written integer reader takes what
// strconv.ParseInt takes, to the same value.
func TestParseIntIsStrconv(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0", "-0", "7", "-7", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "12345678901234567890", "-", ""} {
		for _, bits := range []int{32, 64} {
			want, err := strconv.ParseInt(s, 10, bits)
			got, ok := parseInt([]byte(s), bits)
			if ok != (err == nil) || ok && got != want {
				t.Errorf("parseInt(%q, %d) = %d, %v; strconv: %d, %v", s, bits, got, ok, want, err)
			}
		}
	}
}
