package checkout

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// MaxBundleBytes bounds a bundle read from the agent's artifact.
const MaxBundleBytes = 512 << 20

// maxBundleHeader bounds the header lines of a bundle (prerequisites and
// refs) before the pack.
const maxBundleHeader = 1 << 20

// ApplyBundle reads the git bundle at path (as `git bundle create` writes
// it, version 2 or 3 with SHA-1) into the clone's objects and returns the
// commit its one ref names. The bundle must be a fast-forward of base: every
// prerequisite is in the clone and the tip has base in its history (or is
// base). Nothing else is changed: no ref moves. Only a regular file is
// opened, so that a named pipe cannot hang the run.
func (c *Clone) ApplyBundle(path, base string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("bundle %s: not a regular file", path)
	}
	if fi.Size() > MaxBundleBytes {
		return "", fmt.Errorf("bundle %s: %d bytes, more than %d", path, fi.Size(), MaxBundleBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReader(io.LimitReader(f, MaxBundleBytes))
	tip, prereqs, headerLen, err := bundleHeader(br)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", path, err)
	}
	for _, p := range prereqs {
		if !c.Has(p) {
			return "", fmt.Errorf("bundle %s: it needs commit %s, which the loop's branch does not have: not a fast-forward", path, p)
		}
	}
	if err := packSizes(io.NewSectionReader(f, headerLen, fi.Size()-headerLen)); err != nil {
		return "", fmt.Errorf("bundle %s: its pack: %w", path, err)
	}
	if err := packfile.UpdateObjectStorage(c.repo.Storer, br); err != nil {
		return "", fmt.Errorf("bundle %s: its pack: %w", path, err)
	}
	top, err := c.commit(tip)
	if err != nil {
		return "", fmt.Errorf("bundle %s: its tip %s is not a commit it holds: %w", path, tip, err)
	}
	if tip == base {
		return tip, nil
	}
	if _, err := c.commit(base); err != nil {
		return "", fmt.Errorf("bundle %s: the loop's branch head %s: %w", path, base, err)
	}
	ok, err := c.firstParentOf(top, base)
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", path, err)
	}
	if !ok {
		return "", fmt.Errorf("bundle %s: its tip %s does not reach the loop's branch head %s by first parents: not a fast-forward of the branch", path, tip, base)
	}
	return tip, nil
}

// firstParentOf reports whether base is on top's first-parent chain. The
// loop's iterations are that chain: a merge whose first parent is a new
// root or an old commit, with the branch head only as its second parent,
// is a fast-forward to git but would hide every iteration before it.
func (c *Clone) firstParentOf(top *object.Commit, base string) (bool, error) {
	for cur := top; ; {
		if cur.Hash.String() == base {
			return true, nil
		}
		if len(cur.ParentHashes) == 0 {
			return false, nil
		}
		next, err := c.commit(cur.ParentHashes[0].String())
		if err != nil {
			return false, fmt.Errorf("the first parent of %s: %w", cur.Hash, err)
		}
		cur = next
	}
}

// Bounds of the objects of a bundle once inflated. A pack of a megabyte
// can hold a gigabyte of zeros, which go-git inflates into memory: the
// 512 MiB a bundle may weigh would hold more than any runner's memory.
// GitHub refuses a file over 100 MiB in a push.
const (
	MaxBundleObject   int64 = 100 << 20
	MaxBundleInflated int64 = 2 << 30
)

// packSizes reads the pack's object headers and refuses an object, or all
// of them together, larger than the bounds once inflated, before anything
// is inflated into memory. A delta is measured by the object it makes.
func packSizes(r io.Reader) error {
	s := packfile.NewScanner(r)
	_, n, err := s.Header()
	if err != nil {
		return err
	}
	var total int64
	for i := uint32(0); i < n; i++ {
		h, err := s.NextObjectHeader()
		if err != nil {
			return err
		}
		size := h.Length
		if h.Type.IsDelta() {
			if h.Length > MaxBundleObject {
				return fmt.Errorf("object %d: a delta of %d bytes, more than %d", i+1, h.Length, MaxBundleObject)
			}
			var d deltaHead
			if _, _, err := s.NextObject(&d); err != nil {
				return fmt.Errorf("object %d: %w", i+1, err)
			}
			size = d.target()
		}
		if size > MaxBundleObject {
			return fmt.Errorf("object %d: %d bytes once inflated, more than %d", i+1, size, MaxBundleObject)
		}
		if total += size; total > MaxBundleInflated {
			return fmt.Errorf("more than %d bytes once inflated", MaxBundleInflated)
		}
	}
	return nil
}

