package gitlog

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// objectStorer is the repository's go-git storage with this package's
// object readers in front: go-git's own walks (revision parsing such as
// HEAD~200, a commit's parents, FileAt's path lookup) read loose and packed
// objects the fast way too. What the readers leave (alternates, large
// objects, damaged data) goes to go-git's storage as before.
type objectStorer struct {
	*filesystem.Storage
	loose *looseObjects
	packs *packObjects
}

// EncodedObject returns object h of type t (or of any type).
func (s *objectStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := readRaw(s.loose, s.packs, h, t, DefaultMaxFileBytes); ok {
		return obj, nil
	}
	return s.Storage.EncodedObject(t, h)
}

// readRaw reads object h of type want (plumbing.AnyObject: any type) and
// at most max bytes, loose first, then packed; ok is false when go-git
// should read it. A fault in these readers that slipped past their checks
// (a panic) is taken as "cannot read": go-git reads the object or reports
// it.
func readRaw(loose *looseObjects, packs *packObjects, h plumbing.Hash, want plumbing.ObjectType, max int64) (obj plumbing.EncodedObject, ok bool) {
	defer func() {
		if recover() != nil {
			obj, ok = nil, false
		}
	}()
	if obj, ok := loose.read(h, want, max); ok {
		return obj, true
	}
	return packs.read(h, want, max)
}
