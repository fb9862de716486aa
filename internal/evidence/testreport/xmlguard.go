package testreport

import (
	"fmt"
	"io"
	"sort"
)

// Limits of the XML guard.
const (
	// maxValue is how much of one text run, CDATA section, comment,
	// processing instruction or attribute value reaches the decoder.
	maxValue = 64 << 10
	// maxMarkup bounds a tag or declaration without its attribute values.
	maxMarkup = 64 << 10
	// maxTagValues is how much of all the attribute values of one tag
	// reaches the decoder; values past it are cut.
	maxTagValues = 256 << 10
	// refSlack is how far past maxValue a cut waits for an entity
	// reference to close.
	refSlack = 32
)

// States of the guard's lexer.
const (
	gText      = iota // character data
	gLT               // after '<'
	gBang             // after "<!"
	gBangDash         // after "<!-"
	gCDATAOpen        // inside "<![CDATA["
	gComment          // comment content
	gCDATA            // CDATA content
	gPI               // processing instruction
	gDirective        // <!DOCTYPE ...> and other declarations
	gTag              // start or end tag, outside attribute values
	gAttr             // quoted attribute value
)

// xmlGuard sits between a report and encoding/xml's decoder so that no
// single token can make the decoder buffer without bound. It lexes just
// enough XML to know where values start and end; it cuts every value (text,
// CDATA, comment, processing instruction, attribute value) to maxValue bytes
// (completing a UTF-8 sequence or an entity reference first, and keeping the
// value's terminator, so that what the decoder sees is still well formed),
// cuts the attribute values of one tag to maxTagValues together, and fails
// on a tag or declaration longer than maxMarkup. It can leave out the
// content of <system-out> and <system-err> elements, which the reader never
// looks at. It also keeps what it needs to map the decoder's line numbers
// back to the file's.
type xmlGuard struct {
	r   io.Reader
	in  []byte
	out []byte
	pos int // next byte of out to hand over
	err error

	state     int
	quote     byte // gAttr: the closing quote
	runLen    int  // bytes of the current value passed on
	dropping  bool // the current value is being cut
	inRef     bool // inside an entity reference in text or an attribute
	refExtra  int  // bytes passed on past maxValue to finish a reference
	utfExtra  int  // bytes passed on past maxValue to finish a UTF-8 sequence
	tail      [2]byte
	cdataIdx  int   // gCDATAOpen: bytes of "CDATA[" matched
	markupLen int   // bytes of the current tag or declaration
	tagValues int   // bytes of attribute values of the current tag passed on
	dirDepth  int   // gDirective: nesting of '<' '>'
	dirQuote  byte  // gDirective: open quote, or 0
	line      int   // line of the input being lexed
	outOff    int64 // bytes passed on so far
	cut       int   // values cut

	dropNL   int         // newlines dropped so far
	dropMark []dropMarks // where dropped newlines fall in the output

	// Skipping the content of <system-out> and <system-err>, which the
	// reader never looks at and which is often most of a report.
	skipOutput bool     // whether to skip it
	skipping   bool     // inside such an element
	skipDepth  int      // open elements, the skipped one included
	skipName   string   // its name
	tagName    [16]byte // the start of the current tag's name
	nameLen    int      // the length of that name
	nameDone   bool     // the name is complete
	isEnd      bool     // the current tag is an end tag
	lastTag    byte     // the last byte of the tag before '>'
}

// dropMarks says that before output offset off, nl newlines in all had been
// dropped.
type dropMarks struct {
	off int64
	nl  int
}

// guardError is a fault the guard found, at a line of the file.
type guardError struct {
	line int
	msg  string
}

