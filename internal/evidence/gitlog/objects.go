package gitlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// rawObject is an object read whole into memory. Its data is read-only: it
// is shared through the blob cache.
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

// wholeObject reads an object of at most DefaultMaxFileBytes into memory;
// a larger one is returned as it is, to be streamed.
func wholeObject(obj plumbing.EncodedObject) (plumbing.EncodedObject, error) {
	if _, ok := obj.(*rawObject); ok || obj.Size() > DefaultMaxFileBytes {
		return obj, nil
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	if _, err := io.ReadFull(rd, data); err != nil {
		return nil, fmt.Errorf("content shorter than its header's %d bytes: %w", obj.Size(), err)
	}
	return &rawObject{hash: obj.Hash(), typ: obj.Type(), data: data}, nil
}

// wanted reports whether an object of type typ answers a request for want.
func wanted(typ, want plumbing.ObjectType) bool {
	return typ == want || want == plumbing.AnyObject
}
