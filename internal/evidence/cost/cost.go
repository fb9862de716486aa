package cost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// Cost is what one iteration's agent output says the iteration cost.
type Cost struct {
	// USD is the dollars the agent reported; nil when it reported none.
	USD *float64
	// Tokens are the tokens the model read and wrote (input, cache reads
	// and writes, output); nil when the agent reported none.
	Tokens *int64
	// Notes say which figures were missing, malformed or not read.
	Notes []string
}

// Known reports whether the agent reported any figure.
func (c *Cost) Known() bool { return c != nil && (c.USD != nil || c.Tokens != nil) }

// Bounds on what is read and believed.
const (
	// MaxUSD is the most dollars one iteration may report; more is not a
	// figure an agent run produces, and is dropped with a note.
	MaxUSD = 1_000_000
	// MaxTokens is the most tokens one iteration may report.
	MaxTokens = 1_000_000_000_000
	// MaxBytes is how much of a log is read: its last 64 MiB of lines, or
	// the first 64 MiB of a JSON document (an execution file).
	MaxBytes = 64 << 20
	// maxLine is the longest line decoded; a longer one is skipped.
	maxLine = 16 << 20
	// maxNotes bounds the notes; a last one counts the rest.
	maxNotes = 10
	// maxMessages bounds the distinct message ids remembered.
	maxMessages = 1 << 17
)

// ReadFile reads the cost the agent log at path reports. Only a regular
// file is read; a log longer than MaxBytes is read in its last MaxBytes
// (its result comes last), or, when it is one JSON document, in its first.
func ReadFile(path string) (*Cost, error) { return readFile(path, MaxBytes) }

// readFile is ReadFile reading at most limit bytes, for tests.
func readFile(path string, limit int64) (*Cost, error) {
	f, st, err := regularfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the cost in agent log %s: %w", path, err)
	}
	defer f.Close()
	m := &meter{limit: limit}
	var src io.Reader = f
	if size := st.Size(); size > limit {
		head := make([]byte, 4096)
		n, _ := f.ReadAt(head, 0)
		if isArray(head[:n]) {
			m.cut = fmt.Sprintf("the log is one JSON document of %d bytes: only its first %d were read", size, limit)
		} else {
			// The tail, from the first line that starts in it.
			src = io.NewSectionReader(f, size-limit, limit)
			var before [1]byte
			_, err := f.ReadAt(before[:], size-limit-1)
			m.skip = err != nil || before[0] != '\n'
			m.cut = fmt.Sprintf("the log is %d bytes: only the messages in its last %d were counted", size, limit)
		}
	}
	m.read(src)
	return m.cost(), nil
}

// Read reads the cost a log reports from r, from its start, within
// MaxBytes.
func Read(r io.Reader) *Cost {
	m := &meter{limit: MaxBytes}
	m.read(r)
	return m.cost()
}

// read reads r as a JSON array (execution.go) or as lines.
func (m *meter) read(r io.Reader) {
	br := bufio.NewReaderSize(io.LimitReader(r, m.limit), 64<<10)
	if head, _ := br.Peek(4096); isArray(head) {
		m.document(br)
		return
	}
	var buf []byte
	if m.skip {
		readLine(br, &buf)
	}
	for n := 1; ; n++ {
		line, cut, err := readLine(br, &buf)
		m.line(line, cut, n)
		if err != nil {
			return
		}
	}
}

// readLine returns the next line without its end, at most maxLine bytes
// of it (cut says it was longer), valid until the next call.
func readLine(br *bufio.Reader, buf *[]byte) (line []byte, cut bool, err error) {
	chunk, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return chunk, false, err
	}
	b := append((*buf)[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		if len(b)+len(chunk) <= maxLine {
			b = append(b, chunk...)
		} else {
			cut = true
		}
	}
	*buf = b
	return b, cut, err
}

// costKeys are what a line must mention to be decoded: a result, an
// assistant message's usage (and costUSD), a Codex thread or turn, as the
// compact JSON lines Claude Code and Codex write. The other lines (tool
// output, prose) are skipped unread.
var costKeys = [][]byte{[]byte(`"usage"`), []byte(`"type":"result"`), []byte(`"thread.started"`), []byte(`"turn.completed"`)}

// line reads one line of a JSON-lines log, or of text around it.
func (m *meter) line(b []byte, cut bool, n int) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' || !mentionsCost(b) {
		return
	}
	if cut {
		m.note("line %d is longer than %d MiB and was not read for a cost", n, maxLine>>20)
		return
	}
	var ev event
	var syntax *json.SyntaxError
	if err := json.Unmarshal(b, &ev); errors.As(err, &syntax) {
		if bytes.Contains(b, []byte(`"total_cost_usd"`)) {
			m.note("line %d mentions total_cost_usd but is not JSON: its cost is unknown", n)
		}
		return
	}
	m.event(&ev, fmt.Sprintf("line %d", n))
}

func mentionsCost(b []byte) bool {
	for _, k := range costKeys {
		if bytes.Contains(b, k) {
			return true
		}
	}
	return false
}

