package ledger

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

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
	// sources counts the files and zip entries that gave records; laid is
	// the first such one's, when its leading records are laid out as
	// Marshal writes them. When the records are that one file's, in its
	// order, Marshal copies those leading records' bytes.
	sources int
	laid    *laidFile
}

// laidFile is a file whose leading len(ends) records are laid out as
// Marshal writes them: data[:ends[k-1]] holds the first k, as Marshal
// writes them before another.
type laidFile struct {
	data []byte
	ends []int
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
func (l *Ledger) problem(file string, err error) {
	if len(l.Problems) < MaxProblems {
		l.Problems = append(l.Problems, Problem{file, err})
		return
	}
	l.unlisted++
}

// bound reports that a bound cut a file or the directory short. It is
// listed even when MaxProblems entry problems already are (up to twice
// that many problems in all), because it says what was not read.
func (l *Ledger) bound(file string, err error) {
	if len(l.Problems) < 2*MaxProblems {
		l.Problems = append(l.Problems, Problem{file, err})
		return
	}
	l.unlisted++
}

// done orders the records, keeps the newest MaxRecords and closes the
// problem list.
func (l *Ledger) done(recs []Record, where string) {
	if l.sources != 1 || !inOrder(recs) || len(recs) > MaxRecords {
		l.laid = nil // the records are not one file's, as it holds them
	}
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
		if ext == ".zip" {
			recs = l.keep(recs, l.readZip(path))
			continue
		}
		more, ok := l.readFile(path)
		if !ok {
			break
		}
		recs = l.keep(recs, more)
	}
	l.done(recs, dir)
	return l, nil
}

// readFile streams the records of one JSON file; ok is false when the
// directory's byte budget is spent.
func (l *Ledger) readFile(path string) (recs []Record, ok bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		l.problem(path, err)
		return nil, true
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		l.problem(path, err)
		return nil, true
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

// countReader reads at most left bytes, counting them and keeping the
// first read error other than io.EOF.
type countReader struct {
	r    io.Reader
	n    int64
	left int64
	err  error
}

func (c *countReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.left -= int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// readEntry reads the records of one file or zip entry of about size
// bytes, reading at most MaxFileBytes: an entry that is larger, or that
// cannot be read to its end, gives no records.
func (l *Ledger) readEntry(r io.Reader, size int64, where string) []Record {
	cr := &countReader{r: r, left: MaxFileBytes + 1}
	buf := bytes.NewBuffer(make([]byte, 0, min(max(size, 0), MaxFileBytes)+bytes.MinRead))
	_, _ = buf.ReadFrom(cr) // the error is cr.err's, below
	data := buf.Bytes()
	var recs []Record
	if cr.err == nil && cr.n <= MaxFileBytes {
		recs = l.decode(data, where)
	}
	switch {
	case cr.err != nil:
		l.problem(where, fmt.Errorf("corrupt entry: %w", cr.err))
		return nil
	case cr.n > MaxFileBytes:
		l.problem(where, fmt.Errorf("uncompressed size over %d bytes (skipped)", MaxFileBytes))
		return nil
	}
	return recs
}

func (l *Ledger) readZip(path string) []Record {
	f, err := os.Open(path)
	if err != nil {
		l.problem(path, err)
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		l.problem(path, err)
		return nil
	}
	return l.readZipFrom(f, st.Size(), path)
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
// skipped. An array of valid records as this program writes them is read
// by hand (codec.go).
func (l *Ledger) decode(data []byte, where string) []Record {
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	recs, ends, ok := readRecords(body)
	if !ok {
		recs = l.decodeFrom(bytes.NewReader(data), where) // it skips the byte order mark itself, once
	}
	if len(recs) > 0 {
		if l.sources++; l.sources == 1 && len(ends) > 0 {
			l.laid = &laidFile{data: body, ends: ends}
		}
	}
	return l.keep(nil, recs)
}

// decodeFrom is decode reading from r.
func (l *Ledger) decodeFrom(r io.Reader, where string) []Record {
	br := bufio.NewReader(r)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	var first byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			if err == io.EOF {
				l.problem(where, errors.New("empty file"))
			} else {
				l.problem(where, err)
			}
			return nil
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			first = c
			br.UnreadByte()
			break
		}
	}
	dec := json.NewDecoder(br)
	array := first == '['
	switch {
	case array:
		if _, err := dec.Token(); err != nil {
			l.problem(where, fmt.Errorf("not a JSON array of records: %w", err))
			return nil
		}
	case first != '{':
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
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF && !array {
			break
		}
		if err != nil {
			kind := "invalid JSON"
			if array {
				kind = "not a JSON array of records: invalid JSON"
			}
			l.problem(where, fmt.Errorf("%s after %d records: %w", kind, i, err))
			break
		}
		r, err := decodeRecord(raw)
		if err != nil {
			l.problem(fmt.Sprintf("%s[%d]", where, i), err)
			if bad++; bad >= MaxBadEntries {
				l.bound(where, fmt.Errorf("%d invalid entries; the rest of the file was skipped", bad))
				break
			}
			continue
		}
		out = l.keep(out, []Record{r})
	}
	return out
}

// decodeRecord decodes and validates one entry.
func decodeRecord(raw json.RawMessage) (Record, error) {
	var r Record
	if len(raw) > MaxRecordLen {
		return r, fmt.Errorf("record larger than %d bytes", MaxRecordLen)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a record: %w", err)
	}
	return r, r.Validate()
}

// newest keeps the newest MaxRecords of ordered records and returns how
// many it dropped.
func newest(recs []Record) ([]Record, int) {
	if len(recs) <= MaxRecords {
		return recs, 0
	}
	return recs[len(recs)-MaxRecords:], len(recs) - MaxRecords
}

// order sorts records by at, run_id, run_attempt; a later attempt of the
// same run (run_id > 0) replaces the earlier; exact duplicates (the same
// record from a cumulative artifact and a single file) are dropped.
func order(recs []Record) []Record {
	if inOrder(recs) {
		return recs
	}
	latest := map[int64]int{}
	for _, r := range recs {
		if r.RunID > 0 && r.RunAttempt > latest[r.RunID] {
			latest[r.RunID] = r.RunAttempt
		}
	}
	var kept []Record
	for _, r := range recs {
		if r.RunID > 0 && r.RunAttempt < latest[r.RunID] {
			continue
		}
		kept = append(kept, r)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if !a.At.Equal(b.At) {
			return a.At.Before(b.At)
		}
		if a.RunID != b.RunID {
			return a.RunID < b.RunID
		}
		return a.RunAttempt < b.RunAttempt
	})
	out := kept[:0]
	for i, r := range kept {
		if i > 0 && sameRecord(&kept[i-1], &r) {
			continue
		}
		if r.RunID > 0 && len(out) > 0 && out[len(out)-1].RunID == r.RunID {
			out[len(out)-1] = r
			continue
		}
		out = append(out, r)
	}
	return out
}

