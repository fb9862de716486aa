package ledger

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unsafe"
)

// A cumulative ledger this program wrote is laid out exactly as
// appendRecords writes it, and the next run reads it whole and writes it
// again with one record more. Such a record is read here by matching that
// layout, key after key, instead of taking the JSON apart in general
// (fastReader.record), and the reader notes where each such record ends:
// Ledger.Encode copies the bytes of the records that come back unchanged
// instead of encoding them again. A record laid out or written in any
// other way (other spaces, another key order, an escape encoding/json
// would not write) is read by fastReader.record, and neither it nor any
// later record is copied.

// plain marks the bytes appendString writes as they are.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// laidKey is a member's key as appendKey writes it at indentation in:
// the comma after the member before, the line break and indentation, the
// quoted key and the colon. A first member's is the same without the
// comma.
func laidKey(in, key string) string { return "," + in + `"` + key + `": ` }

// The keys of a record's members, in the order appendRecord writes them.
var (
	kVersion     = laidKey(in2, "version")[1:]
	kRunID       = laidKey(in2, "run_id")
	kRunAttempt  = laidKey(in2, "run_attempt")
	kCommit      = laidKey(in2, "commit")
	kAt          = laidKey(in2, "at")
	kPhase       = laidKey(in2, "phase")
	kTests       = laidKey(in2, "tests")
	kErrors      = laidKey(in2, "errors")
	kOutput      = laidKey(in2, "output")
	kDenials     = laidKey(in2, "permission_denials")
	kClaimed     = laidKey(in2, "completion_claimed")
	kAsked       = laidKey(in2, "questions_asked")
	kPercent     = laidKey(in2, "progress_percent")
	kTasks       = laidKey(in2, "tasks")
	kCurrentTask = laidKey(in2, "current_task")
	kCheckpoint  = laidKey(in2, "checkpoint")
	kLabelResets = laidKey(in2, "label_resets")
	kPassed      = laidKey(in3, "passed")[1:]
	kFailed      = laidKey(in3, "failed")
	kSkipped     = laidKey(in3, "skipped")
	kFailing     = laidKey(in3, "failing")
	kHash        = laidKey(in4, "hash")[1:]
	kSample      = laidKey(in4, "sample")
	kLines       = laidKey(in3, "lines")[1:]
	kBytes       = laidKey(in3, "bytes")
	kDone        = laidKey(in3, "done")[1:]
	kTotal       = laidKey(in3, "total")
	kProgram     = laidKey(in3, "program")[1:]
	kPolicy      = laidKey(in3, "policy")
	kBase        = laidKey(in3, "base")
	kDigest      = laidKey(in3, "digest")
	kState       = laidKey(in3, "state")
	kResetAt     = laidKey(in4, "at")[1:]
	kResetBy     = laidKey(in4, "by")
)

// minLaidLen is the length of the shortest record appendRecord writes:
// every optional member left out, every value as short as it can be.
var minLaidLen = func() int {
	b, _ := appendRecord(nil, &Record{})
	return len(b)
}()

// lit consumes s if it comes next.
func (p *fastReader) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// opens consumes an object's opening brace and the key of its first
// member.
func (p *fastReader) opens(key string) bool { return p.lit("{") && p.lit(key) }

// closes consumes an object's closing brace, on its line at indentation
// in.
func (p *fastReader) closes(in string) bool { return p.lit(in) && p.lit("}") }

// laidRecord reads one record laid out exactly as appendRecord writes it,
// from the line break before its opening brace.
func (p *fastReader) laidRecord(r *Record) bool {
	ok := p.lit(in1) && p.opens(kVersion) && p.laidInt(&r.Version) &&
		p.lit(kRunID) && p.laidInt64(&r.RunID) &&
		p.lit(kRunAttempt) && p.laidInt(&r.RunAttempt) &&
		p.lit(kCommit) && p.laidString(&r.Commit, false) &&
		p.lit(kAt) && p.laidTime(&r.At) &&
		p.lit(kPhase) && p.laidString(&r.Phase, true) &&
		p.lit(kTests) && p.laidTests(&r.Tests) &&
		p.lit(kErrors) && p.laidErrors(&r.Errors) &&
		p.lit(kOutput) && p.laidOutput(&r.Output) &&
		p.lit(kDenials) && p.laidInt(&r.PermissionDenials) &&
		p.lit(kClaimed) && p.laidBool(&r.CompletionClaimed) &&
		p.lit(kAsked) && p.laidBool(&r.QuestionsAsked) &&
		p.lit(kPercent) && p.laidPercent(&r.ProgressPercent) &&
		p.lit(kTasks) && p.laidTasks(&r.Tasks)
	if !ok {
		return false
	}
	if p.lit(kCurrentTask) && (!p.laidString(&r.CurrentTask, true) || r.CurrentTask == "") {
		return false // an empty one is not written
	}
	if p.lit(kCheckpoint) && !p.laidCheckpoint(&r.Checkpoint) {
		return false
	}
	if p.lit(kLabelResets) && !p.laidLabelResets(&r.LabelResets) {
		return false
	}
	return p.closes(in1)
}

