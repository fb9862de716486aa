package gitlog

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// packEntry is one object of a hand-built pack: a whole object (typ 1-4),
// or a delta (packOfsDelta against the entry at index base, packRefDelta
// against the object named ref) with its delta instructions.
type packEntry struct {
	typ     int
	content []byte // whole objects: the content; deltas: the resolved content
	base    int    // packOfsDelta: index of the base entry
	ref     plumbing.Hash
	delta   []byte // deltas: the instruction stream
	raw     []byte // when set, written instead of compressing the payload
}

// builtPack is a pack and its index written by buildPack.
type builtPack struct {
	dir     string // the objects/pack directory
	idxPath string
	names   []plumbing.Hash // per entry
	offsets []uint64
}

// objectName is git's name for an object: the SHA-1 of "type size\0content".
func objectName(typ int, content []byte) plumbing.Hash {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", objectTypes[typ], len(content))
	h.Write(content)
	var n plumbing.Hash
	copy(n[:], h.Sum(nil))
	return n
}

// deltaOf encodes a delta from base to target as one insert of the whole
// target preceded by a copy of base's first half (enough to exercise both
// instructions).
func deltaOf(base, target []byte) []byte {
	var d []byte
	d = binary.AppendUvarint(d, uint64(len(base)))
	d = binary.AppendUvarint(d, uint64(len(target)))
	half := min(len(base)/2, len(target))
	if half > 0 && bytes.Equal(base[:half], target[:half]) {
		d = append(d, 0x80|0x10|0x20, byte(half), byte(half>>8)) // copy offset 0, 2 size bytes
		target = target[half:]
	}
	for len(target) > 0 {
		n := min(len(target), 127)
		d = append(d, byte(n))
		d = append(d, target[:n]...)
		target = target[n:]
	}
	return d
}

// buildPack writes entries as objects/pack/pack-test.{pack,idx} under a
// new .git directory and returns it. With largeOffsets every offset goes
// through the index's 8-byte table.
func buildPack(t testing.TB, entries []packEntry, largeOffsets bool) builtPack {
	t.Helper()
	gitDir := filepath.Join(t.TempDir(), ".git")
	dir := filepath.Join(gitDir, "objects", "pack")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pk, idx, bp := packBytes(entries, largeOffsets)
	bp.dir = dir
	bp.idxPath = filepath.Join(dir, "pack-test.idx")
	if err := os.WriteFile(filepath.Join(dir, "pack-test.pack"), pk, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bp.idxPath, idx, 0o644); err != nil {
		t.Fatal(err)
	}
	return bp
}

