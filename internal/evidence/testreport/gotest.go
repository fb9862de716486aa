package testreport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Bounds of the go test -json reader's state.
const (
	maxOpenTests   = 10000 // tests running at once that are tracked
	maxBuildImport = 10000 // import paths whose build output is kept
	maxOpenPkgs    = 10000 // packages running at once that are tracked
	maxName        = 4096  // longest package, test or import path read
)

// goEvent is one line of go test -json (cmd/test2json's TestEvent, with the
// fields read here).
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// goTest is a test that has started and not finished.
type goTest struct {
	seq       int
	msg       string // first meaningful output line
	hasSub    bool
	subFailed bool
}

// goPkg is a package that has not finished.
type goPkg struct {
	open   map[string]*goTest
	failed int    // failures counted for the package
	out    string // first meaningful package-level output line
}

type goParser struct {
	name  string
	rep   *Report
	fails failures

	pkgs      map[string]*goPkg
	spare     *goPkg // stands in for packages past maxOpenPkgs
	spareUsed int
	openTests int
	seq       int
	untracked int

	buildMsg    map[string]string
	buildFailed []string // build-fail import paths no package fail named yet

	nonEvent int
	noAction int
	longName int
}

func parseGoTest(br *bufio.Reader, name string) (*Report, error) {
	p := &goParser{
		name:     name,
		rep:      &Report{},
		pkgs:     map[string]*goPkg{},
		spare:    &goPkg{open: map[string]*goTest{}},
		buildMsg: map[string]string{},
	}
	lr := newLineReader(br)
	events := 0
	cutLast := false
	for {
		line, complete, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &Error{File: name, Line: lr.n + 1, Err: readErr(err)}
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] != '{' {
			p.nonEvent++
			continue
		}
		var ev goEvent
		if err := json.Unmarshal(t, &ev); err != nil {
			if !complete {
				cutLast = true
				break
			}
			return nil, &Error{File: name, Line: lr.n, Err: fmt.Errorf("invalid JSON: %s", jsonFault(err))}
		}
		if ev.Action == "" {
			if events == 0 {
				return nil, &Error{File: name, Line: lr.n, Err: fmt.Errorf("%w (a JSON object without an Action)", ErrUnknownFormat)}
			}
			p.noAction++
			continue
		}
		events++
		if len(ev.Package) > maxName || len(ev.Test) > maxName || len(ev.ImportPath) > maxName || len(ev.FailedBuild) > maxName {
			p.longName++
			continue
		}
		p.event(&ev)
	}
	if events == 0 {
		return nil, &Error{File: name, Err: ErrUnknownFormat}
	}
	p.finish(lr, cutLast)
	return p.rep, nil
}

// jsonFault describes a JSON decoding error without Go type names.
func jsonFault(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s holds a JSON %s", te.Field, te.Value)
	}
	return err.Error()
}

func (p *goParser) pkg(name string) *goPkg {
	pk := p.pkgs[name]
	if pk == nil {
		if len(p.pkgs) >= maxOpenPkgs {
			p.spareUsed++
			*p.spare = goPkg{open: p.spare.open}
			return p.spare
		}
		pk = &goPkg{open: map[string]*goTest{}}
		p.pkgs[name] = pk
	}
	return pk
}

func (p *goParser) event(ev *goEvent) {
	switch ev.Action {
	case "build-output":
		// The first compiler line of each import path, for as many as are kept.
		if msg, ok := p.buildMsg[ev.ImportPath]; msg == "" && (ok || len(p.buildMsg) < maxBuildImport) {
			p.buildMsg[ev.ImportPath] = compilerLine(ev.Output)
		}
	case "build-fail":
		if len(p.buildFailed) < maxBuildImport {
			p.buildFailed = append(p.buildFailed, ev.ImportPath)
		}
	case "run":
		if ev.Test != "" {
			p.run(p.pkg(ev.Package), ev.Test)
		}
	case "output":
		pk := p.pkg(ev.Package)
		if ev.Test == "" {
			if pk.out == "" && packageLine(ev.Output) {
				pk.out = firstLine(ev.Output)
			}
			return
		}
		if t := pk.open[ev.Test]; t != nil && t.msg == "" && meaningful(ev.Output) {
			t.msg = firstLine(ev.Output)
		}
	case "pass", "fail", "skip":
		if ev.Test != "" {
			p.testDone(ev)
		} else {
			p.packageDone(ev)
		}
	}
}

func (p *goParser) run(pk *goPkg, test string) {
	if _, ok := pk.open[test]; ok {
		return
	}
	if p.openTests >= maxOpenTests || pk == p.spare {
		p.untracked++
		return
	}
	p.seq++
	pk.open[test] = &goTest{seq: p.seq}
	p.openTests++
	for i := strings.LastIndexByte(test, '/'); i > 0; i = strings.LastIndexByte(test[:i], '/') {
		if parent := pk.open[test[:i]]; parent != nil {
			parent.hasSub = true
			return
		}
	}
}

// ancestorsFailed marks every open ancestor of test as having a failing
// subtest.
func ancestorsFailed(pk *goPkg, test string) {
	for i := strings.LastIndexByte(test, '/'); i > 0; i = strings.LastIndexByte(test[:i], '/') {
		if parent := pk.open[test[:i]]; parent != nil {
			parent.subFailed = true
		}
	}
}

