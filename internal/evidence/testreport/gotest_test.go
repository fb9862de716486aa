package testreport

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// events joins go test -json lines written in a short hand:
// "action package test output".
func events(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestGoTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want counts
	}{
		{
			name: "parent failing because of a subtest counts once",
			in: events(
				`{"Action":"run","Package":"p","Test":"TestA"}`,
				`{"Action":"run","Package":"p","Test":"TestA/x"}`,
				`{"Action":"output","Package":"p","Test":"TestA/x","Output":"=== RUN   TestA/x\n"}`,
				`{"Action":"output","Package":"p","Test":"TestA/x","Output":"    a_test.go:5: bad x\n"}`,
				`{"Action":"fail","Package":"p","Test":"TestA/x"}`,
				`{"Action":"run","Package":"p","Test":"TestA/y"}`,
				`{"Action":"pass","Package":"p","Test":"TestA/y"}`,
				`{"Action":"output","Package":"p","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}`,
				`{"Action":"fail","Package":"p","Test":"TestA"}`,
				`{"Action":"fail","Package":"p"}`,
			),
			want: counts{Passed: 1, Failed: 1, Failing: []Failure{{Name: "p.TestA/x", Message: "a_test.go:5: bad x", Kind: KindFailure}}},
		},
		{
			name: "grandparent does not count either",
			in: events(
				`{"Action":"run","Package":"p","Test":"T"}`,
				`{"Action":"run","Package":"p","Test":"T/a"}`,
				`{"Action":"run","Package":"p","Test":"T/a/b"}`,
				`{"Action":"fail","Package":"p","Test":"T/a/b"}`,
				`{"Action":"fail","Package":"p","Test":"T/a"}`,
				`{"Action":"fail","Package":"p","Test":"T"}`,
			),
			want: counts{Failed: 1, Failing: []Failure{{Name: "p.T/a/b", Kind: KindFailure}}},
		},
		{
			name: "skipped and passed parents are not counted",
			in: events(
				`{"Action":"run","Package":"p","Test":"T"}`,
				`{"Action":"run","Package":"p","Test":"T/a"}`,
				`{"Action":"skip","Package":"p","Test":"T/a"}`,
				`{"Action":"pass","Package":"p","Test":"T"}`,
				`{"Action":"run","Package":"p","Test":"U"}`,
				`{"Action":"skip","Package":"p","Test":"U"}`,
				`{"Action":"pass","Package":"p"}`,
			),
			want: counts{Skipped: 2},
		},
		{
			name: "tests of a crashed package that never finished fail",
			in: events(
				`{"Action":"start","Package":"p"}`,
				`{"Action":"run","Package":"p","Test":"TestA"}`,
				`{"Action":"pass","Package":"p","Test":"TestA"}`,
				`{"Action":"run","Package":"p","Test":"TestExit"}`,
				`{"Action":"output","Package":"p","Test":"TestExit","Output":"=== RUN   TestExit\n"}`,
				`{"Action":"run","Package":"p","Test":"TestQuiet"}`,
				`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}`,
				`{"Action":"fail","Package":"p"}`,
			),
			want: counts{Passed: 1, Failed: 2, Failing: []Failure{
				{Name: "p.TestExit", Message: "test did not finish", Kind: KindFailure},
				{Name: "p.TestQuiet", Message: "test did not finish", Kind: KindFailure},
			}},
		},
		{
			name: "unfinished tests beside a real failure are only noted",
			in: events(
				`{"Action":"run","Package":"p","Test":"TestBoom"}`,
				`{"Action":"output","Package":"p","Test":"TestBoom","Output":"panic: boom\n"}`,
				`{"Action":"fail","Package":"p","Test":"TestBoom"}`,
				`{"Action":"run","Package":"p","Test":"TestParallel"}`,
				`{"Action":"pause","Package":"p","Test":"TestParallel"}`,
				`{"Action":"fail","Package":"p"}`,
			),
			want: counts{Failed: 1, Failing: []Failure{{Name: "p.TestBoom", Message: "panic: boom", Kind: KindFailure}},
				Notes: []string{"r.json: 1 test(s) of p did not finish and were not counted"}},
		},
		{
			name: "package failure without tests takes its first output line",
			in: events(
				`{"Action":"start","Package":"p"}`,
				`{"Action":"output","Package":"p","Output":"PASS\n"}`,
				`{"Action":"output","Package":"p","Output":"goleak: found unexpected goroutines\n"}`,
				`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}`,
				`{"Action":"fail","Package":"p"}`,
			),
			want: counts{Failed: 1, Failing: []Failure{{Name: "p", Message: "goleak: found unexpected goroutines", Kind: KindFailure}}},
		},
		{
			name: "package failure with no output",
			in:   events(`{"Action":"fail","Package":"p"}`),
			want: counts{Failed: 1, Failing: []Failure{{Name: "p", Message: "package failed", Kind: KindFailure}}},
		},
		{
			name: "build failures come first, with the first compiler error",
			in: events(
				`{"Action":"run","Package":"a","Test":"TestA"}`,
				`{"Action":"fail","Package":"a","Test":"TestA"}`,
				`{"Action":"fail","Package":"a"}`,
				`{"ImportPath":"b [b.test]","Action":"build-output","Output":"# b [b.test]\n"}`,
				`{"ImportPath":"b [b.test]","Action":"build-output","Output":"b/b.go:3:9: undefined: x\n"}`,
				`{"ImportPath":"b [b.test]","Action":"build-output","Output":"b/b.go:4:9: undefined: y\n"}`,
				`{"ImportPath":"b [b.test]","Action":"build-fail"}`,
				`{"Action":"start","Package":"b"}`,
				`{"Action":"output","Package":"b","Output":"FAIL\tb [build failed]\n"}`,
				`{"Action":"fail","Package":"b","FailedBuild":"b [b.test]"}`,
			),
			want: counts{Failed: 2, BuildFailed: true, Failing: []Failure{
				{Name: "b", Message: "b/b.go:3:9: undefined: x", Kind: KindBuild},
				{Name: "a.TestA", Kind: KindFailure},
			}},
		},
		{
			name: "build-fail that no package reports",
			in: events(
				`{"ImportPath":"c","Action":"build-output","Output":"c/c.go:1:1: expected 'package', found 'EOF'\n"}`,
				`{"ImportPath":"c","Action":"build-fail"}`,
			),
			want: counts{Failed: 1, BuildFailed: true, Failing: []Failure{
				{Name: "c", Message: "c/c.go:1:1: expected 'package', found 'EOF'", Kind: KindBuild},
			}},
		},
		{
			name: "vet failure reported as a failed build without output",
			in:   events(`{"Action":"fail","Package":"d","FailedBuild":"d [d.test]"}`),
			want: counts{Failed: 1, BuildFailed: true, Failing: []Failure{
				{Name: "d", Message: "build failed: d [d.test]", Kind: KindBuild},
			}},
		},
		{
			name: "stderr lines mixed in, a last line cut short, benchmarks",
			in: "# p\n" + events(
				`{"Action":"run","Package":"p","Test":"TestA"}`,
				`warning: something printed on stderr`,
				`{"Action":"pass","Package":"p","Test":"TestA"}`,
				`{"Action":"bench","Package":"p","Test":"BenchmarkX","Output":"BenchmarkX-2  100  10 ns/op\n"}`,
				`{"Package":"p"}`,
			) + `{"Action":"pass","Packa`,
			want: counts{Passed: 1, Notes: []string{
				"r.json: line 7 is cut short (no newline, not valid JSON) and was ignored",
				"r.json: 2 line(s) that are not go test -json events were skipped",
				"r.json: 1 JSON object(s) without an Action were skipped",
			}},
		},
		{
			name: "names past the limit",
			in: events(
				`{"Action":"run","Package":"p","Test":"`+strings.Repeat("T", maxName+1)+`"}`,
				`{"Action":"pass","Package":"p","Test":"A"}`,
			),
			want: counts{Passed: 1, Notes: []string{
				"r.json: 1 event(s) naming a package or test longer than 4096 bytes were skipped",
			}},
		},
		{
			name: "output ends while tests run",
			in: events(
				`{"Action":"run","Package":"p","Test":"TestA"}`,
				`{"Action":"run","Package":"p","Test":"TestB"}`,
				`{"Action":"pass","Package":"p","Test":"TestB"}`,
			),
			want: counts{Passed: 1, Notes: []string{
				"r.json: 1 test(s) started but never finished (the output ends early) and were not counted",
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParse(t, "r.json", tt.in, FormatGoTest, tt.want)
		})
	}
}

func TestGoTestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		is   error
		want string
	}{
		{
			name: "malformed JSON line",
			in:   events(`{"Action":"run","Package":"p","Test":"A"}`, `{"Action":"pass",,}`, `{"Action":"pass","Package":"p","Test":"A"}`),
			want: "testreport: r.json: line 2: invalid JSON: invalid character ',' looking for beginning of object key string",
		},
		{
			name: "wrong field type",
			in:   events(`{"Action":"run","Package":"p","Test":"A"}`, `{"Action":"output","Output":42}`),
			want: "testreport: r.json: line 2: invalid JSON: field Output holds a JSON number",
		},
		{
			name: "JSON that is not test2json",
			in:   `{"name":"my-app","version":"1.0.0"}` + "\n",
			is:   ErrUnknownFormat,
			want: "testreport: r.json: line 1: not a JUnit XML, go test -json or TAP report (a JSON object without an Action)",
		},
		{
			name: "a single cut line",
			in:   `{"Action":"ru`,
			is:   ErrUnknownFormat,
			want: "testreport: r.json: not a JUnit XML, go test -json or TAP report",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParseError(t, "r.json", tt.in, tt.is, tt.want)
		})
	}
}

func TestGoTestLongLines(t *testing.T) {
	t.Parallel()
	in := events(
		`{"Action":"run","Package":"p","Test":"A"}`,
		`{"Action":"output","Package":"p","Test":"A","Output":"`+strings.Repeat("x", maxLine)+`"}`,
		`{"Action":"pass","Package":"p","Test":"A"}`,
	)
	got, err := Parse(strings.NewReader(in), "r.json")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := counts{Passed: 1, Notes: []string{"r.json: 1 line(s) longer than 1 MiB were skipped"}}
	if diff := cmp.Diff(want, countsOf(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}
