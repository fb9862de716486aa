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

// EncodedObject returns object h of type t (or of any type). A loose or
// packed object these readers find damaged is an error naming its file or
// pack; go-git reads only what they leave to it.
func (s *objectStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok, err := s.loose.read(h, t, DefaultMaxFileBytes); err != nil || ok {
		return obj, err
	}
	if obj, ok, err := s.packs.read(h, t, DefaultMaxFileBytes); err != nil || ok {
		return obj, err
	}
	return s.Storage.EncodedObject(t, h)
}
