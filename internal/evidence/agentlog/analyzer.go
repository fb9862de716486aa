package agentlog

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// source says whose words a line of text is.
type source int

const (
	srcPlain source = iota // a plain text log: every rule applies
	srcAgent               // the agent's own text in a JSON log: every rule
	srcTool                // tool output in a JSON log: errors and denials
)

// unitState is the multi-line state of one stretch of text: the plain
// log, or one text value of a JSON log.
type unitState struct {
	traceback       bool // inside a Python traceback
	tracebackIndent int  // the indentation of its header
	tracebackLine   int
	block           *StatusBlock // an open status block
	blockLine       int
	blockLines      int
}

// analyzer accumulates what a log says while it is read line by line.
type analyzer struct {
	lim      Limits
	admitted bool // the prose admitted no progress, naming blocker first
	blocker  string
	lines    int // physical lines so far

	errors        []string
	droppedErrors int
	textDenials   int
	jsonDenials   int
	sawDenialList bool // a permission_denials array was seen: it is authoritative
	claim         bool
	questions     bool
	status        *StatusBlock
	sawAgentText  bool // assistant text was seen, so the final result repeats it

	notes        []string
	droppedNotes int

	plain unitState

	// A multi-line JSON document being buffered, from docLine on.
	inDoc   bool
	doc     []byte
	docLine int
}

// note records what was skipped or cut; past MaxNotes-1 notes it counts.
func (a *analyzer) note(format string, args ...any) {
	if len(a.notes) >= MaxNotes-1 {
		a.droppedNotes++
		return
	}
	a.notes = append(a.notes, strings.ToValidUTF8(fmt.Sprintf(format, args...), "\uFFFD"))
}

// addError keeps one error line, bounded.
func (a *analyzer) addError(line string) {
	if len(a.errors) >= MaxErrors {
		a.droppedErrors++
		return
	}
	line = strings.ToValidUTF8(line, "\uFFFD")
	a.errors = append(a.errors, textcut.Bytes(line, MaxErrorLen, ""))
}

// physical handles one line of the input, without its '\n'.
func (a *analyzer) physical(text []byte, cut bool) {
	a.lines++
	if cut {
		a.note("line %d is longer than %d bytes; only its first %d bytes were read", a.lines, a.lim.MaxLine, a.lim.MaxLine)
	}
	text = bytes.TrimSuffix(text, []byte{'\r'})
	if a.lines == 1 {
		text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	}
	if a.inDoc {
		a.docLineIn(text)
		return
	}
	a.lineOut(text, cut)
}

// lineOut handles a line that is not part of a buffered JSON document.
func (a *analyzer) lineOut(text []byte, cut bool) {
	if len(text) == 1 && (text[0] == '{' || text[0] == '[') {
		// The first line of a pretty-printed JSON document.
		a.inDoc, a.docLine = true, a.lines
		a.doc = append(a.doc[:0], text...)
		a.doc = append(a.doc, '\n')
		return
	}
	if !cut {
		t := bytes.TrimSpace(text)
		if len(t) >= 2 && ((t[0] == '{' && t[len(t)-1] == '}') || (t[0] == '[' && t[len(t)-1] == ']')) {
			if a.jsonValue(t) {
				return
			}
		}
	}
	a.textLine(string(text), srcPlain, &a.plain)
}

// docLineIn adds a line to the buffered JSON document and reads the
// document when its closing line (an unindented "}" or "]") arrives.
func (a *analyzer) docLineIn(text []byte) {
	if len(a.doc)+len(text)+1 > maxDocument {
		a.note("JSON document from line %d is larger than %d bytes; read as text", a.docLine, maxDocument)
		a.replayDoc()
		a.lineOut(text, false)
		return
	}
	a.doc = append(a.doc, text...)
	a.doc = append(a.doc, '\n')
	if len(text) == 1 && (text[0] == '}' || text[0] == ']') {
		if a.jsonValue(a.doc) {
			a.inDoc, a.doc = false, a.doc[:0]
			return
		}
		a.replayDoc()
	}
}

// replayDoc reads a buffered document that is not agent JSON as text.
func (a *analyzer) replayDoc() {
	doc := a.doc
	a.inDoc, a.doc = false, nil
	for line := range bytes.Lines(doc) {
		a.textLine(string(bytes.TrimSuffix(line, []byte{'\n'})), srcPlain, &a.plain)
	}
}

