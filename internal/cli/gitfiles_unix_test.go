//go:build unix

package cli_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// revParse resolves a revision of the repository at dir with go-git.
func revParse(t *testing.T, dir, rev string) plumbing.Hash {
	t.Helper()
	g, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := g.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		t.Fatal(err)
	}
	return *h
}

// looseObject is the file of a loose object of the repository at dir.
func looseObject(dir string, h plumbing.Hash) string {
	s := h.String()
	return filepath.Join(dir, ".git", "objects", s[:2], s[2:])
}

// TestShallowFileHidesNothing: .git/shallow naming HEAD~1 while every
// object is still there changes nothing: check decides exactly as without
// the file (before: CLOSED at iteration 1 instead of OPEN, with the
// shallow clone noted twice).
func TestShallowFileHidesNothing(t *testing.T) {
	t.Parallel()
	plain, listed := stuckLoop(t), stuckLoop(t)
	head := revParse(t, listed, "HEAD~1")
	write(t, filepath.Join(listed, ".git", "shallow"), head.String()+"\n")
	wantCode, want, _ := call(hostileNow, nil, "check", "--repo", plain, "--base", "HEAD~4", "--format", "json")
	code, got, errs := call(hostileNow, nil, "check", "--repo", listed, "--base", "HEAD~4", "--format", "json")
	if wantCode != 1 {
		t.Fatalf("without .git/shallow: exit %d %q, want 1 (OPEN)", wantCode, want)
	}
	// The advice names the repository: the same words for either.
	got = strings.ReplaceAll(got, listed, plain)
	if code != wantCode || got != want {
		t.Errorf("with .git/shallow naming HEAD~1: exit %d\n%s%s\nwant exit %d\n%s", code, got, errs, wantCode, want)
	}
}

// TestShallowCutSaidOnce: when history really is cut (the shallow file
// names a commit whose parent is not in the repository), check says so in
// one note.
func TestShallowCutSaidOnce(t *testing.T) {
	t.Parallel()
	repo := stuckLoop(t)
	boundary := revParse(t, repo, "HEAD~1")
	parent := revParse(t, repo, "HEAD~2")
	base := revParse(t, repo, "HEAD~4")
	write(t, filepath.Join(repo, ".git", "shallow"), boundary.String()+"\n")
	if err := os.Remove(looseObject(repo, parent)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--base", base.String()}} {
		code, out, errs := call(hostileNow, nil, append([]string{"check", "--repo", repo}, args...)...)
		if code != 0 || !decided(out) {
			t.Fatalf("check %v over a cut history: exit %d %q %q, want a CLOSED decision", args, code, out, errs)
		}
		if n := strings.Count(out+errs, "shallow clone"); n != 1 {
			t.Errorf("check %v: the shallow clone said %d times, want once:\n%s%s", args, n, out, errs)
		}
		if !strings.Contains(out, "1 of an unknown number of iterations visible") {
			t.Errorf("check %v: got %q, want the visible iterations counted", args, out)
		}
	}
}

// TestGitFilesThatAreNotRegular: a named pipe (held open by a writer, so
// that a read would block for good) at any file check reads in .git is an
// error naming it, exit 2, at once; so is a socket, and a symbolic link
// that leaves the repository.
func TestGitFilesThatAreNotRegular(t *testing.T) {
	t.Parallel()
	for _, place := range []string{"HEAD", "refs/heads/master", "packed-refs", "config", "shallow", "commondir", "pack index"} {
		t.Run(strings.ReplaceAll(place, "/", "_"), func(t *testing.T) {
			t.Parallel()
			repo, pack := packedLoop(t)
			path := filepath.Join(repo, ".git", place)
			if place == "pack index" {
				path = strings.TrimSuffix(pack, ".pack") + ".idx"
			}
			os.Remove(path)
			holdFIFO(t, path)
			code, out, _, err := runBounded(nil, "check", "--repo", repo, "--base", "HEAD~1")
			if err != nil {
				t.Fatal(err)
			}
			if code != 2 || !strings.Contains(out, path) || !strings.Contains(out, "not a regular file") {
				t.Errorf("a named pipe at %s: got exit %d %q, want 2 naming it and \"not a regular file\"", place, code, out)
			}
		})
	}
	t.Run("socket", func(t *testing.T) {
		t.Parallel()
		repo, _ := packedLoop(t)
		path := filepath.Join(repo, ".git", "packed-refs")
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Skip(err) // a socket path may be too long here
		}
		t.Cleanup(func() { l.Close() })
		code, out, _, err := runBounded(nil, "check", "--repo", repo, "--base", "HEAD~1")
		if err != nil {
			t.Fatal(err)
		}
		if code != 2 || !strings.Contains(out, path) || !strings.Contains(out, "not a regular file") {
			t.Errorf("a socket at packed-refs: got exit %d %q, want 2 naming it", code, out)
		}
	})
	t.Run("link leaving the repository", func(t *testing.T) {
		t.Parallel()
		repo, _ := packedLoop(t)
		ref := filepath.Join(repo, ".git", "refs", "heads", "master")
		outside := write(t, filepath.Join(t.TempDir(), "master"), revParse(t, repo, "HEAD").String()+"\n")
		os.Remove(ref)
		if err := os.Symlink(outside, ref); err != nil {
			t.Fatal(err)
		}
		code, _, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1")
		if code != 2 || !strings.Contains(errs, ref) || !strings.Contains(errs, "leaves the repository") {
			t.Errorf("refs/heads/master linked outside the repository: got exit %d %q, want 2 naming it", code, errs)
		}
	})
}

