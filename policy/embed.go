package policy

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

//go:embed *.toml
var files embed.FS

var (
	builtinMu sync.Mutex
	builtins  = map[string]*Policy{} // parsed on first use
)

// Names lists the built-in policies, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".") // sorted by name
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = strings.TrimSuffix(e.Name(), ".toml")
	}
	return names
}

// IsBuiltin reports whether name is a built-in policy's.
func IsBuiltin(name string) bool { return slices.Contains(Names(), name) }

// Source returns the commented TOML text of a built-in policy.
func Source(name string) ([]byte, error) {
	if !IsBuiltin(name) {
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

// builtinLocked parses (once) and returns a built-in, after the one it
// extends; builtinMu is held.
func builtinLocked(name string) (*Policy, error) {
	if p, ok := builtins[name]; ok {
		return p, nil
	}
	src, err := Source(name)
	if err != nil {
		return nil, err
	}
	p, err := parse(uncommented(src), "builtin:"+name, func(base string) (*Policy, error) {
		b, err := builtinLocked(base)
		if err != nil {
			return nil, fmt.Errorf("builtin:%s extends %q: %w", name, base, err)
		}
		return b.Clone(), nil
	}, false)
	if err != nil {
		return nil, err
	}
	builtins[name] = p
	return p, nil
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
