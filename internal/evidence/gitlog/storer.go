package gitlog

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// objectStorer is the repository's go-git storage with this package's
// object readers in front: go-git's own walks (revision parsing such as
// HEAD~200, a commit's parents, FileAt's path lookup) read loose and packed
// objects the fast way too. What the readers leave (large objects, damaged
// data, packs they do not read) goes to go-git's storage of the
// repository, then to go-git's storages of the alternate object stores.
type objectStorer struct {
	*filesystem.Storage
	loose      *looseObjects
	packs      *packObjects
	alternates []*filesystem.ObjectStorage // go-git's, one per alternate store
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
	obj, err := s.Storage.EncodedObject(t, h)
	for _, alt := range s.alternates {
		if !errors.Is(err, plumbing.ErrObjectNotFound) {
			break
		}
		obj, err = alt.EncodedObject(t, h)
	}
	return obj, err
}

// HashesWithPrefix returns the objects whose names start with prefix, in
// the repository and its alternate stores: go-git resolves an abbreviated
// hash with it.
func (s *objectStorer) HashesWithPrefix(prefix []byte) ([]plumbing.Hash, error) {
	hashes, err := s.Storage.HashesWithPrefix(prefix)
	if err != nil {
		return nil, err
	}
	seen := make(map[plumbing.Hash]bool, len(hashes))
	for _, h := range hashes {
		seen[h] = true
	}
	for _, alt := range s.alternates {
		more, err := alt.HashesWithPrefix(prefix)
		if err != nil {
			return nil, err
		}
		for _, h := range more {
			if !seen[h] {
				seen[h] = true
				hashes = append(hashes, h)
			}
		}
	}
	return hashes, nil
}

// Close closes the files go-git keeps open, the alternates' included.
func (s *objectStorer) Close() error {
	errs := []error{s.Storage.Close()}
	for _, alt := range s.alternates {
		errs = append(errs, alt.Close())
	}
	return errors.Join(errs...)
}

// alternateStorages returns go-git's storage of each alternate store
// (objects directories named "objects", as git makes them; go-git reads
// no other), with the cache and options of the repository's own.
func alternateStorages(stores []string, c cache.Object, opts filesystem.Options) []*filesystem.ObjectStorage {
	var out []*filesystem.ObjectStorage
	for _, store := range stores {
		if filepath.Base(store) != "objects" {
			continue
		}
		dir := dotgit.New(noAlternates{osfs.New(filepath.Dir(store))})
		out = append(out, filesystem.NewObjectStorageWithOptions(dir, c, opts))
	}
	return out
}

// noAlternates hides objects/info/alternates from go-git: this package
// resolves the alternate stores itself (alternates.go), bounded and with
// git's rules for relative paths, and gives go-git a storage for each.
// go-git would otherwise read the file on every object it cannot find,
// wait on it if it were a named pipe, and follow no store it names but
// the first level's absolute paths.
type noAlternates struct{ billy.Filesystem }

// Open opens a file; the alternates file does not exist.
func (f noAlternates) Open(name string) (billy.File, error) {
	if filepath.ToSlash(filepath.Clean(name)) == "objects/info/alternates" {
		return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrNotExist}
	}
	return f.Filesystem.Open(name)
}
