package checkout

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// MaxBundleBytes bounds a bundle read from the agent's artifact.
const MaxBundleBytes = 512 << 20

// maxBundleHeader bounds the header lines of a bundle (prerequisites and
// refs) before the pack.
const maxBundleHeader = 1 << 20

// ApplyBundle reads the git bundle at path (v2 or v3, SHA-1) into the
// clone's objects and returns the commit its one ref names. It must be a
// fast-forward of base; no ref moves. Only a regular file is opened.
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
	tip, prereqs, headerLen, err := bundleHeader(bufio.NewReader(io.LimitReader(f, MaxBundleBytes)))
	if err != nil {
		return "", fmt.Errorf("bundle %s: %w", path, err)
	}
	for _, p := range prereqs {
		if !c.Has(p) {
			return "", fmt.Errorf("bundle %s: it needs commit %s, which the loop's branch does not have: not a fast-forward", path, p)
		}
	}
	pack := io.NewSectionReader(f, headerLen, fi.Size()-headerLen)
	count, thin, err := packSizes(pack)
	if err == nil {
		err = c.storePack(pack, count, thin)
	}
	if errors.Is(err, packfile.ErrReferenceDeltaNotFound) {
		err = fmt.Errorf("a delta's base is neither in the pack nor in the loop's branch (%w)", err)
	}
	if err != nil {
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

// Bounds of a bundle's objects once inflated: a megabyte of pack can hold a
// gigabyte of zeros, which go-git inflates in memory. GitHub refuses a file
// over 100 MiB in a push.
const (
	MaxBundleObject   int64 = 100 << 20
	MaxBundleInflated int64 = 2 << 30
)

// packSizes reads the pack's object headers and refuses an object, or the
// whole, larger than the bounds once inflated (a delta by the object it
// makes), before anything is inflated. It checks the checksum and returns
// the count and the thin bases (ref-delta bases outside the pack).
func packSizes(r io.Reader) (count uint32, thin []plumbing.Hash, err error) {
	s := packfile.NewScanner(r)
	_, n, err := s.Header()
	if err != nil {
		return 0, nil, err
	}
	var total int64
	whole := map[plumbing.Hash]bool{}
	bases := map[plumbing.Hash]bool{}
	for i := uint32(0); i < n; i++ {
		h, err := s.NextObjectHeader()
		if err != nil {
			return 0, nil, err
		}
		size := h.Length
		if h.Type.IsDelta() {
			if h.Length > MaxBundleObject {
				return 0, nil, fmt.Errorf("object %d: a delta of %d bytes, more than %d", i+1, h.Length, MaxBundleObject)
			}
			var d deltaHead
			if _, _, err := s.NextObject(&d); err != nil {
				return 0, nil, fmt.Errorf("object %d: %w", i+1, err)
			}
			size = d.target()
			if h.Type == plumbing.REFDeltaObject && !bases[h.Reference] {
				bases[h.Reference] = true
				thin = append(thin, h.Reference)
			}
		}
		if size > MaxBundleObject {
			return 0, nil, fmt.Errorf("object %d: %d bytes once inflated, more than %d", i+1, size, MaxBundleObject)
		}
		if total += size; total > MaxBundleInflated {
			return 0, nil, fmt.Errorf("more than %d bytes once inflated", MaxBundleInflated)
		}
		if !h.Type.IsDelta() {
			hasher := plumbing.NewHasher(h.Type, h.Length)
			if _, _, err := s.NextObject(&hasher); err != nil {
				return 0, nil, fmt.Errorf("object %d: %w", i+1, err)
			}
			whole[hasher.Sum()] = true
		}
	}
	if _, err := s.Checksum(); err != nil {
		return 0, nil, err
	}
	return n, slices.DeleteFunc(thin, func(h plumbing.Hash) bool { return whole[h] }), nil
}

// storePack writes the bundle's thin pack into the clone as a pack of its
// own, with the bases its ref-deltas name appended whole (as git index-pack
// --fix-thin does): go-git's pack writer indexes a pack alone, and its
// storage parser would write every object loose, held whole in memory.
func (c *Clone) storePack(pack *io.SectionReader, count uint32, thin []plumbing.Hash) (err error) {
	var bases []plumbing.Hash
	for _, h := range thin {
		if c.repo.Storer.HasEncodedObject(h) == nil {
			bases = append(bases, h)
		}
	}
	pw, ok := c.repo.Storer.(storer.PackfileWriter)
	if !ok {
		return errors.New("the clone's storage cannot take a pack")
	}
	w, err := pw.PackfileWriter()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	sum := sha1.New()
	out := io.MultiWriter(w, sum)
	var head [12]byte
	if _, err := pack.ReadAt(head[:], 0); err != nil {
		return err
	}
	binary.BigEndian.PutUint32(head[8:], count+uint32(len(bases)))
	out.Write(head[:])
	if _, err := io.Copy(out, io.NewSectionReader(pack, 12, pack.Size()-12-sha1.Size)); err != nil {
		return err
	}
	if len(bases) > 0 {
		body := &packBody{w: out, skip: 12}
		if _, err := packfile.NewEncoder(body, c.repo.Storer, false).Encode(bases, 0); err != nil {
			return fmt.Errorf("the bases of its deltas: %w", err)
		}
	}
	_, err = w.Write(sum.Sum(nil))
	return err
}

// packBody passes on the objects of a pack written to it: neither its
// header (the first skip bytes) nor its checksum (the last 20).
type packBody struct {
	w    io.Writer
	skip int
	tail []byte
}

func (b *packBody) Write(p []byte) (int, error) {
	n := len(p)
	k := min(b.skip, len(p))
	b.skip -= k
	b.tail = append(b.tail, p[k:]...)
	if over := len(b.tail) - sha1.Size; over > 0 {
		if _, err := b.w.Write(b.tail[:over]); err != nil {
			return 0, err
		}
		b.tail = append(b.tail[:0], b.tail[over:]...)
	}
	return n, nil
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

// Changed finds a commit on tip's first-parent chain down to base that
// changes the top folder dir, and a path it changes; "" when none does. A
// merge whose other parent brings dir from trusted's history changes nothing.
func (c *Clone) Changed(tip, base, dir, trusted string) (commit, path string, err error) {
	var known map[string]bool
	for h := tip; h != base; {
		cur, err := c.commit(h)
		if err != nil {
			return "", "", err
		}
		mine, err := c.folder(cur.Hash, dir)
		if err != nil {
			return "", "", err
		}
		var before plumbing.Hash
		kept := false
		for i, p := range cur.ParentHashes {
			theirs, err := c.folder(p, dir)
			if err != nil {
				return "", "", err
			}
			if i == 0 {
				before = theirs
			}
			if theirs != mine {
				continue
			}
			if i > 0 && trusted != "" && known == nil {
				known = c.Ancestors(trusted)
			}
			if kept = i == 0 || known[p.String()]; kept {
				break
			}
		}
		if !kept {
			return h, c.firstChange(dir, before, mine), nil
		}
		h = cur.ParentHashes[0].String()
	}
	return "", "", nil
}

// folder is the hash of the entry dir at the top of commit h's tree (the
// zero hash when there is none).
func (c *Clone) folder(h plumbing.Hash, dir string) (plumbing.Hash, error) {
	cm, err := c.commit(h.String())
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree, err := cm.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("the tree of %.12s: %w", h, err)
	}
	e, err := tree.FindEntry(dir)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}

// firstChange names a path below dir that differs between the trees a
// and b (dir itself when they cannot be read as trees).
func (c *Clone) firstChange(dir string, a, b plumbing.Hash) string {
	tree := func(h plumbing.Hash) *object.Tree {
		t, _ := c.repo.TreeObject(h)
		return t
	}
	changes, err := object.DiffTree(tree(a), tree(b))
	if err != nil || len(changes) == 0 {
		return dir
	}
	return dir + "/" + cmp.Or(changes[0].To.Name, changes[0].From.Name)
}