// inOrder reports whether order would leave recs as they are: ordered
// strictly by at, run_id and run_attempt, every run (run_id > 0) once.
// A cumulative ledger this program wrote is.
func inOrder(recs []Record) bool {
	var lastRun int64
	for i := range recs {
		r := &recs[i]
		if i > 0 {
			p := &recs[i-1]
			switch c := p.At.Compare(r.At); {
			case c > 0:
				return false
			case c == 0 && (p.RunID > r.RunID || p.RunID == r.RunID && p.RunAttempt >= r.RunAttempt):
				return false
			}
		}
		if r.RunID > 0 {
			if r.RunID <= lastRun {
				return false // run ids out of order: look for repeated runs
			}
			lastRun = r.RunID
		}
	}
	return true
}

func sameRecord(a, b *Record) bool {
	if !a.At.Equal(b.At) || a.RunID != b.RunID || a.RunAttempt != b.RunAttempt || a.Commit != b.Commit {
		return false // cheap: records that differ here never encode the same
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Encode writes records as one JSON array (the cumulative artifact).
func Encode(w io.Writer, recs []Record) error {
	b, err := appendRecords(make([]byte, 0, recordSize*len(recs)+4), recs)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// recordSize is about the length of an encoded record.
const recordSize = 640

// EncodeParts returns the text Encode writes for recs in two parts, to be
// written one after the other. The first holds the leading records that
// are the ledger's own, unchanged, read from one file laid out as Encode
// writes it: it is that file's bytes, which the caller must not change,
// so that a cumulative ledger written again with a record more is not
// encoded again whole. It is empty when there are none, or l is nil.
func (l *Ledger) EncodeParts(recs []Record) (copied, encoded []byte, err error) {
	k := 0
	if l != nil && l.laid != nil {
		for k < len(recs) && k < len(l.laid.ends) && identical(&recs[k], &l.Records[k]) {
			k++
		}
	}
	b := make([]byte, 0, recordSize*(len(recs)-k+1))
	if k == 0 {
		b, err = appendRecords(b, recs)
		return nil, b, err
	}
	b, err = appendMore(b, k, recs[k:])
	return l.laid.data[:l.laid.ends[k-1]:l.laid.ends[k-1]], b, err
}