// packBytes encodes entries as a pack and its version 2 index.
func packBytes(entries []packEntry, largeOffsets bool) (packData, idxData []byte, bp builtPack) {
	var pk bytes.Buffer
	pk.WriteString("PACK")
	binary.Write(&pk, binary.BigEndian, uint32(2))
	binary.Write(&pk, binary.BigEndian, uint32(len(entries)))
	for _, e := range entries {
		off := uint64(pk.Len())
		bp.offsets = append(bp.offsets, off)
		typ := e.typ
		if e.delta != nil && typ == 0 {
			typ = packOfsDelta
		}
		payload := e.content
		if e.delta != nil {
			payload = e.delta
		}
		size := len(payload)
		c := byte(typ<<4) | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			pk.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		pk.WriteByte(c)
		switch typ {
		case packOfsDelta:
			rel := off - bp.offsets[e.base]
			var enc []byte
			enc = append(enc, byte(rel&0x7f))
			for rel >>= 7; rel > 0; rel >>= 7 {
				rel--
				enc = append([]byte{0x80 | byte(rel&0x7f)}, enc...)
			}
			pk.Write(enc)
		case packRefDelta:
			pk.Write(e.ref[:])
		}
		if e.raw != nil {
			pk.Write(e.raw)
		} else {
			zw := zlib.NewWriter(&pk)
			zw.Write(payload)
			zw.Close()
		}
		resolved := e.typ // deltas in these packs are all of blobs
		if e.delta != nil {
			resolved = packBlob
		}
		bp.names = append(bp.names, objectName(resolved, e.content))
	}
	sum := sha1.Sum(pk.Bytes())
	pk.Write(sum[:])

	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return bytes.Compare(bp.names[order[a]][:], bp.names[order[b]][:]) < 0 })
	var idx bytes.Buffer
	idx.Write(idxMagic)
	for b := range 256 {
		n := 0
		for _, i := range order {
			if int(bp.names[i][0]) <= b {
				n++
			}
		}
		binary.Write(&idx, binary.BigEndian, uint32(n))
	}
	for _, i := range order {
		idx.Write(bp.names[i][:])
	}
	for range order {
		binary.Write(&idx, binary.BigEndian, uint32(0)) // CRCs: not read
	}
	for k, i := range order {
		if largeOffsets {
			binary.Write(&idx, binary.BigEndian, 0x80000000|uint32(k))
		} else {
			binary.Write(&idx, binary.BigEndian, uint32(bp.offsets[i]))
		}
	}
	if largeOffsets {
		for _, i := range order {
			binary.Write(&idx, binary.BigEndian, bp.offsets[i])
		}
	}
	idx.Write(sum[:])
	isum := sha1.Sum(idx.Bytes())
	idx.Write(isum[:])
	return pk.Bytes(), idx.Bytes(), bp
}