// slab hands out values of T from blocks, one allocation for many.
type slab[T any] []T

func (s *slab[T]) next() *T {
	if len(*s) == 0 {
		*s = make([]T, 64)
	}
	v := &(*s)[0]
	*s = (*s)[1:]
	return v
}

// lists hands out short lists of T from blocks, one allocation for many:
// start begins a list at the end of the block, add appends to it, and end
// returns it, its capacity cut so that appending to it copies it instead
// of writing over the next list.
type lists[T any] struct {
	block []T
	start int
}

func (l *lists[T]) begin() {
	if cap(l.block)-len(l.block) < 8 {
		l.block = make([]T, 0, 256)
	}
	l.start = len(l.block)
}

// add appends v to the list begun last; a block that fills up is copied
// into a larger one, the lists already handed out keeping the old one.
func (l *lists[T]) add(v T) { l.block = append(l.block, v) }

func (l *lists[T]) end() []T { return l.block[l.start:len(l.block):len(l.block)] }

// texts hands out strings from blocks, one allocation for many: the bytes
// of a block are written once, for the string made of them, and never
// again.
type texts []byte

// maxText is the longest text copied into a block; a longer one is a
// string of its own.
const maxText = 256

func (t *texts) of(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxText {
		return string(b)
	}
	if cap(*t)-len(*t) < len(b) {
		*t = make([]byte, 0, 16<<10)
	}
	start := len(*t)
	*t = append(*t, b...)
	return unsafe.String(&(*t)[start], len(b))
}

func (p *fastReader) laidTests(to **Tests) bool {
	if p.lit("null") {
		return true
	}
	t := p.testSlab.next()
	*to = t
	return p.opens(kPassed) && p.laidInt(&t.Passed) &&
		p.lit(kFailed) && p.laidInt(&t.Failed) &&
		p.lit(kSkipped) && p.laidInt(&t.Skipped) &&
		p.lit(kFailing) && p.laidStrings(&t.Failing) &&
		p.closes(in2)
}

// laidStrings reads the list of failing tests as appendStrings writes it.
func (p *fastReader) laidStrings(list *[]string) bool {
	return laidList(p, list, &p.names, in3, func(p *fastReader, s *string) bool {
		return p.lit(in4) && p.laidString(s, true)
	})
}

func (p *fastReader) laidErrors(list *[]Error) bool {
	return laidList(p, list, &p.errs, in2, func(p *fastReader, e *Error) bool {
		return p.lit(in3) && p.opens(kHash) && p.laidString(&e.Hash, true) &&
			p.lit(kSample) && p.laidString(&e.Sample, true) && p.closes(in3)
	})
}

// laidList reads a list as appendRecord writes it, its closing bracket on
// its line at indentation in: null, [] (an empty list, not none) or the
// elements, each read by item, into a list handed out by from.
func laidList[T any](p *fastReader, list *[]T, from *lists[T], in string, item func(*fastReader, *T) bool) bool {
	switch {
	case p.lit("null"):
		return true
	case p.lit("[]"):
		*list = []T{}
		return true
	case !p.lit("["):
		return false
	}
	from.begin()
	for first := true; first || p.lit(","); first = false {
		var v T
		if !item(p, &v) {
			return false
		}
		from.add(v)
	}
	*list = from.end()
	return p.lit(in) && p.lit("]")
}

// laidLabelResets reads a record's label resets, which are written only
// when there is at least one.
func (p *fastReader) laidLabelResets(list *[]LabelReset) bool {
	if !p.lit("[") {
		return false
	}
	for first := true; first || p.lit(","); first = false {
		var x LabelReset
		if !p.lit(in3) || !p.opens(kResetAt) || !p.laidTime(&x.At) ||
			!p.lit(kResetBy) || !p.laidString(&x.By, true) || !p.closes(in3) {
			return false
		}
		*list = append(*list, x)
	}
	return p.lit(in2) && p.lit("]")
}

func (p *fastReader) laidOutput(to **Output) bool {
	if p.lit("null") {
		return true
	}
	o := p.outputSlab.next()
	*to = o
	return p.opens(kLines) && p.laidInt(&o.Lines) &&
		p.lit(kBytes) && p.laidInt64(&o.Bytes) &&
		p.closes(in2)
}

func (p *fastReader) laidTasks(to **Tasks) bool {
	if p.lit("null") {
		return true
	}
	t := p.taskSlab.next()
	*to = t
	return p.opens(kDone) && p.laidInt(&t.Done) &&
		p.lit(kTotal) && p.laidInt(&t.Total) &&
		p.closes(in2)
}

