package checkout

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// packObjectHeader writes a pack object's type and inflated size.
func packObjectHeader(w io.Writer, typ int, size int64) {
	b := byte(typ<<4) | byte(size&0x0f)
	for size >>= 4; size > 0; size >>= 7 {
		w.Write([]byte{b | 0x80})
		b = byte(size & 0x7f)
	}
	w.Write([]byte{b})
}

// writeZeros writes n zero bytes to w.
func writeZeros(w io.Writer, n int64) {
	buf := make([]byte, 1<<20)
	for ; n > 0; n -= int64(len(buf)) {
		w.Write(buf[:min(n, int64(len(buf)))])
	}
}

// bombBundle writes a bundle on head whose pack holds the object that
// write puts (a type, a declared size and its deflated content), a tree
// naming it and a commit: a fast-forward in every other respect.
func bombBundle(t *testing.T, head string, object func(w io.Writer) [20]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.bundle")
	var pack bytes.Buffer
	pack.WriteString("PACK")
	binary.Write(&pack, binary.BigEndian, [2]uint32{2, 3})
	blob := object(&pack)
	tree := append([]byte("100644 big\x00"), blob[:]...)
	th := sha1.Sum(append([]byte(fmt.Sprintf("tree %d\x00", len(tree))), tree...))
	commit := []byte(fmt.Sprintf("tree %x\nparent %s\nauthor a <a@b> 1000000000 +0000\ncommitter a <a@b> 1000000000 +0000\n\nbig\n", th, head))
	ch := sha1.Sum(append([]byte(fmt.Sprintf("commit %d\x00", len(commit))), commit...))
	for _, o := range []struct {
		typ  int
		data []byte
	}{{2, tree}, {1, commit}} {
		packObjectHeader(&pack, o.typ, int64(len(o.data)))
		z := zlib.NewWriter(&pack)
		z.Write(o.data)
		z.Close()
	}
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])
	data := append([]byte(fmt.Sprintf("# v2 git bundle\n-%s x\n%x HEAD\n\n", head, ch)), pack.Bytes()...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBundleThatInflatesIsRefused: a bundle of a megabyte whose blob
// inflates to 200 MiB of zeros, or whose delta says it makes a GiB, is
// refused before anything is inflated into memory (before, go-git held
// the whole object: a 512 MiB bundle could ask for hundreds of GiB). A
// delta whose base is nowhere is refused naming the fault.
func TestBundleThatInflatesIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
	wt.Add("a")
	sig := &object.Signature{Name: "a", Email: "a@b", When: time.Unix(1e9, 0)}
	head, err := wt.Commit("one", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	aBlob := [20]byte(sha1.Sum([]byte("blob 1\x00a")))
	for _, c := range []struct {
		name, want string
		object     func(w io.Writer) [20]byte
	}{
		{"blob of zeros", "once inflated", func(w io.Writer) [20]byte {
			const size = 200 << 20
			h := sha1.New()
			fmt.Fprintf(h, "blob %d\x00", size)
			packObjectHeader(w, 3, size)
			z, _ := zlib.NewWriterLevel(io.MultiWriter(w), zlib.BestSpeed)
			writeZeros(io.MultiWriter(z, h), size)
			z.Close()
			return [20]byte(h.Sum(nil))
		}},
		{"delta on a base the clone lacks", "neither in the pack nor in the loop's branch", func(w io.Writer) [20]byte {
			// source size 1, target size 1, then one insert.
			delta := []byte{0x01, 0x01, 0x01, 'b'}
			missing := sha1.Sum([]byte("blob 1\x00z"))
			packObjectHeader(w, 7, int64(len(delta)))
			w.Write(missing[:])
			z := zlib.NewWriter(w)
			z.Write(delta)
			z.Close()
			return sha1.Sum([]byte("blob 1\x00b"))
		}},
		{"delta making a GiB", "once inflated", func(w io.Writer) [20]byte {
			// source size 1, target size 1 GiB, then one insert.
			delta := []byte{0x01, 0x80, 0x80, 0x80, 0x80, 0x04, 0x01, 'b'}
			packObjectHeader(w, 7, int64(len(delta)))
			w.Write(aBlob[:])
			z := zlib.NewWriter(w)
			z.Write(delta)
			z.Close()
			return aBlob
		}},
	} {
		path := bombBundle(t, head.String(), c.object)
		cl, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = cl.ApplyBundle(path, head.String())
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		cl.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: applying it allocated %d MiB", c.name, grew>>20)
		}
	}
}
