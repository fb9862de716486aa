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

// pattern is one compiled pattern: a doublestar pattern for the path
// itself (none for a directory pattern) and one for the paths below what it
// names.
type pattern struct {
	negate      bool
	self, below string
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
	var parts []string
	for _, part := range strings.Split(text, "/") {
		if part == "**" && len(parts) > 0 && parts[len(parts)-1] == "**" {
			continue // "**/**" is "**"
		}
		if part != "**" {
			part = segment(part)
		}
		parts = append(parts, part)
		switch {
		case part == "":
			return p, errors.New("empty path segment (double slash)")
		case part == "." || part == "..":
			return p, fmt.Errorf("%q segment not allowed", part)
		case part != "**" && !doublestar.ValidatePattern(part):
			return p, fmt.Errorf("bad glob %q", part)
		}
	}
	text = strings.Join(parts, "/")
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
	// pattern matches only what is below. ("P/**" would say both in one,
	// but doublestar then misses "P" when P ends in a star matching
	// nothing.)
	if !dirOnly {
		p.self = text
	}
	p.below = text + "/*/**"
	if text == "" {
		p.below = "*/*/**" // "/**": whatever is in a directory
	}
	return p, nil
}

// segment writes one segment of a pattern for doublestar: braces, which
// doublestar reads as alternatives, are escaped as the plain characters
// they are here, and a run of stars is one star, as in path.Match.
func segment(glob string) string {
	if !strings.ContainsAny(glob, "{}") && !strings.Contains(glob, "**") {
		return glob
	}
	var b strings.Builder
	star := false
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteByte(c)
			b.WriteByte(glob[i])
		case c == '{' || c == '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c != '*' || !star:
			b.WriteByte(c)
		}
		star = c == '*'
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
		if s.patterns[i].match(p) {
			return !s.patterns[i].negate
		}
	}
	return false
}

func (p *pattern) match(path string) bool {
	return p.self != "" && doublestar.MatchUnvalidated(p.self, path) ||
		strings.IndexByte(path, '/') > 0 && doublestar.MatchUnvalidated(p.below, path)
}

// Patterns returns the patterns the Set was compiled from, in order.
func (s *Set) Patterns() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.raw...)
}
