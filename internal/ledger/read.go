package ledger

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// Bounds on reading a ledger.
const (
	MaxRecords     = 10000    // records kept (the newest)
	MaxFileBytes   = 64 << 20 // one JSON file, or one zip entry uncompressed
	MaxZipEntries  = 1000     // entries looked at in one zip
	MaxZipTotal    = 256 << 20
	MaxLedgerFiles = 10000
	// MaxProblems bounds the problems listed; a last one counts the rest.
	MaxProblems = 100
	// MaxBadEntries is how many invalid entries one file may hold before
	// the rest of it is skipped: records this program wrote are valid, so
	// a file of junk is cut short instead of being read to its end.
	MaxBadEntries = 100
	// MaxLedgerBytes bounds the bytes decoded from one directory, files
	// and zip entries together.
	MaxLedgerBytes = 128 << 20
)

// ErrOverMaxRecords is wrapped by the problem that says how many of the
// oldest records were left out because a ledger held more than MaxRecords.
// Unlike the other problems it is no fault of the ledger.
var ErrOverMaxRecords = fmt.Errorf("more than %d records", MaxRecords)

// Problem is a ledger entry that was reported and skipped.
type Problem struct {
	File string // the file (and zip entry) at fault
	Err  error
}

func (p Problem) String() string { return fmt.Sprintf("%s: %v", p.File, p.Err) }

// Ledger is the ordered, de-duplicated records of earlier runs.
type Ledger struct {
	Records  []Record
	Problems []Problem
	// Dropped counts the oldest records left out to keep MaxRecords; a
	// problem wrapping ErrOverMaxRecords says so.
	Dropped int
	// unlisted counts the problems beyond MaxProblems.
	unlisted int
	// read counts the bytes decoded, against limit (MaxLedgerBytes).
	read, limit int64
}

// budget counts n more bytes to decode and reports whether they fit in
// MaxLedgerBytes; the first time they do not, it says so.
func (l *Ledger) budget(n int, where string) bool {
	if l.read > l.limit {
		return false
	}
	if l.read += int64(n); l.read > l.limit {
		l.bound(where, fmt.Errorf("more than %d bytes of records in the ledger; the rest were skipped", l.limit))
		return false
	}
	return true
}

// problem reports a skipped entry, keeping at most MaxProblems.
func (l *Ledger) problem(file string, err error) { l.report(file, err, MaxProblems) }

// bound reports that a bound cut a file or the directory short. It is
// listed even when MaxProblems entry problems already are (up to twice
// that many problems in all), because it says what was not read.
func (l *Ledger) bound(file string, err error) { l.report(file, err, 2*MaxProblems) }

func (l *Ledger) report(file string, err error, most int) {
	if len(l.Problems) < most {
		l.Problems = append(l.Problems, Problem{file, err})
		return
	}
	l.unlisted++
}

// done orders the records, keeps the newest MaxRecords and closes the
// problem list.
func (l *Ledger) done(recs []Record, where string) {
	recs, dropped := newest(order(recs))
	l.Records = recs
	if l.Dropped += dropped; l.Dropped > 0 {
		l.bound(where, fmt.Errorf("%w: the %d oldest were not read", ErrOverMaxRecords, l.Dropped))
	}
	if l.unlisted > 0 {
		l.Problems = append(l.Problems, Problem{where, fmt.Errorf("%d more problems were not listed", l.unlisted)})
		l.unlisted = 0
	}
}

// keep adds records to recs, trimming to the newest MaxRecords whenever
// twice that many are held, so that a huge ledger never holds more. The
// records trimmed are counted in Dropped.
func (l *Ledger) keep(recs, more []Record) []Record {
	if len(recs) == 0 {
		recs = more // no copy
	} else {
		recs = append(recs, more...)
	}
	if len(recs) >= 2*MaxRecords {
		var dropped int
		recs, dropped = newest(order(recs))
		l.Dropped += dropped
	}
	return recs
}

// ReadDir reads every *.json and *.zip in dir (not recursively). A corrupt
// file or record is reported in Problems and skipped; only a directory that
// cannot be read at all is an error.
func ReadDir(dir string) (*Ledger, error) {
	return readDir(dir, MaxLedgerBytes)
}

// readDir is ReadDir with the byte budget as a parameter, for tests.
func readDir(dir string, limit int64) (*Ledger, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("ledger %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("ledger %s: not a directory", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("ledger %s: %w", dir, err)
	}
	l := &Ledger{limit: limit}
	var recs []Record
	n := 0
	for _, e := range entries {
		name := e.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if ext != ".json" && ext != ".zip" {
			continue
		}
		path := filepath.Join(dir, name)
		if regularfile.Irregular(e.Type()) {
			// A named pipe, socket or device among the records is planted,
			// not written by a run: refused, never read.
			return nil, fmt.Errorf("ledger %s: not a regular file (%s)", path, regularfile.Kind(e.Type()))
		}
		if !e.Type().IsRegular() {
			l.problem(path, errors.New("not a regular file (skipped)"))
			continue
		}
		if n++; n > MaxLedgerFiles {
			l.bound(dir, fmt.Errorf("more than %d ledger files; the rest were skipped", MaxLedgerFiles))
			break
		}
		more, ok := l.readFile(path, ext == ".zip")
		if !ok {
			break
		}
		recs = l.keep(recs, more)
	}
	l.done(recs, dir)
	return l, nil
}

