package gitlog

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/list"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// packObjects reads objects from the repository's version 2 pack files
// and those of its alternate object stores, measured faster than go-git's
// reader (docs/performance.md): indexes in memory, small packs read whole,
// larger ones by positional reads, delta chains resolved against a bounded
// cache of bases, never hashing. Every read is bounds-checked against the
// pack's size. What it does not handle (a version 1 or oversized index, a
// pack stored as a link, a delta base outside the packs, an object over
// the size limit) is left to go-git; damaged data is an error naming the
// pack, never retried through go-git.
type packObjects struct {
	dirs   []packDir // the objects/pack directories; none disables
	opened bool      // the packs were listed and opened
	packs  []*pack   // in the order of their directories, then of their names
	fault  error     // packs that could not be opened, each named
	held   int64     // bytes of the packs read whole into memory
	room   int64     // bytes they may take: heldPackBytes
	zr     io.ReadCloser
	src    *bufio.Reader // over a pack read by offset
	mem    bytes.Reader  // over a pack held in memory
	cache  *baseCache
}

// packDir is one objects/pack directory.
type packDir struct {
	path      string
	alternate bool // an alternate object store's: errors name its packs by path
}

// pack is one open pack file and its index, read into memory.
type pack struct {
	name      string // the .pack file
	alternate bool   // an alternate store's pack: errors name its path, not only its file name
	idx       []byte
	file      io.ReaderAt // the pack file
	data      []byte      // the whole pack, when it is held in memory
	size      int64       // its size when it was opened
	close     func() error
	n         int // objects
	names     int // offset of the sorted object names in idx
	offs      int // offset of the 4-byte offsets
	large     int // offset of the 8-byte offsets
}

// Pack object types (git's pack format: 1-4 are whole objects).
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOfsDelta = 6
	packRefDelta = 7
)

// maxDeltaChain bounds a delta chain: git's own packs stay at depth 50 by
// default (4,095 at most); a longer chain is a damaged or hostile pack.
const maxDeltaChain = 10000

// The delta-base cache holds half the size of the packs, between these
// bounds (docs/performance.md: too small a cache slows long chains of large
// files, too large one holds every object read).
const (
	minBaseCacheBytes = 16 << 20
	maxBaseCacheBytes = 64 << 20
)

// maxIndexBytes bounds a pack index read into memory (28 bytes an object
// and more: about 2.4 million objects); a larger pack is left to go-git.
const maxIndexBytes = 64 << 20

// errPackFallback marks an object or a pack this reader leaves to go-git.
var errPackFallback = errors.New("left to go-git")

// newPackObjects returns the reader of the packs in the given objects
// directories (the repository's own first, then its alternates; an empty
// path is skipped), reading nothing when none has an objects/pack
// directory. The packs are opened on first use.
func newPackObjects(objectDirs ...string) *packObjects {
	p := &packObjects{room: heldPackBytes, cache: newBaseCache(minBaseCacheBytes)}
	for i, objects := range objectDirs {
		if objects == "" {
			continue
		}
		dir := filepath.Join(objects, "pack")
		if st, err := os.Lstat(dir); err == nil && st.IsDir() {
			p.dirs = append(p.dirs, packDir{path: dir, alternate: i > 0})
		}
	}
	return p
}

// open lists and opens the packs once. A pack left to go-git is skipped;
// one that fails its checks is a fault, reported for every object the
// other packs do not hold.
func (p *packObjects) open() {
	p.opened = true
	var faults []error
	for _, dir := range p.dirs {
		ents, err := os.ReadDir(dir.path)
		if err != nil {
			faults = append(faults, fmt.Errorf("list the packs in %s: %w", dir.path, err))
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasPrefix(name, "pack-") || !strings.HasSuffix(name, ".idx") {
				continue
			}
			base := filepath.Join(dir.path, strings.TrimSuffix(name, ".idx"))
			pk, err := openPack(base+".idx", base+".pack", dir.alternate)
			switch {
			case errors.Is(err, errPackFallback):
			case err != nil:
				faults = append(faults, err)
			default:
				p.hold(pk)
				p.packs = append(p.packs, pk)
			}
		}
	}
	p.fault = errors.Join(faults...)
	var total int64
	for _, pk := range p.packs {
		total += pk.size
	}
	p.cache.max = int(min(max(total/2, minBaseCacheBytes), maxBaseCacheBytes))
}

