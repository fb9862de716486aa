package ledger

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A cumulative ledger holds every record of a loop and every run reads and
// writes it whole: with encoding/json's reflection that was the larger
// part of a check over a long loop. The records have one fixed shape, so
// they are written and read here by hand, byte for byte as encoding/json
// writes them (json.MarshalIndent with two spaces) and reads them; what
// the hand-written reader does not expect — another layout, an unknown or
// repeated key, a number or string it does not take apart itself, an
// invalid record — sends the whole blob to encoding/json, which decides
// and reports as before.

// appendRecords appends recs as json.MarshalIndent(recs, "", "  ") does,
// and a line break.
func appendRecords(b []byte, recs []Record) ([]byte, error) {
	if len(recs) == 0 {
		return append(b, "[]\n"...), nil
	}
	return appendMore(append(b, '['), 0, recs)
}

// appendMore appends recs to an array that holds n records already, and
// closes it as appendRecords does.
func appendMore(b []byte, n int, recs []Record) ([]byte, error) {
	for i := range recs {
		if n+i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendRecord(b, &recs[i]); err != nil {
			return nil, err
		}
	}
	return append(b, "\n]\n"...), nil
}

// indent returns the line break and indentation of nesting depth d.
func indent(d int) string { return "\n" + strings.Repeat("  ", d) }

// Indentations of the record's nesting levels.
var (
	in1, in2, in3, in4 = indent(1), indent(2), indent(3), indent(4)
)

// appendRecord appends one record, an element of the top-level array.
func appendRecord(b []byte, r *Record) ([]byte, error) {
	b = append(b, in1...)
	b = append(b, '{')
	b = appendKey(b, in2, "version", true)
	b = strconv.AppendInt(b, int64(r.Version), 10)
	b = appendKey(b, in2, "run_id", false)
	b = strconv.AppendInt(b, r.RunID, 10)
	b = appendKey(b, in2, "run_attempt", false)
	b = strconv.AppendInt(b, int64(r.RunAttempt), 10)
	b = appendKey(b, in2, "commit", false)
	b = appendString(b, r.Commit)
	b = appendKey(b, in2, "at", false)
	b, err := appendTime(b, r.At)
	if err != nil {
		return nil, err
	}
	b = appendKey(b, in2, "phase", false)
	b = appendString(b, r.Phase)
	b = appendKey(b, in2, "tests", false)
	if t := r.Tests; t == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		b = appendKey(b, in3, "passed", true)
		b = strconv.AppendInt(b, int64(t.Passed), 10)
		b = appendKey(b, in3, "failed", false)
		b = strconv.AppendInt(b, int64(t.Failed), 10)
		b = appendKey(b, in3, "skipped", false)
		b = strconv.AppendInt(b, int64(t.Skipped), 10)
		b = appendKey(b, in3, "failing", false)
		b = appendStrings(b, t.Failing, in4, in3)
		b = append(b, in2...)
		b = append(b, '}')
	}
	b = appendKey(b, in2, "errors", false)
	switch {
	case r.Errors == nil:
		b = append(b, "null"...)
	case len(r.Errors) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, e := range r.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in3...)
			b = append(b, '{')
			b = appendKey(b, in4, "hash", true)
			b = appendString(b, e.Hash)
			b = appendKey(b, in4, "sample", false)
			b = appendString(b, e.Sample)
			b = append(b, in3...)
			b = append(b, '}')
		}
		b = append(b, in2...)
		b = append(b, ']')
	}
	b = appendKey(b, in2, "output", false)
	if o := r.Output; o == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		b = appendKey(b, in3, "lines", true)
		b = strconv.AppendInt(b, int64(o.Lines), 10)
		b = appendKey(b, in3, "bytes", false)
		b = strconv.AppendInt(b, o.Bytes, 10)
		b = append(b, in2...)
		b = append(b, '}')
	}
	b = appendKey(b, in2, "permission_denials", false)
	b = strconv.AppendInt(b, int64(r.PermissionDenials), 10)
	b = appendKey(b, in2, "completion_claimed", false)
	b = strconv.AppendBool(b, r.CompletionClaimed)
	b = appendKey(b, in2, "questions_asked", false)
	b = strconv.AppendBool(b, r.QuestionsAsked)
	b = appendKey(b, in2, "progress_percent", false)
	if p := r.ProgressPercent; p == nil {
		b = append(b, "null"...)
	} else if b, err = appendFloat(b, *p); err != nil {
		return nil, err
	}
	b = appendKey(b, in2, "tasks", false)
	if t := r.Tasks; t == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		b = appendKey(b, in3, "done", true)
		b = strconv.AppendInt(b, int64(t.Done), 10)
		b = appendKey(b, in3, "total", false)
		b = strconv.AppendInt(b, int64(t.Total), 10)
		b = append(b, in2...)
		b = append(b, '}')
	}
	if r.CurrentTask != "" {
		b = appendKey(b, in2, "current_task", false)
		b = appendString(b, r.CurrentTask)
	}
	if c := r.Checkpoint; c != nil {
		b = appendKey(b, in2, "checkpoint", false)
		b = append(b, '{')
		b = appendKey(b, in3, "program", true)
		b = appendString(b, c.Program)
		b = appendKey(b, in3, "policy", false)
		b = appendString(b, c.Policy)
		b = appendKey(b, in3, "base", false)
		b = appendString(b, c.Base)
		b = appendKey(b, in3, "digest", false)
		b = appendString(b, c.Digest)
		if len(c.State) > 0 {
			b = appendKey(b, in3, "state", false)
			if b, err = appendRaw(b, c.State, in3[1:]); err != nil {
				return nil, err
			}
		}
		b = append(b, in2...)
		b = append(b, '}')
	}
	if len(r.LabelResets) > 0 {
		b = appendKey(b, in2, "label_resets", false)
		b = append(b, '[')
		for i, x := range r.LabelResets {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, in3...)
			b = append(b, '{')
			b = appendKey(b, in4, "at", true)
			if b, err = appendTime(b, x.At); err != nil {
				return nil, err
			}
			b = appendKey(b, in4, "by", false)
			b = appendString(b, x.By)
			b = append(b, in3...)
			b = append(b, '}')
		}
		b = append(b, in2...)
		b = append(b, ']')
	}
	b = append(b, in1...)
	return append(b, '}'), nil
}

