package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The files under testdata/vulngate are govulncheck -format json output:
// stdlib.json and modules.json cut from real runs, unpatched.json and the
// called x/net finding in modules.json written in the same shape.

func TestReadClassifies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		modules []string // id module@version level fixed
		godist  []string // id module level fixed
	}{
		{file: "clean.json"},
		{file: "stdlib.json", godist: []string{
			"GO-2026-6599 stdlib imported v1.26.9",
			"GO-2026-6603 stdlib called v1.26.9",
			"GO-2026-6809 stdlib called v1.26.10",
		}},
		{file: "modules.json",
			modules: []string{
				"GO-2026-5932 golang.org/x/crypto@v0.56.0 required v0.58.1-0.20261009181718-2f1f834330b2",
				"GO-2026-6603 golang.org/x/net@v0.57.0 required v0.60.0",
				"GO-2026-6860 golang.org/x/net@v0.57.0 called v0.62.0",
			},
			godist: []string{"GO-2026-6603 stdlib called v1.26.9"}},
		{file: "unpatched.json", godist: []string{
			"GO-2099-0001 stdlib called v1.27.1",
			"GO-2099-0002 stdlib imported ",
			"GO-2099-0003 toolchain required v1.26.9",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			rep := readFile(t, tc.file)
			if rep.goVersion != "go1.26.8" {
				t.Errorf("got Go version %q, want go1.26.8", rep.goVersion)
			}
			var mods, dist []string
			for _, v := range rep.modules {
				mods = append(mods, v.id+" "+v.module+"@"+v.version+" "+levelNames[v.level]+" "+v.fixed)
			}
			for _, v := range rep.godist {
				dist = append(dist, v.id+" "+v.module+" "+levelNames[v.level]+" "+v.fixed)
				if v.summary == "" {
					t.Errorf("%s: no summary", v.id)
				}
			}
			if diff := cmp.Diff(tc.modules, mods); diff != "" {
				t.Errorf("module vulnerabilities (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.godist, dist); diff != "" {
				t.Errorf("Go distribution vulnerabilities (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file     string
		code     int
		want     []string // lines (or their starts) the output holds
		wantNone []string // text it must not hold
	}{
		{file: "clean.json", code: 0,
			want:     []string{"vulngate: ok: no vulnerability in required modules (scanned with go1.26.8)"},
			wantNone: []string{"FAIL", "standard-library"}},
		{file: "stdlib.json", code: 0, want: []string{
			"stdlib GO-2026-6603 (called): fixed in go1.26.9: HTTP/2 server memory exhaustion due to Trailer headers in net/http",
			"stdlib GO-2026-6809 (called): fixed in go1.26.10: ",
			"vulngate: not a failure: the 3 Go standard-library vulnerabilities above are all fixed in go1.26.10, " +
				"a later patch release than the Go that ran this scan (go1.26.8); building with the newest Go 1.26 patch release fixes them",
			"vulngate: ok: ",
		}, wantNone: []string{"FAIL"}},
		{file: "modules.json", code: 1, want: []string{
			"golang.org/x/net@v0.57.0 GO-2026-6860 (called): fixed in v0.62.0: ",
			"golang.org/x/crypto@v0.56.0 GO-2026-5932 (required): fixed in v0.58.1-0.20261009181718-2f1f834330b2: ",
			"vulngate: FAIL: 3 vulnerabilities in required modules: upgrade each to its fixed version",
			"vulngate: not a failure: the 1 Go standard-library vulnerability above is fixed in go1.26.9, ",
		}, wantNone: []string{"vulngate: ok"}},
		{file: "unpatched.json", code: 1, want: []string{
			"stdlib GO-2099-0001 (called): no patch release of go1.26.8 fixes it (fixed in go1.27.1): ",
			"stdlib GO-2099-0002 (imported): no patch release of go1.26.8 fixes it: A flaw with no fix yet",
			"toolchain GO-2099-0003 (required): fixed in go1.26.9: ",
			"vulngate: FAIL: 2 vulnerabilities of the Go distribution not fixed by a patch release of go1.26.8",
		}, wantNone: []string{"vulngate: ok"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			var out, errs bytes.Buffer
			code := run([]string{filepath.Join("testdata", "vulngate", tc.file)}, nil, &out, &errs)
			if code != tc.code {
				t.Errorf("got exit %d, want %d\n%s%s", code, tc.code, out.String(), errs.String())
			}
			lines := strings.Split(out.String(), "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("no line starts with %q in:\n%s", w, out.String())
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(out.String(), w) {
					t.Errorf("the output holds %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestRunBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{name: "not JSON", stdin: "Scanning your code...\n", want: "vulngate: stdin: value 1: not govulncheck JSON"},
		{name: "no config", stdin: `{"progress": {"message": "x"}}`, want: "vulngate: stdin: no config message"},
		{name: "finding without module", stdin: `{"config": {"go_version": "go1.26.8"}} {"finding": {"osv": "GO-1", "trace": []}}`,
			want: "vulngate: stdin: value 2: a finding without its vulnerability or module"},
		{name: "missing file", args: []string{filepath.Join("testdata", "vulngate", "nosuch.json")}, want: "vulngate: open "},
		{name: "two files", args: []string{"a", "b"}, want: "usage: vulngate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errs bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &out, &errs)
			if code != 2 || !strings.HasPrefix(errs.String(), tc.want) {
				t.Errorf("got exit %d and %q, want exit 2 and %q", code, errs.String(), tc.want)
			}
		})
	}
}

func TestPatchFixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		goVersion, fixed, want string
		ok                     bool
	}{
		{"go1.26.8", "v1.26.9", "go1.26.9", true},
		{"go1.26.8", "v1.26.10", "go1.26.10", true},
		{"go1.26.8", "v1.26.8", "", false}, // not later
		{"go1.26.8", "v1.27.1", "", false}, // another line
		{"go1.26.8", "", "", false},        // no fix
		{"go1.26", "v1.26.1", "go1.26.1", true},
		{"devel", "v1.26.9", "", false},
	}
	for _, tc := range tests {
		got, ok := patchFixes(tc.goVersion, tc.fixed)
		if got != tc.want || ok != tc.ok {
			t.Errorf("patchFixes(%q, %q) = %q, %v; want %q, %v", tc.goVersion, tc.fixed, got, ok, tc.want, tc.ok)
		}
	}
}

func readFile(t *testing.T, name string) *report {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "vulngate", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rep
}