// heldPackBytes bounds the packs read whole into memory, all together;
// larger packs are read by offset, as git reads its packs through windows.
const heldPackBytes = 32 << 20

// hold reads a checked pack whole into memory when it fits in what is left
// of heldPackBytes. A pack that cannot be read whole stays read by offset,
// where its fault is found and named.
func (p *packObjects) hold(pk *pack) {
	if pk.size > p.room-p.held {
		return
	}
	data := make([]byte, pk.size)
	if err := pk.readAt(data, 0); err != nil {
		return
	}
	pk.data, pk.file = data, bytes.NewReader(data)
	p.held += pk.size
	_ = pk.close()
	pk.close = func() error { return nil }
}

// Close closes the packs.
func (p *packObjects) Close() error {
	var errs []error
	for _, pk := range p.packs {
		errs = append(errs, pk.close())
	}
	p.packs, p.held = nil, 0
	p.cache.clear()
	return errors.Join(errs...)
}

// openPack reads an index, opens its pack and checks their structure. The
// error names the pack, or is errPackFallback for a pack left to go-git.
func openPack(idxPath, packPath string, alternate bool) (*pack, error) {
	label := packLabel(packPath, alternate)
	if isLink(idxPath) || isLink(packPath) {
		return nil, errPackFallback
	}
	idx, err := regularfile.Read(idxPath, maxIndexBytes, "pack index")
	if err != nil {
		if fi, serr := os.Stat(idxPath); serr == nil && fi.Mode().IsRegular() && fi.Size() > maxIndexBytes {
			return nil, errPackFallback
		}
		return nil, fmt.Errorf("read pack %s: read its index: %w", label, err)
	}
	f, fi, err := regularfile.Open(packPath)
	if err != nil {
		return nil, fmt.Errorf("read pack %s: %w", label, err)
	}
	pk := &pack{name: packPath, alternate: alternate, idx: idx, file: f, size: fi.Size(), close: f.Close}
	if err := pk.check(); err != nil {
		_ = f.Close()
		if errors.Is(err, errPackFallback) {
			return nil, err
		}
		return nil, pk.fault(err)
	}
	return pk, nil
}

// readAt reads exactly len(buf) bytes at off, which must lie in the pack.
func (pk *pack) readAt(buf []byte, off int64) error {
	if off < 0 || off > pk.size-int64(len(buf)) {
		return fmt.Errorf("read of %d bytes at %d outside the pack", len(buf), off)
	}
	if _, err := pk.file.ReadAt(buf, off); err == io.EOF {
		return fmt.Errorf("read at %d: the pack file was truncated after it was opened", off)
	} else if err != nil {
		return fmt.Errorf("read at %d: %w", off, err)
	}
	return nil
}

// fault names the damaged pack in err.
func (pk *pack) fault(err error) error {
	return fmt.Errorf("damaged pack: %s: %w", packLabel(pk.name, pk.alternate), err)
}

// packLabel is how errors name a pack: by its file name, and by its path
// when it is an alternate object store's.
func packLabel(path string, alternate bool) string {
	if alternate {
		return path
	}
	return filepath.Base(path)
}

// Index version 2: magic, version, 256 fan-out counts, then per object a
// name, a CRC and a 4-byte offset, then the 8-byte offsets, then the pack's
// and the index's checksums.
var idxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

const (
	idxFanout  = 8
	idxNames   = idxFanout + 256*4
	packHeader = 12
	hashLen    = 20
)

