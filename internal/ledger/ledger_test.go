package ledger

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
)

var base = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

func rec(run int64, attempt, minute int) Record {
	return Record{Version: 1, RunID: run, RunAttempt: attempt, At: base.Add(time.Duration(minute) * time.Minute),
		Commit: strings.Repeat("a", 40), Errors: []Error{}}
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ids(recs []Record) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.RunID)
	}
	return out
}

func TestReadDirFormats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "one.json"), marshal(t, rec(1, 1, 1)), 0o644)
	os.WriteFile(filepath.Join(dir, "array.json"), marshal(t, []Record{rec(2, 1, 2), rec(3, 1, 3)}), 0o644)
	lines := append(append(marshal(t, rec(4, 1, 4)), '\n'), marshal(t, rec(5, 1, 5))...)
	os.WriteFile(filepath.Join(dir, "lines.json"), lines, 0o644)
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, _ := zw.Create("record.json")
	w.Write(marshal(t, []Record{rec(6, 1, 6), rec(1, 1, 1)})) // cumulative: repeats run 1
	zw.Close()
	os.WriteFile(filepath.Join(dir, "artifact.zip"), zbuf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)

	l, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Problems) != 0 {
		t.Errorf("got problems %v, want none", l.Problems)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6}, ids(l.Records)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
}

func TestCorruptEntriesAreReportedAndSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := rec(1, 1, 1)
	os.WriteFile(filepath.Join(dir, "good.json"), marshal(t, good), 0o644)
	bad := map[string]string{
		"truncated.json":  `{"version":1,"run_id":2`,
		"future.json":     `{"version":2,"run_id":3,"at":"2026-04-01T12:00:00Z"}`,
		"negative.json":   `{"version":1,"run_id":4,"at":"2026-04-01T12:00:00Z","permission_denials":-1}`,
		"badhash.json":    `{"version":1,"run_id":5,"at":"2026-04-01T12:00:00Z","errors":[{"hash":"xyz","sample":"s"}]}`,
		"unknown.json":    `{"version":1,"run_id":6,"at":"2026-04-01T12:00:00Z","reset":true}`,
		"string.json":     `"hello"`,
		"empty.json":      ``,
		"notzip.zip":      `PK not really`,
		"nan.json":        `{"version":1,"run_id":7,"at":"2026-04-01T12:00:00Z","progress_percent":130}`,
		"commit.json":     `{"version":1,"run_id":8,"at":"2026-04-01T12:00:00Z","commit":"../../etc"}`,
		"resetby.json":    `{"version":1,"run_id":9,"at":"2026-04-01T12:00:00Z","label_resets":[{"at":"2026-04-01T11:00:00Z","by":""}]}`,
		"resetat.json":    `{"version":1,"run_id":10,"at":"2026-04-01T12:00:00Z","label_resets":[{"by":"maintainer"}]}`,
		"blocker.json":    `{"version":1,"run_id":11,"at":"2026-04-01T12:00:00Z","admitted":true,"blocker":{"hash":"xyz","sample":"s"}}`,
		"unadmitted.json": `{"version":1,"run_id":12,"at":"2026-04-01T12:00:00Z","blocker":{"hash":"` + strings.Repeat("a", 64) + `","sample":"s"}}`,
		"dollars.json":    `{"version":1,"run_id":13,"at":"2026-04-01T12:00:00Z","cost":{"usd":-0.5}}`,
		"tokens.json":     `{"version":1,"run_id":14,"at":"2026-04-01T12:00:00Z","cost":{"tokens":1e13}}`,
		"costtext.json":   `{"version":1,"run_id":15,"at":"2026-04-01T12:00:00Z","cost":{"usd":"4.10"}}`,
	}
	for name, content := range bad {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "dir.json"), 0o755)
	l, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{1}, ids(l.Records)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if got, want := len(l.Problems), len(bad)+1; got != want {
		t.Errorf("got %d problems, want %d: %v", got, want, l.Problems)
	}
	for _, p := range l.Problems {
		if !strings.HasPrefix(p.File, dir) {
			t.Errorf("problem %q does not name the file", p)
		}
	}
}

