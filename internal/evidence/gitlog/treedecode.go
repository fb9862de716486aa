package gitlog

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// decodeTree reads a tree object's entries. It accepts and rejects what
// go-git's Tree.Decode does and gives the same entries (modes made
// canonical), but from the object's bytes at once, as one string whose
// slices are the names, where go-git reads each entry through a buffered
// reader and allocates for every mode and name: tree decoding was a sixth
// of a history scan. Trees over the large-object threshold are left to go-git. The tree
// it returns has no object storer: use object.GetTree for Tree.File and
// the like.
func decodeTree(obj plumbing.EncodedObject) (*object.Tree, error) {
	if obj.Type() != plumbing.TreeObject {
		return nil, object.ErrUnsupportedObject
	}
	var data string // the entries' names are slices of it
	switch o := obj.(type) {
	case *rawObject:
		data = string(o.data)
	default:
		if obj.Size() > DefaultMaxFileBytes {
			t := &object.Tree{}
			return t, t.Decode(obj)
		}
		rd, err := obj.Reader()
		if err != nil {
			return nil, err
		}
		defer rd.Close()
		var b strings.Builder
		b.Grow(int(obj.Size()))
		if _, err := io.Copy(&b, io.LimitReader(rd, obj.Size())); err != nil {
			return nil, err
		}
		data = b.String()
	}
	t := &object.Tree{Hash: obj.Hash()}
	if len(data) == 0 {
		return t, nil
	}
	t.Entries = make([]object.TreeEntry, 0, len(data)/32)
	for i := 0; i < len(data); {
		sp := strings.IndexByte(data[i:], ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: missing mode terminator", object.ErrMalformedTree)
		}
		mode, err := strconv.ParseUint(data[i:i+sp], 8, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: malformed mode", object.ErrMalformedTree)
		}
		i += sp + 1
		nul := strings.IndexByte(data[i:], 0)
		if nul < 0 {
			return nil, fmt.Errorf("%w: missing filename terminator", object.ErrMalformedTree)
		}
		if nul == 0 {
			return nil, fmt.Errorf("%w: empty filename", object.ErrMalformedTree)
		}
		name := data[i : i+nul]
		i += nul + 1
		if len(data)-i < len(plumbing.ZeroHash) {
			return nil, fmt.Errorf("%w: truncated object id", object.ErrMalformedTree)
		}
		var h plumbing.Hash
		copy(h[:], data[i:])
		i += len(h)
		t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: canonicalMode(filemode.FileMode(mode)), Hash: h})
	}
	return t, nil
}

// canonicalMode is the mode git gives an entry of the mode's kind.
func canonicalMode(mode filemode.FileMode) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	}
	return filemode.Submodule
}
