package gitlog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNotRepository is wrapped by Open's error when the directory is not in a
// git repository: bad input, not an internal fault.
var ErrNotRepository = errors.New("not a git repository")

// ErrUnknownRevision is wrapped by errors for a revision or object that is
// not in the repository.
var ErrUnknownRevision = errors.New("unknown revision or object not in the repository")

// ErrNotAncestor is wrapped by History's error when the base is not an
// ancestor of HEAD.
var ErrNotAncestor = errors.New("not an ancestor of HEAD")

// Repo is an open repository.
type Repo struct {
	dir    string
	gitDir string
	git    *git.Repository
	st     *objectStorer
	closer func() error
	// shallowFile: .git/shallow names a commit of the repository (a
	// shallow clone); shallow are those of its commits with a parent
	// missing, where history is cut.
	shallowFile bool
	shallow     map[plumbing.Hash]bool

	commits map[plumbing.Hash]*object.Commit // bounded by commitCacheMax
	trees   map[plumbing.Hash]*object.Tree   // bounded by treeCacheMax
	tasks   map[plumbing.Hash]*taskList      // checkboxes by blob, bounded by taskCacheItems
	taskN   int                              // room for tasks held in the tasks cache
	texts   taskTexts                        // task identities by text (tasks.go)
	blobs   *cache.ObjectLRU                 // blobs read whole, bounded by blobCacheBytes

	matches   map[matchKey]bool      // path-pattern answers (memo.go)
	taskFiles map[taskKey][]taskFile // task files under a subtree
	changes   map[changeKey]Change   // classified diffs by tree pair

	skippedStores []string // alternate object stores left out, and why (alternates.go)
}

// commitCacheMax bounds the decoded-commit cache.
const commitCacheMax = 4 * DefaultMaxCommits

// treeCacheMax bounds the decoded-tree cache. A walk needs the trees of
// the commit before and the commit at hand; a larger cache only held
// memory (a 5,000-commit walk peaked 70 MB higher with 16,384, and 2,048
// kept 14 MB of trees alive on the 2,000-commit bench).
const treeCacheMax = 1 << 8

// taskCacheItems bounds the tasks the task-list cache holds.
const taskCacheItems = 1 << 20

// blobCacheBytes bounds the blobs kept for a second use: a walk reads a
// file's content as the new side of one commit and again as the old side
// of the next commit that changes it, and a task file once more for its
// checkboxes. (go-git keeps the objects it reads in a cache of its own.)
const blobCacheBytes = 8 * cache.MiByte

// Open opens the repository that contains dir (dir itself, a parent, or a
// bare repository at dir). The error wraps ErrNotRepository when there is
// none: "not a git repository: DIR". Every file of the repository is read
// through regularFS: a named pipe, socket or device in .git, or a symbolic
// link leaving it, is an error naming the file (wrapping ErrNotRegular for
// the former), never a wait.
func Open(dir string) (*Repo, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		reason := "not a directory"
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err.Error()
		} else if err != nil {
			reason = err.Error()
		}
		return nil, fmt.Errorf("%w: %s (%s)", ErrNotRepository, dir, reason)
	}
	gitDir, err := findGitDir(dir)
	if err != nil {
		return nil, err
	}
	st, skipped, err := openStorage(gitDir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	g, err := git.Open(st, nil)
	if st.refused.err != nil {
		err = st.refused.err
	}
	if errors.Is(err, git.ErrRepositoryNotExists) {
		_ = st.Close()
		return nil, fmt.Errorf("%w: %s", ErrNotRepository, dir)
	}
	if err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	r := &Repo{
		dir:           dir,
		gitDir:        gitDir,
		git:           g,
		st:            st,
		closer:        st.Close,
		commits:       map[plumbing.Hash]*object.Commit{},
		trees:         map[plumbing.Hash]*object.Tree{},
		tasks:         map[plumbing.Hash]*taskList{},
		texts:         taskTexts{},
		blobs:         cache.NewObjectLRU(blobCacheBytes),
		matches:       map[matchKey]bool{},
		taskFiles:     map[taskKey][]taskFile{},
		changes:       map[changeKey]Change{},
		skippedStores: skipped,
	}
	if err := r.readShallow(); err != nil {
		_ = r.closer()
		return nil, fmt.Errorf("open repository %s: %w", dir, err)
	}
	return r, nil
}

// Close releases the open pack files.
func (r *Repo) Close() error { return r.closer() }

// Dir is the directory the repository was opened from.
func (r *Repo) Dir() string { return r.dir }

// IsShallow reports whether the repository is a shallow clone: its
// .git/shallow names a commit it holds. History is cut only where a
// parent is missing.
func (r *Repo) IsShallow() bool { return r.shallowFile }

