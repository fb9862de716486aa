package testreport

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The format fuzz targets call each reader directly, past the format
// detection that FuzzParse goes through, so that every input reaches the
// reader under test. Their seed corpora are under testdata/fuzz.

// addFixtures seeds f with the sample reports whose names end in one of
// the suffixes.
func addFixtures(f *testing.F, suffixes ...string) {
	f.Helper()
	for _, rel := range fixtures(f) {
		for _, s := range suffixes {
			if strings.HasSuffix(rel, s) {
				b, err := os.ReadFile(filepath.Join(reportsDir, filepath.FromSlash(rel)))
				if err != nil {
					f.Fatal(err)
				}
				f.Add(b)
				break
			}
		}
	}
}

// checkFuzzReport fails unless a reader's result keeps the package's
// promises: an error is an *Error naming the file and comes alone; a
// report has consistent, bounded, valid-UTF-8 content.
func checkFuzzReport(t *testing.T, rep *Report, err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.File != "fuzz" {
			t.Fatalf("got error %#v, want an *Error naming the file", err)
		}
		if rep != nil {
			t.Fatalf("got a report with error %v", err)
		}
		return
	}
	if rep == nil {
		t.Fatal("got neither a report nor an error")
	}
	if rep.Passed < 0 || rep.Failed < 0 || rep.Errored < 0 || rep.Skipped < 0 || rep.Errored > rep.Failed {
		t.Fatalf("got bad counts %+v", rep)
	}
	if len(rep.Failing) > MaxFailing || len(rep.Notes) > MaxNotes || len(rep.Failing) > rep.Failed {
		t.Fatalf("got %d failing, %d notes for %d failed", len(rep.Failing), len(rep.Notes), rep.Failed)
	}
	build := true
	for _, fl := range rep.Failing {
		if len(fl.Name) > MaxText || len(fl.Message) > MaxText || !utf8.ValidString(fl.Name) || !utf8.ValidString(fl.Message) {
			t.Fatalf("got unbounded or invalid failure %q", fl)
		}
		switch fl.Kind {
		case KindBuild:
			if !build {
				t.Fatalf("got a build failure after a test failure: %v", rep.Failing)
			}
		case KindFailure, KindError:
			build = false
		default:
			t.Fatalf("got kind %q", fl.Kind)
		}
	}
	for _, n := range rep.Notes {
		if !utf8.ValidString(n) {
			t.Fatalf("got a note that is not UTF-8: %q", n)
		}
	}
}

// FuzzJUnit feeds arbitrary bytes to the JUnit XML reader: entities, DTDs,
// deep nesting and huge values must all end in a bounded report or an
// error naming the file.
func FuzzJUnit(f *testing.F) {
	addFixtures(f, ".xml")
	for _, s := range []string{
		`<testsuites><testsuite name="s" tests="-5" failures="99999999999999999999"><testcase name="a"><failure message="m"/></testcase></testsuite></testsuites>`,
		`<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]><testsuite>&lol2;</testsuite>`,
		strings.Repeat("<a>", MaxDepth+2) + strings.Repeat("</a>", MaxDepth+2),
		`<?xml version="1.0" encoding="ISO-8859-1"?><testsuite><testcase name="` + "\xe9" + `"/></testsuite>`,
		`<testsuite><testcase name="x"><skipped/><error type="E"/></testcase><testcase/></testsuite>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := parseJUnit(bytes.NewReader(data), "fuzz", true)
		checkFuzzReport(t, rep, err)
	})
}

// FuzzGoTest feeds arbitrary bytes to the go test -json reader.
func FuzzGoTest(f *testing.F) {
	addFixtures(f, ".json", ".jsonl")
	for _, s := range []string{
		`{"Action":"run","Package":"p","Test":"T"}` + "\n" + `{"Action":"fail","Package":"p","Test":"T","Elapsed":1e400}` + "\n",
		`{"Action":"output","Package":"p","Output":"# p\n./x.go:1:1: undefined: y\n"}` + "\n" + `{"Action":"fail","Package":"p"}`,
		`{"Action":"pass","Package":"p","Test":"T/"}` + "\n" + `{"Action":"run","Package":"p","Test":"T//"}` + "\n",
		`{"Action":["x"],"Package":{"a":1}}` + "\n" + "not json\n" + `{"Action":"skip"`,
		`{"ImportPath":"p","Action":"build-fail"}` + "\n" + `{"Action":"start","Package":"p"}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := parseGoTest(bufio.NewReader(bytes.NewReader(data)), "fuzz")
		checkFuzzReport(t, rep, err)
	})
}

// FuzzTAP feeds arbitrary bytes to the TAP reader.
func FuzzTAP(f *testing.F) {
	addFixtures(f, ".tap")
	for _, s := range []string{
		"TAP version 13\n1..99999999999999999999\nok 1\nnot ok -3 - neg\n",
		"TAP version 14\n1..2\nnot ok 1 # TODO later\nok 2 # SKIP why\n    # Subtest: x\n    not ok 1\nBail out!\n",
		"1..1\nnot ok 1 - a\n  ---\n  message: >\n    folded\n  severity: fail\n  data:\n    got: 1\n  ...\n",
		"ok\nnot ok\nok 1.5\n1..0 # skip all\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := parseTAP(bufio.NewReader(bytes.NewReader(data)), "fuzz")
		checkFuzzReport(t, rep, err)
	})
}
