package gitlog

import (
	"runtime"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// prefetcher reads the blobs a history walk is about to compare on another
// core, ahead of the walk, which meanwhile diffs trees, counts lines and
// classifies (git log does all of it on one core). It has object readers
// of its own (the walk's mapped packs, its own delta-base cache and zlib
// state) and shares nothing with the walk but its table of results, under
// a mutex.
//
// The walk never waits for a blob the prefetcher has not started: it
// claims it and reads it itself. It waits only for a read in progress,
// which always ends. So a stalled or slow prefetcher costs time, never
// correctness, and whatever the prefetcher cannot read (an object outside
// the readers, damaged, too large) the walk reads and reports as before.
type prefetcher struct {
	loose *looseObjects
	packs *packObjects

	mu      sync.Mutex
	changed *sync.Cond // a result is ready, a slot freed, work queued, or closing
	queue   []plumbing.Hash
	next    int // queue[next] is the next to start
	fetches map[plumbing.Hash]*fetch
	window  int // the most bytes read ahead before waiting for the walk
	held    int // bytes of results read and not yet taken
	closed  bool
	exited  chan struct{}
	served  int // blobs handed out read
}

// fetch is the state of one queued blob.
type fetch struct {
	uses    int // queued uses not yet taken
	reading bool
	done    bool // obj is set, or nil when the prefetcher could not read it
	obj     plumbing.EncodedObject
}

// prefetchWindow bounds the bytes of blobs read ahead and not yet taken
// (a use the walk neither takes nor drops holds its bytes until the walk
// ends; then the walk reads what is left itself).
const prefetchWindow = 32 << 20

// prefetchCacheBytes bounds the prefetcher's own delta-base cache.
const prefetchCacheBytes = 32 << 20

// prefetchMode says whether History reads blobs ahead.
type prefetchMode int8

const (
	prefetchAuto prefetchMode = iota // when there are two cores or more
	prefetchOff
	prefetchOn
	prefetchAhead // tests: everything is read ahead before the walk takes any
)

// startPrefetch starts a prefetcher for r, or returns nil when it would
// not help: one core, or no objects this package reads itself.
func (r *Repo) startPrefetch() *prefetcher {
	if r.loose.dir == "" && r.packs.dir == "" {
		return nil
	}
	if r.prefetch == prefetchOff || (r.prefetch == prefetchAuto && runtime.GOMAXPROCS(0) < 2) {
		return nil
	}
	p := newPrefetcher(r, prefetchWindow)
	go p.run()
	return p
}

// newPrefetcher returns a prefetcher over r's objects holding at most
// about window bytes read ahead; run starts it.
func newPrefetcher(r *Repo, window int) *prefetcher {
	p := &prefetcher{
		loose:   &looseObjects{dir: r.loose.dir, sized: map[plumbing.Hash]rawSized{}},
		packs:   r.packs.sharing(prefetchCacheBytes),
		window:  window,
		fetches: map[plumbing.Hash]*fetch{},
		exited:  make(chan struct{}),
	}
	p.changed = sync.NewCond(&p.mu)
	return p
}

// add queues the blobs a walk will read, one use each.
func (p *prefetcher) add(hashes ...plumbing.Hash) {
	if p == nil || len(hashes) == 0 {
		return
	}
	p.mu.Lock()
	for _, h := range hashes {
		if f, ok := p.fetches[h]; ok {
			f.uses++
			continue
		}
		p.fetches[h] = &fetch{uses: 1}
		p.queue = append(p.queue, h)
	}
	p.mu.Unlock()
	p.changed.Broadcast()
}

// take returns the prefetched blob h, using up one of its queued uses; ok
// is false when the caller must read it (not queued, not started, or not
// readable by the prefetcher).
func (p *prefetcher) take(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.fetches[h]
	for ok && f.reading {
		p.changed.Wait()
		f, ok = p.fetches[h]
	}
	if !ok {
		return nil, false
	}
	if !f.done {
		// Not started: the caller reads it, and the prefetcher skips it.
		delete(p.fetches, h)
		return nil, false
	}
	if f.obj != nil {
		p.served++
	}
	if f.uses--; f.uses <= 0 || f.obj == nil {
		delete(p.fetches, h)
		if f.obj != nil {
			p.held -= int(f.obj.Size())
		}
		p.changed.Broadcast()
	}
	return f.obj, f.obj != nil
}

// drop gives up one queued use of h without reading it: the walk found
// what it needed elsewhere (a task file's counts, remembered by content).
func (p *prefetcher) drop(h plumbing.Hash) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.fetches[h]
	if !ok || f.reading {
		return
	}
	if f.uses--; f.uses > 0 {
		return
	}
	delete(p.fetches, h)
	if f.obj != nil {
		p.held -= int(f.obj.Size())
		p.changed.Broadcast()
	}
}

// run reads the queued blobs in order until closed.
func (p *prefetcher) run() {
	defer close(p.exited)
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for !p.closed && (p.next == len(p.queue) || p.held > p.window) {
			p.changed.Wait()
		}
		if p.closed {
			return
		}
		h := p.queue[p.next]
		p.next++
		f, ok := p.fetches[h]
		if !ok || f.reading || f.done {
			continue // taken by the walk, or queued again after it was read
		}
		f.reading = true
		p.mu.Unlock()
		obj, ok := readRaw(p.loose, p.packs, h, plumbing.BlobObject, DefaultMaxFileBytes)
		p.mu.Lock()
		f.reading, f.done = false, true
		if ok {
			f.obj = obj
			p.held += int(obj.Size())
		}
		p.changed.Broadcast()
	}
}

// drain waits until every queued blob has been read or skipped.
func (p *prefetcher) drain() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.next < len(p.queue) && p.held <= p.window && !p.closed {
		p.changed.Wait()
	}
	for _, f := range p.fetches {
		for f.reading {
			p.changed.Wait()
		}
	}
}

// close stops the prefetcher and waits for it, so that the packs it reads
// can be unmapped.
func (p *prefetcher) close() (served int) {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.changed.Broadcast()
	<-p.exited
	return p.served
}

// blobUses returns the blobs classify reads for raw: both sides of each
// change that are files, and the new side once more when it is a task file
// (the task counts read it too).
func blobUses(raw []rawChange, tasks func(path string) bool) []plumbing.Hash {
	var hs []plumbing.Hash
	for _, c := range raw {
		if c.from.path != "" && isBlobMode(c.from.mode) {
			hs = append(hs, c.from.hash)
		}
		if c.to.path != "" && isBlobMode(c.to.mode) {
			hs = append(hs, c.to.hash)
			if isFileMode(c.to.mode) && tasks(c.to.path) {
				hs = append(hs, c.to.hash)
			}
		}
	}
	return hs
}