func TestOrderReplacesReruns(t *testing.T) {
	t.Parallel()
	recs := []Record{rec(7, 2, 9), rec(5, 1, 1), rec(7, 1, 3), rec(6, 1, 2), rec(0, 0, 4), rec(0, 0, 5)}
	got := order(recs)
	var desc []string
	for _, r := range got {
		desc = append(desc, r.At.Format("15:04")+"/"+string(rune('0'+r.RunID))+"/"+string(rune('0'+r.RunAttempt)))
	}
	want := []string{"12:01/5/1", "12:02/6/1", "12:04/0/0", "12:05/0/0", "12:09/7/2"}
	if diff := cmp.Diff(want, desc); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestZipBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for i := 0; i < MaxZipEntries+5; i++ {
		w, _ := zw.Create("x/../r" + strings.Repeat("a", i%3) + ".json")
		w.Write([]byte("{}"))
	}
	zw.Close()
	os.WriteFile(filepath.Join(dir, "many.zip"), zbuf.Bytes(), 0o644)
	l, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range l.Problems {
		if strings.Contains(p.Err.Error(), "entries; the rest were skipped") {
			found = true
		}
	}
	if !found || len(l.Records) != 0 {
		t.Errorf("got %d records and problems %d, want the entry bound reported", len(l.Records), len(l.Problems))
	}
}

