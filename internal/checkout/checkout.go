package checkout

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// Unshallow is the depth of a fetch that takes a shallow clone's whole
// history, as git fetch --unshallow asks for it.
const Unshallow = 2147483647

// maxWalk bounds the commits a walk of this package visits.
const maxWalk = 200000

var fullHash = lazyre.New(`^[0-9a-f]{40}$`)

// Clone is a git clone on disk, opened with go-git. It is not safe for
// concurrent use.
type Clone struct {
	dir    string // as given
	gitDir string
	common string // the git directory holding objects, refs and shallow
	repo   *git.Repository
	view   string // the view's directory, made on first use
}

// Open opens the clone that contains dir (a work tree, a linked worktree
// or a bare repository).
func Open(dir string) (*Clone, error) {
	gitDir, common, err := gitlog.GitDirs(dir)
	if errors.Is(err, gitlog.ErrNotRepository) {
		return nil, fmt.Errorf("clone %s: not a git repository", dir)
	}
	if err == nil {
		err = regularFiles(gitDir, common)
	}
	if err != nil {
		return nil, fmt.Errorf("clone %s: %w", dir, err)
	}
	repo, err := git.PlainOpenWithOptions(gitDir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open clone %s: %w", dir, err)
	}
	return &Clone{dir: dir, gitDir: gitDir, common: common, repo: repo}, nil
}

// Close removes the view directory.
func (c *Clone) Close() error {
	if c == nil || c.view == "" {
		return nil
	}
	err := os.RemoveAll(c.view)
	c.view = ""
	return err
}

// GitDir is the directory that holds the clone's objects and refs.
func (c *Clone) GitDir() string { return c.common }

// Origin is the URL of the clone's origin remote, "" when it has none.
func (c *Clone) Origin() string {
	if r, err := c.repo.Remote("origin"); err == nil && len(r.Config().URLs) > 0 {
		return r.Config().URLs[0]
	}
	return ""
}

// Head is the commit HEAD points at.
func (c *Clone) Head() (string, error) {
	ref, err := c.repo.Head()
	if err != nil {
		return "", fmt.Errorf("HEAD of %s: %w", c.dir, err)
	}
	return ref.Hash().String(), nil
}

// Has reports whether the clone holds commit h (a full hash).
func (c *Clone) Has(h string) bool {
	if !fullHash().MatchString(h) {
		return false
	}
	_, err := c.repo.CommitObject(plumbing.NewHash(h))
	return err == nil
}

// Parents returns the parents of commit h as the commit names them (they
// need not be in the clone: a shallow clone lacks them).
func (c *Clone) Parents(h string) ([]string, error) {
	cm, err := c.commit(h)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(cm.ParentHashes))
	for _, p := range cm.ParentHashes {
		out = append(out, p.String())
	}
	return out, nil
}

func (c *Clone) commit(h string) (*object.Commit, error) {
	if !fullHash().MatchString(h) {
		return nil, fmt.Errorf("%q is not a commit hash", h)
	}
	cm, err := c.repo.CommitObject(plumbing.NewHash(h))
	if err != nil {
		return nil, fmt.Errorf("commit %.12s is not in the clone: %w", h, err)
	}
	return cm, nil
}

// Shallow reports whether the clone is shallow (.git/shallow lists
// commits whose parents it lacks).
func (c *Clone) Shallow() bool {
	s, err := c.repo.Storer.Shallow()
	return err == nil && len(s) > 0
}

// SetRef points ref name at commit h.
func (c *Clone) SetRef(name, h string) error {
	return c.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), plumbing.NewHash(h)))
}

// Ref returns the commit ref name points at.
func (c *Clone) Ref(name string) (string, error) {
	ref, err := c.repo.Reference(plumbing.ReferenceName(name), true)
	if err != nil {
		return "", err
	}
	return ref.Hash().String(), nil
}

// Auth is the HTTP basic auth actions/checkout uses for a token (user
// x-access-token), for an http(s) URL only: nil for any other URL or no
// token, so that the token never goes anywhere else.
func Auth(rawURL, token string) transport.AuthMethod {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || token == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: "x-access-token", Password: token}
}