// check validates the index's layout against its length and the pack's
// header against the index, so that every later lookup stays in bounds.
// An index without the version 2 header (version 1) is errPackFallback.
func (pk *pack) check() error {
	if len(pk.idx) >= idxFanout && !bytes.Equal(pk.idx[:4], idxMagic[:4]) {
		return errPackFallback
	}
	if len(pk.idx) < idxNames+2*hashLen || !bytes.Equal(pk.idx[:8], idxMagic) {
		return errors.New("not a version 2 pack index")
	}
	prev := uint32(0)
	for i := range 256 {
		v := binary.BigEndian.Uint32(pk.idx[idxFanout+4*i:])
		if v < prev {
			return errors.New("fan-out table not sorted")
		}
		prev = v
	}
	n := int(prev)
	fixed := idxNames + 28*n + 2*hashLen
	if n > (len(pk.idx)-idxNames)/28 || len(pk.idx) < fixed || (len(pk.idx)-fixed)%8 != 0 {
		return fmt.Errorf("index of %d objects has the wrong length %d", n, len(pk.idx))
	}
	pk.n = n
	pk.names = idxNames
	pk.offs = idxNames + 24*n
	pk.large = idxNames + 28*n
	var head [packHeader]byte
	var sum [hashLen]byte
	if pk.size < packHeader+hashLen || pk.readAt(head[:], 0) != nil || string(head[:4]) != "PACK" {
		return errors.New("pack has no PACK header")
	}
	if v := binary.BigEndian.Uint32(head[4:]); v != 2 && v != 3 {
		return fmt.Errorf("pack version %d", v)
	}
	if c := binary.BigEndian.Uint32(head[8:]); int64(c) != int64(n) {
		return fmt.Errorf("pack holds %d objects, index %d", c, n)
	}
	// The index ends with the pack's checksum.
	if err := pk.readAt(sum[:], pk.size-hashLen); err != nil {
		return err
	}
	if !bytes.Equal(pk.idx[len(pk.idx)-2*hashLen:len(pk.idx)-hashLen], sum[:]) {
		return errors.New("index does not belong to the pack")
	}
	return nil
}