// TestInputsThatAreNotRegular: a named pipe, a socket or a device given
// as --reports, --log, a --ledger entry or the state file is an error
// naming it and "not a regular file", exit 2, at once.
func TestInputsThatAreNotRegular(t *testing.T) {
	t.Parallel()
	repo := twoCommits(t)
	dir := t.TempDir()
	fifo := holdFIFO(t, filepath.Join(dir, "pipe.xml"))
	sock := filepath.Join(dir, "sock.xml")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { l.Close() })
	ledgerWith := func(kind string) string {
		led := filepath.Join(t.TempDir(), "ledger")
		if err := os.Mkdir(led, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(led, "records.json")
		switch kind {
		case "fifo":
			holdFIFO(t, p)
		case "socket":
			ls, err := net.Listen("unix", p)
			if err != nil {
				t.Skip(err)
			}
			t.Cleanup(func() { ls.Close() })
		}
		return p
	}
	for _, c := range []struct {
		name string
		args []string
		path string
	}{
		{"--reports fifo", []string{"check", "--repo", repo, "--base", "HEAD~1", "--reports", fifo}, fifo},
		{"--reports socket", []string{"check", "--repo", repo, "--base", "HEAD~1", "--reports", sock}, sock},
		{"--reports device", []string{"check", "--repo", repo, "--base", "HEAD~1", "--reports", "/dev/zero"}, "/dev/zero"},
		{"--log fifo", []string{"check", "--repo", repo, "--base", "HEAD~1", "--log", fifo}, fifo},
		{"--log socket", []string{"check", "--repo", repo, "--base", "HEAD~1", "--log", sock}, sock},
		{"--log device", []string{"check", "--repo", repo, "--base", "HEAD~1", "--log", "/dev/zero"}, "/dev/zero"},
		{"state file fifo", []string{"status", "--state", fifo}, fifo},
		{"state file socket", []string{"status", "--state", sock}, sock},
		{"state file device", []string{"record", "--state", "/dev/zero", "--files-changed", "1"}, "/dev/zero"},
	} {
		code, out, _, err := runBounded(nil, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		if code != 2 || !strings.Contains(out, c.path) || !strings.Contains(out, "not a regular file") {
			t.Errorf("%s: got exit %d %q, want 2 naming %s and \"not a regular file\"", c.name, code, out, c.path)
		}
	}
	for _, kind := range []string{"fifo", "socket"} {
		entry := ledgerWith(kind)
		code, out, _, err := runBounded(nil, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", filepath.Dir(entry))
		if err != nil {
			t.Fatal(err)
		}
		if code != 2 || !strings.Contains(out, entry) || !strings.Contains(out, "not a regular file") {
			t.Errorf("a %s as a --ledger entry: got exit %d %q, want 2 naming it", kind, code, out)
		}
	}
}

// TestGitFilesFarLargerThanGitWrites: an 8 GiB sparse file (made in an
// instant) at .git/HEAD, a branch ref, the config or packed-refs is an
// error naming it, exit 2, at once. Before, HEAD held check for minutes,
// a branch ref took 21 GB of memory and the config ran it out of memory.
func TestGitFilesFarLargerThanGitWrites(t *testing.T) {
	t.Parallel()
	for _, place := range []string{"HEAD", "refs/heads/master", "config", "packed-refs"} {
		t.Run(strings.ReplaceAll(place, "/", "_"), func(t *testing.T) {
			t.Parallel()
			repo, _ := packedLoop(t)
			path := filepath.Join(repo, ".git", place)
			os.Remove(path)
			sparse(t, path, "", 8<<30)
			code, out, _, err := runBounded(nil, "check", "--repo", repo, "--base", "HEAD~1")
			if err != nil {
				t.Fatal(err)
			}
			if code != 2 || !strings.Contains(out, path) || !strings.Contains(out, "larger than") {
				t.Errorf("an 8 GiB %s: got exit %d %q, want 2 naming it", place, code, out)
			}
		})
	}
}
