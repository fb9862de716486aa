package gitlog

import (
	"crypto"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/hash"
)

// TestObjectHashDetectsCollisions: go-git names the objects it reads and
// writes with a collision-detecting SHA-1, and nothing in this package may
// replace it process-wide: the audit reads refs that a loop's author
// controls, where a crafted collision is the attack the detection stops.
func TestObjectHashDetectsCollisions(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeOf(hash.New(crypto.SHA1))
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if got, want := typ.PkgPath(), "github.com/pjbgf/sha1cd"; !strings.HasPrefix(got, want) {
		t.Errorf("go-git's SHA-1 comes from package %q, want %q (collision detection)", got, want)
	}
}