// ReadZip reads the records of a zip archive held in memory (a downloaded
// artifact), bounded as a zip file of a directory is; where names it in
// problems.
func ReadZip(data []byte, where string) *Ledger {
	l := &Ledger{limit: MaxLedgerBytes}
	l.done(l.readZipFrom(bytes.NewReader(data), int64(len(data)), where), where)
	return l
}

// readFile reads the records of one JSON or zip file; ok is false when
// the directory's byte budget is spent.
func (l *Ledger) readFile(path string, zipped bool) (recs []Record, ok bool) {
	f, st, err := regularfile.Open(path)
	if err != nil {
		l.problem(path, err)
		return nil, true
	}
	defer f.Close()
	if zipped {
		return l.readZipFrom(f, st.Size(), path), true
	}
	if st.Size() > MaxFileBytes {
		l.problem(path, fmt.Errorf("larger than %d bytes (skipped)", MaxFileBytes))
		return nil, true
	}
	if !l.budget(int(st.Size()), path) {
		return nil, false
	}
	return l.readEntry(f, st.Size(), path), true
}

// readEntry reads the records of one file or zip entry of about size
// bytes, reading at most MaxFileBytes: an entry that is larger, or that
// cannot be read to its end, gives no records.
func (l *Ledger) readEntry(r io.Reader, size int64, where string) []Record {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(size, 0), MaxFileBytes)+bytes.MinRead))
	n, err := buf.ReadFrom(io.LimitReader(r, MaxFileBytes+1))
	switch {
	case err != nil:
		l.problem(where, fmt.Errorf("corrupt entry: %w", err))
		return nil
	case n > MaxFileBytes:
		l.problem(where, fmt.Errorf("uncompressed size over %d bytes (skipped)", MaxFileBytes))
		return nil
	}
	return l.decode(buf.Bytes(), where)
}

// readZipFrom reads the records in a zip archive of size bytes; path names
// it in problems.
func (l *Ledger) readZipFrom(r io.ReaderAt, size int64, path string) []Record {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		l.problem(path, fmt.Errorf("not a zip archive: %w", err))
		return nil
	}
	var recs []Record
	var total int64
	for i, f := range zr.File {
		if i >= MaxZipEntries {
			l.bound(path, fmt.Errorf("more than %d entries; the rest were skipped", MaxZipEntries))
			break
		}
		if f.FileInfo().IsDir() || !strings.EqualFold(filepath.Ext(f.Name), ".json") {
			continue
		}
		where := path + ":" + f.Name
		if f.UncompressedSize64 > MaxFileBytes {
			l.problem(where, fmt.Errorf("uncompressed size over %d bytes (skipped)", MaxFileBytes))
			continue
		}
		if total += int64(f.UncompressedSize64); total > MaxZipTotal {
			l.bound(path, fmt.Errorf("more than %d bytes uncompressed; the rest were skipped", MaxZipTotal))
			break
		}
		if !l.budget(int(f.UncompressedSize64), where) {
			break
		}
		rc, err := f.Open()
		if err != nil {
			l.problem(where, err)
			continue
		}
		recs = l.keep(recs, l.readEntry(rc, int64(f.UncompressedSize64), where))
		rc.Close()
	}
	return recs
}

// Decode reads records from one blob (an object, an array or JSON lines),
// validating each; bad entries are reported in Problems.
func Decode(data []byte, where string) *Ledger {
	l := &Ledger{}
	l.done(l.decode(data, where), where)
	return l
}

// decode reads one record, an array of records, or JSON lines, one entry
// at a time. After MaxBadEntries invalid entries the rest of the blob is
// skipped.
func (l *Ledger) decode(data []byte, where string) []Record {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(data) == 0 {
		l.problem(where, errors.New("empty file"))
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	array := data[0] == '['
	switch {
	case array:
		if _, err := dec.Token(); err != nil {
			l.problem(where, fmt.Errorf("not a JSON array of records: %w", err))
			return nil
		}
	case data[0] != '{':
		l.problem(where, errors.New("not JSON records (want an object, an array or JSON lines)"))
		return nil
	}
	var out []Record
	bad := 0
	for i := 0; ; i++ {
		if array && !dec.More() {
			if _, err := dec.Token(); err != nil {
				l.problem(where, fmt.Errorf("not a JSON array of records: %w", err))
			} else if _, err := dec.Token(); err != io.EOF {
				l.problem(where, fmt.Errorf("not a JSON array of records: data after the closing bracket"))
			}
			break
		}
		start := dec.InputOffset()
		var w struct {
			Record
			// Records written when a run could go on from a checkpoint of an
			// earlier fold may carry one: read and dropped, so that those
			// ledgers still load, while any other unknown field is refused.
			Checkpoint json.RawMessage `json:"checkpoint"`
		}
		err := dec.Decode(&w)
		if err == io.EOF && !array {
			break
		}
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			kind := "invalid JSON"
			if array {
				kind = "not a JSON array of records: invalid JSON"
			}
			l.problem(where, fmt.Errorf("%s after %d records: %w", kind, i, err))
			break
		}
		switch {
		case err != nil:
			err = fmt.Errorf("not a record: %w", err)
		case dec.InputOffset()-start > MaxRecordLen:
			err = fmt.Errorf("record larger than %d bytes", MaxRecordLen)
		default:
			err = w.Validate()
		}
		if err != nil {
			l.problem(fmt.Sprintf("%s[%d]", where, i), err)
			if bad++; bad >= MaxBadEntries {
				l.bound(where, fmt.Errorf("%d invalid entries; the rest of the file was skipped", bad))
				break
			}
			continue
		}
		if out = append(out, w.Record); len(out) >= 2*MaxRecords {
			out = l.keep(out, nil)
		}
	}
	return out
}