// find returns the pack offset of object h; ok is false when the pack does
// not hold it. A damaged index entry is an error.
func (pk *pack) find(h plumbing.Hash) (off uint64, ok bool, err error) {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(pk.idx[idxFanout+4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(pk.idx[idxFanout+4*int(h[0]):]))
	i := lo + sort.Search(hi-lo, func(i int) bool {
		at := pk.names + hashLen*(lo+i)
		return bytes.Compare(pk.idx[at:at+hashLen], h[:]) >= 0
	})
	if i >= hi || !bytes.Equal(pk.idx[pk.names+hashLen*i:pk.names+hashLen*(i+1)], h[:]) {
		return 0, false, nil
	}
	v := binary.BigEndian.Uint32(pk.idx[pk.offs+4*i:])
	if v&0x80000000 == 0 {
		return uint64(v), true, nil
	}
	// The slot is checked before it is multiplied (int may be 32 bits).
	slot := int64(v & 0x7fffffff)
	if slot >= int64(len(pk.idx)-2*hashLen-pk.large)/8 {
		return 0, false, pk.fault(fmt.Errorf("index entry of %s: large offset %d out of range", h, slot))
	}
	at := pk.large + 8*int(slot)
	return binary.BigEndian.Uint64(pk.idx[at:]), true, nil
}

// locate returns the pack holding h and its offset; found is false when no
// pack read here holds it. The error is a damaged index entry, or, for an
// object the packs read here do not hold, the packs that could not be
// opened (it may be in one of them).
func (p *packObjects) locate(h plumbing.Hash) (pk *pack, off uint64, found bool, err error) {
	if len(p.dirs) == 0 {
		return nil, 0, false, nil
	}
	if !p.opened {
		p.open()
	}
	for _, pk := range p.packs {
		if off, ok, err := pk.find(h); ok || err != nil {
			return pk, off, ok, err
		}
	}
	return nil, 0, false, p.fault
}

// entry is the header of the object at an offset: its pack type, its
// (inflated) size, where its compressed data starts, and for a delta where
// its base is.
type entry struct {
	typ     int
	size    int64
	data    int64    // offset of the zlib stream
	baseOff uint64   // OFS_DELTA: the base's offset
	baseRef [20]byte // REF_DELTA: the base's name
}

// header parses the object header at off.
func (pk *pack) header(off uint64) (entry, error) {
	var e entry
	end := uint64(pk.size - hashLen)
	if off < packHeader || off >= end {
		return e, fmt.Errorf("object offset %d outside the pack", off)
	}
	// A header is at most 10 bytes of size and 20 of delta base.
	var buf [maxEntryHeader]byte
	d := buf[:min(uint64(len(buf)), end-off)]
	if err := pk.readAt(d, int64(off)); err != nil {
		return e, err
	}
	i := 0
	c := d[i]
	i++
	e.typ = int(c>>4) & 7
	e.size = int64(c & 0x0f)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if i >= len(d) || shift > 56 {
			return e, fmt.Errorf("object at %d: malformed size", off)
		}
		c = d[i]
		i++
		e.size |= int64(c&0x7f) << shift
	}
	if e.size < 0 {
		return e, fmt.Errorf("object at %d: malformed size", off)
	}
	switch e.typ {
	case packCommit, packTree, packBlob, packTag:
	case packOfsDelta:
		if i >= len(d) {
			return e, fmt.Errorf("object at %d: truncated delta offset", off)
		}
		c = d[i]
		i++
		rel := uint64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(d) || rel > 1<<56 {
				return e, fmt.Errorf("object at %d: malformed delta offset", off)
			}
			c = d[i]
			i++
			rel = (rel+1)<<7 | uint64(c&0x7f)
		}
		if rel == 0 || rel > off-packHeader {
			return e, fmt.Errorf("object at %d: delta base offset out of range", off)
		}
		e.baseOff = off - rel
	case packRefDelta:
		if i+hashLen > len(d) {
			return e, fmt.Errorf("object at %d: truncated delta base", off)
		}
		copy(e.baseRef[:], d[i:i+hashLen])
		i += hashLen
	default:
		return e, fmt.Errorf("object at %d: unknown type %d", off, e.typ)
	}
	e.data = int64(off) + int64(i)
	return e, nil
}

// maxEntryHeader bounds the bytes read for an object's header.
const maxEntryHeader = 32

// stream points the reused zlib reader at the compressed data at off,
// reading at most limit bytes of it. inflate's limit is the most its
// object's size takes compressed by git's zlib (stored blocks add 5 bytes
// in 64 KiB, the header and checksum 6): most objects are small, and
// reading the whole buffer for each would copy far more than it uses.
func (p *packObjects) stream(pk *pack, off, limit int64) error {
	end := off + min(pk.size-hashLen-off, limit)
	var src io.Reader
	if pk.data != nil {
		p.mem.Reset(pk.data[off:end]) // a byte reader: inflated without a copy
		src = &p.mem
	} else {
		sec := io.NewSectionReader(pk.file, off, end-off)
		if p.src == nil {
			p.src = bufio.NewReaderSize(sec, 32<<10)
		} else {
			p.src.Reset(sec)
		}
		src = p.src
	}
	if p.zr == nil {
		var err error
		p.zr, err = zlib.NewReader(src)
		return err
	}
	return p.zr.(zlib.Resetter).Reset(src, nil)
}

// inflate decompresses exactly size bytes from the zlib stream at off,
// checking that the stream ends there (with its checksum).
func (p *packObjects) inflate(pk *pack, off int64, size int64) ([]byte, error) {
	out, err := p.inflateWithin(pk, off, size, size+size>>10+64)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// A stream longer than git's zlib makes it: read on to the end.
		out, err = p.inflateWithin(pk, off, size, pk.size)
	}
	return out, err
}

