package pathmatch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Set is a compiled list of path patterns. The zero value and a nil *Set
// match nothing. A Set is immutable and safe for concurrent use.
type Set struct {
	raw      []string
	patterns []pattern
}

// pattern is one compiled pattern: a doublestar pattern that matches a path
// when the gitignore-like pattern matches it or one of its directories.
type pattern struct {
	negate bool
	glob   string
}

// Compile compiles patterns into a Set. The error names the first bad
// pattern by its position (from 1) and its text.
func Compile(patterns []string) (*Set, error) {
	s := &Set{
		raw:      append([]string(nil), patterns...),
		patterns: make([]pattern, 0, len(patterns)),
	}
	for i, raw := range patterns {
		p, err := compileOne(raw)
		if err != nil {
			return nil, fmt.Errorf("path pattern %d %q: %s", i+1, raw, err)
		}
		s.patterns = append(s.patterns, p)
	}
	return s, nil
}

func compileOne(raw string) (pattern, error) {
	var p pattern
	text := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(text, `\!`):
		text = text[1:]
	case strings.HasPrefix(text, "!"):
		p.negate = true
		text = text[1:]
	}
	if text == "" {
		return p, errors.New("empty pattern")
	}
	text, dirOnly := strings.CutSuffix(text, "/")
	text, rooted := strings.CutPrefix(text, "/")
	if text == "" {
		return p, errors.New("pattern names no path")
	}
	anchored := rooted || strings.Contains(text, "/")
	for _, part := range strings.Split(text, "/") {
		switch {
		case part == "":
			return p, errors.New("empty path segment (double slash)")
		case part == "." || part == "..":
			return p, fmt.Errorf("%q segment not allowed", part)
		case part != "**" && !doublestar.ValidatePattern(literalBraces(part)):
			return p, fmt.Errorf("bad glob %q", part)
		}
	}
	text = literalBraces(text)
	switch {
	case !anchored && text == "**":
		// A lone "**" has no slash: it is a name glob like "*".
		text = "**/*"
	case !anchored:
		text = "**/" + text
	}
	// A trailing "**" matches everything inside: a directory pattern.
	if t, ok := strings.CutSuffix(text, "/**"); ok {
		text, dirOnly = t, true
	} else if text == "**" {
		text, dirOnly = "", true
	}
	// What a pattern matches, everything below it matches too; a directory
	// pattern matches only what is below.
	if dirOnly {
		text = strings.TrimPrefix(text+"/*/**", "/")
	} else {
		text += "/**"
	}
	p.glob = text
	return p, nil
}

// literalBraces escapes the braces doublestar reads as alternatives, which
// in these patterns are plain characters.
func literalBraces(glob string) string {
	if !strings.ContainsAny(glob, "{}") {
		return glob
	}
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case c == '\\' && i+1 < len(glob):
			b.WriteByte(c)
			i++
			b.WriteByte(glob[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Match reports whether the slash-separated path, relative to the
// repository root, is matched: the last pattern that matches it decides,
// and a negated pattern un-matches. A leading slash is ignored.
func (s *Set) Match(p string) bool {
	if s == nil || len(s.patterns) == 0 {
		return false
	}
	if strings.Contains(p, "//") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		p = strings.Join(strings.FieldsFunc(p, func(r rune) bool { return r == '/' }), "/")
	}
	if p == "" {
		return false
	}
	for i := len(s.patterns) - 1; i >= 0; i-- {
		if doublestar.MatchUnvalidated(s.patterns[i].glob, p) {
			return !s.patterns[i].negate
		}
	}
	return false
}

// Patterns returns the patterns the Set was compiled from, in order.
func (s *Set) Patterns() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.raw...)
}