// readerOf returns a pack reader over a built pack's .git directory.
func readerOf(t testing.TB, bp builtPack) *packObjects {
	t.Helper()
	p := newPackObjects(filepath.Dir(bp.dir))
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// sampleEntries is a pack with whole objects of every type, a chain of
// offset deltas and reference deltas (one against a base later in the
// pack, as thin-pack fixes write them).
func sampleEntries() []packEntry {
	v0 := []byte(strings.Repeat("version zero of a file\n", 40))
	v1 := append(append([]byte(nil), v0[:len(v0)/2]...), "edited middle\n"...)
	v2 := append(append([]byte(nil), v1[:len(v1)/2]...), "edited again\n"...)
	v3 := []byte("a reference delta's result\n")
	late := []byte("a base written after its delta\n")
	return []packEntry{
		{typ: packCommit, content: []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@b> 1 +0000\ncommitter a <a@b> 1 +0000\n\nmsg\n")},
		{typ: packTree, content: []byte("100644 a\x00" + strings.Repeat("\x01", 20))},
		{typ: packTag, content: []byte("object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype tree\ntag t\n\nx\n")},
		{typ: packBlob, content: v0},
		{content: v1, base: 3, delta: deltaOf(v0, v1)},
		{content: v2, base: 4, delta: deltaOf(v1, v2)},
		{typ: packRefDelta, content: v3, ref: objectName(packBlob, late), delta: deltaOf(late, v3)},
		{typ: packBlob, content: late},
		{typ: packBlob, content: nil}, // the empty blob
	}
}

func TestPackReaderReadsEveryKind(t *testing.T) {
	t.Parallel()
	for _, large := range []bool{false, true} {
		t.Run(fmt.Sprintf("large offsets %v", large), func(t *testing.T) {
			t.Parallel()
			entries := sampleEntries()
			bp := buildPack(t, entries, large)
			p := readerOf(t, bp)
			for i, e := range entries {
				want := objectTypes[packBlob]
				if e.typ >= packCommit && e.typ <= packTag {
					want = objectTypes[e.typ]
				}
				obj, ok, err := p.read(bp.names[i], want, DefaultMaxFileBytes)
				if !ok || err != nil {
					t.Fatalf("entry %d (%s): not read (%v)", i, want, err)
				}
				if got := obj.(*rawObject).data; !bytes.Equal(got, e.content) {
					t.Errorf("entry %d: content %q, want %q", i, got, e.content)
				}
				if obj.Type() != want || obj.Hash() != bp.names[i] {
					t.Errorf("entry %d: type %s hash %s, want %s %s", i, obj.Type(), obj.Hash(), want, bp.names[i])
				}
				anyType, ok, err := p.read(bp.names[i], plumbing.AnyObject, DefaultMaxFileBytes)
				if !ok || err != nil || anyType.Type() != want {
					t.Errorf("entry %d as any type: ok %v, error %v", i, ok, err)
				}
				other := plumbing.TagObject
				if want == plumbing.TagObject {
					other = plumbing.BlobObject
				}
				if _, ok, err := p.read(bp.names[i], other, DefaultMaxFileBytes); ok || err != nil {
					t.Errorf("entry %d read as a %s: ok %v, error %v", i, other, ok, err)
				}
			}
			if _, ok, err := p.read(plumbing.NewHash("0123456789012345678901234567890123456789"), plumbing.AnyObject, DefaultMaxFileBytes); ok || err != nil {
				t.Errorf("an object not in the pack: ok %v, error %v", ok, err)
			}
		})
	}
}

// TestPackReaderLimits: an object (or a delta result) over the limit is
// left to go-git, and what was read stays valid after Close unmaps the
// pack.
func TestPackReaderLimits(t *testing.T) {
	t.Parallel()
	entries := sampleEntries()
	bp := buildPack(t, entries, false)
	p := readerOf(t, bp)
	if _, ok, err := p.read(bp.names[3], plumbing.BlobObject, int64(len(entries[3].content))-1); ok || err != nil {
		t.Errorf("a whole object over the limit: ok %v, error %v; want it left to go-git", ok, err)
	}
	if _, ok, err := p.read(bp.names[5], plumbing.BlobObject, int64(len(entries[5].content))-1); ok || err != nil {
		t.Errorf("a delta result over the limit: ok %v, error %v; want it left to go-git", ok, err)
	}
	obj, ok, err := p.read(bp.names[5], plumbing.BlobObject, DefaultMaxFileBytes)
	if !ok || err != nil {
		t.Fatalf("not read: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if got := obj.(*rawObject).data; !bytes.Equal(got, entries[5].content) {
		t.Error("content changed after Close")
	}
}

// TestPackReaderRejectsDamage: a damaged index, pack or object is an error
// naming the pack, never a retry through go-git, and never a panic; an
// index of version 1 and a delta base outside the packs are left to
// go-git.
func TestPackReaderRejectsDamage(t *testing.T) {
	t.Parallel()
	entries := sampleEntries()
	good := buildPack(t, entries, false)
	idx, err := os.ReadFile(good.idxPath)
	if err != nil {
		t.Fatal(err)
	}
	pack, err := os.ReadFile(strings.TrimSuffix(good.idxPath, ".idx") + ".pack")
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(b []byte, f func([]byte) []byte) []byte { return f(append([]byte(nil), b...)) }
	cases := []struct {
		name      string
		idx, pack []byte
		fallback  bool // left to go-git, not an error
	}{
		{"index version 1", mutate(idx, func(b []byte) []byte { copy(b, "\x00\x00\x00\x00"); return b }), pack, true},
		{"index of an unknown version", mutate(idx, func(b []byte) []byte { b[7] = 3; return b }), pack, false},
		{"index truncated", idx[:len(idx)-1], pack, false},
		{"fan-out unsorted", mutate(idx, func(b []byte) []byte { b[idxFanout+4*10+3] = 0xff; return b }), pack, false},
		{"index of another pack", mutate(idx, func(b []byte) []byte { b[len(b)-hashLen-1] ^= 1; return b }), pack, false},
		{"pack version 4", idx, mutate(pack, func(b []byte) []byte { b[7] = 4; return b }), false},
		{"pack count differs", idx, mutate(pack, func(b []byte) []byte { b[11]++; return b }), false},
		{"not a pack", idx, mutate(pack, func(b []byte) []byte { copy(b, "KCAP"); return b }), false},
		{"empty pack", idx, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bp := buildPack(t, entries, false)
			base := strings.TrimSuffix(bp.idxPath, ".idx")
			os.WriteFile(bp.idxPath, tc.idx, 0o644)
			os.WriteFile(base+".pack", tc.pack, 0o644)
			p := readerOf(t, bp)
			packName := filepath.Base(base + ".pack")
			for i := range entries {
				_, ok, err := p.read(bp.names[i], plumbing.AnyObject, DefaultMaxFileBytes)
				switch {
				case ok:
					t.Errorf("entry %d read from a rejected pack", i)
				case tc.fallback && err != nil:
					t.Errorf("entry %d: got error %v, want it left to go-git", i, err)
				case !tc.fallback && (err == nil || !strings.Contains(err.Error(), packName)):
					t.Errorf("entry %d: got error %v, want one naming %s", i, err, packName)
				}
			}
		})
	}

	// Damage inside one object: reading that object is an error naming
	// the pack, the others are read.
	objects := []struct {
		name  string
		entry packEntry
	}{
		{"corrupt zlib", packEntry{typ: packBlob, content: []byte("zzz"), raw: []byte("not zlib at all")}},
		{"stream longer than its size", packEntry{typ: packBlob, content: []byte("abd"), raw: zlibOf([]byte("abdefg"))}},
		{"stream shorter than its size", packEntry{typ: packBlob, content: []byte("abcdef"), raw: zlibOf([]byte("abc"))}},
		{"delta copy out of range", packEntry{content: []byte("xx"), base: 0, delta: []byte{3, 2, 0x80 | 0x01 | 0x10, 9, 2}}},
		{"delta insert past its size", packEntry{content: []byte("xx"), base: 0, delta: []byte{3, 2, 3, 'a', 'b', 'c'}}},
		{"delta source size wrong", packEntry{content: []byte("xx"), base: 0, delta: []byte{4, 2, 2, 'x', 'x'}}},
		{"delta reserved instruction", packEntry{content: []byte("xx"), base: 0, delta: []byte{3, 2, 0}}},
		{"delta result short", packEntry{content: []byte("xx"), base: 0, delta: []byte{3, 2, 1, 'x'}}},
	}
	for _, tc := range objects {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			list := []packEntry{{typ: packBlob, content: []byte("abc")}, tc.entry}
			bp := buildPack(t, list, false)
			p := readerOf(t, bp)
			packName := filepath.Base(strings.TrimSuffix(bp.idxPath, ".idx") + ".pack")
			_, ok, err := p.read(bp.names[1], plumbing.AnyObject, DefaultMaxFileBytes)
			if ok || err == nil || !strings.Contains(err.Error(), packName) || !strings.Contains(err.Error(), fmt.Sprintf("object at %d", bp.offsets[1])) {
				t.Errorf("a damaged object: ok %v, error %v; want an error naming %s and the object's offset %d", ok, err, packName, bp.offsets[1])
			}
			if obj, ok, err := p.read(bp.names[0], plumbing.BlobObject, DefaultMaxFileBytes); !ok || err != nil || string(obj.(*rawObject).data) != "abc" {
				t.Errorf("the sound object beside it was not read: %v", err)
			}
		})
	}

	// A reference delta whose base is not in the packs (it may be loose or
	// in an alternate object store) is left to go-git.
	missing := packEntry{typ: packRefDelta, content: []byte("xx"), ref: plumbing.NewHash("1111111111111111111111111111111111111111"), delta: []byte{3, 2, 2, 'x', 'x'}}
	bp := buildPack(t, []packEntry{missing}, false)
	p := readerOf(t, bp)
	if _, ok, err := p.read(bp.names[0], plumbing.AnyObject, DefaultMaxFileBytes); ok || err != nil {
		t.Errorf("a delta against a base outside the packs: ok %v, error %v; want it left to go-git", ok, err)
	}
}