// inflateWithin is inflate reading at most limit compressed bytes.
func (p *packObjects) inflateWithin(pk *pack, off, size, limit int64) ([]byte, error) {
	if err := p.stream(pk, off, limit); err != nil {
		return nil, fmt.Errorf("inflate: %w", err)
	}
	out := make([]byte, size)
	if _, err := io.ReadFull(p.zr, out); err != nil {
		return nil, fmt.Errorf("inflate %d bytes: %w", size, err)
	}
	var one [1]byte
	if n, err := p.zr.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than its header says")
		}
		return nil, fmt.Errorf("inflate: %w", err)
	}
	return out, nil
}

// link is one step of a delta chain being resolved.
type link struct {
	pk  *pack
	off uint64
	e   entry
}

// object reads the object at (pk, off): its type (1-4) and content. An
// object or any base of it larger than max is left to go-git.
func (p *packObjects) object(pk *pack, off uint64, max int64) (int, []byte, error) {
	var chain []link
	var typ int
	var data []byte
	for {
		if c, ok := p.cache.get(pk, off); ok {
			if int64(len(c.data)) > max {
				return 0, nil, errPackFallback
			}
			typ, data = c.typ, c.data
			break
		}
		e, err := pk.header(off)
		if err != nil {
			return 0, nil, pk.fault(err)
		}
		if e.size > max {
			return 0, nil, errPackFallback
		}
		if e.typ != packOfsDelta && e.typ != packRefDelta {
			if data, err = p.inflate(pk, e.data, e.size); err != nil {
				return 0, nil, pk.fault(fmt.Errorf("object at %d: %w", off, err))
			}
			typ = e.typ
			if len(chain) > 0 {
				p.cache.put(pk, off, typ, data)
			}
			break
		}
		if len(chain) == maxDeltaChain {
			return 0, nil, pk.fault(fmt.Errorf("object at %d: delta chain longer than %d", off, maxDeltaChain))
		}
		chain = append(chain, link{pk, off, e})
		if e.typ == packOfsDelta {
			off = e.baseOff
			continue
		}
		bp, boff, found, err := p.locate(plumbing.Hash(e.baseRef))
		if err != nil {
			return 0, nil, err
		}
		if !found {
			return 0, nil, errPackFallback // a base outside the packs
		}
		pk, off = bp, boff
	}
	for i := len(chain) - 1; i >= 0; i-- {
		l := chain[i]
		delta, err := p.inflate(l.pk, l.e.data, l.e.size)
		if err != nil {
			return 0, nil, l.pk.fault(fmt.Errorf("object at %d: %w", l.off, err))
		}
		if data, err = applyDelta(data, delta, max); err != nil {
			if errors.Is(err, errPackFallback) {
				return 0, nil, err
			}
			return 0, nil, l.pk.fault(fmt.Errorf("object at %d: %w", l.off, err))
		}
		p.cache.put(l.pk, l.off, typ, data)
	}
	return typ, data, nil
}

// deltaVarint reads one of a delta's two leading sizes.
func deltaVarint(d []byte) (v uint64, n int, ok bool) {
	for shift := 0; n < len(d) && shift <= 63; shift += 7 {
		c := d[n]
		n++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, n, true
		}
	}
	return 0, 0, false
}

// deltaOperand reads a copy instruction's operand: the bytes that op's
// bits first..first+count-1 select, least significant first.
func deltaOperand(op byte, first, count int, delta []byte) (uint64, []byte, bool) {
	var v uint64
	for b := range count {
		if op&(1<<(first+b)) == 0 {
			continue
		}
		if len(delta) == 0 {
			return 0, nil, false
		}
		v |= uint64(delta[0]) << (8 * b)
		delta = delta[1:]
	}
	return v, delta, true
}

