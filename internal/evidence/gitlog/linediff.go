package gitlog

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// diffCostBudget bounds the work of one Myers run (compared cells). Beyond
// it the line counts are estimated (see lineStat).
const diffCostBudget = 1 << 24

// lineStat returns the number of lines added and deleted from a to b, as
// git diff --numstat counts them: a line is its bytes including the
// newline, so a last line without one differs from the same text with one.
//
// The counts are exact (from a minimal edit script: deleted = len(a) - LCS,
// added = len(b) - LCS). The common head and tail are skipped first, then
// lines present on one side only are counted directly (they cannot be in
// the LCS), then a Myers O((N+M)D) search finds the edit distance of what
// remains. When that exceeds diffCostBudget, the LCS is estimated by the
// multiset intersection of the remaining lines, which under-counts edits
// only for heavily reordered files. Why not go-git's utils/diff:
// docs/performance.md.
func lineStat(a, b []byte) (added, deleted int) {
	a, b = trimCommonLines(a, b)
	if len(a) == 0 || len(b) == 0 {
		return countLines(b), countLines(a)
	}

	// Intern the remaining lines.
	in := newInterner(countLines(a) + countLines(b))
	intern := func(s []byte) []int32 {
		out := make([]int32, 0, countLines(s))
		for i := 0; i < len(s); {
			e := lineEnd(s, i)
			out = append(out, in.id(s[i:e]))
			i = e
		}
		return out
	}
	la, lb := intern(a), intern(b)
	n, m := len(la), len(lb)

	// Lines found on one side only are edits for sure; drop them.
	inA := make([]int32, len(in.lines))
	inB := make([]int32, len(in.lines))
	for _, id := range la {
		inA[id]++
	}
	for _, id := range lb {
		inB[id]++
	}
	ka := la[:0:0]
	for _, id := range la {
		if inB[id] > 0 {
			ka = append(ka, id)
		}
	}
	kb := lb[:0:0]
	for _, id := range lb {
		if inA[id] > 0 {
			kb = append(kb, id)
		}
	}

	lcs := 0
	if d, ok := myersDistance(ka, kb, diffCostBudget); ok {
		lcs = (len(ka) + len(kb) - d) / 2
	} else {
		// Estimate: every shared line once per pairing (an upper bound of
		// the LCS).
		for id := range inA {
			lcs += int(min(inA[id], inB[id]))
		}
	}
	return m - lcs, n - lcs
}

// trimCommonLines drops the whole lines a and b share at the start and,
// of what is left, at the end.
func trimCommonLines(a, b []byte) ([]byte, []byte) {
	p := commonPrefix(a, b)
	if p == len(a) && p == len(b) {
		return nil, nil
	}
	// The lines before the first difference are the same; the line it
	// falls in is not (a line ending there ends in one only).
	head := bytes.LastIndexByte(a[:p], '\n') + 1
	a, b = a[head:], b[head:]
	// The tail: whole lines within the common suffix, starting at a line
	// start on both sides.
	s := commonSuffix(a, b)
	ka, kb := len(a)-s, len(b)-s
	if (ka > 0 && a[ka-1] != '\n') || (kb > 0 && b[kb-1] != '\n') {
		if j := bytes.IndexByte(a[ka:], '\n'); j >= 0 {
			s -= j + 1
		} else {
			s = 0
		}
	}
	return a[:len(a)-s], b[:len(b)-s]
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[i:]) == binary.LittleEndian.Uint64(b[i:]) {
		i += 8
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+8 <= n && binary.LittleEndian.Uint64(a[len(a)-i-8:]) == binary.LittleEndian.Uint64(b[len(b)-i-8:]) {
		i += 8
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// interner numbers distinct lines. Lines are found by a hash and confirmed
// by their bytes, so no line is copied.
type interner struct {
	seed  maphash.Seed
	ids   map[uint64]int32
	lines [][]byte         // by id
	other map[string]int32 // lines whose hash was taken by another line
}

func newInterner(lines int) *interner {
	return &interner{seed: maphash.MakeSeed(), ids: make(map[uint64]int32, lines), lines: make([][]byte, 0, lines)}
}

func (in *interner) id(line []byte) int32 {
	h := maphash.Bytes(in.seed, line)
	id, ok := in.ids[h]
	if !ok {
		id = int32(len(in.lines))
		in.ids[h] = id
		in.lines = append(in.lines, line)
		return id
	}
	if bytes.Equal(in.lines[id], line) {
		return id
	}
	if in.other == nil {
		in.other = map[string]int32{}
	}
	if id, ok := in.other[string(line)]; ok {
		return id
	}
	id = int32(len(in.lines))
	in.other[string(line)] = id
	in.lines = append(in.lines, line)
	return id
}

// lineEnd returns the end (exclusive, after the newline) of the line that
// starts at i.
func lineEnd(s []byte, i int) int {
	if j := bytes.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// countLines counts lines; a last line without a newline counts.
func countLines(s []byte) int {
	n := bytes.Count(s, []byte{'\n'})
	if len(s) > 0 && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// myersDistance returns the length of the shortest edit script (inserts
// plus deletes) turning a into b, by Myers' greedy forward search in
// O((N+M)D) time and O(D) space. ok is false when the work would exceed
// maxCost.
func myersDistance(a, b []int32, maxCost int) (int, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return n + m, true
	}
	// Round d costs at least d+1, so within maxCost d stays below
	// sqrt(2*maxCost): that bounds the diagonal array.
	dmax := 1
	for dmax*dmax < 2*maxCost {
		dmax *= 2
	}
	dmax = min(dmax, n+m)
	off := dmax + 1
	v := make([]int, 2*dmax+3)
	cost := 0
	for d := 0; d <= dmax; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: insert b[y]
			} else {
				x = v[off+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
				cost++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return d, true
			}
		}
		cost += d + 1
		if cost > maxCost {
			return 0, false
		}
	}
	return 0, false
}
