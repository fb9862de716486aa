package action

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/present"
)

// metadata is what the line reader takes from an action.yml: each input's
// default, each output's value (empty for a Docker action), and the
// INPUT_* variables its steps set.
type metadata struct {
	inputs  map[string]string
	outputs map[string]string
	env     map[string]string // INPUT_NAME -> value
}

// yamlLine is one line of a two-space-indented YAML file that is neither
// blank nor a comment: its indentation, its text, and the key and value
// around its first colon (a list item's "- " dropped).
type yamlLine struct {
	indent              int
	trimmed, key, value string
}

// yamlLines reads the meaningful lines of a YAML file.
func yamlLines(t *testing.T, path string) []yamlLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []yamlLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		key, value, _ := strings.Cut(strings.TrimPrefix(trimmed, "- "), ":")
		out = append(out, yamlLine{indent: len(line) - len(strings.TrimLeft(line, " ")), trimmed: trimmed, key: key, value: strings.TrimSpace(value)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// readMetadata reads the two-space-indented YAML of an action.yml line by
// line: enough for these files, not a YAML parser.
func readMetadata(t *testing.T, path string) *metadata {
	t.Helper()
	m := &metadata{inputs: map[string]string{}, outputs: map[string]string{}, env: map[string]string{}}
	section, name := "", ""
	for _, l := range yamlLines(t, path) {
		indent, key, value := l.indent, l.key, unquote(l.value)
		switch {
		case indent == 0:
			section, name = key, ""
		case indent == 2 && (section == "inputs" || section == "outputs"):
			name = key
			if section == "inputs" {
				m.inputs[name] = ""
			} else {
				m.outputs[name] = ""
			}
		case indent == 4 && section == "inputs" && key == "default":
			m.inputs[name] = value
		case indent == 4 && section == "outputs" && key == "value":
			m.outputs[name] = value
		case section == "runs" && strings.HasPrefix(key, "INPUT_"):
			m.env[key] = value
		}
	}
	return m
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func TestActionMetadataInSync(t *testing.T) {
	t.Parallel()
	docker := readMetadata(t, filepath.Join("..", "..", "action.yml"))
	composite := readMetadata(t, filepath.Join("..", "..", "dockerless", "action.yml"))
	if len(docker.inputs) < 20 || len(docker.outputs) < 10 {
		t.Fatalf("read %d inputs and %d outputs from action.yml: the reader is broken", len(docker.inputs), len(docker.outputs))
	}
	for name, def := range docker.inputs {
		cdef, ok := composite.inputs[name]
		if !ok {
			t.Errorf("input %s is not in dockerless/action.yml", name)
			continue
		}
		if cdef != def {
			t.Errorf("input %s: default %q in action.yml, %q in dockerless/action.yml", name, def, cdef)
		}
		env := "INPUT_" + strings.ToUpper(name)
		if got, want := composite.env[env], "${{ inputs."+name+" }}"; got != want {
			t.Errorf("dockerless/action.yml maps %s to %q, want %q", env, got, want)
		}
	}
	for name := range composite.inputs {
		if _, ok := docker.inputs[name]; !ok && name != "version" {
			t.Errorf("dockerless/action.yml has input %s that action.yml lacks", name)
		}
	}
	for env := range composite.env {
		if _, ok := docker.inputs[strings.ToLower(strings.TrimPrefix(env, "INPUT_"))]; !ok {
			t.Errorf("dockerless/action.yml sets %s for no input of action.yml", env)
		}
	}
	for name := range docker.outputs {
		if got, want := composite.outputs[name], "${{ steps.run.outputs."+name+" }}"; got != want {
			t.Errorf("output %s: dockerless/action.yml re-exports %q, want %q", name, got, want)
		}
	}
	for name := range composite.outputs {
		if _, ok := docker.outputs[name]; !ok {
			t.Errorf("dockerless/action.yml has output %s that action.yml lacks", name)
		}
	}
}

func TestEveryInputReadIsDeclared(t *testing.T) {
	t.Parallel()
	docker := readMetadata(t, filepath.Join("..", "..", "action.yml"))
	asked := map[string]bool{}
	for _, mode := range []string{"check", "audit"} {
		if _, err := ReadInputs(func(k string) string {
			asked[k] = true
			if k == "mode" {
				return mode
			}
			return ""
		}); err != nil {
			t.Fatalf("mode %s: %v", mode, err)
		}
	}
	var missing []string
	for k := range asked {
		if _, ok := docker.inputs[k]; !ok {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("inputs read but not declared in action.yml: %v", missing)
	}
	for name := range auditOutputs(&present.AuditResult{}) {
		if _, ok := docker.outputs[name]; !ok {
			t.Errorf("the audit sets output %s, which action.yml does not declare", name)
		}
	}
}

// TestActionMetadataScalarsAreClosed: a value that opens a quote closes it
// on its line (the two files hold no multi-line quoted scalar): GitHub
// refuses an action.yml that is not YAML, and the line reader above would
// not notice.
func TestActionMetadataScalarsAreClosed(t *testing.T) {
	t.Parallel()
	for _, path := range []string{filepath.Join("..", "..", "action.yml"), filepath.Join("..", "..", "dockerless", "action.yml")} {
		block := -1 // the indentation of the key whose block scalar is being read
		for _, l := range yamlLines(t, path) {
			if block >= 0 && l.indent > block {
				continue
			}
			block = -1
			v := l.value
			if strings.HasPrefix(v, ">") || strings.HasPrefix(v, "|") {
				block = l.indent
				continue
			}
			if v == "" || (v[0] != '"' && v[0] != '\'') {
				continue
			}
			if q := v[0]; len(v) < 2 || v[len(v)-1] != q {
				t.Errorf("%s: %q opens a %c quote that does not close on its line", path, l.trimmed, q)
			}
		}
	}
}