// appendTime appends a time as time.Time's MarshalJSON does (RFC 3339
// with nanoseconds), through it for what it refuses.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if _, off := t.Zone(); t.Year() < 0 || t.Year() > 9999 || off%60 != 0 {
		q, err := t.MarshalJSON()
		return append(b, q...), err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// appendKey appends a key of an object at indentation in, after a comma
// unless it is the first.
func appendKey(b []byte, in, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, in...)
	b = append(b, '"')
	b = append(b, key...)
	return append(b, `": `...)
}

// appendStrings appends a list of strings whose elements sit at
// indentation in and whose closing bracket at out.
func appendStrings(b []byte, list []string, in, out string) []byte {
	switch {
	case list == nil:
		return append(b, "null"...)
	case len(list) == 0:
		return append(b, "[]"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, in...)
		b = appendString(b, s)
	}
	b = append(b, out...)
	return append(b, ']')
}

// appendString appends a JSON string as encoding/json writes it: text
// that needs no escape as it is, anything else through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat appends a float64 as encoding/json writes it.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if a := math.Abs(f); a == 0 || a >= 1e-6 && a < 1e21 {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	q, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}

// appendRaw appends raw JSON as json.MarshalIndent writes a RawMessage at
// nesting prefix: compacted (with encoding/json's escapes), then indented.
func appendRaw(b []byte, raw json.RawMessage, prefix string) ([]byte, error) {
	compact, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, compact, prefix, "  "); err != nil {
		return nil, err
	}
	return append(b, buf.Bytes()...), nil
}