// Add adds records to the ledger, ordered and bounded as a reader of all
// of them would have them.
func (l *Ledger) Add(recs []Record) {
	var dropped int
	l.Records, dropped = newest(order(append(slices.Clip(l.Records), recs...)))
	l.Dropped += dropped
}

// newest keeps the newest MaxRecords of ordered records and returns how
// many it dropped.
func newest(recs []Record) ([]Record, int) {
	if len(recs) <= MaxRecords {
		return recs, 0
	}
	return recs[len(recs)-MaxRecords:], len(recs) - MaxRecords
}

// key is what a record is known by: its run, attempt and iteration.
type key struct {
	run                int64
	attempt, iteration int
}

func keyOf(r *Record) key { return key{r.RunID, r.RunAttempt, r.number()} }

// before orders keys.
func (k key) before(o key) bool {
	if k.run != o.run {
		return k.run < o.run
	}
	if k.attempt != o.attempt {
		return k.attempt < o.attempt
	}
	return k.iteration < o.iteration
}

// order sorts records by at, then run_id, run_attempt and iteration.
// Every iteration of a run (run_id > 0) is kept; a later attempt's record
// of an iteration replaces the earlier attempts' (a re-run does the job
// again from the same commit), and of two records with the same run,
// attempt and iteration the later is kept. Exact duplicates (the same
// record from a cumulative artifact and a single file) are dropped.
func order(recs []Record) []Record {
	if inOrder(recs) {
		return recs
	}
	type slot struct {
		run       int64
		iteration int
	}
	latest := map[slot]int{}
	for i := range recs {
		if r := &recs[i]; r.RunID > 0 {
			s := slot{r.RunID, r.number()}
			latest[s] = max(latest[s], r.RunAttempt)
		}
	}
	var kept []Record
	for i := range recs {
		if r := &recs[i]; r.RunID == 0 || r.RunAttempt == latest[slot{r.RunID, r.number()}] {
			kept = append(kept, *r)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := &kept[i], &kept[j]
		if !a.At.Equal(b.At) {
			return a.At.Before(b.At)
		}
		return keyOf(a).before(keyOf(b))
	})
	last := map[key]int{}
	for i := range kept {
		if kept[i].RunID > 0 {
			last[keyOf(&kept[i])] = i
		}
	}
	out := kept[:0]
	for i, r := range kept {
		if r.RunID > 0 && last[keyOf(&r)] != i || r.RunID == 0 && len(out) > 0 && sameRecord(&out[len(out)-1], &r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// inOrder reports whether order would leave recs as they are: ordered
// strictly by at, run_id, run_attempt and iteration, each run (run_id >
// 0) one attempt whose iterations follow each other. A cumulative ledger
// this program wrote is.
func inOrder(recs []Record) bool {
	var run key
	for i := range recs {
		r := &recs[i]
		if i > 0 {
			p := &recs[i-1]
			if c := p.At.Compare(r.At); c > 0 || c == 0 && !keyOf(p).before(keyOf(r)) {
				return false
			}
		}
		if r.RunID > 0 {
			k := keyOf(r)
			if k.run < run.run || k.run == run.run && (k.attempt != run.attempt || k.iteration <= run.iteration) {
				return false // look for repeated runs and iterations
			}
			run = k
		}
	}
	return true
}

func sameRecord(a, b *Record) bool {
	if !a.At.Equal(b.At) || keyOf(a) != keyOf(b) || a.Commit != b.Commit {
		return false // cheap: records that differ here never encode the same
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Encode writes records as one JSON array (the cumulative artifact),
// indented by two spaces, with a final line break.
func Encode(w io.Writer, recs []Record) error {
	if len(recs) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Copy is a copy of l that later Adds to l leave alone (nil for nil).
func (l *Ledger) Copy() *Ledger {
	if l == nil {
		return nil
	}
	c := *l
	c.Records = slices.Clone(l.Records)
	c.Problems = slices.Clone(l.Problems)
	return &c
}
