package gitlog

import (
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

// DefaultMaxFileBytes is the size above which a file is compared by size
// only (Options.MaxFileBytes).
const DefaultMaxFileBytes = 8 << 20

// DefaultMaxCommits bounds the first-parent walk (Options.MaxCommits).
const DefaultMaxCommits = 10000

// DefaultTestPaths returns path patterns (pathmatch syntax) for test files in
// common ecosystems: Go, JavaScript/TypeScript, Python, Java, Rust, Ruby.
func DefaultTestPaths() []string {
	return []string{
		"*_test.go", "testdata/",
		"*.test.*", "*.spec.*", "__tests__/",
		"test_*.py", "*_test.py", "conftest.py",
		"tests/", "test/",
		"**/src/test/",
		"*_spec.rb",
	}
}

// DefaultDocPaths returns path patterns for documentation files.
func DefaultDocPaths() []string {
	return []string{
		"*.md", "*.markdown", "*.mdx", "*.rst", "*.adoc", "*.asciidoc",
		"docs/", "doc/",
		"README", "README.*", "CHANGELOG", "CHANGELOG.*",
	}
}

// DefaultIgnorePaths returns the paths whose changes alone are not
// meaningful: lock files, vendored dependencies and the loops' own state.
func DefaultIgnorePaths() []string {
	return []string{
		"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum", "Cargo.lock",
		"poetry.lock", "uv.lock", "Gemfile.lock", "composer.lock",
		"vendor/", "node_modules/", ".ralph/", ".loopbreaker/",
	}
}

// DefaultProtectedPaths returns the paths an agent must not delete (the
// policy file itself is added by the caller, who knows its path).
func DefaultProtectedPaths() []string {
	return []string{
		".ralph/", ".ralphrc", "IMPLEMENTATION_PLAN.md", "AGENTS.md", "specs/",
		".claude/", "CLAUDE.md", "memory/", ".github/workflows/",
	}
}

// DefaultTaskFiles returns the task-list file patterns: these names in any
// directory, including .ralph/.
func DefaultTaskFiles() []string {
	return []string{"fix_plan.md", "@fix_plan.md", "IMPLEMENTATION_PLAN.md"}
}

// DefaultOptions returns Options with every path set compiled from the
// defaults above, Base empty and the default size and commit limits.
func DefaultOptions() (Options, error) {
	var o Options
	sets := []struct {
		name string
		dst  **pathmatch.Set
		list []string
	}{
		{"ignore paths", &o.IgnorePaths, DefaultIgnorePaths()},
		{"test paths", &o.TestPaths, DefaultTestPaths()},
		{"doc paths", &o.DocPaths, DefaultDocPaths()},
		{"protected paths", &o.ProtectedPaths, DefaultProtectedPaths()},
		{"task files", &o.TaskFiles, DefaultTaskFiles()},
	}
	for _, s := range sets {
		set, err := pathmatch.Compile(s.list)
		if err != nil {
			return Options{}, fmt.Errorf("default %s: %w", s.name, err)
		}
		*s.dst = set
	}
	o.MaxFileBytes = DefaultMaxFileBytes
	o.MaxCommits = DefaultMaxCommits
	return o, nil
}