func (e *guardError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// newXMLGuard returns a guard reading r. With skipOutput, the content of
// <system-out> and <system-err> elements is not passed on (the elements
// are, empty).
func newXMLGuard(r io.Reader, skipOutput bool) *xmlGuard {
	return &xmlGuard{r: r, in: make([]byte, 32<<10), out: make([]byte, 0, 32<<10+16), line: 1, skipOutput: skipOutput}
}

// dropNewlines records n newlines dropped at the current output offset.
func (g *xmlGuard) dropNewlines(n int) {
	g.dropNL += n
	off := g.outOff + int64(len(g.out))
	if k := len(g.dropMark); k > 0 && g.dropMark[k-1].off == off {
		g.dropMark[k-1].nl = g.dropNL
	} else {
		g.dropMark = append(g.dropMark, dropMarks{off: off, nl: g.dropNL})
	}
}

// droppedBefore returns how many newlines were dropped before output offset
// off, to add to a line number the decoder reports.
func (g *xmlGuard) droppedBefore(off int64) int {
	i := sort.Search(len(g.dropMark), func(i int) bool { return g.dropMark[i].off > off })
	if i == 0 {
		return 0
	}
	return g.dropMark[i-1].nl
}

func (g *xmlGuard) Read(p []byte) (int, error) {
	for g.pos == len(g.out) {
		if g.err != nil {
			return 0, g.err
		}
		g.out = g.out[:0]
		g.pos = 0
		n, err := g.r.Read(g.in)
		g.lex(g.in[:n])
		if err != nil && g.err == nil {
			g.err = err
		}
	}
	n := copy(p, g.out[g.pos:])
	g.pos += n
	g.outOff += int64(n)
	return n, nil
}

// emit passes b on to the decoder, unless an element's content is being
// skipped.
func (g *xmlGuard) emit(b ...byte) {
	if !g.skipping {
		g.out = append(g.out, b...)
	}
}

func (g *xmlGuard) fail(msg string) {
	if g.err == nil {
		g.err = &guardError{line: g.line, msg: msg}
	}
}

// value handles one byte of a value: passes it on while the value is short,
// then cuts. ref says whether entity references are recognised.
func (g *xmlGuard) value(b byte, ref bool) {
	if g.dropping {
		if b == '\n' && !g.skipping { // lex records those of skipped content
			g.dropNewlines(1)
		}
		return
	}
	if g.runLen < maxValue && (g.state != gAttr || g.tagValues < maxTagValues) {
		g.runLen++
		if g.state == gAttr {
			g.tagValues++
		}
		g.emit(b)
		if ref {
			switch {
			case b == '&':
				g.inRef = true
			case b == ';' || !refByte(b):
				g.inRef = false
			}
		}
		return
	}
	// At the limit: finish a UTF-8 sequence or an entity reference.
	if b&0xC0 == 0x80 && g.utfExtra < 3 {
		g.utfExtra++
		g.emit(b)
		return
	}
	if g.inRef && refByte(b) && g.refExtra < refSlack {
		g.refExtra++
		g.emit(b)
		if b == ';' {
			g.inRef = false
		}
		return
	}
	g.dropping = true
	if !g.skipping {
		g.cut++
	}
	g.value(b, ref)
}

func refByte(b byte) bool {
	return b == ';' || b == '#' || b == '_' || b == '-' || b == '.' || b == ':' ||
		'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// startValue resets the value state when a value begins.
func (g *xmlGuard) startValue() {
	g.runLen, g.dropping, g.inRef, g.refExtra, g.utfExtra = 0, false, false, 0, 0
	g.tail = [2]byte{}
}

// markup counts one byte of a tag or declaration.
func (g *xmlGuard) markup(b byte, what string) {
	g.markupLen++
	if g.markupLen > maxMarkup {
		g.fail(fmt.Sprintf("%s longer than %d KiB", what, maxMarkup>>10))
		return
	}
	g.emit(b)
}

func (g *xmlGuard) lex(in []byte) {
	for i := 0; i < len(in) && g.err == nil; i++ {
		b := in[i]
		if b == '\n' {
			g.line++
			if g.skipping {
				g.dropNewlines(1)
			}
		}
		switch g.state {
		case gText:
			if b == '<' {
				g.emit(b)
				g.state = gLT
				continue
			}
			g.value(b, true)
		case gLT:
			g.markupLen, g.tagValues = 1, 0
			g.nameLen, g.nameDone, g.isEnd, g.lastTag = 0, false, false, 0
			switch b {
			case '!':
				g.emit(b)
				g.state = gBang
			case '?':
				g.emit(b)
				g.state = gPI
				g.startValue()
			default:
				g.state = gTag
				g.tag(b)
			}
		case gBang:
			g.emit(b)
			switch b {
			case '-':
				g.state = gBangDash
			case '[':
				g.state, g.cdataIdx = gCDATAOpen, 0
			default:
				g.state, g.dirDepth, g.dirQuote = gDirective, 0, 0
			}
		case gBangDash:
			if b == '-' {
				g.emit(b)
				g.state = gComment
				g.startValue()
				continue
			}
			g.state, g.dirDepth, g.dirQuote = gDirective, 0, 0
			g.directive(b)
		case gCDATAOpen:
			if b == "CDATA["[g.cdataIdx] {
				g.emit(b)
				g.cdataIdx++
				if g.cdataIdx == len("CDATA[") {
					g.state = gCDATA
					g.startValue()
				}
				continue
			}
			g.state, g.dirDepth, g.dirQuote = gDirective, 0, 0
			g.directive(b)
		case gComment, gCDATA, gPI:
			end := valueEnd[g.state]
			if b == '>' && string(g.tail[2-len(end.tail):]) == end.tail {
				if g.dropping {
					g.emit([]byte(end.cut)...)
				} else {
					g.emit(b)
				}
				g.state = gText
				g.startValue()
				continue
			}
			g.tail = [2]byte{g.tail[1], b}
			g.value(b, false)
		case gDirective:
			g.directive(b)
		case gTag:
			g.tag(b)
		case gAttr:
			if b == g.quote {
				g.state = gTag
				g.lastTag = b
				g.markup(b, "tag")
				continue
			}
			g.value(b, true)
		}
	}
}

// valueEnd says how comments, CDATA sections and processing instructions
// end: the bytes before their '>', and what to pass on in place of those
// when the value was cut (a space keeps a cut comment from ending in "-").
var valueEnd = [...]struct{ tail, cut string }{
	gComment: {"--", " -->"},
	gCDATA:   {"]]", "]]>"},
	gPI:      {"?", "?>"},
}

func (g *xmlGuard) tag(b byte) {
	switch b {
	case '"', '\'':
		g.nameDone = true
		g.markup(b, "tag")
		g.state, g.quote = gAttr, b
		g.startValue()
	case '>':
		g.endTag()
		g.state = gText
		g.startValue()
	default:
		g.name([]byte{b})
		g.lastTag = b
		g.markup(b, "tag")
	}
}

// name reads the start of a tag's name.
func (g *xmlGuard) name(run []byte) {
	for _, c := range run {
		switch {
		case g.nameDone:
			return
		case c == '/' && g.nameLen == 0 && !g.isEnd:
			g.isEnd = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/':
			g.nameDone = true
		default:
			if g.nameLen < len(g.tagName) {
				g.tagName[g.nameLen] = c
			}
			g.nameLen++
		}
	}
}

// endTag passes on the '>' of a tag and starts or ends skipping.
func (g *xmlGuard) endTag() {
	selfClosing := g.lastTag == '/'
	switch {
	case g.skipping && g.isEnd:
		g.skipDepth--
		if g.skipDepth == 0 {
			g.skipping = false
			g.out = append(g.out, "</"+g.skipName+">"...)
		}
	case g.skipping:
		if !selfClosing {
			g.skipDepth++
		}
	default:
		g.emit('>')
		if g.skipOutput && !g.isEnd && !selfClosing && g.nameLen <= len(g.tagName) {
			switch name := string(g.tagName[:g.nameLen]); name {
			case "system-out", "system-err":
				g.skipping, g.skipDepth, g.skipName = true, 1, name
			}
		}
	}
}

func (g *xmlGuard) directive(b byte) {
	g.markup(b, "declaration")
	switch {
	case g.dirQuote != 0:
		if b == g.dirQuote {
			g.dirQuote = 0
		}
	case b == '"' || b == '\'':
		g.dirQuote = b
	case b == '<':
		g.dirDepth++
	case b == '>':
		if g.dirDepth == 0 {
			g.state = gText
			g.startValue()
			return
		}
		g.dirDepth--
	}
}