// Resolve resolves a revision (a hash, a unique hash prefix, a branch or
// tag, HEAD~2, main^2, ...) to a full commit hash. The error names the
// repository and the revision.
func (r *Repo) Resolve(rev string) (string, error) {
	h, err := r.resolve(rev)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

func (r *Repo) resolve(rev string) (h plumbing.Hash, err error) {
	if rev == "" {
		return plumbing.ZeroHash, fmt.Errorf("resolve revision in %s: empty revision", r.dir)
	}
	if strings.Contains(rev, "@{") {
		// go-git would silently drop a reflog or upstream suffix.
		return plumbing.ZeroHash, fmt.Errorf("resolve %q in %s: %w (@{...} suffixes are not supported)", rev, r.dir, ErrUnknownRevision)
	}
	if len(rev) == 40 && isHexRevision(rev) {
		// A full object name names the object, as in git, and needs no
		// search through the references (go-git reads packed-refs for it
		// each time): the common case of ledger records.
		h := plumbing.NewHash(strings.ToLower(rev))
		if _, err := r.commit(h); err == nil {
			return h, nil
		}
	}
	if start, steps, ok := ancestry(rev); ok {
		h, ok, err := r.walkAncestry(start, steps)
		if ok || err != nil {
			return h, err
		}
		// Whatever the walk could not follow (a tag to peel, a parent
		// not in the clone), go-git answers, and names the fault.
	}
	defer func() {
		// go-git is not ours: a malformed revision must not crash the run.
		if p := recover(); p != nil {
			h, err = plumbing.ZeroHash, fmt.Errorf("resolve %q in %s: %w (%v)", rev, r.dir, ErrUnknownRevision, p)
		}
	}()
	ph, err := r.git.ResolveRevision(plumbing.Revision(rev))
	if err := r.refusal(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve %q in %s: %w", rev, r.dir, err)
	}
	if err != nil && r.st.damaged != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve %q in %s: %w", rev, r.dir, r.st.damaged)
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("resolve %q in %s: %w (%v)", rev, r.dir, ErrUnknownRevision, err)
	}
	return *ph, nil
}

// ancestryStep is one "~n" (n first parents back) or "^n" (the n-th
// parent; ^0 is the commit itself) of a revision.
type ancestryStep struct {
	first bool // "~"
	n     int
}

// ancestry splits a revision that ends in ancestry steps ("HEAD~3",
// "main^2~", "v1^^") into its start and the steps, so that they are
// walked through the commit cache instead of go-git's reader; ok is false
// when rev has no steps, an empty start, or any other suffix (^{...}).
func ancestry(rev string) (start string, steps []ancestryStep, ok bool) {
	i := strings.IndexAny(rev, "~^")
	if i <= 0 {
		return "", nil, false
	}
	start, rest := rev[:i], rev[i:]
	for rest != "" {
		st := ancestryStep{first: rest[0] == '~', n: 1}
		rest = rest[1:]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j > 0 {
			n, err := strconv.Atoi(rest[:j])
			if err != nil || n > 1<<20 {
				return "", nil, false
			}
			st.n = n
		}
		if j < len(rest) && rest[j] != '~' && rest[j] != '^' {
			return "", nil, false
		}
		rest = rest[j:]
		steps = append(steps, st)
	}
	return start, steps, true
}

// walkAncestry resolves start and walks steps back from it to a commit;
// ok is false when any of them cannot be followed. A commit that is there
// but cannot be read (a damaged object, a pack cut short) is an error: go-git
// would report it as an unknown revision.
func (r *Repo) walkAncestry(start string, steps []ancestryStep) (plumbing.Hash, bool, error) {
	h, err := r.resolve(start)
	if err != nil {
		return plumbing.ZeroHash, false, nil
	}
	for _, st := range steps {
		moves, parent := st.n, 1
		if !st.first {
			moves, parent = min(st.n, 1), st.n
		}
		for range moves {
			c, err := r.commit(h)
			if err != nil && !isMissing(err) {
				return plumbing.ZeroHash, false, err
			}
			if err != nil || len(c.ParentHashes) < parent {
				return plumbing.ZeroHash, false, nil
			}
			h = c.ParentHashes[parent-1]
		}
	}
	if _, err = r.commit(h); err != nil && !isMissing(err) {
		return plumbing.ZeroHash, false, err
	}
	return h, err == nil, nil
}

// resolveCommit resolves a revision and reads its commit.
func (r *Repo) resolveCommit(rev string) (plumbing.Hash, *object.Commit, error) {
	h, err := r.resolve(rev)
	if err != nil {
		return h, nil, err
	}
	c, err := r.commit(h)
	return h, c, err
}