func zlibOf(b []byte) []byte {
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// TestPackReaderRefDeltaCycle: two reference deltas naming each other end
// in an error naming the pack, not a loop.
func TestPackReaderRefDeltaCycle(t *testing.T) {
	t.Parallel()
	a := objectName(packBlob, []byte("a"))
	b := objectName(packBlob, []byte("b"))
	bp := buildPack(t, []packEntry{
		{typ: packRefDelta, content: []byte("a"), ref: b, delta: []byte{1, 1, 1, 'a'}},
		{typ: packRefDelta, content: []byte("b"), ref: a, delta: []byte{1, 1, 1, 'b'}},
	}, false)
	p := readerOf(t, bp)
	if _, ok, err := p.read(a, plumbing.BlobObject, DefaultMaxFileBytes); ok || err == nil || !strings.Contains(err.Error(), "delta chain longer") {
		t.Errorf("a cyclic delta: ok %v, error %v; want a delta chain error", ok, err)
	}
}

// TestBaseCacheBound: the delta-base cache stays within its byte budget,
// dropping the least recently used bases first.
func TestBaseCacheBound(t *testing.T) {
	t.Parallel()
	c := newBaseCache(100)
	pk := &pack{}
	for off := range uint64(10) {
		c.put(pk, off, packBlob, make([]byte, 20))
		c.get(pk, 0) // keep the first one warm
	}
	if c.used > 100 {
		t.Errorf("cache holds %d bytes, budget 100", c.used)
	}
	if _, ok := c.get(pk, 0); !ok {
		t.Error("the most recently used base was dropped")
	}
	if _, ok := c.get(pk, 1); ok {
		t.Error("an old base survived")
	}
	c.put(pk, 99, packBlob, make([]byte, 26)) // over a quarter: not kept
	if _, ok := c.get(pk, 99); ok {
		t.Error("an object over a quarter of the budget was cached")
	}
}

// agreeWithGoGit checks that every object in the repository's packs reads
// the same through the pack reader as through go-git, by type, content and
// size.
func agreeWithGoGit(t *testing.T, gitDir string) int {
	t.Helper()
	st := filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
	defer st.Close()
	p := newPackObjects(filepath.Join(gitDir, "objects"))
	defer p.Close()
	iter, err := st.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = iter.ForEach(func(want plumbing.EncodedObject) error {
		rd, err := want.Reader()
		if err != nil {
			return err
		}
		wantData, err := io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return err
		}
		got, ok, err := p.read(want.Hash(), want.Type(), DefaultMaxFileBytes)
		if !ok || err != nil {
			return fmt.Errorf("%s %s: not read (%v)", want.Type(), want.Hash(), err)
		}
		if got.Type() != want.Type() || !bytes.Equal(got.(*rawObject).data, wantData) {
			return fmt.Errorf("%s %s: differs from go-git's reading", want.Type(), want.Hash())
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPackReaderAgreesWithGoGit reads every object of a repository packed
// by go-git (offset deltas along each file's history).
func TestPackReaderAgreesWithGoGit(t *testing.T) {
	t.Parallel()
	r, _ := looseLoop(t)
	for i := range 30 {
		r.write("notes.md", strings.Repeat(fmt.Sprintf("note %d\n", i), 50+i)).commit(fmt.Sprintf("note %d\n", i))
	}
	r.pack()
	if n := agreeWithGoGit(t, filepath.Join(r.dir, ".git")); n < 60 {
		t.Errorf("only %d objects compared", n)
	}
}

// TestPackReaderAgreesWithGit reads every object of a repository packed by
// git itself with deep delta chains, when git is installed (the tests of
// this package need no git otherwise).
func TestPackReaderAgreesWithGit(t *testing.T) {
	t.Parallel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	r, _ := looseLoop(t)
	for i := range 60 {
		r.write("notes.md", strings.Repeat(fmt.Sprintf("note %d\n", i%7), 50+i)).
			write(fmt.Sprintf("dir%d/f.go", i%4), strings.Repeat("x", i*100)).commit(fmt.Sprintf("note %d\n", i))
	}
	cmd := exec.Command(gitBin, "-C", r.dir, "repack", "-a", "-d", "-f", "-q", "--depth=100", "--window=50")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git repack: %v\n%s", err, out)
	}
	if n := agreeWithGoGit(t, filepath.Join(r.dir, ".git")); n < 150 {
		t.Errorf("only %d objects compared", n)
	}
}

// FuzzPackReader reads every object of a pack built from the fuzzer's
// bytes (as one object's compressed stream, and as a delta against a
// sound base): nothing panics, the sound object is read, whatever is read
// is the size its header says, and every fault names the pack.
func FuzzPackReader(f *testing.F) {
	f.Add([]byte("plain content"), []byte{3, 2, 1, 'x', 0x90, 1})
	f.Add([]byte{}, []byte{0x80})
	f.Add(zlibOf([]byte("abc")), []byte{3, 3, 0x80 | 0x10 | 0x01, 0, 3})
	f.Fuzz(func(t *testing.T, raw, delta []byte) {
		data, idx, bp := packBytes([]packEntry{
			{typ: packBlob, content: []byte("abc")},
			{typ: packBlob, content: []byte("abcd"), raw: raw},
			{content: []byte("zz"), base: 0, delta: delta},
		}, false)
		// In memory: the reader sees exactly what the file would give.
		pk := memPack("fuzz.pack", idx, data)
		if err := pk.check(); err != nil {
			t.Fatalf("the built pack fails its checks: %v", err)
		}
		p := &packObjects{dirs: []packDir{{path: "fuzz"}}, opened: true, packs: []*pack{pk}, cache: newBaseCache(1 << 20)}
		for i, name := range bp.names {
			obj, ok, err := p.read(name, plumbing.AnyObject, 1<<16)
			if ok && obj.Size() != int64(len(obj.(*rawObject).data)) {
				t.Fatalf("size %d, data %d", obj.Size(), len(obj.(*rawObject).data))
			}
			if i == 0 && !ok {
				t.Fatalf("the sound object was not read: %v", err)
			}
			if err != nil && !strings.Contains(err.Error(), "fuzz.pack") {
				t.Fatalf("entry %d: the error does not name the pack: %v", i, err)
			}
		}
		out, err := applyDelta([]byte("abc"), delta, 1<<16)
		if err == nil {
			_, n, _ := deltaVarint(delta)
			dst, _, _ := deltaVarint(delta[n:])
			if uint64(len(out)) != dst {
				t.Fatalf("delta result of %d bytes, header says %d", len(out), dst)
			}
		} else if errors.Is(err, errPackFallback) {
			_, n, _ := deltaVarint(delta)
			if dst, _, _ := deltaVarint(delta[n:]); dst <= 1<<16 {
				t.Fatalf("fallback for a result of %d bytes: %v", dst, err)
			}
		}
	})
}

// TestPackReaderLargeOffsetOutOfRange: an index entry pointing past the
// 8-byte offset table (a slot number that would overflow a 32-bit int when
// multiplied) is an error naming the pack, never a panic or another
// object.
func TestPackReaderLargeOffsetOutOfRange(t *testing.T) {
	t.Parallel()
	entries := sampleEntries()
	for _, slot := range []uint32{uint32(len(entries)), 0x10000000, 0x20000000, 0x7fffffff} {
		data, idx, bp := packBytes(entries, true)
		// Point the first name's offset at the slot.
		binary.BigEndian.PutUint32(idx[idxNames+24*len(entries):], 0x80000000|slot)
		pk := memPack("test.pack", idx, data)
		if err := pk.check(); err != nil {
			t.Fatal(err)
		}
		first := bp.names[0]
		for _, n := range bp.names {
			if bytes.Compare(n[:], first[:]) < 0 {
				first = n
			}
		}
		if off, ok, err := pk.find(first); ok || err == nil || !strings.Contains(err.Error(), "test.pack") {
			t.Errorf("slot %#x: offset %d, found %v, error %v; want an error naming test.pack", slot, off, ok, err)
		}
	}
}

// packedEdit is a repository of two commits, the second setting a.txt
// to edit, with every object in one pack; it returns the first commit.
func packedEdit(t *testing.T, edit string) (*testRepo, plumbing.Hash) {
	t.Helper()
	r := newTestRepo(t)
	base := r.write("a.txt", "one\n").commit("base\n")
	r.write("a.txt", edit).commit("edit\n")
	r.pack()
	return r, base
}

// TestDamagedPackObjectFailsHistory: a packed blob whose compressed data is
// damaged fails History with an error naming the blob, the pack and the
// object's offset; it is not read again through go-git.
func TestDamagedPackObjectFailsHistory(t *testing.T) {
	t.Parallel()
	r, base := packedEdit(t, strings.Repeat("two\n", 50))
	blob := r.files["a.txt"].hash
	p := newPackObjects(filepath.Join(r.dir, ".git", "objects"))
	pk, off, found, err := p.locate(blob)
	if !found || err != nil {
		t.Fatalf("the blob is not in the pack: %v", err)
	}
	e, err := pk.header(off)
	if err != nil {
		t.Fatal(err)
	}
	name := pk.name
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	data[e.data] ^= 0xff // no longer a zlib header
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = r.open().History(defaultOpts(t, base.String()))
	for _, want := range []string{blob.String(), filepath.Base(name), fmt.Sprintf("object at %d", off)} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("History over a damaged packed blob: got error %v, want one naming %s", err, want)
		}
	}
}

// memPack is a pack read from memory.
func memPack(name string, idx, data []byte) *pack {
	return &pack{name: name, idx: idx, file: bytes.NewReader(data), size: int64(len(data)), close: func() error { return nil }}
}

// TestTruncatedAfterOpen: a pack that another process truncates after the
// reader opened it (git gc, a work space cleaned under a running check)
// makes every later read an error naming the pack, never a crash.
func TestTruncatedAfterOpen(t *testing.T) {
	t.Parallel()
	r, base := packedEdit(t, "two\n")
	p := newPackObjects(filepath.Join(r.dir, ".git", "objects"))
	p.room = 0 // read by offset, as a pack too large to hold is
	t.Cleanup(func() { _ = p.Close() })
	if _, ok, err := p.read(base, plumbing.CommitObject, DefaultMaxFileBytes); !ok || err != nil {
		t.Fatalf("read the base before the truncation: ok %v, %v", ok, err)
	}
	if len(p.packs) != 1 {
		t.Fatalf("%d packs open, want 1", len(p.packs))
	}
	name := p.packs[0].name
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
	for _, h := range []plumbing.Hash{r.head, r.head, r.files["a.txt"].hash} {
		_, ok, err := p.read(h, plumbing.AnyObject, DefaultMaxFileBytes)
		if ok || err == nil || !strings.Contains(err.Error(), filepath.Base(name)) {
			t.Errorf("read %s after the pack was truncated: ok %v, error %v; want an error naming %s", h, ok, err, filepath.Base(name))
		}
	}
}

// TestTruncatedPackFailsHistory: History over a repository whose pack was
// truncated after it was opened returns an error naming the pack.
func TestTruncatedPackFailsHistory(t *testing.T) {
	t.Parallel()
	r, base := packedEdit(t, "two\n")
	repo := r.open()
	repo.st.packs.room = 0 // read by offset, as a pack too large to hold is
	if _, err := repo.Resolve(base.String()); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.dir, ".git", "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs, want 1", len(packs))
	}
	if err := os.Truncate(packs[0], 0); err != nil {
		t.Fatal(err)
	}
	_, err := repo.History(defaultOpts(t, base.String()))
	if err == nil || !strings.Contains(err.Error(), filepath.Base(packs[0])) {
		t.Errorf("History after the pack was truncated: got %v, want an error naming %s", err, filepath.Base(packs[0]))
	}
}