// TestDamagedZipEntryIsOneProblem: an entry whose bytes fail their
// checksum, or that is cut short, is reported once, not also for what the
// decoder made of its bytes.
func TestDamagedZipEntryIsOneProblem(t *testing.T) {
	t.Parallel()
	r := rec(1, 1, 0)
	r.Phase = "GREEN"
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "records.json", Method: zip.Store})
	w.Write(marshal(t, []Record{r}))
	zw.Close()
	damaged := bytes.Replace(zbuf.Bytes(), []byte("GREEN"), []byte("GRAY!"), 1)
	l := &Ledger{limit: MaxLedgerBytes}
	recs := l.readZipFrom(bytes.NewReader(damaged), int64(len(damaged)), "a.zip")
	if len(recs) != 0 || len(l.Problems) != 1 || !strings.Contains(l.Problems[0].String(), "a.zip:records.json: corrupt entry") {
		t.Errorf("got %d records and problems %v, want none and one problem naming the entry", len(recs), l.Problems)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	p := 42.0
	r := rec(9, 1, 1)
	r.Tests = &Tests{Passed: 3, Failed: 1, Failing: []string{"TestX"}}
	r.ProgressPercent = &p
	r.Tasks = &Tasks{Done: 2, Total: 5}
	r.CurrentTask = "Wire the parser"
	r.LabelResets = []LabelReset{{At: base.Add(-time.Hour), By: "maintainer"}, {At: base.Add(-time.Minute), By: "octo-admin"}}
	var buf bytes.Buffer
	if err := Encode(&buf, []Record{r}); err != nil {
		t.Fatal(err)
	}
	want, err := json.MarshalIndent([]Record{r}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != string(want)+"\n" {
		t.Errorf("Encode wrote\n%s\nwant the records indented by two spaces, as earlier ledgers are:\n%s", got, want)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "record.json"), buf.Bytes(), 0o644)
	l, err := ReadDir(dir)
	if err != nil || len(l.Problems) > 0 {
		t.Fatalf("read back: %v %v", err, l.Problems)
	}
	if diff := cmp.Diff([]Record{r}, l.Records); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestReadDirErrors(t *testing.T) {
	t.Parallel()
	if _, err := ReadDir(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("got %v, want an error naming the directory", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := ReadDir(f); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("got %v, want not a directory", err)
	}
}

// TestRecordsAreKeyedByRunAttemptAndIteration: the iterations of one run
// attempt are all kept; a re-run's record replaces the earlier attempt's
// record of the same iteration and no other; a record written before
// records were numbered is its run's first iteration.
func TestRecordsAreKeyedByRunAttemptAndIteration(t *testing.T) {
	t.Parallel()
	it := func(run int64, attempt, iteration, minute int) Record {
		r := rec(run, attempt, minute)
		r.Iteration = iteration
		return r
	}
	recs := []Record{it(7, 1, 0, 0), it(9, 1, 1, 1), it(9, 1, 2, 2), it(9, 1, 3, 3), it(7, 2, 1, 4), it(9, 2, 1, 5), it(9, 1, 2, 2)}
	l := Decode(marshal(t, recs), "a.json")
	type k struct {
		Run                int64
		Attempt, Iteration int
	}
	var got []k
	for _, r := range l.Records {
		got = append(got, k{r.RunID, r.RunAttempt, r.Iteration})
	}
	want := []k{{9, 1, 2}, {9, 1, 3}, {7, 2, 1}, {9, 2, 1}}
	if diff := cmp.Diff(want, got); diff != "" || len(l.Problems) > 0 {
		t.Errorf("records (-want +got):\n%s\nproblems %v", diff, l.Problems)
	}
	if n := NextIteration(l.Records, 9, 2); n != 2 {
		t.Errorf("got next iteration %d of run 9 attempt 2, want 2", n)
	}
	if n := NextIteration(l.Records, 0, 0); n != 0 {
		t.Errorf("got next iteration %d outside GitHub, want 0", n)
	}
	// The re-run's second iteration replaces the first attempt's second.
	l.Add([]Record{it(9, 2, 2, 6), it(9, 2, 2, 6)})
	if n := len(l.Records); n != 4 || l.Records[0].Iteration != 3 || l.Records[n-1].Iteration != 2 {
		t.Errorf("after adding a record twice got %d records, want 4", n)
	}
}

// TestCheckpointOfOldRecordsIsDropped: records written when runs went on
// from a checkpoint carry one; they still load, and lose it, while any
// other unknown field is refused.
func TestCheckpointOfOldRecordsIsDropped(t *testing.T) {
	t.Parallel()
	old := `{"version":1,"run_id":3,"run_attempt":1,"at":"2026-04-01T12:00:00Z","errors":[],` +
		`"checkpoint":{"program":"fold/1","policy":"p","base":"rev x","digest":"` + strings.Repeat("a", 64) + `","state":{"breaker":{}}}}`
	l := Decode([]byte("["+old+"]"), "old.json")
	if len(l.Records) != 1 || len(l.Problems) > 0 {
		t.Fatalf("got %d records, problems %v; want the record", len(l.Records), l.Problems)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, l.Records); err != nil || strings.Contains(buf.String(), "checkpoint") {
		t.Errorf("written back (%v):\n%s\nwant no checkpoint", err, buf.String())
	}
	l = Decode([]byte(strings.Replace(old, `"checkpoint"`, `"checkpoints"`, 1)), "new.json")
	if len(l.Records) != 0 || !problemsSay(l, `unknown field "checkpoints"`) {
		t.Errorf("got %d records, problems %v; want the unknown field refused", len(l.Records), l.Problems)
	}
}

func TestAdmissionRoundTrip(t *testing.T) {
	t.Parallel()
	blocker := breaker.Signature{Hash: strings.Repeat("b", 64), Sample: "still blocked on the staging credentials"}
	it := breaker.Iteration{At: base, Admitted: true, Blocker: &blocker}
	r := FromIteration(&it, 3, 1)
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	var back Record
	if err := json.Unmarshal(marshal(t, r), &back); err != nil {
		t.Fatal(err)
	}
	var got breaker.Iteration
	back.Apply(&got)
	if !got.Admitted || got.Blocker == nil || *got.Blocker != blocker {
		t.Errorf("admission read back as %v %v, want admitted with %v", got.Admitted, got.Blocker, blocker)
	}
	// A record written before admissions were kept admits nothing, and
	// cannot take away the commit message's admission.
	old := rec(4, 1, 1)
	var plain breaker.Iteration
	old.Apply(&plain)
	if plain.Admitted || plain.Blocker != nil {
		t.Errorf("an old record admitted %v %v", plain.Admitted, plain.Blocker)
	}
	plain.Admitted = true
	old.Apply(&plain)
	if !plain.Admitted {
		t.Error("a record without an admission took away the commit message's")
	}
}

// TestCostRoundTrip: an iteration's cost goes into its record, to the
// micro-dollar, and comes back out of it; a record without one (written
// before costs were kept, or by an agent that reports none) has no cost.
func TestCostRoundTrip(t *testing.T) {
	t.Parallel()
	usd, tokens := 0.12345678, int64(98765)
	it := breaker.Iteration{At: base, Cost: &breaker.Cost{USD: &usd, Tokens: &tokens}}
	r := FromIteration(&it, 3, 1)
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	data := marshal(t, r)
	if !strings.Contains(string(data), `"cost":{"usd":0.123457,"tokens":98765}`) {
		t.Errorf("record %s, want the cost to the micro-dollar", data)
	}
	var back Record
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	var got breaker.Iteration
	back.Apply(&got)
	if got.Cost == nil || *got.Cost.USD != 0.123457 || *got.Cost.Tokens != tokens {
		t.Errorf("cost read back as %+v", got.Cost)
	}
	var plain breaker.Iteration
	old := rec(4, 1, 1)
	old.Apply(&plain)
	if plain.Cost != nil || FromIteration(&plain, 4, 1).Cost != nil {
		t.Errorf("a record without a cost gave %+v", plain.Cost)
	}
}
