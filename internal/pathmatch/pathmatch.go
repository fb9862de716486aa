package pathmatch

import (
	"fmt"
	"path"
	"strings"
)

// Set is a compiled list of path patterns. The zero value and a nil *Set
// match nothing. A Set is immutable and safe for concurrent use.
type Set struct {
	raw      []string
	patterns []pattern
}

// pattern is one compiled pattern.
type pattern struct {
	negate   bool
	dirOnly  bool // matches directories (proper prefixes of a path) only
	anchored bool // matches from the root; otherwise segs has one element
	matchAll bool // "/**": every path
	segs     []segment
}

// segment is one slash-free piece of a pattern.
type segment struct {
	glob    string
	literal bool // glob has no metacharacters: compare with ==
	star    bool // glob is prefix*suffix with no other metacharacters
	prefix  string
	suffix  string
	any     bool // "**": any number of path segments
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

// compileError is a reason a pattern is rejected.
type compileError string

func (e compileError) Error() string { return string(e) }

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
		return p, compileError("empty pattern")
	}
	if strings.HasSuffix(text, "/") {
		p.dirOnly = true
		text = strings.TrimSuffix(text, "/")
	}
	if strings.HasPrefix(text, "/") {
		p.anchored = true
		text = strings.TrimPrefix(text, "/")
	}
	if text == "" {
		return p, compileError("pattern names no path")
	}
	if strings.Contains(text, "/") {
		p.anchored = true
	}
	for _, part := range strings.Split(text, "/") {
		switch part {
		case "":
			return p, compileError("empty path segment (double slash)")
		case ".", "..":
			return p, compileError(fmt.Sprintf("%q segment not allowed", part))
		case "**":
			if n := len(p.segs); n > 0 && p.segs[n-1].any {
				continue // "**/**" is "**"
			}
			p.segs = append(p.segs, segment{glob: part, any: true})
			continue
		}
		part = bangClass(part)
		if _, err := path.Match(part, ""); err != nil {
			return p, compileError(fmt.Sprintf("bad glob %q", part))
		}
		p.segs = append(p.segs, compileSegment(part))
	}
	if !p.anchored {
		// A lone "**" has no slash: it is a name glob like "*".
		if p.segs[0].any {
			p.segs[0] = compileSegment("*")
		}
		return p, nil
	}
	// A trailing "**" matches everything inside: it is a directory pattern.
	if n := len(p.segs); p.segs[n-1].any {
		p.segs = p.segs[:n-1]
		p.dirOnly = true
	}
	if len(p.segs) == 0 {
		p.matchAll = true
	}
	return p, nil
}

// compileSegment compiles one glob segment, noting the two shapes most
// patterns have ("go.sum", "*.lock", "*_test.go", "test_*") so that they
// are matched without path.Match.
func compileSegment(glob string) segment {
	s := segment{glob: glob}
	switch strings.Count(glob, "*") {
	case 0:
		s.literal = !strings.ContainsAny(glob, `?[\`)
	case 1:
		if !strings.ContainsAny(glob, `?[\`) {
			s.star = true
			s.prefix, s.suffix, _ = strings.Cut(glob, "*")
		}
	}
	return s
}

// bangClass rewrites gitignore's "[!...]" negated classes into path.Match's
// "[^...]".
func bangClass(glob string) string {
	if !strings.Contains(glob, "[!") {
		return glob
	}
	b := []byte(glob)
	inClass := false
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++ // skip the escaped byte
		case !inClass && b[i] == '[':
			inClass = true
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
				i++
			}
		case inClass && b[i] == ']':
			inClass = false
		}
	}
	return string(b)
}

// Match reports whether the slash-separated path, relative to the
// repository root, is matched: the last pattern that matches it decides,
// and a negated pattern un-matches. A leading slash is ignored.
func (s *Set) Match(p string) bool {
	if s == nil || len(s.patterns) == 0 {
		return false
	}
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return false
	}
	var buf [32]string
	segs := splitPath(p, buf[:0])
	if len(segs) == 0 {
		return false
	}
	for i := len(s.patterns) - 1; i >= 0; i-- {
		if s.patterns[i].match(segs) {
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

// splitPath splits p on slashes, dropping empty segments.
func splitPath(p string, dst []string) []string {
	for p != "" {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return append(dst, p)
		}
		if i > 0 {
			dst = append(dst, p[:i])
		}
		p = p[i+1:]
	}
	return dst
}

// match reports whether the pattern matches the path or one of its
// directories.
func (p *pattern) match(segs []string) bool {
	last := len(segs) // number of leading segments a match may cover
	if p.dirOnly {
		last--
	}
	if last < 1 {
		return false
	}
	if p.matchAll {
		return true
	}
	if !p.anchored {
		for i := 0; i < last; i++ {
			if p.segs[0].matches(segs[i]) {
				return true
			}
		}
		return false
	}
	// cur[j]: the pattern segments seen so far match exactly segs[:j].
	var bufA, bufB [33]bool
	var cur, next []bool
	if len(segs)+1 <= len(bufA) {
		cur, next = bufA[:len(segs)+1], bufB[:len(segs)+1]
	} else {
		cur, next = make([]bool, len(segs)+1), make([]bool, len(segs)+1)
	}
	cur[0] = true
	for _, ps := range p.segs {
		alive := false
		if ps.any {
			run := false
			for j := range cur {
				run = run || cur[j]
				next[j] = run
				alive = alive || run
			}
		} else {
			next[0] = false
			for j := 1; j < len(cur); j++ {
				next[j] = cur[j-1] && ps.matches(segs[j-1])
				alive = alive || next[j]
			}
		}
		if !alive {
			return false
		}
		cur, next = next, cur
	}
	for j := 1; j <= last; j++ {
		if cur[j] {
			return true
		}
	}
	return false
}

// matches reports whether the segment glob matches one path segment.
func (s segment) matches(name string) bool {
	if s.literal {
		return s.glob == name
	}
	if s.star {
		return len(name) >= len(s.prefix)+len(s.suffix) &&
			strings.HasPrefix(name, s.prefix) && strings.HasSuffix(name, s.suffix)
	}
	ok, err := path.Match(s.glob, name)
	return err == nil && ok
}