func (p *goParser) testDone(ev *goEvent) {
	pk := p.pkg(ev.Package)
	t := pk.open[ev.Test]
	if t != nil {
		delete(pk.open, ev.Test)
		p.openTests--
	}
	leaf := t == nil || !t.hasSub
	switch ev.Action {
	case "pass":
		if leaf {
			p.rep.Passed++
		}
	case "skip":
		if leaf {
			p.rep.Skipped++
		}
	case "fail":
		if leaf || !t.subFailed {
			msg := ""
			if t != nil {
				msg = t.msg
			}
			p.fail(pk, ev.Package+"."+ev.Test, msg, KindFailure)
		}
		ancestorsFailed(pk, ev.Test)
	}
}

func (p *goParser) fail(pk *goPkg, name, msg, kind string) {
	p.rep.Failed++
	if pk != nil {
		pk.failed++
	}
	p.fails.add(name, msg, kind)
}

func (p *goParser) packageDone(ev *goEvent) {
	pk := p.pkg(ev.Package)
	delete(p.pkgs, ev.Package)
	p.openTests -= len(pk.open)
	if ev.Action != "fail" {
		return
	}
	if ev.FailedBuild != "" {
		p.rep.BuildFailed = true
		msg := p.buildMsg[ev.FailedBuild]
		if msg == "" {
			msg = "build failed: " + ev.FailedBuild
		}
		p.fail(pk, ev.Package, msg, KindBuild)
		if i := slices.Index(p.buildFailed, ev.FailedBuild); i >= 0 {
			p.buildFailed = slices.Delete(p.buildFailed, i, i+1)
		}
		return
	}
	unfinished := pk.unfinished()
	if pk.failed > 0 {
		if len(unfinished) > 0 {
			p.rep.note(fmt.Sprintf("%s: %d test(s) of %s did not finish and were not counted", p.name, len(unfinished), ev.Package))
		}
		return
	}
	for _, u := range unfinished {
		msg := u.msg
		if msg == "" {
			msg = pk.out
		}
		if msg == "" {
			msg = "test did not finish"
		}
		p.fail(pk, ev.Package+"."+u.name, msg, KindFailure)
	}
	if pk.failed == 0 {
		msg := pk.out
		if msg == "" {
			msg = "package failed"
		}
		p.fail(pk, ev.Package, msg, KindFailure)
	}
}

type unfinishedTest struct {
	name string
	*goTest
}

// unfinished returns the package's open leaf tests in the order they
// started.
func (pk *goPkg) unfinished() []unfinishedTest {
	var out []unfinishedTest
	for name, t := range pk.open {
		if !t.hasSub {
			out = append(out, unfinishedTest{name, t})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

func (p *goParser) finish(lr *lineReader, cutLast bool) {
	for _, ip := range p.buildFailed {
		p.rep.BuildFailed = true
		msg := p.buildMsg[ip]
		if msg == "" {
			msg = "build failed"
		}
		name, _, _ := strings.Cut(ip, " [")
		p.fail(nil, name, msg, KindBuild)
	}
	p.rep.Failing = p.fails.list()
	open := 0
	for _, pk := range p.pkgs {
		open += len(pk.open)
	}
	if open > 0 {
		p.rep.note(fmt.Sprintf("%s: %d test(s) started but never finished (the output ends early) and were not counted", p.name, open))
	}
	if cutLast {
		p.rep.note(fmt.Sprintf("%s: line %d is cut short (no newline, not valid JSON) and was ignored", p.name, lr.n))
	}
	if p.untracked > 0 {
		p.rep.note(fmt.Sprintf("%s: more than %d tests were running at once; %d were counted without telling subtests from their parents", p.name, maxOpenTests, p.untracked))
	}
	if p.spareUsed > 0 {
		p.rep.note(fmt.Sprintf("%s: more than %d packages were running at once; %d event(s) of the others were read without their package's context", p.name, maxOpenPkgs, p.spareUsed))
	}
	if p.nonEvent > 0 {
		p.rep.note(fmt.Sprintf("%s: %d line(s) that are not go test -json events were skipped", p.name, p.nonEvent))
	}
	if p.noAction > 0 {
		p.rep.note(fmt.Sprintf("%s: %d JSON object(s) without an Action were skipped", p.name, p.noAction))
	}
	if p.longName > 0 {
		p.rep.note(fmt.Sprintf("%s: %d event(s) naming a package or test longer than %d bytes were skipped", p.name, p.longName, maxName))
	}
	if lr.long > 0 {
		p.rep.note(fmt.Sprintf("%s: %d line(s) longer than %d MiB were skipped", p.name, lr.long, maxLine>>20))
	}
}

// compilerLine returns the first line of build output that is an error
// rather than a "# package" header.
func compilerLine(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return bound(t)
		}
	}
	return ""
}

// packageLine reports whether package-level output says something beyond go
// test's own summary lines.
func packageLine(out string) bool {
	t := strings.TrimSpace(out)
	if !meaningful(t) {
		return false
	}
	for _, p := range [...]string{"PASS", "FAIL", "ok ", "ok\t", "?   ", "exit status ", "coverage: ", "testing: warning: no tests to run"} {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	return true
}
