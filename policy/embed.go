package policy

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed *.toml
var files embed.FS

var (
	builtinMu      sync.Mutex
	builtins       = map[string]*Policy{} // parsed on first use
	builtinLoading = map[string]bool{}    // being parsed (a cycle of extends is an error)
)

// Names lists the built-in policies, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

func isBuiltin(name string) bool {
	for _, n := range Names() {
		if n == name {
			return true
		}
	}
	return false
}

// Source returns the commented TOML text of a built-in policy.
func Source(name string) ([]byte, error) {
	if !isBuiltin(name) {
		return nil, fmt.Errorf("no built-in policy %q (%s)", name, strings.Join(Names(), ", "))
	}
	return files.ReadFile(name + ".toml")
}

// Builtin returns a copy of the named built-in policy. Each built-in is
// parsed on first use, after the one it extends: a run parses the one it
// uses, not all of them.
func Builtin(name string) (*Policy, error) {
	builtinMu.Lock()
	defer builtinMu.Unlock()
	p, err := builtinLocked(name)
	if err != nil {
		return nil, err
	}
	return p.Clone(), nil
}

// builtinLocked parses (once) and returns a built-in; builtinMu is held.
func builtinLocked(name string) (*Policy, error) {
	if p, ok := builtins[name]; ok {
		return p, nil
	}
	if !isBuiltin(name) {
		return nil, fmt.Errorf("no built-in policy %q (%s)", name, strings.Join(Names(), ", "))
	}
	if builtinLoading[name] {
		return nil, fmt.Errorf("builtin:%s extends itself through its bases", name)
	}
	builtinLoading[name] = true
	defer delete(builtinLoading, name)
	src, err := files.ReadFile(name + ".toml")
	if err != nil {
		return nil, err
	}
	p, err := parseBuiltin(uncommented(src), name)
	if err != nil {
		return nil, err
	}
	builtins[name] = p
	return p, nil
}

// parseBuiltin parses a built-in, loading the one it extends first.
func parseBuiltin(src []byte, name string) (*Policy, error) {
	return parse(src, "builtin:"+name, func(base string) (*Policy, error) {
		p, err := builtinLocked(base)
		if err != nil {
			return nil, fmt.Errorf("builtin:%s extends %q: %w", name, base, err)
		}
		return p.Clone(), nil
	}, false)
}

// uncommented blanks the comment lines of a built-in's text, which are
// most of it, so that the TOML decoder does not read them; the lines stay,
// so that a line number still points into the text. A text with a
// multi-line string, where a line that starts with # can be data, is
// returned as it is.
func uncommented(src []byte) []byte {
	if bytes.Contains(src, []byte(`"""`)) || bytes.Contains(src, []byte("'''")) {
		return src
	}
	out := make([]byte, 0, len(src))
	for line := range bytes.Lines(src) {
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '#' {
			if bytes.HasSuffix(line, []byte("\n")) {
				out = append(out, '\n')
			}
			continue
		}
		out = append(out, line...)
	}
	return out
}
