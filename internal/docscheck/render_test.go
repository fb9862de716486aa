package docscheck

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// root is the repository, seen from this package's directory.
var root = filepath.Join("..", "..")

// notYetWritten are pages the documentation links to that are not in the
// repository yet. A link to one of them is allowed; once the page exists it
// must leave this list, so that its own links and anchors are checked.
var notYetWritten = []string{}

// markdown is GitHub's flavour as far as these pages need it: CommonMark
// with pipe tables.
var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// page is one markdown file, parsed.
type page struct {
	name string // slash-separated, relative to the repository
	src  []byte
	doc  ast.Node
}

// pages parses README.md, CHANGELOG.md and every docs/*.md.
func pages(t *testing.T) []*page {
	t.Helper()
	names := []string{"README.md", "CHANGELOG.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 7 {
		t.Fatalf("found %d pages in docs/, want the reference's seven at least", len(docs))
	}
	for _, d := range docs {
		names = append(names, "docs/"+filepath.Base(d))
	}
	var out []*page
	for _, n := range names {
		out = append(out, readPage(t, n))
	}
	return out
}

func readPage(t *testing.T, name string) *page {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return &page{name: name, src: src, doc: markdown.Parser().Parse(text.NewReader(src))}
}

// line is the 1-based line of a byte offset in src.
func line(src []byte, off int) int {
	return bytes.Count(src[:min(off, len(src))], []byte("\n")) + 1
}

// TestMarkdownRenders: every page renders as written: each code fence is
// closed where it was meant to be, and each pipe table becomes a table.
func TestMarkdownRenders(t *testing.T) {
	t.Parallel()
	for _, p := range pages(t) {
		for _, fault := range renderFaults(p) {
			t.Errorf("%s: %s", p.name, fault)
		}
	}
}

// renderFaults lists what in p does not render as its source means.
func renderFaults(p *page) []string {
	var faults []string
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			faults = append(faults, fenceFaults(p.src, n)...)
		case *ast.Paragraph, *ast.TextBlock:
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				if bytes.HasPrefix(bytes.TrimLeft(seg.Value(p.src), " "), []byte("|")) {
					faults = append(faults, fmt.Sprintf("line %d: a pipe table that does not render as a table (a missing |---| line under its header, or a blank line inside it?)", line(p.src, seg.Start)))
					break
				}
			}
		}
		return ast.WalkContinue, nil
	})
	return faults
}

// fenceFaults checks that a fenced code block ends at a closing fence, not
// at the end of the page, and holds no line that opens a fence of its own
// kind: such a line means a fence above it was never closed (a closing
// fence with text after it, say), and the block swallows what follows.
func fenceFaults(src []byte, n *ast.FencedCodeBlock) []string {
	start := n.Pos()
	if start < 0 {
		return []string{"a fenced code block without a position"}
	}
	open := src[start:]
	char := open[0]
	width := len(open) - len(bytes.TrimLeft(open, string(char)))
	var faults []string
	lines := n.Lines()
	end := start
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		end = seg.Stop
		if w, rest := fence(seg.Value(src), char); w >= width && rest != "" && len(faults) == 0 {
			faults = append(faults, fmt.Sprintf("line %d: a fence opens inside the code block that starts on line %d: is that block's closing fence missing or followed by text?", line(src, seg.Start), line(src, start)))
		}
	}
	// The closing fence is the line after the last content line (or after
	// the opening line of an empty block).
	if end == start || src[end-1] != '\n' {
		nl := bytes.IndexByte(src[end:], '\n')
		if nl < 0 {
			end = len(src)
		} else {
			end += nl + 1
		}
	}
	closing := src[end:]
	if nl := bytes.IndexByte(closing, '\n'); nl >= 0 {
		closing = closing[:nl]
	}
	if w, rest := fence(closing, char); end >= len(src) || w < width || rest != "" {
		faults = append(faults, fmt.Sprintf("line %d: the code block that starts here is not closed", line(src, start)))
	}
	return faults
}

// fence returns the width of the run of char that starts l (after up to
// three spaces of indentation) when it is at least three long, and what
// follows the run, trimmed.
func fence(l []byte, char byte) (int, string) {
	s := strings.TrimRight(string(l), "\r\n")
	trimmed := strings.TrimLeft(s, " ")
	if len(s)-len(trimmed) > 3 {
		return 0, ""
	}
	w := len(trimmed) - len(strings.TrimLeft(trimmed, string(char)))
	if w < 3 {
		return 0, ""
	}
	return w, strings.TrimSpace(trimmed[w:])
}

// TestLinksResolve: every relative link of every page leads to a file of
// the repository, and a #fragment to a heading of the page it names.
func TestLinksResolve(t *testing.T) {
	t.Parallel()
	anchors := map[string]map[string]bool{}
	anchorsOf := func(name string) map[string]bool {
		if a, ok := anchors[name]; ok {
			return a
		}
		anchors[name] = headingAnchors(readPage(t, name))
		return anchors[name]
	}
	for _, p := range pages(t) {
		for _, l := range links(p) {
			u, err := url.Parse(l.dest)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", p.name, l.line, l.dest, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue
			}
			target := p.name
			if u.Path != "" {
				target = path.Clean(path.Join(path.Dir(p.name), u.Path))
			}
			if isNotYetWritten(target) {
				continue
			}
			info, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
			if err != nil {
				t.Errorf("%s:%d: link %q: %s does not exist", p.name, l.line, l.dest, target)
				continue
			}
			if u.Fragment == "" || info.IsDir() || !strings.HasSuffix(target, ".md") {
				continue
			}
			if !anchorsOf(target)[u.Fragment] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", p.name, l.line, l.dest, target, u.Fragment)
			}
		}
	}
}