// readRecords reads a blob that is one JSON array of records as this
// program writes them. ok is false when the blob is anything else, or any
// of its records is not valid or not read here (see above): the caller
// then reads it with encoding/json. ends says where each of the leading
// records laid out exactly as appendRecords writes them ends in data
// (laid.go): data[:ends[k-1]] is what appendRecords writes before a
// (k+1)-th record.
func readRecords(data []byte) (recs []Record, ends []int, ok bool) {
	p := &fastReader{b: data}
	laid := p.eat('[') // from the first byte
	if !laid {
		p.ws()
		if !p.eat('[') {
			return nil, nil, false
		}
	}
	first := p.i
	p.ws()
	if p.eat(']') {
		p.ws()
		return nil, nil, p.i == len(p.b)
	}
	p.i = first // a laid-out record starts with its line break
	for {
		start := p.i
		if len(recs) == MaxRecords {
			return nil, nil, false
		}
		if recs == nil {
			// Room for as many records as the shortest this program lays
			// out fit in the blob: memory never written is not touched.
			n := min(MaxRecords, 1+len(p.b)/minLaidLen)
			recs, ends = make([]Record, 0, n), make([]int, 0, n)
		}
		recs = append(recs, Record{})
		r := &recs[len(recs)-1]
		if laid && p.laidRecord(r) {
			ends = append(ends, p.i)
		} else {
			laid, p.i, *r = false, start, Record{}
			p.ws()
			if !p.record(r) {
				return nil, nil, false
			}
		}
		if p.i-start > MaxRecordLen || r.Validate() != nil {
			return nil, nil, false
		}
		end := p.i
		p.ws()
		if p.eat(']') {
			break
		}
		if !p.eat(',') {
			return nil, nil, false
		}
		laid = laid && p.i == end+1
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, nil, false
	}
	return recs, ends, true
}

// fastReader reads the JSON of records; every method reports false for
// what it does not take apart itself.
type fastReader struct {
	b []byte
	i int
	// interned are the short texts read so far, each kept once.
	interned map[string]string
	// The parts of laid-out records (laid.go), allocated in blocks.
	testSlab   slab[Tests]
	outputSlab slab[Output]
	taskSlab   slab[Tasks]
	names      lists[string]
	errs       lists[Error]
	texts      texts
	day        day
}

func (p *fastReader) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// eat consumes c if it comes next.
func (p *fastReader) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// null consumes a null if it comes next.
func (p *fastReader) null() bool {
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// keySet holds the keys of one object read so far: a key that comes
// twice is left to encoding/json's rules for it.
type keySet struct {
	keys [24][]byte
	n    int
}

// add reports whether key is new, remembering it.
func (k *keySet) add(key []byte) bool {
	for _, s := range k.keys[:k.n] {
		if bytes.Equal(s, key) {
			return false
		}
	}
	if k.n == len(k.keys) {
		return false
	}
	k.keys[k.n] = key
	k.n++
	return true
}

// member reads the next member's key of an object and its colon, the
// object's opening brace already read; done is true at its closing brace.
func (p *fastReader) member(first bool, seen *keySet) (key []byte, done, ok bool) {
	p.ws()
	if p.eat('}') {
		return nil, true, true
	}
	if !first {
		if !p.eat(',') {
			return nil, false, false
		}
		p.ws()
	}
	key, ok = p.rawStr()
	if !ok || !seen.add(key) {
		return nil, false, false
	}
	p.ws()
	if !p.eat(':') {
		return nil, false, false
	}
	p.ws()
	return key, false, true
}

// element reads up to the next element of an array, the opening bracket
// already read; done is true at its closing bracket.
func (p *fastReader) element(first bool) (done, ok bool) {
	p.ws()
	if p.eat(']') {
		return true, true
	}
	if !first {
		if !p.eat(',') {
			return false, false
		}
		p.ws()
	}
	return false, true
}

// object reads an object, calling field for each member with the reader
// at its value; field reports whether it read the value.
func (p *fastReader) object(field func(key []byte) bool) bool {
	if !p.eat('{') {
		return false
	}
	var seen keySet
	for first := true; ; first = false {
		key, done, ok := p.member(first, &seen)
		if !ok || done {
			return ok
		}
		if !field(key) {
			return false
		}
	}
}

// array reads an array, calling elem for each element with the reader at
// it; elem reports whether it read the element.
func (p *fastReader) array(elem func() bool) bool {
	if !p.eat('[') {
		return false
	}
	for first := true; ; first = false {
		done, ok := p.element(first)
		if !ok || done {
			return ok
		}
		if !elem() {
			return false
		}
	}
}

func (p *fastReader) record(r *Record) bool {
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "version":
			return p.readInt(&r.Version)
		case "run_id":
			return p.readInt64(&r.RunID)
		case "run_attempt":
			return p.readInt(&r.RunAttempt)
		case "commit":
			return p.readString(&r.Commit)
		case "at":
			return p.readTime(&r.At)
		case "phase":
			return p.readString(&r.Phase)
		case "tests":
			r.Tests = nil
			return p.null() || p.tests(new(Tests), &r.Tests)
		case "errors":
			r.Errors = nil
			return p.null() || p.errors(&r.Errors)
		case "output":
			r.Output = nil
			return p.null() || p.output(new(Output), &r.Output)
		case "permission_denials":
			return p.readInt(&r.PermissionDenials)
		case "completion_claimed":
			return p.readBool(&r.CompletionClaimed)
		case "questions_asked":
			return p.readBool(&r.QuestionsAsked)
		case "progress_percent":
			r.ProgressPercent = nil
			if p.null() {
				return true
			}
			r.ProgressPercent = new(float64)
			return p.readFloat(r.ProgressPercent)
		case "tasks":
			r.Tasks = nil
			return p.null() || p.tasks(new(Tasks), &r.Tasks)
		case "current_task":
			return p.readString(&r.CurrentTask)
		case "checkpoint":
			r.Checkpoint = nil
			return p.null() || p.checkpoint(new(Checkpoint), &r.Checkpoint)
		case "label_resets":
			r.LabelResets = nil
			return p.null() || p.labelResets(&r.LabelResets)
		}
		return false
	})
}

