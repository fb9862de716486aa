package gitlog

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// The expectations are what git diff --numstat prints for the same pair.
func TestLineStatNumstat(t *testing.T) {
	t.Parallel()
	thousand := numbered("line", 1000)
	scattered := thousand
	for _, n := range []string{"line 3\n", "line 150\n", "line 151\n", "line 500\n", "line 999\n"} {
		scattered = strings.Replace(scattered, n, "changed "+n, 1)
	}
	tests := []struct {
		name                   string
		a, b                   string
		wantAdded, wantDeleted int
	}{
		{"identical", "a\nb\n", "a\nb\n", 0, 0},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 1, 1},
		{"append to a last line without newline", "a\nb", "a\nb\nc", 2, 1},
		{"newline at end removed", "a\n", "a", 1, 1},
		{"newline at end added", "a", "a\n", 1, 1},
		{"from empty", "", "x\ny\n", 2, 0},
		{"to empty", "x\ny\nz\n", "", 0, 3},
		{"last line moved to the top", "a\nb\nc\n", "c\na\nb\n", 1, 1},
		{"crlf to lf", "a\r\nb\r\n", "a\nb\n", 2, 2},
		{"insert in the middle", "a\nb\nc\nd\n", "a\nb\nX\nY\nc\nd\n", 2, 0},
		{"delete a block", "a\nb\nc\nd\ne\n", "a\ne\n", 0, 3},
		{"repeated lines", "x\nx\nx\n", "x\nx\n", 0, 1},
		{"blank lines", "a\n\n\nb\n", "a\n\nb\n\n", 1, 1},
		{"scattered edits", thousand, scattered, 5, 5},
		{"full rewrite", numbered("old", 300), numbered("new", 200), 200, 300},
		{"swap halves", numbered("a", 50) + numbered("b", 50), numbered("b", 50) + numbered("a", 50), 50, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			added, deleted := lineStat([]byte(tt.a), []byte(tt.b))
			if added != tt.wantAdded || deleted != tt.wantDeleted {
				t.Errorf("lineStat: got +%d -%d, want +%d -%d", added, deleted, tt.wantAdded, tt.wantDeleted)
			}
		})
	}
}

// lcsLines is the textbook O(NM) LCS over lines, the reference for lineStat.
func lcsLines(a, b []byte) int {
	split := func(s []byte) []string {
		var out []string
		for i := 0; i < len(s); {
			e := lineEnd(s, i)
			out = append(out, string(s[i:e]))
			i = e
		}
		return out
	}
	la, lb := split(a), split(b)
	prev := make([]int, len(lb)+1)
	cur := make([]int, len(lb)+1)
	for i := 1; i <= len(la); i++ {
		for j := 1; j <= len(lb); j++ {
			switch {
			case la[i-1] == lb[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(lb)]
}

func TestLineStatMatchesLCS(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a\n", "b\n", "c\n", "d\n", "\n", "}\n", "e"}
	gen := func(n int) []byte {
		var b bytes.Buffer
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.Bytes()
	}
	for i := range 2000 {
		a, b := gen(rng.IntN(40)), gen(rng.IntN(40))
		if rng.IntN(3) == 0 { // related files
			b = append(append([]byte{}, a[:len(a)/2]...), b...)
		}
		lcs := lcsLines(a, b)
		added, deleted := lineStat(a, b)
		if added != countLines(b)-lcs || deleted != countLines(a)-lcs {
			t.Fatalf("case %d: lineStat(%q, %q): got +%d -%d, want +%d -%d", i, a, b, added, deleted, countLines(b)-lcs, countLines(a)-lcs)
		}
	}
}

func TestMyersBudget(t *testing.T) {
	t.Parallel()
	a := []int32{1, 2, 3, 4, 5, 6, 7, 8}
	b := []int32{8, 7, 6, 5, 4, 3, 2, 1}
	if d, ok := myersDistance(a, b, 1<<20); !ok || d != 14 {
		t.Errorf("myersDistance: got %d, %v, want 14, true", d, ok)
	}
	if _, ok := myersDistance(a, b, 10); ok {
		t.Errorf("myersDistance with a tiny budget: got ok, want the budget to stop it")
	}
	// Over budget, lineStat falls back to an estimate that stays within
	// the bounds of the true counts.
	var x, y bytes.Buffer
	for i := range 30000 {
		x.WriteString(strings.Repeat("k", i%97) + "\n")
		y.WriteString(strings.Repeat("k", (i*7)%97) + "\n")
	}
	added, deleted := lineStat(x.Bytes(), y.Bytes())
	if added < 0 || deleted < 0 || added > 30000 || deleted > 30000 || added != deleted {
		t.Errorf("lineStat over budget: got +%d -%d, want equal counts within 0..30000", added, deleted)
	}
}

func BenchmarkLineStat(b *testing.B) {
	old := []byte(numbered("line", 5000))
	new := bytes.Replace(old, []byte("line 2500\n"), []byte("changed\n"), 1)
	new = append(new, "tail\n"...)
	b.ReportAllocs()
	for b.Loop() {
		lineStat(old, new)
	}
}

// trimByLines is trimCommonLines as lineStat first did it, line by line:
// the reference the word-at-a-time trimming must agree with.
func trimByLines(a, b []byte) ([]byte, []byte) {
	pa, pb := 0, 0
	for pa < len(a) && pb < len(b) {
		ea, eb := lineEnd(a, pa), lineEnd(b, pb)
		if !bytes.Equal(a[pa:ea], b[pb:eb]) {
			break
		}
		pa, pb = ea, eb
	}
	start := func(s []byte, end, floor int) int {
		if j := bytes.LastIndexByte(s[floor:end-1], '\n'); j >= 0 {
			return floor + j + 1
		}
		return floor
	}
	sa, sb := len(a), len(b)
	for sa > pa && sb > pb {
		la, lb := start(a, sa, pa), start(b, sb, pb)
		if !bytes.Equal(a[la:sa], b[lb:sb]) {
			break
		}
		sa, sb = la, lb
	}
	return a[pa:sa], b[pb:sb]
}

// TestTrimCommonLinesIsLineByLine: dropping shared lines from shared
// bytes finds the lines the line-by-line trimming finds.
func TestTrimCommonLinesIsLineByLine(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "b", "ab", "\n", "\n", "x\n", "long shared line of text\n", ""}
	gen := func() []byte {
		var b []byte
		for range r.IntN(12) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		return b
	}
	for round := range 20000 {
		a, b := gen(), gen()
		if r.IntN(2) == 0 { // a shared head and tail around an edit
			head, tail := gen(), gen()
			a = append(append(append([]byte(nil), head...), a...), tail...)
			b = append(append(append([]byte(nil), head...), b...), tail...)
		}
		wa, wb := trimByLines(a, b)
		ga, gb := trimCommonLines(a, b)
		if !bytes.Equal(wa, ga) || !bytes.Equal(wb, gb) {
			t.Fatalf("round %d: trimCommonLines(%q, %q) = %q, %q; line by line %q, %q", round, a, b, ga, gb, wa, wb)
		}
		if ma, mb := editedMiddle(a, b); !bytes.Equal(a, b) && equalSkipping(ma, mb, isDigit) != equalSkipping(a, b, isDigit) {
			t.Fatalf("round %d: the edited middle of %q and %q changes whether digits alone differ", round, a, b)
		}
	}
}
