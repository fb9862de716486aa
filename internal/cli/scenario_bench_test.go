package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
)

// scnBenchRepo builds, with the scenario builder, a project of files
// source files (40 lines each, 50 per directory) on main and a loop of
// loops commits on the loop branch, each editing three files; every fifth
// also ticks a task in fix_plan.md. packed repacks every object into one
// pack, as a fresh clone has them; otherwise they stay loose, as a loop's
// own commits are written.
func scnBenchRepo(b *testing.B, files, loops int, packed bool) *scnRepo {
	b.Helper()
	r := newScnRepo(b, "loop")
	r.setHead("refs/heads/main")
	r.clock = scnStart.Add(-scnGap)
	content := make([]string, files)
	path := func(i int) string { return fmt.Sprintf("pkg%02d/file%04d.go", i/50, i) }
	for i := range content {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package pkg%02d\n\n", i/50)
		for l := range 40 {
			fmt.Fprintf(&sb, "// file %d line %d: ordinary source text\n", i, l)
		}
		content[i] = sb.String()
		r.write(path(i), content[i])
	}
	tasks := loops/5 + 1
	r.write("fix_plan.md", plan(0, tasks))
	r.commit("base", "project: start\n", scnStart.Add(-scnGap))
	r.setHead("refs/heads/loop")
	r.ref("refs/heads/loop", r.head)
	for c := range loops {
		for k := range 3 {
			i := (c*7 + k*131) % files
			line := (c + k) % 40
			content[i] = strings.Replace(content[i], fmt.Sprintf("line %d:", line), fmt.Sprintf("line %d (edit %d):", line, c), 1)
			r.write(path(i), content[i])
		}
		if c%5 == 4 {
			r.write("fix_plan.md", plan(c/5+1, tasks))
		}
		r.commit("", fmt.Sprintf("loop %d\n\nLoop-Phase: GREEN\n", c), r.clock.Add(scnGap), r.head)
	}
	r.now = r.clock.Add(scnGap)
	if packed {
		g, err := git.PlainOpen(r.dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := g.RepackObjects(&git.RepackConfig{}); err != nil {
			b.Fatalf("repack %s: %v", r.dir, err)
		}
	}
	return r
}

// benchCheck measures one `check` run end to end: policy, repository,
// history, fold and the rendered JSON decision.
func benchCheck(b *testing.B, r *scnRepo) {
	b.Helper()
	args := []string{"check", "--repo", r.dir, "--base", "main", "--format", "json"}
	var stderr strings.Builder
	env := Env{Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" }, Now: func() time.Time { return r.now }}
	if code := Main(args, env); code == 2 {
		b.Fatalf("check: exit 2: %s", stderr.String())
	}
	env.Stderr = io.Discard
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Main(args, env)
	}
}

// BenchmarkCheck200x2000 is `check` on a 200-iteration loop in a
// 2,000-file repository. Target: at most 100 ms per run.
func BenchmarkCheck200x2000(b *testing.B) {
	for _, packed := range []bool{false, true} {
		name := "loose"
		if packed {
			name = "packed"
		}
		b.Run(name, func(b *testing.B) {
			benchCheck(b, scnBenchRepo(b, 2000, 200, packed))
		})
	}
}

// BenchmarkCheckGrowth shows how `check` grows with the loop's length
// (2,000 files, loose objects).
func BenchmarkCheckGrowth(b *testing.B) {
	for _, loops := range []int{50, 200, 800} {
		b.Run(fmt.Sprintf("iterations=%d", loops), func(b *testing.B) {
			benchCheck(b, scnBenchRepo(b, 2000, loops, false))
		})
	}
}
