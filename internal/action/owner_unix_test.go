//go:build unix

package action

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/checkout/checkouttest"
)

// TestRecordKeepsTheWorkspaceOwner: a Docker action runs as root; what it
// writes into the workspace gets the workspace's owner, or the next
// actions/checkout on a self-hosted runner cannot clean it.
func TestRecordKeepsTheWorkspaceOwner(t *testing.T) {
	t.Parallel()
	checkouttest.NeedRoot(t)
	loop := stagnant(t)
	if err := os.Chown(loop.dir, 1001, 121); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, loop)
	h.run()
	for _, p := range []string{".loopbreaker", ".loopbreaker/record.json"} {
		if uid, gid := checkouttest.Owner(t, filepath.Join(loop.dir, p)); uid != 1001 || gid != 121 {
			t.Errorf("%s: got owner %d:%d, want the workspace's 1001:121", p, uid, gid)
		}
	}
}
