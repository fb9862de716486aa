package gitlog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

// TestPrefetchAgrees: History gives the same answer with blobs read ahead
// on another goroutine as with every blob read on the walk's, over loose
// and packed objects, renames, deletes, binary files, and a task file that
// returns to earlier contents (uses the walk never takes).
func TestPrefetchAgrees(t *testing.T) {
	t.Parallel()
	r, base := looseLoop(t)
	for i := range 40 {
		plan := "- [ ] a\n- [ ] b\n"
		if i%2 == 1 {
			plan = "- [x] a\n- [ ] b\n"
		}
		r.write("fix_plan.md", plan).
			write(fmt.Sprintf("pkg/f%d.go", i%6), strings.Repeat(fmt.Sprintf("line %d\n", i), 20+i))
		if i%9 == 8 {
			r.move(fmt.Sprintf("pkg/f%d.go", i%6), fmt.Sprintf("pkg/moved%d.go", i))
		}
		if i%13 == 12 {
			r.write("blob.bin", fmt.Sprintf("\x00binary %d", i))
		}
		r.commit(fmt.Sprintf("step %d\n", i))
	}
	opts := defaultOpts(t, base.String())
	history := func(mode prefetchMode) *History {
		t.Helper()
		repo := r.open()
		repo.prefetch = mode
		h, err := repo.History(opts)
		if err != nil {
			t.Fatal(err)
		}
		if repo.pre != nil {
			t.Error("the prefetcher outlived History")
		}
		switch {
		case mode == prefetchOff && repo.prefetched != 0:
			t.Errorf("%d blobs read ahead with the prefetcher off", repo.prefetched)
		case mode == prefetchAhead && repo.prefetched < 80:
			t.Errorf("only %d blobs read ahead", repo.prefetched)
		}
		return h
	}
	for _, packed := range []bool{false, true} {
		if packed {
			r.pack()
		}
		want := history(prefetchOff)
		if len(want.Commits) != 43 {
			t.Fatalf("%d commits, want 43", len(want.Commits))
		}
		for _, mode := range []prefetchMode{prefetchAhead, prefetchOn, prefetchOn, prefetchOn} {
			if diff := cmp.Diff(want, history(mode)); diff != "" {
				t.Fatalf("packed %v, mode %d: read ahead vs on the walk (-walk +ahead):\n%s", packed, mode, diff)
			}
		}
	}
}

// waitFor waits until cond holds under the prefetcher's lock.
func waitFor(p *prefetcher, cond func() bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !cond() {
		p.changed.Wait()
	}
}

// TestPrefetcherUses: a blob queued twice is taken twice, then no more; a
// blob the prefetcher cannot read and one not queued are left to the
// caller; the window holds the prefetcher back until the walk takes.
func TestPrefetcherUses(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("a", "aaaaaaaa").write("b", "bbbbbbbb").write("c", "cccccccc").commit("three blobs\n")
	a, b, c := r.files["a"].hash, r.files["b"].hash, r.files["c"].hash
	missing := plumbing.NewHash("0123456789012345678901234567890123456789")
	repo := r.open()

	p := newPrefetcher(repo, 10)
	go p.run()
	defer p.close()
	p.add(missing, a, a, b, c)
	// missing fails, a (8 bytes) is held; b makes 16 > 10: c waits.
	waitFor(p, func() bool { return p.next == 3 && p.fetches[b].done })
	if p.fetches[c].done || p.fetches[c].reading {
		t.Fatal("read past the window")
	}
	if _, ok := p.take(missing); ok {
		t.Error("a blob the prefetcher could not read was taken")
	}
	for i := range 2 {
		obj, ok := p.take(a)
		if !ok || string(obj.(*rawObject).data) != "aaaaaaaa" {
			t.Fatalf("take %d of a: ok %v", i+1, ok)
		}
	}
	if _, ok := p.take(a); ok {
		t.Error("a third take of a blob queued twice")
	}
	if _, ok := p.take(b); !ok {
		t.Error("b not taken")
	}
	// The window is free again: c is read.
	waitFor(p, func() bool { return p.fetches[c] != nil && p.fetches[c].done })
	if obj, ok := p.take(c); !ok || obj.Size() != 8 {
		t.Error("c not taken after the window freed")
	}
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	if held != 0 {
		t.Errorf("%d bytes held after every use was taken", held)
	}
	if _, ok := p.take(plumbing.NewHash("1111111111111111111111111111111111111111")); ok {
		t.Error("a blob never queued was taken")
	}
}

// TestPrefetcherClaims: a blob the prefetcher has not started is read by
// the walk (take says so) and skipped by the prefetcher; closing with work
// queued returns at once.
func TestPrefetcherClaims(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("a", "a").write("b", "b").commit("two blobs\n")
	repo := r.open()
	p := newPrefetcher(repo, 1<<20) // not running yet
	p.add(r.files["a"].hash, r.files["b"].hash)
	if _, ok := p.take(r.files["a"].hash); ok {
		t.Fatal("a blob not yet read was handed out")
	}
	go p.run()
	waitFor(p, func() bool { return p.next == 2 && p.fetches[r.files["b"].hash].done })
	if _, ok := p.fetches[r.files["a"].hash]; ok {
		t.Error("the prefetcher read a blob the walk had claimed")
	}
	q := newPrefetcher(repo, 0)
	go q.run()
	q.add(r.files["a"].hash, r.files["b"].hash, r.files["a"].hash)
	q.close() // must not wait for the queue
	p.close()
	var nilPrefetcher *prefetcher
	nilPrefetcher.add(r.files["a"].hash)
	if _, ok := nilPrefetcher.take(r.files["a"].hash); ok {
		t.Error("a nil prefetcher handed out a blob")
	}
	nilPrefetcher.close()
}

// TestPrefetcherDrop: a dropped use is one fewer to take, and dropping the
// last frees the bytes it held.
func TestPrefetcherDrop(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.write("a", "aaaa").commit("one blob\n")
	a := r.files["a"].hash
	p := newPrefetcher(r.open(), 1<<20)
	go p.run()
	defer p.close()
	p.add(a, a, a)
	waitFor(p, func() bool { return p.fetches[a].done })
	p.drop(a)
	if _, ok := p.take(a); !ok {
		t.Fatal("a use left after one drop was not taken")
	}
	p.drop(a)
	if _, ok := p.take(a); ok {
		t.Error("taken more often than queued less dropped")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held != 0 || len(p.fetches) != 0 {
		t.Errorf("held %d bytes in %d fetches after every use was taken or dropped", p.held, len(p.fetches))
	}
}