// Fetch fetches refspecs from rawURL with go-git and the token. depth 0
// fetches what is missing; Unshallow takes the whole history, and then
// .git/shallow is repaired (go-git leaves it listing commits whose parents
// arrived). Nothing new is not an error.
func (c *Clone) Fetch(ctx context.Context, rawURL, token string, specs []string, depth int) error {
	if rawURL == "" {
		return errors.New("fetch: no URL to fetch from")
	}
	refspecs := make([]config.RefSpec, 0, len(specs))
	for _, s := range specs {
		rs := config.RefSpec(s)
		if err := rs.Validate(); err != nil {
			return fmt.Errorf("fetch %s: %w", s, err)
		}
		refspecs = append(refspecs, rs)
	}
	remote := git.NewRemote(c.repo.Storer, &config.RemoteConfig{Name: "loopbreaker", URLs: []string{rawURL}})
	err := remote.FetchContext(ctx, &git.FetchOptions{RemoteName: "loopbreaker", RefSpecs: refspecs, Auth: Auth(rawURL, token),
		Tags: git.NoTags, Force: true, Depth: depth})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("fetch %s from %s: %w", strings.Join(specs, " "), Redact(rawURL), redacted{err})
	}
	return c.repairShallow()
}

// redacted is an error whose text has no credentials; errors.Is and As
// still see the error it wraps.
type redacted struct{ err error }

func (r redacted) Error() string { return Redact(r.err.Error()) }
func (r redacted) Unwrap() error { return r.err }

// repairShallow drops from .git/shallow the commits whose parents are all
// in the clone now, and removes the file when none is left.
func (c *Clone) repairShallow() error {
	list, err := c.repo.Storer.Shallow()
	if err != nil || len(list) == 0 {
		return err
	}
	var kept []plumbing.Hash
	for _, h := range list {
		cm, err := c.repo.CommitObject(h)
		if err != nil {
			kept = append(kept, h)
			continue
		}
		for _, p := range cm.ParentHashes {
			if _, err := c.repo.Storer.EncodedObject(plumbing.CommitObject, p); err != nil {
				kept = append(kept, h)
				break
			}
		}
	}
	if len(kept) == len(list) {
		return nil
	}
	if len(kept) == 0 {
		if err := os.Remove(filepath.Join(c.common, "shallow")); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("repair %s: %w", filepath.Join(c.common, "shallow"), err)
		}
		return nil
	}
	return c.repo.Storer.SetShallow(kept)
}