// event is one JSON object of an agent's output, as far as cost goes.
type event struct {
	Type         string  `json:"type"`
	TotalCostUSD *figure `json:"total_cost_usd"`
	CostUSD      *figure `json:"costUSD"`
	Usage        *usage  `json:"usage"`
	Message      message `json:"message"`
}

// event applies one event; where names it in notes.
func (m *meter) event(ev *event, where string) {
	switch ev.Type {
	case "result":
		m.result(ev, where)
	case "assistant":
		m.message(ev, where)
	case "thread.started":
		m.thread()
	case "turn.completed":
		m.turn(ev, where)
	}
}

// meter adds up what the events report.
type meter struct {
	claude   claudeSum
	messages messageSum
	codex    codexSum
	// limit is how many bytes are read; skip says the first line is
	// the end of one cut off.
	limit int64
	skip  bool
	// cut is said when the cost came from per-message usage and part of
	// the log was not read.
	cut     string
	notes   []string
	dropped int
}

// note records a missing or malformed figure; past maxNotes it counts.
func (m *meter) note(format string, args ...any) {
	if len(m.notes) >= maxNotes-1 {
		m.dropped++
		return
	}
	m.notes = append(m.notes, fmt.Sprintf(format, args...))
}

// cost is the sum: a Claude run's results when it has one, else its
// messages' usage, plus Codex's threads.
func (m *meter) cost() *Cost {
	var usd float64
	var tokens int64
	var usdKnown, tokensKnown bool
	switch {
	case m.claude.results > 0:
		c := &m.claude
		usd, usdKnown, tokens, tokensKnown = c.usd, c.usdKnown, c.tokens, c.tokensKnown
	case len(m.messages.byID) > 0:
		usd, usdKnown, tokens, tokensKnown = m.messageSum()
		if m.cut != "" {
			m.note("%s", m.cut)
		}
	}
	if t, ok := m.codex.sum(); ok {
		tokens, tokensKnown = tokens+t, true
	}
	c := &Cost{}
	switch {
	case usdKnown && usd > MaxUSD:
		m.note("the log reports $%.2f for one iteration, more than $%d: not believed, the dollars are unknown", usd, MaxUSD)
	case usdKnown:
		c.USD = &usd
	}
	switch {
	case tokensKnown && tokens > MaxTokens:
		m.note("the log reports %d tokens for one iteration, more than %d: not believed, the tokens are unknown", tokens, int64(MaxTokens))
	case tokensKnown:
		c.Tokens = &tokens
	}
	c.Notes = m.notes
	if m.dropped > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d more cost notes", m.dropped))
	}
	return c
}

// figure is a reported number: a finite, non-negative JSON number. null
// is no figure; anything else is a malformed one (bad).
type figure struct {
	v   float64
	set bool
	bad bool
}

// UnmarshalJSON never fails: a value that is not a figure is marked bad,
// so that one malformed field does not hide the rest of the event.
func (f *figure) UnmarshalJSON(b []byte) error {
	*f = figure{}
	if string(b) == "null" {
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || b[0] == '"' || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		f.bad = true
		return nil
	}
	f.v, f.set = v, true
	return nil
}

// count is the figure as a token count: a whole number up to MaxTokens.
func (f *figure) count() (int64, bool) {
	if !f.set || f.v != math.Trunc(f.v) || f.v > MaxTokens {
		return 0, false
	}
	return int64(f.v), true
}

// usage is a usage object: Claude's input, output and cache counts, or
// Codex's input (cached ones included), cached input and output.
type usage struct {
	Input         figure `json:"input_tokens"`
	Output        figure `json:"output_tokens"`
	CacheCreation figure `json:"cache_creation_input_tokens"`
	CacheRead     figure `json:"cache_read_input_tokens"`
	CachedInput   figure `json:"cached_input_tokens"`
	// bad says the value was not an object.
	bad bool
}

// UnmarshalJSON reads an object; anything else marks the usage bad.
func (u *usage) UnmarshalJSON(b []byte) error {
	*u = usage{}
	if b[0] != '{' {
		u.bad = string(b) != "null"
		return nil
	}
	type plain usage
	if err := json.Unmarshal(b, (*plain)(u)); err != nil {
		u.bad = true
	}
	return nil
}

// tokens adds up the named counts: given says at least one was given,
// bad that the usage or one of them is not a token count.
func (u *usage) tokens(fields ...*figure) (sum int64, given, bad bool) {
	if u.bad {
		return 0, false, true
	}
	for _, f := range fields {
		if !f.set {
			bad = bad || f.bad
			continue
		}
		n, ok := f.count()
		if !ok {
			return 0, false, true
		}
		sum += n
		given = true
	}
	return sum, given && !bad, bad
}

// message is an event's message object: its id and usage. A message that
// is not an object (plain text in some logs) is empty.
type message struct {
	ID    string `json:"id"`
	Usage *usage `json:"usage"`
}

// UnmarshalJSON reads an object and ignores anything else.
func (msg *message) UnmarshalJSON(b []byte) error {
	*msg = message{}
	if b[0] != '{' {
		return nil
	}
	type plain message
	var p plain
	var syntax *json.SyntaxError
	if err := json.Unmarshal(b, &p); errors.As(err, &syntax) {
		return nil
	}
	*msg = message(p)
	return nil
}
