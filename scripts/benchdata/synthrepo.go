//go:build ignore

// Command synthrepo writes a git fast-import stream of a synthetic project
// for scripts/bench.sh: a first commit on main that adds -files source
// files (40 lines each, 50 per directory) and a fix_plan.md, then -history
// more commits on main, then -loop commits on the branch "loop" from
// main's tip. Every commit edits three files; every fifth ticks a task;
// every 97th renames a file (with an edit) and every 250th adds one file
// and deletes another, so that rename detection and adds and deletes are
// exercised. The output is deterministic.
//
//	go run scripts/benchdata/synthrepo.go -files 2000 -history 4999 | git fast-import --quiet
//
// With -only-loop it writes only the loop's commits, for a second import
// into a repository that already has main (git -c
// fastimport.unpackLimit=N fast-import keeps them as loose objects, as a
// loop's own commits are).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func main() {
	files := flag.Int("files", 2000, "source files in the first commit")
	history := flag.Int("history", 0, "commits on main after the first")
	loop := flag.Int("loop", 0, "commits on the branch loop after main's tip")
	onlyLoop := flag.Bool("only-loop", false, "write only the loop's commits (main is already imported), so that a second import can keep them loose")
	flag.Parse()
	if *files < 1 || *history < 0 || *loop < 0 {
		fmt.Fprintln(os.Stderr, "synthrepo: -files must be at least 1, -history and -loop not negative")
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	g := newGen(io.Discard, *files, *history+*loop)
	if !*onlyLoop {
		g.w = w
	}
	g.first()
	for c := 1; c <= *history; c++ {
		g.step("refs/heads/main", c)
	}
	g.w = w
	if *loop > 0 {
		fmt.Fprintf(w, "reset refs/heads/loop\nfrom refs/heads/main^0\n\n")
		for c := *history + 1; c <= *history+*loop; c++ {
			g.step("refs/heads/loop", c)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "synthrepo: write:", err)
		os.Exit(1)
	}
}

var start = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

type gen struct {
	w     io.Writer
	paths []string   // current path of file i ("" once deleted)
	lines [][]string // content of file i
	tasks int        // tasks in the plan
	done  int        // ticked tasks
	next  int        // number of the next new file
}

func newGen(w io.Writer, files, commits int) *gen {
	g := &gen{w: w, tasks: commits/5 + 1, next: files}
	for i := range files {
		g.paths = append(g.paths, fmt.Sprintf("pkg%02d/file%04d.go", i/50, i))
		g.lines = append(g.lines, content(i))
	}
	return g
}

func content(i int) []string {
	ls := []string{fmt.Sprintf("package pkg%02d", i/50), ""}
	for l := range 40 {
		ls = append(ls, fmt.Sprintf("// file %d line %d: ordinary source text of the project", i, l))
	}
	return ls
}

func (g *gen) header(ref string, c int, msg string) {
	at := start.Add(time.Duration(c) * 10 * time.Minute).Unix()
	fmt.Fprintf(g.w, "commit %s\nauthor agent <agent@example.com> %d +0000\ncommitter agent <agent@example.com> %d +0000\n", ref, at, at)
	fmt.Fprintf(g.w, "data %d\n%s\n", len(msg), msg)
}

func (g *gen) put(path, text string) {
	fmt.Fprintf(g.w, "M 100644 inline %s\ndata %d\n%s\n", path, len(text), text)
}

func (g *gen) file(i int) { g.put(g.paths[i], strings.Join(g.lines[i], "\n")+"\n") }

func (g *gen) plan() {
	var b strings.Builder
	b.WriteString("# Fix plan\n\n")
	for t := 1; t <= g.tasks; t++ {
		box := " "
		if t <= g.done {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] task %d\n", box, t)
	}
	g.put("fix_plan.md", b.String())
}

func (g *gen) first() {
	g.header("refs/heads/main", 0, "project: start\n")
	for i := range g.paths {
		g.file(i)
	}
	g.plan()
	fmt.Fprintln(g.w)
}

// live returns the k-th live file at or after index i (cyclically).
func (g *gen) live(i int) int {
	for g.paths[i%len(g.paths)] == "" {
		i++
	}
	return i % len(g.paths)
}

func (g *gen) step(ref string, c int) {
	g.header(ref, c, fmt.Sprintf("loop %d: edit three files\n", c))
	n := len(g.paths)
	for k := range 3 {
		i := g.live(c*7 + k*131)
		l := 2 + (c+k)%40
		g.lines[i][l] = fmt.Sprintf("// file %d line %d: edited in commit %d", i, l-2, c)
		g.file(i)
	}
	if c%5 == 4 && g.done < g.tasks {
		g.done++
		g.plan()
	}
	if c%97 == 0 {
		i := g.live(c * 13)
		old := g.paths[i]
		g.paths[i] = fmt.Sprintf("pkg%02d/moved%05d.go", i%(n/50+1), c)
		fmt.Fprintf(g.w, "R %s %s\n", old, g.paths[i])
		g.lines[i][5] = fmt.Sprintf("// moved in commit %d", c)
		g.file(i)
	}
	if c%250 == 0 {
		d := g.live(c * 17)
		fmt.Fprintf(g.w, "D %s\n", g.paths[d])
		g.paths[d] = ""
		i := g.next
		g.next++
		g.paths = append(g.paths, fmt.Sprintf("pkg%02d/new%05d.go", i%(n/50+1), i))
		g.lines = append(g.lines, content(i))
		g.file(len(g.paths) - 1)
	}
	fmt.Fprintln(g.w)
}
