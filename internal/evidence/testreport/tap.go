package testreport

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// tapLine reports whether a trimmed line is unmistakably TAP: a version
// line, a plan, a test line or a bail out.
func tapLine(s string) bool {
	if strings.HasPrefix(s, "TAP version ") || strings.HasPrefix(s, "Bail out!") {
		return true
	}
	if _, ok := tapPlan(s); ok {
		return true
	}
	_, ok := tapTestLine(s)
	return ok
}

// tapPlan parses "1..N" with an optional comment after it.
func tapPlan(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "1..")
	if !ok {
		return 0, false
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 {
		return 0, false
	}
	if tail := strings.TrimSpace(rest[i:]); tail != "" && tail[0] != '#' {
		return 0, false
	}
	n, err := strconv.Atoi(rest[:i])
	return n, err == nil
}

// tapResult is a parsed test line.
type tapResult struct {
	ok        bool
	num       int
	desc      string
	directive string // "SKIP", "TODO" or ""
	reason    string
}

// tapTestLine parses "ok 1 - description # SKIP reason" and friends.
func tapTestLine(s string) (tapResult, bool) {
	var r tapResult
	rest, found := strings.CutPrefix(s, "not ok")
	if !found {
		rest, found = strings.CutPrefix(s, "ok")
		r.ok = true
	}
	if !found || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return tapResult{}, false
	}
	rest = strings.TrimLeft(rest, " \t")
	i := 0
	for i < len(rest) && i < 9 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i > 0 && (i == len(rest) || rest[i] == ' ' || rest[i] == '\t') {
		r.num, _ = strconv.Atoi(rest[:i])
		rest = rest[i:]
	}
	// The directive starts at the first '#' that is not escaped.
	desc := rest
	for j := 0; j < len(rest); j++ {
		if rest[j] == '\\' {
			j++
			continue
		}
		if rest[j] == '#' {
			desc = rest[:j]
			d := strings.TrimSpace(rest[j+1:])
			word, reason, _ := strings.Cut(d, " ")
			switch w := strings.ToUpper(word); {
			case strings.HasPrefix(w, "SKIP"):
				r.directive, r.reason = "SKIP", strings.TrimSpace(reason)
			case strings.HasPrefix(w, "TODO"):
				r.directive, r.reason = "TODO", strings.TrimSpace(reason)
			}
			break
		}
	}
	desc = strings.TrimSpace(desc)
	desc = strings.TrimSpace(strings.TrimPrefix(desc, "- "))
	if desc == "-" {
		desc = ""
	}
	r.desc = strings.ReplaceAll(desc, `\#`, "#")
	return r, true
}

// tapParser reads TAP 12 to 14 line by line.
type tapParser struct {
	name  string
	rep   *Report
	fails failures

	planned  int // -1 until a plan is read
	plans    int
	skipAll  string
	ran      int
	pending  *tapPending
	inYAML   bool
	yamlInd  int // indentation of the block's "---"
	keyInd   int // indentation of its keys, -1 until the first key
	inBlock  bool
	unclosed int
	other    int
	bailed   bool
}

// tapPending is the last test line, waiting for its diagnostics.
type tapPending struct {
	name     string
	failing  bool
	yaml     bool
	yamlMsg  string
	diag     string
	gotMsg   bool
	haveDiag bool
}

func parseTAP(br *bufio.Reader, name string) (*Report, error) {
	p := &tapParser{name: name, rep: &Report{}, planned: -1, keyInd: -1}
	lr := newLineReader(br)
	for !p.bailed {
		line, _, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{File: name, Line: lr.n + 1, Err: readErr(err)}
		}
		p.line(string(line))
	}
	p.finish(lr)
	return p.rep, nil
}