// applyDelta applies a git delta to base. A result over max is left to
// go-git (errPackFallback); a malformed delta is an error.
func applyDelta(base, delta []byte, max int64) ([]byte, error) {
	srcSize, n, ok := deltaVarint(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errors.New("delta does not fit its base")
	}
	delta = delta[n:]
	dstSize, n, ok := deltaVarint(delta)
	if !ok {
		return nil, errors.New("malformed delta size")
	}
	if dstSize > uint64(max) {
		return nil, errPackFallback
	}
	delta = delta[n:]
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0: // copy from the base
			off, rest, ok1 := deltaOperand(op, 0, 4, delta)
			size, rest, ok2 := deltaOperand(op, 4, 3, rest)
			if !ok1 || !ok2 {
				return nil, errors.New("truncated delta copy")
			}
			delta = rest
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > dstSize {
				return nil, errors.New("delta copy out of range")
			}
			out = append(out, base[off:off+size]...)
		case op != 0: // insert op bytes
			if int(op) > len(delta) || uint64(len(out))+uint64(op) > dstSize {
				return nil, errors.New("delta insert out of range")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, errors.New("reserved delta instruction")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errors.New("delta result shorter than its header says")
	}
	return out, nil
}

// objectTypes maps pack types to go-git's.
var objectTypes = [...]plumbing.ObjectType{
	packCommit: plumbing.CommitObject,
	packTree:   plumbing.TreeObject,
	packBlob:   plumbing.BlobObject,
	packTag:    plumbing.TagObject,
}

// read returns packed object h when it is one of type want (or want is
// plumbing.AnyObject) and at most max bytes; ok is false when go-git
// should read it instead (not packed here, another type, larger, or a delta
// against a base outside the packs). Damaged data is an error naming the
// pack, and so is a pack cut short since it was opened.
func (p *packObjects) read(h plumbing.Hash, want plumbing.ObjectType, max int64) (plumbing.EncodedObject, bool, error) {
	pk, off, found, err := p.locate(h)
	if err != nil || !found {
		return nil, false, err
	}
	typ, data, err := p.object(pk, off, max)
	if errors.Is(err, errPackFallback) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !wanted(objectTypes[typ], want) {
		return nil, false, nil
	}
	// The content may be a cached delta base: callers only read it, and
	// the full slice expression keeps an append from writing into it.
	return &rawObject{hash: h, typ: objectTypes[typ], data: data[:len(data):len(data)]}, true, nil
}

// baseCache keeps recently resolved delta bases, least recently used out
// first, bounded by their total size.
type baseCache struct {
	max, used int
	order     *list.List // of *cached, most recent first
	byKey     map[cacheKey]*list.Element
}

type cacheKey struct {
	pk  *pack
	off uint64
}

type cached struct {
	key  cacheKey
	typ  int
	data []byte
}

// baseCacheEntries sizes the cache's index up front: a walk of a hundred
// commits resolves thousands of delta bases, and growing the index to
// them step by step cost a tenth of the reads.
const baseCacheEntries = 1 << 12

func newBaseCache(max int) *baseCache {
	return &baseCache{max: max, order: list.New(), byKey: make(map[cacheKey]*list.Element, baseCacheEntries)}
}

func (c *baseCache) get(pk *pack, off uint64) (*cached, bool) {
	el, ok := c.byKey[cacheKey{pk, off}]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cached), true
}

func (c *baseCache) put(pk *pack, off uint64, typ int, data []byte) {
	if len(data) > c.max/4 {
		return // one object must not empty the cache
	}
	k := cacheKey{pk, off}
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.order.PushFront(&cached{k, typ, data})
	c.used += len(data)
	for c.used > c.max {
		last := c.order.Back()
		old := last.Value.(*cached)
		c.order.Remove(last)
		delete(c.byKey, old.key)
		c.used -= len(old.data)
	}
}

func (c *baseCache) clear() {
	c.order.Init()
	clear(c.byKey)
	c.used = 0
}
