// Command vulngate reads govulncheck's JSON output (-format json) and
// decides whether CI passes. Any vulnerability in a required module fails
// (called, imported or only required: the fix is a version bump). A
// vulnerability of the Go distribution itself (the standard library, the
// toolchain) passes when a newer patch release of the Go that ran the scan
// fixes it: the release builds use the newest patch release of the Go line
// go.mod names, and .ci/run checks that they do. One that no patch release
// of this Go line fixes fails.
//
//	govulncheck -format json ./... > vuln.json
//	go run ./scripts/ci/vulngate.go vuln.json
//
// It prints one line per vulnerability and a verdict, and exits 0 (pass),
// 1 (vulnerabilities to fix) or 2 (unreadable input).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run reads the file named by args (stdin when none, or "-"), prints the
// report to stdout and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	in, name := stdin, "stdin"
	switch {
	case len(args) > 1:
		fmt.Fprintln(stderr, "usage: vulngate [FILE]   (govulncheck -format json output; default stdin)")
		return 2
	case len(args) == 1 && args[0] != "-":
		f, err := os.Open(args[0])
		if err != nil {
			fmt.Fprintf(stderr, "vulngate: %v\n", err)
			return 2
		}
		defer f.Close()
		in, name = f, args[0]
	}
	rep, err := read(in)
	if err != nil {
		fmt.Fprintf(stderr, "vulngate: %s: %v\n", name, err)
		return 2
	}
	return rep.print(stdout)
}

// Where a finding was found, weakest first: the module is required, a
// vulnerable package is imported, a vulnerable function is called.
const (
	levelRequired = iota
	levelImported
	levelCalled
)

var levelNames = [...]string{"required", "imported", "called"}

// vuln is one vulnerability in one module, at the strongest level found.
type vuln struct {
	id, summary     string
	module, version string
	fixed           string // the first fixed version ("" when there is none)
	level           int
}

// report is what one govulncheck run found.
type report struct {
	goVersion string // the Go that ran the scan, as "go1.26.8"
	modules   []vuln // in required modules
	godist    []vuln // in the standard library or the toolchain
}

// The messages of govulncheck's JSON stream this reads.
type message struct {
	Config *struct {
		GoVersion string `json:"go_version"`
	} `json:"config"`
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *struct {
		OSV          string `json:"osv"`
		FixedVersion string `json:"fixed_version"`
		Trace        []struct {
			Module   string `json:"module"`
			Version  string `json:"version"`
			Package  string `json:"package"`
			Function string `json:"function"`
		} `json:"trace"`
	} `json:"finding"`
}

// read decodes a govulncheck JSON stream (a sequence of JSON values).
func read(r io.Reader) (*report, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	rep := &report{}
	summaries := map[string]string{}
	found := map[[2]string]*vuln{} // by id and module
	config := false
	for n := 1; ; n++ {
		var m message
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("value %d: not govulncheck JSON: %w", n, err)
		}
		switch {
		case m.Config != nil:
			config = true
			rep.goVersion = m.Config.GoVersion
		case m.OSV != nil:
			summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil:
			f := m.Finding
			if f.OSV == "" || len(f.Trace) == 0 || f.Trace[0].Module == "" {
				return nil, fmt.Errorf("value %d: a finding without its vulnerability or module", n)
			}
			top := f.Trace[0]
			level := levelRequired
			switch {
			case top.Function != "":
				level = levelCalled
			case top.Package != "":
				level = levelImported
			}
			key := [2]string{f.OSV, top.Module}
			v := found[key]
			if v == nil {
				v = &vuln{id: f.OSV, module: top.Module, version: top.Version, fixed: f.FixedVersion, level: level}
				found[key] = v
			}
			v.level = max(v.level, level)
		}
	}
	if !config {
		return nil, errors.New("no config message: not the output of govulncheck -format json")
	}
	for _, v := range found {
		v.summary = summaries[v.id]
		if v.module == "stdlib" || v.module == "toolchain" {
			rep.godist = append(rep.godist, *v)
		} else {
			rep.modules = append(rep.modules, *v)
		}
	}
	for _, vs := range [][]vuln{rep.modules, rep.godist} {
		sort.Slice(vs, func(i, j int) bool {
			if vs[i].module != vs[j].module {
				return vs[i].module < vs[j].module
			}
			return vs[i].id < vs[j].id
		})
	}
	return rep, nil
}