func (p *tapParser) line(raw string) {
	trimmed := strings.TrimSpace(raw)
	indent := len(raw) - len(strings.TrimLeft(raw, " \t"))
	if p.inYAML {
		switch {
		case trimmed == "...":
			p.inYAML = false
			return
		case indent == 0 && trimmed != "":
			p.inYAML = false
			p.unclosed++
		default:
			p.yamlLine(trimmed, indent)
			return
		}
	}
	if trimmed == "" {
		return
	}
	if indent > 0 {
		if trimmed == "---" && p.pending != nil && !p.pending.yaml {
			p.pending.yaml = true
			p.inYAML, p.yamlInd, p.keyInd, p.inBlock = true, indent, -1, false
		}
		// Other indented lines belong to subtests: their parent's line
		// counts for them.
		return
	}
	switch {
	case strings.HasPrefix(trimmed, "TAP version "), strings.HasPrefix(trimmed, "pragma "):
	case strings.HasPrefix(trimmed, "Bail out!"):
		p.flush()
		reason := strings.TrimSpace(strings.TrimPrefix(trimmed, "Bail out!"))
		p.rep.Failed++
		p.fails.add("Bail out!", reason, KindFailure)
		p.bailed = true
		note := fmt.Sprintf("%s: bailed out after %d test(s)", p.name, p.ran)
		if reason != "" {
			note += ": " + bound(reason)
		}
		if p.planned > p.ran {
			note += fmt.Sprintf("; %d of %d planned test(s) did not run", p.planned-p.ran, p.planned)
		}
		p.rep.note(note)
	case strings.HasPrefix(trimmed, "#"):
		if pd := p.pending; pd != nil && pd.failing && !pd.haveDiag {
			d := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
			if d != "" && !strings.HasPrefix(d, "Subtest") {
				pd.diag, pd.haveDiag = d, true
			}
		}
	default:
		if n, ok := tapPlan(trimmed); ok {
			p.plans++
			if p.plans == 1 {
				p.planned = n
				if n == 0 {
					_, reason, _ := strings.Cut(trimmed, "#")
					p.skipAll = strings.TrimSpace(reason)
				}
			}
			return
		}
		if r, ok := tapTestLine(trimmed); ok {
			p.test(r)
			return
		}
		p.other++
	}
}

func (p *tapParser) test(r tapResult) {
	p.flush()
	p.ran++
	name := r.desc
	if name == "" {
		num := r.num
		if num == 0 {
			num = p.ran
		}
		name = "test " + strconv.Itoa(num)
	}
	failing := false
	switch {
	case r.directive == "SKIP", r.directive == "TODO" && !r.ok:
		p.rep.Skipped++
	case r.ok:
		p.rep.Passed++
	default:
		p.rep.Failed++
		failing = true
	}
	p.pending = &tapPending{name: name, failing: failing}
}

// yamlLine reads one line of a YAML diagnostics block, looking for the
// top-level message key.
func (p *tapParser) yamlLine(trimmed string, indent int) {
	pd := p.pending
	if pd == nil || pd.gotMsg || trimmed == "" {
		return
	}
	if p.inBlock {
		if indent > p.keyInd {
			pd.yamlMsg, pd.gotMsg = trimmed, true
			return
		}
		p.inBlock = false
	}
	if p.keyInd < 0 {
		p.keyInd = indent
	}
	if indent != p.keyInd {
		return
	}
	v, ok := strings.CutPrefix(trimmed, "message:")
	if !ok {
		return
	}
	v = strings.TrimSpace(v)
	switch v {
	case "|", ">", "|-", ">-", "|+", ">+":
		p.inBlock = true
	case "":
	default:
		pd.yamlMsg, pd.gotMsg = yamlScalar(v), true
	}
}

// yamlScalar reads a one-line YAML scalar: quoted or plain.
func yamlScalar(v string) string {
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		if s, err := strconv.Unquote(v); err == nil {
			return s
		}
		return v[1 : len(v)-1]
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

// flush records the pending test's failure with its message.
func (p *tapParser) flush() {
	pd := p.pending
	p.pending = nil
	p.inYAML = false
	if pd == nil || !pd.failing {
		return
	}
	msg := pd.yamlMsg
	if !pd.gotMsg {
		msg = pd.diag
	}
	p.fails.add(pd.name, msg, KindFailure)
}

func (p *tapParser) finish(lr *lineReader) {
	if p.inYAML {
		p.unclosed++
	}
	p.flush()
	rep := p.rep
	rep.Failing = p.fails.list()
	if p.planned >= 0 && p.planned != p.ran && !p.bailed {
		rep.note(fmt.Sprintf("%s: planned %d test(s) but %d ran", p.name, p.planned, p.ran))
	}
	if p.planned < 0 && !p.bailed {
		rep.note(fmt.Sprintf("%s: no plan (1..N) line; the output may have ended early", p.name))
	}
	if p.planned == 0 && p.ran == 0 {
		s := fmt.Sprintf("%s: plan 1..0: every test was skipped", p.name)
		if p.skipAll != "" {
			s += " (" + bound(p.skipAll) + ")"
		}
		rep.note(s)
	}
	if p.plans > 1 {
		rep.note(fmt.Sprintf("%s: %d plan lines; the first one was used", p.name, p.plans))
	}
	if p.unclosed > 0 {
		rep.note(fmt.Sprintf("%s: %d YAML block(s) not closed by \"...\"", p.name, p.unclosed))
	}
	if p.other > 0 {
		rep.note(fmt.Sprintf("%s: %d line(s) that are not TAP were ignored", p.name, p.other))
	}
	if lr.long > 0 {
		rep.note(fmt.Sprintf("%s: %d line(s) longer than %d MiB were skipped", p.name, lr.long, maxLine>>20))
	}
}