// The readers of a record's objects fill t and set *to to it.

func (p *fastReader) tests(t *Tests, to **Tests) bool {
	*to = t
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "passed":
			return p.readInt(&t.Passed)
		case "failed":
			return p.readInt(&t.Failed)
		case "skipped":
			return p.readInt(&t.Skipped)
		case "failing":
			t.Failing = nil
			if p.null() {
				return true
			}
			t.Failing = []string{}
			return p.array(func() bool {
				var s string
				ok := p.readString(&s)
				t.Failing = append(t.Failing, s)
				return ok
			})
		}
		return false
	})
}

func (p *fastReader) output(o *Output, to **Output) bool {
	*to = o
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "lines":
			return p.readInt(&o.Lines)
		case "bytes":
			return p.readInt64(&o.Bytes)
		}
		return false
	})
}

func (p *fastReader) tasks(t *Tasks, to **Tasks) bool {
	*to = t
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "done":
			return p.readInt(&t.Done)
		case "total":
			return p.readInt(&t.Total)
		}
		return false
	})
}

// objects reads an array of objects into *list (empty, not nil, for an
// empty array, as encoding/json does), field reading each member of an
// element.
func objects[T any](p *fastReader, list *[]T, field func(x *T, key []byte) bool) bool {
	*list = []T{}
	return p.array(func() bool {
		var x T
		ok := p.object(func(key []byte) bool { return field(&x, key) })
		*list = append(*list, x)
		return ok
	})
}

func (p *fastReader) errors(list *[]Error) bool {
	return objects(p, list, func(e *Error, key []byte) bool {
		switch string(key) {
		case "hash":
			return p.readString(&e.Hash)
		case "sample":
			return p.readString(&e.Sample)
		}
		return false
	})
}

func (p *fastReader) labelResets(list *[]LabelReset) bool {
	return objects(p, list, func(x *LabelReset, key []byte) bool {
		switch string(key) {
		case "at":
			return p.readTime(&x.At)
		case "by":
			return p.readString(&x.By)
		}
		return false
	})
}

func (p *fastReader) checkpoint(c *Checkpoint, to **Checkpoint) bool {
	*to = c
	return p.object(func(key []byte) bool {
		switch string(key) {
		case "program":
			return p.readString(&c.Program)
		case "policy":
			return p.readString(&c.Policy)
		case "base":
			return p.readString(&c.Base)
		case "digest":
			return p.readString(&c.Digest)
		case "state":
			start := p.i
			if p.null() || !p.skip(0) {
				return false
			}
			c.State = append(json.RawMessage(nil), p.b[start:p.i]...)
			return true
		}
		return false
	})
}

