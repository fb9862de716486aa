package gitlog

import (
	"fmt"

	"github.com/go-git/go-git/v5"
	"strings"
	"testing"
)

// buildLoopRepo builds a repository of files files (in directories of 50)
// with main at the first commit and a loop branch of loops commits on top,
// each editing three files and, every fifth, ticking a task.
func buildLoopRepo(b *testing.B, files, loops int) *testRepo {
	b.Helper()
	r := newTestRepo(b)
	content := make([]string, files)
	for i := range files {
		var sb strings.Builder
		for l := range 40 {
			fmt.Fprintf(&sb, "file %d line %d: some ordinary source text\n", i, l)
		}
		content[i] = sb.String()
		r.write(benchPath(i), content[i])
	}
	tasks := 0
	plan := func() string {
		var sb strings.Builder
		for t := range loops/5 + 1 {
			box := " "
			if t < tasks {
				box = "x"
			}
			fmt.Fprintf(&sb, "- [%s] task %d\n", box, t)
		}
		return sb.String()
	}
	r.write("fix_plan.md", plan())
	first := r.commit("init\n")
	r.ref("refs/heads/main", first)
	for c := range loops {
		for k := range 3 {
			i := (c*7 + k*131) % files
			content[i] = strings.Replace(content[i], fmt.Sprintf("line %d:", (c+k)%40), fmt.Sprintf("line %d (edit %d):", (c+k)%40, c), 1)
			r.write(benchPath(i), content[i])
		}
		if c%5 == 4 {
			tasks++
			r.write("fix_plan.md", plan())
		}
		r.commit(fmt.Sprintf("loop %d\n\nLoop-Phase: GREEN\n", c))
	}
	return r
}

// pack writes every object into one pack file, as a clone has them.
func (r *testRepo) pack() {
	r.t.Helper()
	g, err := git.PlainOpen(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := g.RepackObjects(&git.RepackConfig{}); err != nil {
		r.t.Fatalf("repack %s: %v", r.dir, err)
	}
}

func benchPath(i int) string { return fmt.Sprintf("pkg%02d/file%04d.go", i/50, i) }

func benchHistory(b *testing.B, r *testRepo, base string, want int) {
	b.Helper()
	opts := defaultOpts(b, base)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		repo, err := Open(r.dir)
		if err != nil {
			b.Fatal(err)
		}
		h, err := repo.History(opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(h.Commits) != want {
			b.Fatalf("got %d commits, want %d", len(h.Commits), want)
		}
		_ = repo.Close()
	}
}

// BenchmarkHistory200x2000 is the evidence of a 200-iteration loop over a
// 2,000-file repository (base: the merge base with main), opening the
// repository each time as one run of the program does.
// Loose objects (as a loop's own commits are written) are the slow case;
// packed objects are what a fresh clone in CI has.
func BenchmarkHistory200x2000(b *testing.B) {
	for _, packed := range []bool{false, true} {
		name := "loose"
		if packed {
			name = "packed"
		}
		b.Run(name, func(b *testing.B) {
			r := buildLoopRepo(b, 2000, 200)
			if packed {
				r.pack()
			}
			benchHistory(b, r, "", 200)
		})
	}
}

// BenchmarkHistoryNewest is the cost of the newest iteration alone (base
// HEAD~1): it must not grow with the loop's length.
func BenchmarkHistoryNewest(b *testing.B) {
	for _, loops := range []int{50, 200, 1000} {
		b.Run(fmt.Sprintf("loop%d", loops), func(b *testing.B) {
			r := buildLoopRepo(b, 2000, loops)
			benchHistory(b, r, "HEAD~1", 1)
		})
	}
}