// deltaHead keeps the start of a delta, which gives the sizes of its
// source and target as two variable-length numbers.
type deltaHead struct {
	buf [20]byte
	n   int
}

func (d *deltaHead) Write(p []byte) (int, error) {
	d.n += copy(d.buf[d.n:], p)
	return len(p), nil
}

// target is the size of the object the delta makes (math.MaxInt64 when
// the header is cut short or too long, so that it is refused).
func (d *deltaHead) target() int64 {
	b := d.buf[:d.n]
	var sizes [2]int64
	for k := range sizes {
		var v int64
		for shift := uint(0); ; shift += 7 {
			if len(b) == 0 || shift > 56 {
				return math.MaxInt64
			}
			c := b[0]
			b = b[1:]
			v |= int64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
		}
		sizes[k] = v
	}
	return sizes[1]
}

// bundleHeader reads a bundle's header: its one ref's commit and its
// prerequisites, leaving r at the pack, and its length in bytes.
func bundleHeader(r *bufio.Reader) (tip string, prereqs []string, length int64, err error) {
	read := 0
	line := func() (string, error) {
		s, err := r.ReadString('\n')
		read += len(s)
		if read > maxBundleHeader {
			return "", errors.New("the header is too long")
		}
		if err != nil {
			return "", errors.New("the header ends before the pack")
		}
		return strings.TrimSuffix(s, "\n"), nil
	}
	sig, err := line()
	if err != nil {
		return "", nil, 0, err
	}
	if sig != "# v2 git bundle" && sig != "# v3 git bundle" {
		return "", nil, 0, fmt.Errorf("not a git bundle (it starts %q)", bounded(sig, 40))
	}
	var tips []string
	for {
		l, err := line()
		if err != nil {
			return "", nil, 0, err
		}
		switch {
		case l == "":
			if len(tips) != 1 {
				return "", nil, 0, fmt.Errorf("it names %d refs, want the loop's branch alone", len(tips))
			}
			return tips[0], prereqs, int64(read), nil
		case strings.HasPrefix(l, "@"):
			if l != "@object-format=sha1" && !strings.HasPrefix(l, "@filter") {
				return "", nil, 0, fmt.Errorf("unsupported capability %q", bounded(l, 60))
			}
			if strings.HasPrefix(l, "@filter") {
				return "", nil, 0, errors.New("a filtered (partial) bundle cannot be applied")
			}
		case strings.HasPrefix(l, "-"):
			h, _, _ := strings.Cut(l[1:], " ")
			if !fullHash().MatchString(h) {
				return "", nil, 0, fmt.Errorf("bad prerequisite line %q", bounded(l, 60))
			}
			prereqs = append(prereqs, h)
		default:
			h, name, _ := strings.Cut(l, " ")
			if !fullHash().MatchString(h) || !strings.HasPrefix(name, "refs/") && name != "HEAD" {
				return "", nil, 0, fmt.Errorf("bad ref line %q", bounded(l, 60))
			}
			if name != "HEAD" || len(tips) == 0 {
				tips = appendNew(tips, h)
			}
		}
	}
}

// appendNew appends h unless it is there already (a bundle may name HEAD
// and the branch at one commit).
func appendNew(list []string, h string) []string {
	for _, x := range list {
		if x == h {
			return list
		}
	}
	return append(list, h)
}

func bounded(s string, n int) string {
	return textcut.Bytes(s, n+len(textcut.Ellipsis), textcut.Ellipsis)
}

// Push pushes commit h to branch on rawURL with go-git, authenticated with
// token as actions/checkout does. It is never forced: a branch that moved
// on meanwhile refuses it.
func (c *Clone) Push(ctx context.Context, rawURL, token, h, branch string) error {
	if rawURL == "" {
		return errors.New("push: no URL to push to")
	}
	spec := config.RefSpec(h + ":" + string(plumbing.NewBranchReferenceName(branch)))
	remote := git.NewRemote(c.repo.Storer, &config.RemoteConfig{Name: "loopbreaker", URLs: []string{rawURL}})
	err := remote.PushContext(ctx, &git.PushOptions{RemoteName: "loopbreaker", RefSpecs: []config.RefSpec{spec}, Auth: Auth(rawURL, token)})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("push %.12s to %s: %w", h, branch, redacted{err})
	}
	return nil
}
