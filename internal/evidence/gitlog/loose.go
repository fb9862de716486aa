package gitlog

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// looseObjects reads loose objects (objects/xx/yyyy..., zlib-compressed)
// straight from the objects directories: the repository's own, then its
// alternate object stores. They are the objects a loop's own commits are
// written as, and go-git hashes each one twice as it reads it (to check it
// and to key its cache) and allocates a new zlib reader for it: on a real
// loop history with its objects loose, replay ran about 1.5 times slower
// through go-git (docs/performance.md). Objects
// that are not loose (packed), over the large-object threshold, of
// another type than asked for, or stored as symbolic links are left to
// go-git. A loose object that is there but cannot be read (damaged,
// unreadable) is an error naming its file.
type looseObjects struct {
	dirs  []*looseDir                // searched in order
	br    *bufio.Reader              // reused for each file
	zr    io.ReadCloser              // reused zlib reader (zlib.Resetter)
	head  [maxLooseHeader]byte       // "type size\x00"
	sized map[plumbing.Hash]rawSized // object sizes from headers
}

// looseDir is one objects directory and what is known of its listing.
type looseDir struct {
	path    string                   // the objects directory
	name    string                   // how errors name it: "objects", or an alternate's path
	scanned bool                     // the objects directory was listed
	absent  [256]bool                // fan-out directories the listing did not show
	listed  [256]bool                // fan-out directories listed so far
	names   [256]map[string]struct{} // their entries (nil: none, or too many)
	misses  [256]uint8               // objects looked for in vain, by fan-out directory, until it is listed
}

// maxLooseListing bounds the entries remembered for one fan-out directory;
// a larger directory is not listed and its objects are left to go-git.
const maxLooseListing = 1 << 16

// listAfterMisses is how many objects are looked for in a fan-out
// directory, each by opening its file, before the directory is listed
// instead: a check reads a few objects of each directory, where an open
// costs less than listing a loop's many loose objects; a long walk of a
// mostly packed repository asks a directory for many objects it does not
// hold, and one listing answers them all.
const listAfterMisses = 4

// maxLooseHeader bounds a loose object's header ("commit 123\x00").
const maxLooseHeader = 32

// looseSizesMax bounds the remembered object headers.
const looseSizesMax = 1 << 16

// rawSized is a loose object's type and size, from its header.
type rawSized struct {
	typ  plumbing.ObjectType
	size int64
}

// newLooseObjects returns the reader of the loose objects in the given
// objects directories, searched in order: the repository's own first,
// named "objects" in errors, then its alternates, named by their paths.
// An empty path is skipped; with none the reader reads nothing.
func newLooseObjects(dirs ...string) *looseObjects {
	l := &looseObjects{sized: map[plumbing.Hash]rawSized{}}
	for i, dir := range dirs {
		if dir == "" {
			continue
		}
		name := dir
		if i == 0 {
			name = filepath.Base(dir)
		}
		l.dirs = append(l.dirs, &looseDir{path: dir, name: name})
	}
	return l
}

// mayHave reports whether h may be a loose object here: it is not when its
// fan-out directory does not exist, or was listed without it. The objects
// directory is listed on first use, a fan-out directory once opening its
// files missed listAfterMisses objects.
func (d *looseDir) mayHave(h plumbing.Hash) bool {
	if !d.scanned {
		// One listing of the objects directory settles every fan-out
		// directory that does not exist (in a packed clone, most of them).
		d.scanned = true
		ents, err := os.ReadDir(d.path)
		if err == nil {
			for i := range d.absent {
				d.absent[i] = true
			}
			for _, e := range ents {
				if b, err := hex.DecodeString(e.Name()); err == nil && len(b) == 1 && e.IsDir() {
					d.absent[b[0]] = false
				}
			}
		}
	}
	b := h[0]
	if d.absent[b] {
		return false
	}
	if !d.listed[b] && d.misses[b] >= listAfterMisses {
		d.listed[b] = true
		ents, err := os.ReadDir(filepath.Join(d.path, hex.EncodeToString(h[:1])))
		if err == nil && len(ents) <= maxLooseListing {
			m := make(map[string]struct{}, len(ents))
			for _, e := range ents {
				m[e.Name()] = struct{}{}
			}
			d.names[b] = m
		}
	}
	if !d.listed[b] {
		return true
	}
	_, ok := d.names[b][hex.EncodeToString(h[1:])]
	return ok
}

// missed notes that h was not a loose object here.
func (d *looseDir) missed(h plumbing.Hash) {
	if b := h[0]; d.misses[b] < listAfterMisses {
		d.misses[b]++
	}
}

// errNotLoose says that an object is not a loose object this reader
// reads: go-git is asked.
var errNotLoose = errors.New("not a loose object here")

