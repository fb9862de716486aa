//go:build unix

package audit

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/checkout/checkouttest"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// TestFetchedRefsKeepTheWorkspaceOwner: the audit's fetch writes refs and
// packs into .git; a Docker action runs as root, and a self-hosted runner's
// next checkout could not clean root's files. They get the workspace's
// owner.
func TestFetchedRefsKeepTheWorkspaceOwner(t *testing.T) {
	t.Parallel()
	checkouttest.NeedRoot(t)
	o := newOrigin(t, map[int]pullSteps{1: {{"a.go": "package main\n// a\n"}, nil}})
	ws := o.clone(t)
	if err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 1001, 121)
	}); err != nil {
		t.Fatal(err)
	}
	e := newHTTPEnv(t)
	e.gitPull(o, 1, func(p *fakegithub.Pull) {})
	c, err := OpenClone(ws, o.url(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e.opts.Clone = c
	if res := e.run(); find(res, 1) == nil || find(res, 1).Evidence != "git" {
		t.Fatalf("#1 was not read from the fetched head: %+v", res)
	}
	err = filepath.WalkDir(filepath.Join(ws, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if uid, gid := checkouttest.Owner(t, p); uid != 1001 || gid != 121 {
			t.Errorf("%s: owner %d:%d, want the workspace's 1001:121", p, uid, gid)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
