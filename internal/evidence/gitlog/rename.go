package gitlog

import (
	"slices"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
)

// Bounds of the content rename search (git's own defaults are similar:
// diff.renameLimit 1000, -M50%).
const (
	renameLimit      = 1000     // at most this many added and deleted files
	renameScore      = 50       // percent of similar content to pair
	renameMaxBytes   = 1 << 20  // larger files are only paired when identical
	renameBytesTotal = 32 << 20 // content read for one search
)

// similarity is a file's content as a sorted multiset of line hashes, each
// weighted by its byte length (a line longer than 64 bytes is cut into
// 64-byte blocks, as jgit and go-git do).
type similarity struct {
	keys  []uint64
	bytes []uint32
	total int64
}

func newSimilarity(data []byte) *similarity {
	counts := map[uint64]uint32{}
	var h uint64 = 14695981039346656037
	n := uint32(0)
	for i, c := range data {
		h ^= uint64(c)
		h *= 1099511628211
		n++
		if c == '\n' || n == 64 || i == len(data)-1 {
			counts[h] += n
			h, n = 14695981039346656037, 0
		}
	}
	s := &similarity{keys: make([]uint64, 0, len(counts)), total: int64(len(data))}
	for k := range counts {
		s.keys = append(s.keys, k)
	}
	slices.Sort(s.keys)
	s.bytes = make([]uint32, len(s.keys))
	for i, k := range s.keys {
		s.bytes[i] = counts[k]
	}
	return s
}

// score is the shared content as a percentage of the larger file.
func (s *similarity) score(o *similarity) int {
	maxTotal := max(s.total, o.total)
	if maxTotal == 0 {
		return 100
	}
	var common int64
	i, j := 0, 0
	for i < len(s.keys) && j < len(o.keys) {
		switch {
		case s.keys[i] == o.keys[j]:
			common += int64(min(s.bytes[i], o.bytes[j]))
			i++
			j++
		case s.keys[i] < o.keys[j]:
			i++
		default:
			j++
		}
	}
	return int(common * 100 / maxTotal)
}

// pairRenames pairs deleted and added files whose contents are at least
// renameScore percent alike into renames, best score first. Files over
// renameMaxBytes (or over maxFileBytes), empty files, symbolic links and
// submodules are not paired by content, and the search is skipped when
// there are more than renameLimit candidates on a side.
func (r *Repo) pairRenames(changes []rawChange, maxFileBytes int64) ([]rawChange, error) {
	var adds, dels []int
	for i, c := range changes {
		switch {
		case c.from.path == "" && isFileMode(c.to.mode):
			adds = append(adds, i)
		case c.to.path == "" && isFileMode(c.from.mode):
			dels = append(dels, i)
		}
	}
	if len(adds) == 0 || len(dels) == 0 || len(adds) > renameLimit || len(dels) > renameLimit {
		return changes, nil
	}
	rn := &renamer{r: r, sizeLimit: min(int64(renameMaxBytes), maxFileBytes), budget: renameBytesTotal,
		sizes: map[plumbing.Hash]int64{}, index: map[plumbing.Hash]*similarity{}}
	pairs, err := rn.pairs(changes, dels, adds)
	if err != nil || len(pairs) == 0 {
		return changes, err
	}
	return applyRenames(changes, dels, adds, pairs), nil
}

// renamer compares the contents of one commit pair's deleted and added
// files, reading each blob at most once and at most renameBytesTotal in
// all.
type renamer struct {
	r         *Repo
	sizeLimit int64
	budget    int64
	sizes     map[plumbing.Hash]int64
	index     map[plumbing.Hash]*similarity // nil: over the budget
}

// renamePair is a deleted and an added file alike enough to be a rename:
// their indexes in dels and adds, their similarity, and their names'.
type renamePair struct{ del, add, score, name int }

// pairs returns every pair of a deleted and an added file alike enough.
func (rn *renamer) pairs(changes []rawChange, dels, adds []int) ([]renamePair, error) {
	var pairs []renamePair
	for di, d := range dels {
		dh := changes[d].from.hash
		dn, err := rn.size(dh)
		if err != nil {
			return nil, err
		}
		if dn == 0 || dn > rn.sizeLimit {
			continue
		}
		for ai, a := range adds {
			ah := changes[a].to.hash
			an, err := rn.size(ah)
			if err != nil {
				return nil, err
			}
			if an == 0 || an > rn.sizeLimit || min(an, dn)*100 < int64(renameScore)*max(an, dn) {
				continue
			}
			ds, err := rn.similarity(dh, dn)
			if err != nil {
				return nil, err
			}
			as, err := rn.similarity(ah, an)
			if err != nil {
				return nil, err
			}
			if ds == nil || as == nil {
				continue
			}
			if sc := ds.score(as); sc >= renameScore {
				pairs = append(pairs, renamePair{di, ai, sc, nameScore(changes[d].from.path, changes[a].to.path)})
			}
		}
	}
	return pairs, nil
}

// size is a blob's size; 0 for one that is missing (not paired: the
// change counts as unreadable). The blob is read as compare reads it
// (a large one is not: its size is in its header).
func (rn *renamer) size(h plumbing.Hash) (int64, error) {
	if n, ok := rn.sizes[h]; ok {
		return n, nil
	}
	var n int64
	obj, err := rn.r.blob(h)
	switch {
	case err == nil:
		n = obj.Size()
	case isMissing(err):
		err = nil
	}
	rn.sizes[h] = n
	return n, err
}

// similarity is a blob's similarity index, nil once the bytes read for
// renames would pass their budget.
func (rn *renamer) similarity(h plumbing.Hash, n int64) (*similarity, error) {
	if s, ok := rn.index[h]; ok {
		return s, nil
	}
	if n > rn.budget {
		rn.index[h] = nil
		return nil, nil
	}
	rn.budget -= n
	obj, err := rn.r.blob(h)
	if err != nil {
		return nil, err
	}
	data, err := rn.r.readBlob(obj, n)
	if err != nil {
		return nil, err
	}
	s := newSimilarity(data)
	rn.index[h] = s
	return s, nil
}

// applyRenames turns the best pairs into renames, best score first (then
// the closer names, then the order of the changes), each file in one pair
// at most: the add becomes the rename and the delete is dropped.
func applyRenames(changes []rawChange, dels, adds []int, pairs []renamePair) []rawChange {
	sort.Slice(pairs, func(i, j int) bool {
		p, q := pairs[i], pairs[j]
		if p.score != q.score {
			return p.score > q.score
		}
		if p.name != q.name {
			return p.name > q.name
		}
		if p.del != q.del {
			return p.del < q.del
		}
		return p.add < q.add
	})
	usedDel := make([]bool, len(dels))
	usedAdd := make([]bool, len(adds))
	drop := make([]bool, len(changes))
	for _, p := range pairs {
		if usedDel[p.del] || usedAdd[p.add] {
			continue
		}
		usedDel[p.del], usedAdd[p.add] = true, true
		d, a := dels[p.del], adds[p.add]
		changes[a].from = changes[d].from
		drop[d] = true
	}
	out := changes[:0]
	for i, c := range changes {
		if !drop[i] {
			out = append(out, c)
		}
	}
	return out
}

// nameScore breaks ties between equally similar candidates: the length of
// the common suffix of the two paths (same file name in another directory
// first).
func nameScore(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
