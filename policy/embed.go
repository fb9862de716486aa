package policy

import (
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"
)

//go:embed *.toml
var files embed.FS

var (
	builtinOnce sync.Once
	builtins    map[string]*Policy
	builtinErr  error
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

// Builtin returns a copy of the named built-in policy.
func Builtin(name string) (*Policy, error) {
	builtinOnce.Do(loadBuiltins)
	if builtinErr != nil {
		return nil, builtinErr
	}
	p, ok := builtins[name]
	if !ok {
		return nil, fmt.Errorf("no built-in policy %q (%s)", name, strings.Join(Names(), ", "))
	}
	return p.Clone(), nil
}

// loadBuiltins parses default first, since the others extend it.
func loadBuiltins() {
	builtins = map[string]*Policy{}
	order := []string{"default"}
	for _, n := range Names() {
		if n != "default" {
			order = append(order, n)
		}
	}
	for _, n := range order {
		src, err := files.ReadFile(n + ".toml")
		if err != nil {
			builtinErr = err
			return
		}
		p, err := parseBuiltin(src, n)
		if err != nil {
			builtinErr = err
			return
		}
		builtins[n] = p
	}
}

// parseBuiltin parses a built-in whose base is already loaded (Builtin
// would deadlock inside the sync.Once).
func parseBuiltin(src []byte, name string) (*Policy, error) {
	return parse(src, "builtin:"+name, func(base string) (*Policy, error) {
		p, ok := builtins[base]
		if !ok {
			return nil, fmt.Errorf("builtin:%s extends %q, which is not loaded yet", name, base)
		}
		return p.Clone(), nil
	})
}