// open opens a loose object and reads its header; the caller reads the
// content from l.zr and closes f. The error is errNotLoose when the file
// is gone (packed or pruned since the listing) or a symbolic link.
func (l *looseObjects) open(d *looseDir, h plumbing.Hash) (f *os.File, typ plumbing.ObjectType, size int64, err error) {
	f, err = d.openFile(h)
	if err != nil {
		return nil, 0, 0, err
	}
	if l.br == nil {
		l.br = bufio.NewReaderSize(f, 32<<10)
	} else {
		l.br.Reset(f)
	}
	if l.zr == nil {
		l.zr, err = zlib.NewReader(l.br)
	} else {
		err = l.zr.(zlib.Resetter).Reset(l.br, nil)
	}
	if err != nil {
		f.Close()
		return nil, 0, 0, err
	}
	// The header: "type size\x00", read a byte at a time so that no
	// content is consumed.
	n := 0
	for {
		if n == len(l.head) {
			f.Close()
			return nil, 0, 0, errors.New("header longer than 32 bytes")
		}
		if _, err := io.ReadFull(l.zr, l.head[n:n+1]); err != nil {
			f.Close()
			return nil, 0, 0, fmt.Errorf("header: %w", err)
		}
		if l.head[n] == 0 {
			break
		}
		n++
	}
	t, s, ok := bytes.Cut(l.head[:n], []byte{' '})
	if !ok {
		f.Close()
		return nil, 0, 0, errors.New("malformed header")
	}
	typ, err = plumbing.ParseObjectType(string(t))
	if err == nil && (typ < plumbing.CommitObject || typ > plumbing.TagObject) {
		err = errors.New("not the type of a loose object")
	}
	if err == nil {
		size, err = strconv.ParseInt(string(s), 10, 64)
		if err == nil && size < 0 {
			err = errors.New("negative size")
		}
	}
	if err != nil {
		f.Close()
		return nil, 0, 0, err
	}
	if len(l.sized) >= looseSizesMax {
		clear(l.sized)
	}
	l.sized[h] = rawSized{typ, size}
	return f, typ, size, nil
}

// openFile opens loose object h's file without following a link and
// without waiting on a named pipe; it must be a regular file.
func (d *looseDir) openFile(h plumbing.Hash) (*os.File, error) {
	name := hex.EncodeToString(h[:])
	path := filepath.Join(d.path, name[:2], name[2:])
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) || err != nil && isLink(path) {
		return nil, errNotLoose // a link: go-git follows those that stay inside .git
	}
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		if err == nil {
			err = regularfile.NotRegular(path, st.Mode())
		}
		return nil, err
	}
	return f, nil
}

// fault names the loose object file of h in err.
func (d *looseDir) fault(h plumbing.Hash, err error) error {
	name := hex.EncodeToString(h[:])
	return fmt.Errorf("loose object %s: %w", filepath.Join(d.name, name[:2], name[2:]), err)
}

// read returns loose object h when it is one of type want (or want is
// plumbing.AnyObject) and at most max bytes; ok is false when go-git
// should read it instead. A loose object that cannot be read is an error.
func (l *looseObjects) read(h plumbing.Hash, want plumbing.ObjectType, max int64) (obj plumbing.EncodedObject, ok bool, err error) {
	if s, seen := l.sized[h]; seen && (!wanted(s.typ, want) || s.size > max) {
		return nil, false, nil
	}
	d, f, typ, size, err := l.openAny(h)
	if d == nil || err != nil {
		return nil, false, err
	}
	defer f.Close()
	if !wanted(typ, want) || size > max {
		return nil, false, nil
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(l.zr, data); err != nil {
		return nil, false, d.fault(h, fmt.Errorf("content shorter than its header's %d bytes: %w", size, err))
	}
	return &rawObject{hash: h, typ: typ, data: data}, true, nil
}

// size returns the size of loose object h of type want from its header;
// ok is false when go-git should be asked. A loose object whose header
// cannot be read is an error.
func (l *looseObjects) size(h plumbing.Hash, want plumbing.ObjectType) (int64, bool, error) {
	if s, seen := l.sized[h]; seen {
		return s.size, s.typ == want, nil
	}
	d, f, typ, size, err := l.openAny(h)
	if d == nil || err != nil {
		return 0, false, err
	}
	f.Close()
	return size, typ == want, nil
}

// openAny opens loose object h in the first objects directory that holds
// it and reads its header; d is nil when none does (go-git is asked then).
// A loose object that cannot be read is an error naming its file.
func (l *looseObjects) openAny(h plumbing.Hash) (d *looseDir, f *os.File, typ plumbing.ObjectType, size int64, err error) {
	for _, d := range l.dirs {
		if !d.mayHave(h) {
			continue
		}
		f, typ, size, err := l.open(d, h)
		if errors.Is(err, errNotLoose) {
			d.missed(h)
			continue
		}
		if err != nil {
			return nil, nil, 0, 0, d.fault(h, err)
		}
		return d, f, typ, size, nil
	}
	return nil, nil, 0, 0, nil
}