// MergeBase returns the best common ancestor of commits a and b.
func (c *Clone) MergeBase(a, b string) (string, error) {
	ca, err := c.commit(a)
	if err != nil {
		return "", err
	}
	cb, err := c.commit(b)
	if err != nil {
		return "", err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return "", fmt.Errorf("merge base of %.12s and %.12s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return "", fmt.Errorf("%.12s and %.12s share no history in the clone", a, b)
	}
	return bases[0].Hash.String(), nil
}

// Chain walks a commit's first parents lazily, only as far as the questions
// asked need.
type Chain struct {
	c       *Clone
	cur     *object.Commit
	seen    map[string]bool
	stop    string
	shallow map[plumbing.Hash]bool
	done    bool
}

// chainSkew is how much later than its child a parent may be committed
// (clock skew, a rebase) before the walk gives up looking for it.
const chainSkew = 24 * time.Hour

// Chain starts a walk at head that ends at stop ("": the root), a shallow
// boundary or a commit missing from the clone.
func (c *Clone) Chain(head, stop string) (*Chain, error) {
	cm, err := c.commit(head)
	if err != nil {
		return nil, err
	}
	return &Chain{c: c, cur: cm, seen: map[string]bool{}, stop: stop, shallow: c.shallowSet()}, nil
}

// Has reports whether commit h is head or one of its first parents. The
// walk goes back until it meets h, ends, or reaches commits made more than
// a day before h (h cannot be further back).
func (w *Chain) Has(h string) bool {
	target, err := w.c.commit(h)
	if err != nil {
		return false
	}
	floor := target.Committer.When.Add(-chainSkew)
	for steps := 0; !w.seen[h] && !w.done && steps < maxWalk; steps++ {
		if w.cur.Committer.When.Before(floor) {
			return false
		}
		hash := w.cur.Hash.String()
		w.seen[hash] = true
		if hash == w.stop || len(w.cur.ParentHashes) == 0 || w.shallow[w.cur.Hash] {
			w.done = true
			break
		}
		next, err := w.c.repo.CommitObject(w.cur.ParentHashes[0])
		if err != nil {
			w.done = true
			break
		}
		w.cur = next
	}
	return w.seen[h]
}

// Cut reports whether head's first-parent chain, walked toward base ("":
// the root), ends at the clone's shallow boundary (or a missing commit)
// before it reaches base: the loop's history is cut.
func (c *Clone) Cut(head, base string) (bool, error) {
	cm, err := c.commit(head)
	if err != nil {
		return false, err
	}
	shallow := c.shallowSet()
	for n := 0; n < maxWalk; n++ {
		if cm.Hash.String() == base {
			return false, nil
		}
		if len(cm.ParentHashes) == 0 {
			return false, nil
		}
		if shallow[cm.Hash] {
			return true, nil
		}
		next, err := c.repo.CommitObject(cm.ParentHashes[0])
		if err != nil {
			return true, nil
		}
		cm = next
	}
	return false, nil
}

func (c *Clone) shallowSet() map[plumbing.Hash]bool {
	list, _ := c.repo.Storer.Shallow()
	set := make(map[plumbing.Hash]bool, len(list))
	for _, h := range list {
		set[h] = true
	}
	return set
}

// View returns a git directory whose HEAD is h and whose objects and refs
// are the clone's, to read h without touching the clone's HEAD or work
// tree; reused by the next View, removed by Close.
func (c *Clone) View(h string) (string, error) {
	if !fullHash().MatchString(h) {
		return "", fmt.Errorf("view: %q is not a commit hash", h)
	}
	if c.view == "" {
		dir, err := os.MkdirTemp("", "loopbreaker-view-")
		if err != nil {
			return "", fmt.Errorf("view: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "commondir"), []byte(c.common+"\n"), 0o600); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("view: %w", err)
		}
		c.view = dir
	}
	if err := os.WriteFile(filepath.Join(c.view, "HEAD"), []byte(h+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("view: %w", err)
	}
	return c.view, nil
}

// Redact removes the credentials a transport error may echo in a URL.
func Redact(s string) string {
	return userinfo().ReplaceAllString(s, "://")
}

var userinfo = lazyre.New(`://[^/@\s]+@`)

// regularFiles refuses a clone whose files go-git reads (HEAD, config,
// packed-refs, shallow, pack indexes) are not regular: go-git would wait on
// a pipe for good. They are checked by type, unopened.
func regularFiles(gitdir, common string) error {
	paths := []string{filepath.Join(gitdir, "HEAD")}
	for _, n := range []string{"config", "packed-refs", "shallow"} {
		paths = append(paths, filepath.Join(common, n))
	}
	packs := filepath.Join(common, "objects", "pack")
	if ents, err := os.ReadDir(packs); err == nil {
		for _, e := range ents {
			if regularfile.Irregular(e.Type()) {
				paths = append(paths, filepath.Join(packs, e.Name()))
			}
		}
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			return regularfile.NotRegular(p, fi.Mode())
		}
	}
	return nil
}

// Ancestors is the set of commits reachable from head by any parent; nil
// when there are more than maxWalk or a commit is missing short of a
// shallow boundary (the caller takes the stricter answer). Commit dates,
// which the agent chooses, never stop the walk.
func (c *Clone) Ancestors(head string) map[string]bool {
	start, err := c.commit(head)
	if err != nil {
		return nil
	}
	shallow := c.shallowSet()
	seen := map[string]bool{head: true}
	queue := []*object.Commit{start}
	for len(queue) > 0 {
		cur := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if shallow[cur.Hash] {
			continue
		}
		for _, p := range cur.ParentHashes {
			if seen[p.String()] {
				continue
			}
			if len(seen) >= maxWalk {
				return nil
			}
			next, err := c.repo.CommitObject(p)
			if err != nil {
				return nil
			}
			seen[p.String()] = true
			queue = append(queue, next)
		}
	}
	return seen
}