// unit reads one text value of a JSON log, line by line.
func (a *analyzer) unit(text string, src source) {
	var u unitState
	for line := range strings.Lines(text) {
		a.textLine(strings.TrimSuffix(line, "\n"), src, &u)
	}
	a.endUnit(&u, "in the JSON on line")
}

// endUnit closes a stretch of text: an open status block is dropped.
func (a *analyzer) endUnit(u *unitState, where string) {
	if u.block != nil {
		a.note("status block %s %d has no %s; ignored", where, u.blockLine, statusEnd)
		u.block = nil
	}
	if u.traceback {
		a.note("traceback %s %d has no exception line", where, u.tracebackLine)
		u.traceback = false
	}
}

// textLine applies the line rules to one line of text.
func (a *analyzer) textLine(raw string, src source, u *unitState) {
	s := strings.TrimRight(stripANSI(raw), " \t\r")
	t := strings.TrimLeft(s, " \t")
	indent := len(s) - len(t)

	if src != srcTool {
		switch t {
		case statusStart:
			if u.block != nil {
				a.note("status block on line %d restarted on line %d; the first one is ignored", u.blockLine, a.lines)
			}
			u.block, u.blockLine, u.blockLines = &StatusBlock{}, a.lines, 0
			return
		case statusEnd:
			if u.block != nil {
				a.status, u.block = u.block, nil
			}
			return
		}
	}
	inBlock := u.block != nil
	if inBlock {
		u.blockLines++
		if u.blockLines > maxStatusLines {
			a.note("status block on line %d runs past %d lines; ignored", u.blockLine, maxStatusLines)
			u.block, inBlock = nil, false
		} else {
			a.statusField(u.block, t)
		}
	}

	if u.traceback {
		if t == "" || indent > u.tracebackIndent {
			return // a frame or source line
		}
		u.traceback = false
		if tracebackEndRe().MatchString(t) {
			a.addError(t)
			return
		}
	}
	if t == "" {
		return
	}
	body := stripLogPrefix(t)
	if body == tracebackHeader {
		u.traceback, u.tracebackIndent, u.tracebackLine = true, indent, a.lines
		return
	}
	if isErrorLine(body) {
		a.addError(t)
	}
	lower := lowerText(body)
	if isDenial(lower) {
		a.textDenials++
	}
	if src == srcTool || inBlock {
		return
	}
	if !a.claim && isCompletion(lower) {
		a.claim = true
	}
	if !a.questions && isQuestion(lower) {
		a.questions = true
	}
	if ok, blocker := Admits(lower); ok {
		a.admitted = true
		if a.blocker == "" {
			a.blocker = blocker
		}
	}
}

// finish closes the log after its last line.
func (a *analyzer) finish(bytesRead int64) *Log {
	if a.inDoc {
		a.note("JSON document from line %d never ends; read as text", a.docLine)
		a.replayDoc()
	}
	a.endUnit(&a.plain, "on line")
	if a.droppedErrors > 0 {
		a.note("%d more error lines not kept (at most %d are)", a.droppedErrors, MaxErrors)
	}
	if a.droppedNotes > 0 {
		a.notes = append(a.notes, fmt.Sprintf("%d more notes not kept", a.droppedNotes))
	}
	l := &Log{
		Lines:             a.lines,
		Bytes:             bytesRead,
		Errors:            a.errors,
		PermissionDenials: a.textDenials,
		CompletionClaimed: a.claim,
		QuestionsAsked:    a.questions,
		Status:            a.status,
		Notes:             a.notes,
	}
	if a.sawDenialList {
		l.PermissionDenials = a.jsonDenials
	}
	if st := a.status; st != nil && (st.Status != "" || st.ExitSignal != nil) {
		// An explicit status outranks completion words in prose.
		l.CompletionClaimed = st.ClaimsCompletion()
	}
	l.Admitted, l.Blocker = a.admitted, a.blocker
	if st := a.status; st != nil {
		if ok, blocker := st.AdmitsNoProgress(); ok {
			l.Admitted = true
			if blocker != "" {
				l.Blocker = blocker
			}
		}
	}
	return l
}
