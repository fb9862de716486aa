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

	"github.com/go-git/go-git/v5/plumbing"
)

// looseObjects reads loose objects (objects/xx/yyyy..., zlib-compressed)
// straight from the objects directories: the repository's own, then its
// alternate object stores. They are the objects a loop's own commits are
// written as, and go-git opens each one through a symbolic-link-resolving
// file system layer (several lstat calls) and allocates a new zlib reader
// for it: in a check over a long loop that was most of the run. Objects
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
	listed  [256]bool                // fan-out directories listed so far
	names   [256]map[string]struct{} // their entries (nil: none, or too many)
}

// maxLooseListing bounds the entries remembered for one fan-out directory;
// a larger directory is not listed and its objects are left to go-git.
const maxLooseListing = 1 << 16

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

// find returns the objects directory holding h as a loose object, or nil.
func (l *looseObjects) find(h plumbing.Hash) *looseDir {
	for _, d := range l.dirs {
		if d.has(h) {
			return d
		}
	}
	return nil
}

// has reports whether h is a loose object here, listing its fan-out
// directory on first use.
func (d *looseDir) has(h plumbing.Hash) bool {
	if !d.scanned {
		// One listing of the objects directory settles every fan-out
		// directory that does not exist (in a packed clone, most of them).
		d.scanned = true
		ents, err := os.ReadDir(d.path)
		if err == nil {
			for i := range d.listed {
				d.listed[i] = true
			}
			for _, e := range ents {
				if b, err := hex.DecodeString(e.Name()); err == nil && len(b) == 1 && e.IsDir() {
					d.listed[b[0]] = false
				}
			}
		}
	}
	b := h[0]
	if !d.listed[b] {
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
	_, ok := d.names[b][hex.EncodeToString(h[1:])]
	return ok
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

// openFile opens loose object h's file without following a link.
func (d *looseDir) openFile(h plumbing.Hash) (*os.File, error) {
	name := hex.EncodeToString(h[:])
	path := filepath.Join(d.path, name[:2], name[2:])
	f, err := os.OpenFile(path, os.O_RDONLY|openNoFollow, 0)
	if err == nil {
		return f, nil
	}
	if errors.Is(err, fs.ErrNotExist) || isLink(path) {
		return nil, errNotLoose // a link: go-git follows those that stay inside .git
	}
	return nil, err
}

// isLink reports whether path is a symbolic link.
func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
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
	d := l.find(h)
	if d == nil {
		return nil, false, nil
	}
	if s, seen := l.sized[h]; seen && (!wanted(s.typ, want) || s.size > max) {
		return nil, false, nil
	}
	f, typ, size, err := l.open(d, h)
	if errors.Is(err, errNotLoose) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, d.fault(h, err)
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

// wanted reports whether an object of type typ answers a request for want.
func wanted(typ, want plumbing.ObjectType) bool {
	return typ == want || want == plumbing.AnyObject
}

// size returns the size of loose object h of type want from its header;
// ok is false when go-git should be asked. A loose object whose header
// cannot be read is an error.
func (l *looseObjects) size(h plumbing.Hash, want plumbing.ObjectType) (int64, bool, error) {
	if s, seen := l.sized[h]; seen {
		return s.size, s.typ == want, nil
	}
	d := l.find(h)
	if d == nil {
		return 0, false, nil
	}
	f, typ, size, err := l.open(d, h)
	if errors.Is(err, errNotLoose) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, d.fault(h, err)
	}
	f.Close()
	return size, typ == want, nil
}

// rawObject is an object read whole into memory, named by the hash it was
// looked up by (as git names a loose object by its file name). Its data is
// read-only: a packed object's may be shared with the delta-base cache.
type rawObject struct {
	hash plumbing.Hash
	typ  plumbing.ObjectType
	data []byte
}

var errReadOnly = errors.New("read-only object")

func (o *rawObject) Hash() plumbing.Hash         { return o.hash }
func (o *rawObject) Type() plumbing.ObjectType   { return o.typ }
func (o *rawObject) SetType(plumbing.ObjectType) {}
func (o *rawObject) Size() int64                 { return int64(len(o.data)) }
func (o *rawObject) SetSize(int64)               {}
func (o *rawObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *rawObject) Writer() (io.WriteCloser, error) { return nil, errReadOnly }
