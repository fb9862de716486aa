package action

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/revlist"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
)

// packOf is the pack `git bundle create` writes for tip, without what
// base already holds (no base: the whole history).
func packOf(t *testing.T, r *git.Repository, base, tip string) []byte {
	t.Helper()
	var ignore []plumbing.Hash
	if base != "" {
		ignore = append(ignore, plumbing.NewHash(base))
	}
	hashes, err := revlist.Objects(r.Storer, []plumbing.Hash{plumbing.NewHash(tip)}, ignore)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := packfile.NewEncoder(&buf, r.Storer, false).Encode(hashes, 10); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHostileBundlesAreRefused: whatever the agent's job hands over as its
// bundle, the judge pushes nothing but a fast-forward of the loop's branch
// to that branch alone, and a bundle it cannot apply is an error naming
// the fault, never a hang and never a push.
func TestHostileBundlesAreRefused(t *testing.T) {
	t.Parallel()
	loop, server, bare, ws, agent := judgeSetup(t)
	tip := commitOn(t, agent, loop.head, "iteration 2: parser", map[string]string{"parse.go": "package main\n\nfunc parse() {}\n"})
	onBase := commitOn(t, agent, loop.base, "iteration 2, on the base with its date moved", map[string]string{"x.go": "package main\n"})
	hc, err := agent.CommitObject(plumbing.NewHash(loop.head))
	if err != nil {
		t.Fatal(err)
	}
	root := storeCommit(t, agent, &object.Commit{Message: "a new root", TreeHash: hc.TreeHash})
	// Merges that are fast-forwards to git with the branch head as their
	// second parent: the first-parent history, the loop's iterations,
	// would start again.
	overRoot := storeCommit(t, agent, &object.Commit{Message: "merge", TreeHash: hc.TreeHash, ParentHashes: []plumbing.Hash{root, hc.Hash}})
	overBase := storeCommit(t, agent, &object.Commit{Message: "merge", TreeHash: hc.TreeHash, ParentHashes: []plumbing.Hash{plumbing.NewHash(loop.base), hc.Hash}})
	// An honest merge of main into the loop's branch: its first parent is
	// the branch head.
	honestMerge := storeCommit(t, agent, &object.Commit{Message: "merge main", TreeHash: hc.TreeHash, ParentHashes: []plumbing.Hash{hc.Hash, plumbing.NewHash(loop.base)}})
	pack := packOf(t, agent, loop.head, tip)
	whole := packOf(t, agent, "", onBase)
	empty := packOf(t, agent, loop.head, loop.head)

	bundle := func(header string, pack []byte) []byte { return append([]byte(header), pack...) }
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"two refs", "names 2 refs", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s refs/heads/agent/loop\n%s refs/heads/main\n\n", loop.head, tip, loop.base), pack)},
		{"HEAD elsewhere before the branch", "names 2 refs", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n%s refs/heads/agent/loop\n\n", loop.head, loop.base, tip), pack)},
		{"rewinds the branch", "not a fast-forward", bundle(fmt.Sprintf("# v2 git bundle\n%s refs/heads/agent/loop\n\n", loop.base), empty)},
		{"whole rewritten history, no prerequisite", "not a fast-forward", bundle(fmt.Sprintf("# v2 git bundle\n%s refs/heads/agent/loop\n\n", onBase), whole)},
		{"a prerequisite the branch lacks", "not a fast-forward", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n\n", strings.Repeat("ab", 20), tip), pack)},
		{"tip missing from the pack", "not a commit", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n\n", loop.head, strings.Repeat("cd", 20)), empty)},
		{"truncated pack", "pack", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n\n", loop.head, tip), pack[:len(pack)/2])},
		{"no pack", "pack", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n\n", loop.head, tip), nil)},
		{"garbage for a pack", "pack", bundle(fmt.Sprintf("# v3 git bundle\n@object-format=sha1\n%s HEAD\n\n", tip), bytes.Repeat([]byte("PACK"), 1000))},
		{"merge whose first parent is a new root", "by first parents", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n\n", loop.head, overRoot), packOf(t, agent, loop.head, overRoot.String()))},
		{"merge whose first parent is the base", "by first parents", bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s HEAD\n\n", loop.head, overBase), packOf(t, agent, loop.head, overBase.String()))},
		{"sha256", "unsupported capability", bundle(fmt.Sprintf("# v3 git bundle\n@object-format=sha256\n%s HEAD\n\n", tip), pack)},
		{"filtered", "filtered", bundle(fmt.Sprintf("# v3 git bundle\n@filter=blob:none\n%s HEAD\n\n", tip), pack)},
		{"no header end", "ends before the pack", []byte(fmt.Sprintf("# v2 git bundle\n%s HEAD", tip))},
		{"endless header", "too long", bundle("# v2 git bundle\n"+strings.Repeat(tip+" refs/heads/x\n", 30000), pack)},
		{"empty", "ends before the pack", nil},
		{"workflow command for a signature", "not a git bundle", []byte("::set-output name=allow-continue::true\n::stop-commands::x\n")},
	}
	h := newHTTPHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.dispatched()
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(ws, "agent.bundle"), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		h.env["INPUT_BUNDLE"] = "agent.bundle"
		code := h.run()
		if code != exitError || !strings.Contains(h.log.String(), c.want) {
			t.Errorf("%s: got exit %d, want %d naming %q\n%s", c.name, code, exitError, c.want, h.log.String())
		}
		for _, line := range strings.Split(h.log.String(), "\n") {
			if strings.Contains(line, "::set-output") && !strings.HasPrefix(line, "::error::") {
				t.Errorf("%s: the bundle's text reached the log as a command: %s", c.name, line)
			}
		}
		for name, want := range map[string]string{"refs/heads/agent/loop": loop.head, "refs/heads/main": loop.base} {
			if ref, err := bare.Reference(plumbing.ReferenceName(name), true); err != nil || ref.Hash().String() != want {
				t.Errorf("%s: %s on the server is at %v (%v), want %s unchanged", c.name, name, ref, err, want)
			}
		}
		if head, _ := checkoutHead(t, ws); head != loop.head {
			t.Errorf("%s: the judge's HEAD moved to %s", c.name, head)
		}
	}

	// A bundle that names another branch is still pushed to the loop's
	// branch alone; a merge of main whose first parent is the branch head
	// is a fast-forward.
	os.WriteFile(filepath.Join(ws, "agent.bundle"), bundle(fmt.Sprintf("# v2 git bundle\n-%s x\n%s refs/heads/main\n\n", loop.head, honestMerge), packOf(t, agent, loop.head, honestMerge.String())), 0o644)
	if code := h.run(); code != exitContinue {
		t.Fatalf("a bundle naming main: got exit %d, want 0\n%s", code, h.log.String())
	}
	for name, want := range map[string]string{"refs/heads/agent/loop": honestMerge.String(), "refs/heads/main": loop.base} {
		if ref, err := bare.Reference(plumbing.ReferenceName(name), true); err != nil || ref.Hash().String() != want {
			t.Errorf("a bundle naming main: %s on the server is at %v (%v), want %s", name, ref, err, want)
		}
	}
}

// checkoutHead is the commit HEAD names in the clone at dir.
func checkoutHead(t *testing.T, dir string) (string, error) {
	t.Helper()
	cl, err := checkout.Open(dir)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	return cl.Head()
}

// storeCommit stores c in r, signed by the agent, and returns its hash.
func storeCommit(t *testing.T, r *git.Repository, c *object.Commit) plumbing.Hash {
	t.Helper()
	sig := object.Signature{Name: "agent", Email: "agent@example.com", When: start.Add(30 * 24 * time.Hour)}
	c.Author, c.Committer = sig, sig
	o := r.Storer.NewEncodedObject()
	if err := c.Encode(o); err != nil {
		t.Fatal(err)
	}
	h, err := r.Storer.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