// head returns HEAD's commit hash; ok is false when HEAD names no commit
// (an empty repository or an unborn branch).
func (r *Repo) head() (plumbing.Hash, bool, error) {
	ref, err := r.git.Head()
	if rerr := r.refusal(); rerr != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("read HEAD in %s: %w", r.dir, rerr)
	}
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("read HEAD in %s: %w", r.dir, err)
	}
	return ref.Hash(), true, nil
}

// refusal is the first file of the repository that was refused (a named
// pipe, a socket, a device, a link leaving it), nil when none was: go-git
// may have read it as missing.
func (r *Repo) refusal() error { return r.st.refused.err }

// reference reads a reference through go-git, with a refused file as the
// error.
func (r *Repo) reference(name plumbing.ReferenceName) (*plumbing.Reference, error) {
	ref, err := r.git.Reference(name, true)
	if rerr := r.refusal(); rerr != nil {
		return nil, rerr
	}
	return ref, err
}

// commit reads and caches a commit. The error names the object.
func (r *Repo) commit(h plumbing.Hash) (*object.Commit, error) {
	if c, ok := r.commits[h]; ok {
		return c, nil
	}
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, r.objectError("commit", h, err)
	}
	if len(r.commits) >= commitCacheMax {
		clear(r.commits)
	}
	r.commits[h] = c
	return c, nil
}

// tree reads a tree, its entries in git order; the zero hash is the empty
// tree.
func (r *Repo) tree(h plumbing.Hash) (*object.Tree, error) {
	if h.IsZero() {
		return &object.Tree{}, nil
	}
	if t, ok := r.trees[h]; ok {
		return t, nil
	}
	obj, err := r.st.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, r.objectError("tree", h, err)
	}
	t := &object.Tree{}
	if err := t.Decode(obj); err != nil {
		return nil, r.objectError("tree", h, err)
	}
	if !slices.IsSortedFunc(t.Entries, compareEntries) {
		// A malformed tree is sorted rather than misread by the diff.
		slices.SortStableFunc(t.Entries, compareEntries)
	}
	if len(r.trees) >= treeCacheMax {
		clear(r.trees)
	}
	r.trees[h] = t
	return t, nil
}

// isMissing reports an error for an object that is not in the repository.
func isMissing(err error) bool { return errors.Is(err, ErrUnknownRevision) }

// objectError names the repository and the object, and says what to do
// about a missing object in a shallow clone.
func (r *Repo) objectError(kind string, h plumbing.Hash, err error) error {
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		if r.IsShallow() {
			return fmt.Errorf("read %s %s in %s: %w (shallow clone: fetch the full history, e.g. fetch-depth: 0)", kind, h, r.dir, ErrUnknownRevision)
		}
		if len(r.skippedStores) > 0 {
			return fmt.Errorf("read %s %s in %s: %w (alternate object stores left out: %s)", kind, h, r.dir, ErrUnknownRevision, strings.Join(r.skippedStores, "; "))
		}
		return fmt.Errorf("read %s %s in %s: %w", kind, h, r.dir, ErrUnknownRevision)
	}
	return fmt.Errorf("read %s %s in %s: %w", kind, h, r.dir, err)
}

// ErrNoFile is wrapped by FileAt's error when the path is not in the tree.
var ErrNoFile = errors.New("no such file at that revision")

// FileAt returns the content of path (slash-separated, relative to the
// root) at revision rev, reading at most max bytes. It reads git objects
// only, so a file at a trusted revision (the base branch) cannot be changed
// by edits in the work tree or on the loop's branch.
func (r *Repo) FileAt(rev, path string, max int64) ([]byte, error) {
	_, c, err := r.resolveCommit(rev)
	if err != nil {
		return nil, err
	}
	t, err := object.GetTree(r.st, c.TreeHash) // with its storer, for File
	if err != nil {
		return nil, r.objectError("tree", c.TreeHash, err)
	}
	f, err := t.File(strings.TrimPrefix(path, "./"))
	if err != nil {
		return nil, fmt.Errorf("%s at %s in %s: %w", path, rev, r.dir, ErrNoFile)
	}
	if f.Size > max {
		return nil, fmt.Errorf("%s at %s in %s: %d bytes, more than %d", path, rev, r.dir, f.Size, max)
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("%s at %s in %s: %w", path, rev, r.dir, err)
	}
	defer rd.Close()
	data, err := io.ReadAll(io.LimitReader(rd, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s at %s in %s: %w", path, rev, r.dir, err)
	}
	return data, nil
}
