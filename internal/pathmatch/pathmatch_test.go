package pathmatch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		patterns []string
		path     string
		want     bool
	}{
		// Base names anywhere.
		{"name at root", []string{"go.sum"}, "go.sum", true},
		{"name nested", []string{"go.sum"}, "tools/go.sum", true},
		{"name is not a substring", []string{"go.sum"}, "xgo.sum", false},
		{"name glob", []string{"*.lock"}, "a/b/Cargo.lock", true},
		{"name glob miss", []string{"*.lock"}, "a/b/Cargo.locks", false},
		{"name matches directory", []string{"node_modules"}, "web/node_modules/x/index.js", true},
		{"task file under .ralph", []string{"fix_plan.md"}, ".ralph/fix_plan.md", true},
		{"at sign name", []string{"@fix_plan.md"}, "@fix_plan.md", true},
		{"question mark", []string{"?.txt"}, "d/a.txt", true},
		{"question mark one char only", []string{"?.txt"}, "d/ab.txt", false},
		{"class", []string{"[abc].go"}, "b.go", true},
		{"negated class", []string{"[!abc].go"}, "b.go", false},
		{"negated class other", []string{"[!abc].go"}, "d.go", true},
		{"caret class", []string{"[^abc].go"}, "d.go", true},
		{"escaped bracket", []string{`\[!x\].go`}, "[!x].go", true},
		{"case sensitive", []string{"readme.md"}, "README.md", false},
		{"star stays in segment", []string{"*.go"}, "a/b.go/c.txt", true}, // "b.go" is a directory name
		{"test suffix", []string{"*_test.go"}, "internal/x/x_test.go", true},
		{"test suffix miss", []string{"*_test.go"}, "internal/x/x.go", false},

		// Directory patterns.
		{"dir anywhere", []string{"vendor/"}, "a/vendor/x", true},
		{"dir at root", []string{"vendor/"}, "vendor/x/y.go", true},
		{"dir does not match file", []string{"vendor/"}, "vendor", false},
		{"dir does not match nested file name", []string{"vendor/"}, "a/vendor", false},
		{"anchored dir", []string{".github/workflows/"}, ".github/workflows/ci.yml", true},
		{"anchored dir not nested", []string{".github/workflows/"}, "x/.github/workflows/ci.yml", false},
		{"anchored dir not the dir itself as file", []string{".github/workflows/"}, ".github/workflows", false},
		{"dir glob", []string{"build*/"}, "out/build-1/a.o", true},
		{"tests dir", []string{"tests/"}, "crate/tests/it.rs", true},
		{"__tests__", []string{"__tests__/"}, "src/__tests__/a.js", true},

		// Anchored patterns.
		{"anchored file", []string{"docs/api.md"}, "docs/api.md", true},
		{"anchored file not nested", []string{"docs/api.md"}, "x/docs/api.md", false},
		{"anchored covers children", []string{"specs/v1"}, "specs/v1/a.md", true},
		{"leading slash anchors", []string{"/Makefile"}, "Makefile", true},
		{"leading slash anchors miss", []string{"/Makefile"}, "sub/Makefile", false},
		{"star one segment", []string{"src/*.go"}, "src/a.go", true},
		{"star not across segments", []string{"src/*.go"}, "src/p/a.go", false},
		{"double star zero segments", []string{"src/**/*_test.go"}, "src/a_test.go", true},
		{"double star many segments", []string{"src/**/*_test.go"}, "src/p/q/a_test.go", true},
		{"double star wrong root", []string{"src/**/*_test.go"}, "lib/p/a_test.go", false},
		{"double star around", []string{"**/test/**"}, "test/a.go", true},
		{"double star around nested", []string{"**/test/**"}, "x/y/test/z/a.go", true},
		{"double star around not file", []string{"**/test/**"}, "x/test", false},
		{"leading double star", []string{"**/foo.txt"}, "a/b/foo.txt", true},
		{"leading double star root", []string{"**/foo.txt"}, "foo.txt", true},
		{"trailing double star", []string{"abc/**"}, "abc/x/y", true},
		{"trailing double star not dir itself", []string{"abc/**"}, "abc", false},
		{"java tests", []string{"src/test/"}, "src/test/java/FooTest.java", true},
		{"java tests anchored", []string{"src/test/"}, "mod/src/test/java/FooTest.java", false},
		{"root double star", []string{"/**"}, "a/b", true},
		{"lone double star", []string{"**"}, "a/b", true},

		// Negation and order.
		{"negated later wins", []string{"vendor/", "!vendor/keep.go"}, "vendor/keep.go", false},
		{"negated other path", []string{"vendor/", "!vendor/keep.go"}, "vendor/other.go", true},
		{"re-matched after negation", []string{"*.md", "!docs/", "docs/index.md"}, "docs/index.md", true},
		{"negation alone matches nothing", []string{"!a.txt"}, "a.txt", false},
		{"escaped bang", []string{`\!important`}, "!important", true},

		// Paths.
		{"leading slash in path", []string{"go.sum"}, "/go.sum", true},
		{"empty path", []string{"*"}, "", false},
		{"non utf8 path", []string{"caf\xe9.txt"}, "d/caf\xe9.txt", true},
		{"non utf8 glob", []string{"*.txt"}, "d/caf\xe9.txt", true},
		{"no patterns", nil, "a", false},
		{"star matching nothing", []string{"test_*"}, "a/test_", true},
		{"star matching nothing, a directory", []string{"test_*"}, "a/test_/x.go", true},
		{"run of stars", []string{"*t***"}, "0t", true},
		{"root double star is not a top-level file", []string{"/**"}, "a", false},
		{"double double star", []string{"**/**"}, "a", false},
		{"braces are plain characters", []string{"v{1,2}/*.txt"}, "v{1,2}/a.txt", true},
		{"braces are no alternatives", []string{"v{1,2}/*.txt"}, "v1/a.txt", false},
		{"empty segments in path", []string{"a/b"}, "a//b/", true},
		{"surrounding spaces trimmed", []string{"  go.sum "}, "go.sum", true},
		{"deep path", []string{"a/**/z"}, strings.Repeat("d/", 40) + "z", false},
		{"deep path match", []string{"**/z"}, strings.Repeat("d/", 40) + "z", true},
		{"deep anchored", []string{"d/**/z"}, strings.Repeat("d/", 40) + "z", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Compile(tt.patterns)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tt.patterns, err)
			}
			if got := s.Match(tt.path); got != tt.want {
				t.Errorf("Match(%q) with %q: got %v, want %v", tt.path, tt.patterns, got, tt.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		patterns []string
		want     string // substring of the error
	}{
		{"empty", []string{"a", ""}, `path pattern 2 "": empty pattern`},
		{"blank", []string{"   "}, `path pattern 1 "   ": empty pattern`},
		{"bang only", []string{"!"}, "empty pattern"},
		{"slash only", []string{"/"}, "names no path"},
		{"double slash", []string{"a//b"}, "empty path segment"},
		{"dot segment", []string{"./a"}, `"." segment`},
		{"dotdot segment", []string{"a/../b"}, `".." segment`},
		{"bad class", []string{"ok", "src/[a-"}, `path pattern 2 "src/[a-": bad glob "[a-"`},
		{"trailing backslash", []string{`a\`}, "bad glob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Compile(tt.patterns)
			if err == nil {
				t.Fatalf("Compile(%q): got set %v, want error containing %q", tt.patterns, s.Patterns(), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile(%q): got error %q, want it to contain %q", tt.patterns, err, tt.want)
			}
		})
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	in := []string{"vendor/", "*.lock", "!keep.lock"}
	s, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Patterns()
	if diff := cmp.Diff(in, got); diff != "" {
		t.Errorf("Patterns() mismatch (-want +got):\n%s", diff)
	}
	got[0] = "changed"
	if s.Patterns()[0] != "vendor/" {
		t.Errorf("Patterns() shares its slice with the Set: got %q after change, want %q", s.Patterns()[0], "vendor/")
	}
}

func TestNilSet(t *testing.T) {
	t.Parallel()
	var s *Set
	if s.Match("a") {
		t.Errorf("nil Set Match: got true, want false")
	}
	if got := s.Patterns(); got != nil {
		t.Errorf("nil Set Patterns: got %q, want nil", got)
	}
	var zero Set
	if zero.Match("a") {
		t.Errorf("zero Set Match: got true, want false")
	}
}

func BenchmarkMatch(b *testing.B) {
	s, err := Compile([]string{
		"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum", "Cargo.lock",
		"vendor/", "node_modules/", ".ralph/", ".loopbreaker/", "src/**/*_test.go", "**/test/**",
	})
	if err != nil {
		b.Fatal(err)
	}
	paths := []string{"internal/evidence/gitlog/history.go", "web/node_modules/a/b.js", "src/a/b/c_test.go", "README.md"}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range paths {
			s.Match(p)
		}
	}
}
