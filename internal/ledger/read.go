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
	"sort"
	"strings"
)

// Bounds on reading a ledger.
const (
	MaxRecords     = 10000    // records kept (the newest)
	MaxFileBytes   = 64 << 20 // one JSON file, or one zip entry uncompressed
	MaxZipEntries  = 1000     // entries looked at in one zip
	MaxZipTotal    = 256 << 20
	MaxLedgerFiles = 10000
)

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
}

// ReadDir reads every *.json and *.zip in dir (not recursively). A corrupt
// file or record is reported in Problems and skipped; only a directory that
// cannot be read at all is an error.
func ReadDir(dir string) (*Ledger, error) {
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
	l := &Ledger{}
	var recs []Record
	n := 0
	for _, e := range entries {
		name := e.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if ext != ".json" && ext != ".zip" {
			continue
		}
		path := filepath.Join(dir, name)
		if !e.Type().IsRegular() {
			l.Problems = append(l.Problems, Problem{path, errors.New("not a regular file (skipped)")})
			continue
		}
		if n++; n > MaxLedgerFiles {
			l.Problems = append(l.Problems, Problem{dir, fmt.Errorf("more than %d ledger files; the rest were skipped", MaxLedgerFiles)})
			break
		}
		if ext == ".zip" {
			recs = append(recs, l.readZip(path)...)
			continue
		}
		data, err := readBounded(path)
		if err != nil {
			l.Problems = append(l.Problems, Problem{path, err})
			continue
		}
		recs = append(recs, l.decode(data, path)...)
	}
	l.Records = Order(recs)
	return l, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("larger than %d bytes (skipped)", MaxFileBytes)
	}
	return data, nil
}

func (l *Ledger) readZip(path string) []Record {
	zr, err := zip.OpenReader(path)
	if err != nil {
		l.Problems = append(l.Problems, Problem{path, fmt.Errorf("not a zip archive: %w", err)})
		return nil
	}
	defer zr.Close()
	var recs []Record
	var total int64
	for i, f := range zr.File {
		if i >= MaxZipEntries {
			l.Problems = append(l.Problems, Problem{path, fmt.Errorf("more than %d entries; the rest were skipped", MaxZipEntries)})
			break
		}
		if f.FileInfo().IsDir() || !strings.EqualFold(filepath.Ext(f.Name), ".json") {
			continue
		}
		where := path + ":" + f.Name
		rc, err := f.Open()
		if err != nil {
			l.Problems = append(l.Problems, Problem{where, err})
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rc, MaxFileBytes+1))
		rc.Close()
		if err != nil {
			l.Problems = append(l.Problems, Problem{where, fmt.Errorf("corrupt entry: %w", err)})
			continue
		}
		if len(data) > MaxFileBytes {
			l.Problems = append(l.Problems, Problem{where, fmt.Errorf("uncompressed size over %d bytes (skipped)", MaxFileBytes)})
			continue
		}
		if total += int64(len(data)); total > MaxZipTotal {
			l.Problems = append(l.Problems, Problem{path, fmt.Errorf("more than %d bytes uncompressed; the rest were skipped", MaxZipTotal)})
			break
		}
		recs = append(recs, l.decode(data, where)...)
	}
	return recs
}

// Decode reads records from one blob (an object, an array or JSON lines),
// validating each; bad entries are reported in Problems.
func Decode(data []byte, where string) *Ledger {
	l := &Ledger{}
	l.Records = Order(l.decode(data, where))
	return l
}

// decode reads one record, an array of records, or JSON lines.
func (l *Ledger) decode(data []byte, where string) []Record {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(data) == 0 {
		l.Problems = append(l.Problems, Problem{where, errors.New("empty file")})
		return nil
	}
	var raws []json.RawMessage
	switch data[0] {
	case '[':
		if err := json.Unmarshal(data, &raws); err != nil {
			l.Problems = append(l.Problems, Problem{where, fmt.Errorf("not a JSON array of records: %w", err)})
			return nil
		}
	case '{':
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if err == io.EOF {
				break
			}
			if err != nil {
				l.Problems = append(l.Problems, Problem{where, fmt.Errorf("invalid JSON after %d records: %w", len(raws), err)})
				break
			}
			raws = append(raws, raw)
		}
	default:
		l.Problems = append(l.Problems, Problem{where, errors.New("not JSON records (want an object, an array or JSON lines)")})
		return nil
	}
	var out []Record
	for i, raw := range raws {
		if len(raw) > MaxRecordLen {
			l.Problems = append(l.Problems, Problem{fmt.Sprintf("%s[%d]", where, i), fmt.Errorf("record larger than %d bytes", MaxRecordLen)})
			continue
		}
		var r Record
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			l.Problems = append(l.Problems, Problem{fmt.Sprintf("%s[%d]", where, i), fmt.Errorf("not a record: %w", err)})
			continue
		}
		if err := r.Validate(); err != nil {
			l.Problems = append(l.Problems, Problem{fmt.Sprintf("%s[%d]", where, i), err})
			continue
		}
		out = append(out, r)
	}
	return out
}

// Order sorts records by at, run_id, run_attempt; a later attempt of the
// same run (run_id > 0) replaces the earlier; exact duplicates (the same
// record from a cumulative artifact and a single file) are dropped. At most
// MaxRecords of the newest are kept.
func Order(recs []Record) []Record {
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
	if len(out) > MaxRecords {
		out = out[len(out)-MaxRecords:]
	}
	return out
}

func sameRecord(a, b *Record) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Encode writes records as one JSON array (the cumulative artifact).
func Encode(w io.Writer, recs []Record) error {
	if recs == nil {
		recs = []Record{}
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