// print writes one line per vulnerability and the verdict, and returns the
// exit code.
func (r *report) print(w io.Writer) int {
	code := 0
	for _, v := range r.modules {
		fixed := "no fixed version yet"
		if v.fixed != "" {
			fixed = "fixed in " + v.fixed
		}
		fmt.Fprintf(w, "%s@%s %s (%s): %s: %s\n", v.module, v.version, v.id, levelNames[v.level], fixed, v.summary)
	}
	if n := len(r.modules); n > 0 {
		fmt.Fprintf(w, "vulngate: FAIL: %d %s in required modules: upgrade each to its fixed version (go get MODULE@VERSION, go mod tidy)\n",
			n, plural(n, "vulnerability", "vulnerabilities"))
		code = 1
	}
	newest, unpatched := "", 0
	for _, v := range r.godist {
		fix, ok := patchFixes(r.goVersion, v.fixed)
		state := "fixed in " + fix
		if !ok {
			state = "no patch release of " + r.goVersion + " fixes it"
			if v.fixed != "" {
				state += " (fixed in " + goName(v.fixed) + ")"
			}
			unpatched++
		} else if newest == "" || versionLess(newest, fix) {
			newest = fix
		}
		fmt.Fprintf(w, "%s %s (%s): %s: %s\n", v.module, v.id, levelNames[v.level], state, v.summary)
	}
	if unpatched > 0 {
		fmt.Fprintf(w, "vulngate: FAIL: %d %s of the Go distribution not fixed by a patch release of %s: move go.mod to a Go that fixes them\n",
			unpatched, plural(unpatched, "vulnerability", "vulnerabilities"), r.goVersion)
		code = 1
	}
	if n := len(r.godist) - unpatched; n > 0 {
		fmt.Fprintf(w, "vulngate: not a failure: the %d Go standard-library %s above %s fixed in %s, a later patch release than the Go that ran this scan (%s); "+
			"building with the newest Go %s patch release fixes %s, and releases are built so (Dockerfile: golang:%s; release workflow: setup-go with check-latest)\n",
			n, plural(n, "vulnerability", "vulnerabilities"), plural(n, "is", "are all"), newest, r.goVersion, line(r.goVersion),
			plural(n, "it", "them"), line(r.goVersion))
	}
	if code == 0 && len(r.modules) == 0 {
		fmt.Fprintf(w, "vulngate: ok: no vulnerability in required modules (scanned with %s)\n", r.goVersion)
	}
	return code
}

var versionRe = regexp.MustCompile(`^(?:go|v)?(\d+)\.(\d+)(?:\.(\d+))?$`)

// parseVersion reads "go1.26.8" or "v1.26.8" as its three numbers.
func parseVersion(s string) ([3]int, bool) {
	m := versionRe.FindStringSubmatch(s)
	if m == nil {
		return [3]int{}, false
	}
	var v [3]int
	for i, p := range m[1:] {
		if p != "" {
			v[i], _ = strconv.Atoi(p)
		}
	}
	return v, true
}

// patchFixes reports whether fixed, the first fixed version of a Go
// distribution vulnerability, is a later patch release of goVersion's
// line, and returns it as a Go version name.
func patchFixes(goVersion, fixed string) (string, bool) {
	g, ok1 := parseVersion(goVersion)
	f, ok2 := parseVersion(fixed)
	if !ok1 || !ok2 || f[0] != g[0] || f[1] != g[1] || f[2] <= g[2] {
		return "", false
	}
	return goName(fixed), true
}

func versionLess(a, b string) bool {
	x, _ := parseVersion(a)
	y, _ := parseVersion(b)
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

// goName writes a Go version as the go command names it: go1.26.9.
func goName(v string) string { return "go" + strings.TrimPrefix(strings.TrimPrefix(v, "v"), "go") }

// line is a Go version's release line: 1.26 for go1.26.8.
func line(goVersion string) string {
	v, ok := parseVersion(goVersion)
	if !ok {
		return goVersion
	}
	return fmt.Sprintf("%d.%d", v[0], v[1])
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
