package gitlog

import (
	"crypto"
	"crypto/sha1"

	"github.com/go-git/go-git/v5/plumbing/hash"
)

// go-git names objects with a collision-detecting SHA-1 by default, and it
// hashes every object it decodes from a pack (to key its object cache) and
// every index file it loads: on a long loop that is a fifth of the run.
// This package only reads repositories, where an object's name is the key
// it was looked up by and two objects cannot share one, so the standard
// library's SHA-1 (several times faster) serves as well. It is registered
// in init, before any goroutine can read go-git's table of hashes.
func init() {
	if err := hash.RegisterHash(crypto.SHA1, sha1.New); err != nil {
		panic(err) // only for a nil function
	}
}