// number returns the next JSON number's text; integer says it has
// neither fraction nor exponent.
func (p *fastReader) number() (text []byte, integer bool) {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false
	}
	integer = true
	if p.eat('.') {
		integer = false
		if p.digits() == 0 {
			return nil, false
		}
	}
	if p.eat('e') || p.eat('E') {
		integer = false
		if !p.eat('+') {
			p.eat('-')
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	return p.b[start:p.i], integer
}

func (p *fastReader) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// readInt reads an int as encoding/json does: an integer that fits, or null
// (which leaves it as it was).
func (p *fastReader) readInt(v *int) bool {
	if p.null() {
		return true
	}
	s, integer := p.number()
	if !integer {
		return false
	}
	n, ok := parseInt(s, strconv.IntSize)
	*v = int(n)
	return ok
}

// parseInt parses an integer's JSON text (an optional minus, digits) as
// strconv.ParseInt(text, 10, bits) does, without making a string of it.
func parseInt(s []byte, bits int) (int64, bool) {
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return 0, false // longer numbers are out of any range or left to strconv
	}
	var u uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	limit := uint64(1) << (bits - 1)
	if !neg && u >= limit || neg && u > limit {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

func (p *fastReader) readInt64(v *int64) bool {
	if p.null() {
		return true
	}
	s, integer := p.number()
	if !integer {
		return false
	}
	n, ok := parseInt(s, 64)
	*v = n
	return ok
}

func (p *fastReader) readFloat(v *float64) bool {
	s, _ := p.number()
	if s == nil {
		return false
	}
	f, err := strconv.ParseFloat(string(s), 64)
	*v = f
	return err == nil
}

func (p *fastReader) readBool(v *bool) bool {
	switch {
	case p.null():
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		*v, p.i = true, p.i+4
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		*v, p.i = false, p.i+5
	default:
		return false
	}
	return true
}

// readString reads a string (or null, which leaves it as it was).
func (p *fastReader) readString(v *string) bool {
	if p.null() {
		return true
	}
	b, ok := p.rawStr()
	if !ok {
		return false
	}
	*v = p.intern(b)
	return true
}

// intern returns b as a string, one copy for every occurrence of a short
// text: samples and test names come back record after record.
func (p *fastReader) intern(b []byte) string {
	switch {
	case len(b) == 0:
		return ""
	case len(b) > maxInterned:
		return string(b)
	}
	if s, seen := p.interned[string(b)]; seen {
		return s
	}
	if p.interned == nil {
		p.interned = map[string]string{}
	}
	s := string(b)
	p.interned[s] = s
	return s
}

// maxInterned is the longest text read once for all its occurrences.
const maxInterned = 256

// readTime reads a time as time.Time's UnmarshalJSON does, from the quoted
// text.
func (p *fastReader) readTime(t *time.Time) bool {
	start := p.i
	if p.null() {
		return true
	}
	if _, ok := p.rawStr(); !ok {
		return false
	}
	return t.UnmarshalJSON(p.b[start:p.i]) == nil
}

// rawStr reads a string, its text in the blob when it has no escape:
// valid UTF-8 without control characters, with the escapes of JSON but \u
// of a surrogate (encoding/json's business).
func (p *fastReader) rawStr() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !utf8.Valid(s) {
				return nil, false
			}
			return s, true
		case c == '\\':
			return p.unescape(start)
		case c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// unescape finishes a string that has escapes, from its start.
func (p *fastReader) unescape(start int) ([]byte, bool) {
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(out) {
				return nil, false
			}
			return out, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return nil, false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if p.i+4 > len(p.b) {
				return nil, false
			}
			n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 16)
			if err != nil || n >= 0xd800 && n < 0xe000 {
				return nil, false
			}
			out = utf8.AppendRune(out, rune(n))
			p.i += 4
		default:
			return nil, false
		}
	}
	return nil, false
}

// maxDepth bounds the nesting skip follows.
const maxDepth = 200

// skip passes over one JSON value of any kind, checking its syntax.
func (p *fastReader) skip(depth int) bool {
	if depth > maxDepth || p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			if _, ok := p.rawStr(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat('}') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case c == '[':
		p.i++
		return p.arrayFrom(depth)
	case c == '"':
		_, ok := p.rawStr()
		return ok
	case c == 't':
		var v bool
		return p.readBool(&v)
	case c == 'f':
		var v bool
		return p.readBool(&v)
	case c == 'n':
		return p.null()
	}
	s, _ := p.number()
	return s != nil
}

// arrayFrom passes over the rest of an array whose bracket was read.
func (p *fastReader) arrayFrom(depth int) bool {
	p.ws()
	if p.eat(']') {
		return true
	}
	for {
		p.ws()
		if !p.skip(depth + 1) {
			return false
		}
		p.ws()
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}
