package action

import (
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestMergeOverANewRootKeepsTheLoopsRecords: a hosted agent that pushes
// on its own, its loop OPEN, pushes a merge whose second parent is its
// head and whose first parent is a new root commit or the base: a
// fast-forward to git. The loop's earlier records are still its own (their
// commits are the merge's ancestors): the breaker stays OPEN at the next
// iteration, as after an honest commit (before: CLOSED at 2 or at 1).
func TestMergeOverANewRootKeepsTheLoopsRecords(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"honest commit", "merge over a new root", "merge over the base"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			loop := stagnant(t)
			h := newHarness(t, loop)
			if code := h.run(); code != exitOpen {
				t.Fatalf("first run: got exit %d, want %d", code, exitOpen)
			}
			h.uploadRecord(100, "agent/loop", loop.head)
			h.nextRun()
			r, err := git.PlainOpen(loop.dir)
			if err != nil {
				t.Fatal(err)
			}
			hc, err := r.CommitObject(plumbing.NewHash(loop.head))
			if err != nil {
				t.Fatal(err)
			}
			var tip plumbing.Hash
			switch kind {
			case "honest commit":
				tip = storeCommit(t, r, &object.Commit{Message: "iteration", TreeHash: hc.TreeHash, ParentHashes: []plumbing.Hash{hc.Hash}})
			case "merge over a new root":
				root := storeCommit(t, r, &object.Commit{Message: "a new root", TreeHash: hc.TreeHash})
				tip = storeCommit(t, r, &object.Commit{Message: "merge", TreeHash: hc.TreeHash, ParentHashes: []plumbing.Hash{root, hc.Hash}})
			case "merge over the base":
				tip = storeCommit(t, r, &object.Commit{Message: "merge", TreeHash: hc.TreeHash, ParentHashes: []plumbing.Hash{plumbing.NewHash(loop.base), hc.Hash}})
			}
			head, err := r.Head()
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Storer.SetReference(plumbing.NewHashReference(head.Name(), tip)); err != nil {
				t.Fatal(err)
			}
			loop.head = tip.String()
			h.editEvent(func(ev map[string]any) {
				ev["pull_request"].(map[string]any)["head"].(map[string]any)["sha"] = tip.String()
			})
			h.fake.AddPull("octo", "loop", h.pull(nil))
			code := h.run()
			if o := h.outputs(); code != exitOpen || o["state"] != "OPEN" || o["iteration"] != "5" {
				t.Errorf("after the push: got exit %d, %s at %s, want OPEN at 5\n%s", code, o["state"], o["iteration"], h.summaryText())
			}
		})
	}
}