// TestNotYetWrittenIsCurrent: a page in notYetWritten that exists leaves
// the list, so that its links are checked like every other page's.
func TestNotYetWrittenIsCurrent(t *testing.T) {
	t.Parallel()
	for _, name := range notYetWritten {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
		if err == nil {
			t.Errorf("%s exists now: remove it from notYetWritten", name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Error(err)
		}
	}
}

func isNotYetWritten(name string) bool {
	for _, n := range notYetWritten {
		if n == name {
			return true
		}
	}
	return false
}

// link is a link or image destination and its line.
type link struct {
	dest string
	line int
}

func links(p *page) []link {
	var out []link
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		switch n := n.(type) {
		case *ast.Link:
			dest = n.Destination
		case *ast.Image:
			dest = n.Destination
		default:
			return ast.WalkContinue, nil
		}
		out = append(out, link{dest: string(dest), line: line(p.src, blockPos(n))})
		return ast.WalkContinue, nil
	})
	return out
}

// blockPos is the position of the block that holds n.
func blockPos(n ast.Node) int {
	for ; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock && n.Pos() >= 0 {
			return n.Pos()
		}
	}
	return 0
}

// headingAnchors are the anchors GitHub gives the headings of p: the
// heading's text in lower case, without punctuation but '-' and '_',
// spaces turned into '-', and "-1", "-2", … after a repeat.
func headingAnchors(p *page) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		slug := slugify(plainText(h, p.src))
		if k := seen[slug]; k > 0 {
			out[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
		return ast.WalkSkipChildren, nil
	})
	return out
}

func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainText is the text of n's inlines as GitHub shows it, code spans
// without their backticks.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// cellText is a table cell's text, code spans in backticks as written.
func cellText(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*ast.CodeSpan); ok {
			b.WriteString("`" + plainText(c, src) + "`")
			continue
		}
		if c.HasChildren() {
			b.WriteString(cellText(c, src))
			continue
		}
		b.WriteString(plainText(c, src))
	}
	return strings.TrimSpace(b.String())
}

// table is a rendered table: its header and its rows, as cell texts.
type table struct {
	header []string
	rows   [][]string
}

// tables returns the tables of p in order, each with the heading above it.
func tables(p *page) (out []table, headings []string) {
	heading := ""
	_ = ast.Walk(p.doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			heading = plainText(n, p.src)
			return ast.WalkSkipChildren, nil
		case *east.Table:
			var tb table
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				var cells []string
				for c := r.FirstChild(); c != nil; c = c.NextSibling() {
					cells = append(cells, cellText(c, p.src))
				}
				if _, ok := r.(*east.TableHeader); ok {
					tb.header = cells
				} else {
					tb.rows = append(tb.rows, cells)
				}
			}
			out = append(out, tb)
			headings = append(headings, heading)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out, headings
}

// tableUnder returns the first table under the heading named heading whose
// header starts with first, failing the test when there is none.
func tableUnder(t *testing.T, p *page, heading, first string) table {
	t.Helper()
	ts, hs := tables(p)
	for i, tb := range ts {
		if hs[i] == heading && len(tb.header) > 0 && tb.header[0] == first {
			return tb
		}
	}
	t.Fatalf("%s: no table with the column %q under the heading %q", p.name, first, heading)
	return table{}
}

// TestCheckerFindsFaults: the checks above catch what they are for, on
// small pages made for them.
func TestCheckerFindsFaults(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src string
		want      string // in the one fault expected; "" for none
	}{
		{"closed fence", "a\n\n```sh\nls\n```\n\nb\n", ""},
		{"empty fence", "```\n```\n", ""},
		{"fence in a list", "- item\n\n  ```sh\n  ls\n  ```\n", ""},
		{"longer fence shows a short one", "````md\n```sh\nls\n```\n````\n", ""},
		{"unclosed at the end", "a\n\n```sh\nls\n", "not closed"},
		{"unclosed, no newline", "```sh\nls", "not closed"},
		{"closing fence with text", "```text\nx\n``` A policy is\nmore\n\n```yaml\nk: v\n```\n", "a fence opens inside"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |\n", ""},
		{"table without separator", "| a | b |\n| 1 | 2 |\n", "pipe table"},
		{"table cut by a blank line", "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n", "pipe table"},
	} {
		p := &page{name: c.name, src: []byte(c.src)}
		p.doc = markdown.Parser().Parse(text.NewReader(p.src))
		faults := renderFaults(p)
		switch {
		case c.want == "" && len(faults) > 0:
			t.Errorf("%s: got faults %q, want none", c.name, faults)
		case c.want != "" && (len(faults) != 1 || !strings.Contains(faults[0], c.want)):
			t.Errorf("%s: got faults %q, want one with %q", c.name, faults, c.want)
		}
	}
	p := &page{name: "p", src: []byte("# The `check` command: loops\n\n## Notes\n\n## Notes\n")}
	p.doc = markdown.Parser().Parse(text.NewReader(p.src))
	got := headingAnchors(p)
	for _, want := range []string{"the-check-command-loops", "notes", "notes-1"} {
		if !got[want] {
			t.Errorf("anchors %v lack %q", got, want)
		}
	}
}