func (p *fastReader) laidCheckpoint(to **Checkpoint) bool {
	c := new(Checkpoint)
	*to = c
	if !p.opens(kProgram) || !p.laidString(&c.Program, true) ||
		!p.lit(kPolicy) || !p.laidString(&c.Policy, true) ||
		!p.lit(kBase) || !p.laidString(&c.Base, true) ||
		!p.lit(kDigest) || !p.laidString(&c.Digest, false) {
		return false
	}
	if p.lit(kState) {
		start := p.i
		if p.null() || !p.skip(0) {
			return false
		}
		c.State = append(json.RawMessage(nil), p.b[start:p.i]...)
		if b, err := appendRaw(nil, c.State, in3[1:]); err != nil || !bytes.Equal(b, p.b[start:p.i]) {
			return false
		}
	}
	return p.closes(in2)
}

// laidInt reads an integer as strconv.AppendInt writes it.
func (p *fastReader) laidInt(v *int) bool {
	n, ok := p.laidInteger(strconv.IntSize)
	*v = int(n)
	return ok
}

func (p *fastReader) laidInt64(v *int64) bool {
	n, ok := p.laidInteger(64)
	*v = n
	return ok
}

func (p *fastReader) laidInteger(bits int) (int64, bool) {
	s, integer := p.number()
	if !integer || string(s) == "-0" {
		return 0, false
	}
	return parseInt(s, bits)
}

func (p *fastReader) laidBool(v *bool) bool {
	switch {
	case p.lit("true"):
		*v = true
	case p.lit("false"):
		*v = false
	default:
		return false
	}
	return true
}

// laidPercent reads null or a number as appendFloat writes it.
func (p *fastReader) laidPercent(v **float64) bool {
	if p.lit("null") {
		return true
	}
	s, _ := p.number()
	if s == nil {
		return false
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return false
	}
	if b, err := appendFloat(nil, f); err != nil || !bytes.Equal(b, s) {
		return false
	}
	*v = &f
	return true
}

// laidString reads a string as appendString writes it; intern keeps one
// copy of a text that comes back record after record.
func (p *fastReader) laidString(v *string, intern bool) bool {
	start := p.i
	if !p.eat('"') {
		return false
	}
	for p.i < len(p.b) && plain[p.b[p.i]] {
		p.i++
	}
	if p.eat('"') {
		if s := p.b[start+1 : p.i-1]; intern {
			*v = p.intern(s)
		} else {
			*v = p.texts.of(s)
		}
		return true
	}
	// An escape, or text that encoding/json writes in its own way: it is
	// laid out as appendString writes it, or it is not.
	p.i = start
	s, ok := p.rawStr()
	if !ok || !bytes.Equal(appendString(nil, string(s)), p.b[start:p.i]) {
		return false
	}
	*v = string(s)
	return true
}

// laidTime reads a time as appendTime writes it.
func (p *fastReader) laidTime(t *time.Time) bool {
	start := p.i
	if !p.eat('"') {
		return false
	}
	for p.i < len(p.b) && plain[p.b[p.i]] {
		p.i++
	}
	if !p.eat('"') {
		return false
	}
	quoted := p.b[start:p.i]
	if utc, ok := p.day.utc(quoted[1 : len(quoted)-1]); ok {
		*t = utc
		return true
	}
	if t.UnmarshalJSON(quoted) != nil {
		return false
	}
	b, err := appendTime(nil, *t)
	return err == nil && bytes.Equal(b, quoted)
}

// day is the date of the time utc read last, and its midnight: the
// records of a loop come day after day, many on the same one.
type day struct {
	date     [10]byte
	midnight time.Time
}

// utc reads a time in UTC as time.RFC3339Nano writes it
// (2006-01-02T15:04:05.999999999Z: a fraction without trailing zeros),
// the date taken from d when it is d's; d is then the date of s. ok is
// false for any other text, and for a date or time that does not exist.
func (d *day) utc(s []byte) (time.Time, bool) {
	n := len(s)
	if n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[n-1] != 'Z' {
		return time.Time{}, false
	}
	ok := true
	num := func(s []byte) int {
		v := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				ok = false
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	hour, minute, sec := num(s[11:13]), num(s[14:16]), num(s[17:19])
	nsec := 0
	if frac := s[19 : n-1]; len(frac) > 0 {
		if len(frac) < 2 || len(frac) > 10 || frac[0] != '.' || frac[len(frac)-1] == '0' {
			return time.Time{}, false
		}
		nsec = num(frac[1:])
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	if !ok || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	clock := time.Duration(hour)*time.Hour + time.Duration(minute)*time.Minute + time.Duration(sec)*time.Second + time.Duration(nsec)
	if !d.midnight.IsZero() && string(s[:10]) == string(d.date[:]) {
		return d.midnight.Add(clock), true
	}
	year, month, mday := num(s[0:4]), num(s[5:7]), num(s[8:10])
	if !ok || month < 1 || month > 12 || mday < 1 {
		return time.Time{}, false
	}
	midnight := time.Date(year, time.Month(month), mday, 0, 0, 0, 0, time.UTC)
	if midnight.Day() != mday {
		return time.Time{}, false // a day its month does not have
	}
	copy(d.date[:], s[:10])
	d.midnight = midnight
	return midnight.Add(clock), true
}
