package docscheck

import (
	"encoding"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

// names returns the first column of tb without backticks; a cell naming
// several ("`run_id`, `run_attempt`") gives each.
func names(tb table) []string {
	var out []string
	for _, r := range tb.rows {
		for _, n := range strings.Split(r[0], ", ") {
			out = append(out, strings.Trim(n, "`"))
		}
	}
	return out
}

// sameSet reports what is in one list and not the other, sorted.
func sameSet(t *testing.T, what, docName string, inCode, inDoc []string) {
	t.Helper()
	code, doc := map[string]bool{}, map[string]bool{}
	for _, n := range inCode {
		code[n] = true
	}
	for _, n := range inDoc {
		if doc[n] {
			t.Errorf("%s lists the %s %s twice", docName, what, n)
		}
		doc[n] = true
	}
	var missing, extra []string
	for n := range code {
		if !doc[n] {
			missing = append(missing, n)
		}
	}
	for n := range doc {
		if !code[n] {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s does not list the %ss %q", docName, what, missing)
	}
	if len(extra) > 0 {
		t.Errorf("%s lists %ss that do not exist: %q", docName, what, extra)
	}
}

// actionMetadata is what the tables of docs/action.md mirror in action.yml.
type actionMetadata struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct{} `yaml:"outputs"`
}

// TestActionDocsMatchActionYML: docs/action.md lists every input of
// action.yml with its default, and every output; nothing else.
func TestActionDocsMatchActionYML(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta actionMetadata
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if len(meta.Inputs) < 20 || len(meta.Outputs) < 20 {
		t.Fatalf("read %d inputs and %d outputs from action.yml: the reader is broken", len(meta.Inputs), len(meta.Outputs))
	}
	p := readPage(t, "docs/action.md")
	inputs := tableUnder(t, p, "Inputs", "Input")
	var inCode []string
	for name := range meta.Inputs {
		inCode = append(inCode, name)
	}
	sameSet(t, "input", p.name, inCode, names(inputs))
	for _, r := range inputs.rows {
		name, def := strings.Trim(r[0], "`"), r[1]
		in, ok := meta.Inputs[name]
		if !ok {
			continue
		}
		if in.Default == "" && !strings.HasPrefix(def, "empty") {
			t.Errorf("%s: input %s: default %q, want \"empty\" (and what an empty value means)", p.name, name, def)
		}
		if in.Default != "" && def != "`"+in.Default+"`" {
			t.Errorf("%s: input %s: default %s, want `%s` as action.yml has it", p.name, name, def, in.Default)
		}
	}
	var outCode []string
	for name := range meta.Outputs {
		outCode = append(outCode, name)
	}
	sameSet(t, "output", p.name, outCode, names(tableUnder(t, p, "Outputs", "Output")))
}

var textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()

// policyKeys are the dotted keys of a policy file, read from the policy's
// TOML tags: a table of overrides (phases, profiles) is NAME.NAME.*.
func policyKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := prefix + name
		switch {
		case f.Type.Kind() == reflect.Map:
			out = append(out, key+".NAME.*")
		case f.Type.Kind() == reflect.Struct && !reflect.PointerTo(f.Type).Implements(textUnmarshaler):
			out = append(out, policyKeys(f.Type, key+".")...)
		default:
			out = append(out, key)
		}
	}
	return out
}

// TestPolicyDocsListEveryKey: the key table of docs/policies.md matches
// the policy's keys. A row may stand for several with "*" for one part of
// the key (`rules.*.enabled`, `rules.score.weights.*`); every key must be
// matched by a row, and every row must match a key.
func TestPolicyDocsListEveryKey(t *testing.T) {
	t.Parallel()
	keys := policyKeys(reflect.TypeOf(policy.Policy{}), "")
	if len(keys) < 50 || !slices.Contains(keys, "rules.no_progress.no_progress_threshold") {
		t.Fatalf("read %d keys from the policy: the reader is broken: %q", len(keys), keys)
	}
	p := readPage(t, "docs/policies.md")
	rows := names(tableUnder(t, p, "Keys", "Key"))
	matched := map[string]bool{}
	for _, k := range keys {
		found := false
		for _, r := range rows {
			if r == k || strings.Contains(r, "*") && !strings.HasSuffix(k, ".NAME.*") && rowPattern(r).MatchString(k) {
				matched[r], found = true, true
			}
		}
		if !found {
			t.Errorf("%s: the key table lacks the policy key %s", p.name, k)
		}
	}
	for _, r := range rows {
		if !matched[r] {
			t.Errorf("%s: the key table lists %s, which is no policy key", p.name, r)
		}
	}
}

// rowPattern turns a key row with "*" parts into a pattern of keys.
func rowPattern(row string) *regexp.Regexp {
	parts := strings.Split(row, ".")
	for i, part := range parts {
		if part == "*" {
			parts[i] = `[a-z_]+`
		} else {
			parts[i] = regexp.QuoteMeta(part)
		}
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `\.`) + `$`)
}

// jsonFields are the JSON names of t's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// TestCLIDocsListEveryRecordField: the record table of docs/cli.md names
// every field of a record, and no other.
func TestCLIDocsListEveryRecordField(t *testing.T) {
	t.Parallel()
	p := readPage(t, "docs/cli.md")
	sameSet(t, "record field", p.name, jsonFields(reflect.TypeOf(ledger.Record{})), names(tableUnder(t, p, "Records", "Field")))
}

// TestCLIDocsListEveryNoteCode: the note table of docs/cli.md names every
// note code, and no other.
func TestCLIDocsListEveryNoteCode(t *testing.T) {
	t.Parallel()
	p := readPage(t, "docs/cli.md")
	var codes []string
	for _, c := range note.Codes() {
		codes = append(codes, string(c))
	}
	sameSet(t, "note code", p.name, codes, names(tableUnder(t, p, "Output", "Code")))
}

// TestExitCodesAgree: the README's exit codes are the command line's, in
// the same order.
func TestExitCodesAgree(t *testing.T) {
	t.Parallel()
	readme, cli := readPage(t, "README.md"), readPage(t, "docs/cli.md")
	got, want := names(tableUnder(t, readme, "Exit codes", "Code")), names(tableUnder(t, cli, "Exit codes", "Code"))
	if !slices.Equal(got, want) || len(want) < 6 {
		t.Errorf("README.md lists the exit codes %q, docs/cli.md %q: want the same, 0 to 5 at least", got, want)
	}
}

var (
	citedTest = regexp.MustCompile("`((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)")
	testFunc  = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*)\(`)
)

// TestCitedTestsExist: a test a page names as keeping a claim true (a row
// of docs/reliability.md, say) is a test of the repository, so that a claim
// whose test is gone does not stay behind.
func TestCitedTestsExist(t *testing.T) {
	t.Parallel()
	defined := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			defined[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !defined["TestCitedTestsExist"] {
		t.Fatal("the test functions were not found: the reader is broken")
	}
	for _, p := range pages(t) {
		for _, m := range citedTest.FindAllSubmatch(p.src, -1) {
			if name := string(m[1]); !defined[name] {
				t.Errorf("%s names the test %s, which does not exist", p.name, name)
			}
		}
	}
}
