package gitlog

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// defaultBranches are tried in order when Options.Base is empty.
var defaultBranches = []struct {
	ref  plumbing.ReferenceName
	name string
}{
	{"refs/remotes/origin/HEAD", "origin/HEAD"},
	{"refs/heads/main", "main"},
	{"refs/heads/master", "master"},
	{"refs/remotes/origin/main", "origin/main"},
	{"refs/remotes/origin/master", "origin/master"},
}

// isHexRevision reports whether a revision can only be an object name: 7
// to 64 hex digits. (A function, not a regular expression: compiling
// {7,64} cost a twentieth of the program's start-up.)
func isHexRevision(rev string) bool {
	if len(rev) < 7 || len(rev) > 64 {
		return false
	}
	for i := 0; i < len(rev); i++ {
		if !isHexDigit(rev[i]) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// baseChoice is the resolved base of a walk.
type baseChoice struct {
	hash    plumbing.Hash // zero: the root, or unknown
	ref     string        // default branch name, when computed from one
	unknown bool          // the base is beyond a shallow boundary
	given   string        // Options.Base
	notes   []string
	// shallow are the notes that the base lies beyond a shallow clone's
	// boundary: left out when the walk meets the boundary, whose note
	// says so once.
	shallow []string
}

// History returns the loop's iterations: the first-parent chain from the
// base (exclusive) to HEAD, oldest first, each with its evidence. See the
// package documentation for empty, shallow and merged histories.
func (r *Repo) History(opts Options) (*History, error) {
	opts = opts.withDefaults()
	h := &History{}
	head, ok, err := r.head()
	if err != nil {
		return nil, err
	}
	if !ok {
		h.Notes = append(h.Notes, "empty repository: HEAD has no commit yet, 0 iterations")
		return h, nil
	}
	h.Head = head.String()
	headCommit, err := r.commit(head)
	if err != nil {
		return nil, fmt.Errorf("HEAD: %w", err)
	}
	base, err := r.chooseBase(opts.Base, head)
	if err != nil {
		return nil, err
	}
	h.BaseRef = base.ref
	h.Notes = append(h.Notes, base.notes...)
	if !base.hash.IsZero() {
		h.Base = base.hash.String()
		if bc, err := r.commit(base.hash); err == nil {
			h.BaseTree = bc.TreeHash.String()
		}
	}
	w, err := r.walkFirstParents(headCommit, base.hash, opts.MaxCommits)
	if err != nil {
		return nil, err
	}
	chain, err := r.endChain(h, w, base, opts.MaxCommits)
	if err != nil {
		return nil, err
	}
	if !h.Shallow {
		h.Notes = append(h.Notes, base.shallow...)
	}
	if opts.ChainOnly {
		h.Commits = make([]Commit, 0, len(chain))
		for i := len(chain) - 1; i >= 0; i-- {
			h.Commits = append(h.Commits, describe(chain[i]))
		}
		return h, nil
	}
	if err := r.addEvidence(h, chain, base.hash, opts); err != nil {
		return nil, err
	}
	return h, nil
}

// firstParentWalk is the first-parent chain from HEAD, newest first, and
// why it ended.
type firstParentWalk struct {
	head        plumbing.Hash
	chain       []*object.Commit
	found       bool // at the base, which is not on the chain
	reachedRoot bool // at a commit without parents, which is on it
	hitShallow  bool // at a shallow clone's boundary, which is on it
	truncated   bool // at max commits
}

// walkFirstParents walks first parents from head until the base (zero: no
// base), a root, a shallow boundary or max commits.
func (r *Repo) walkFirstParents(head *object.Commit, base plumbing.Hash, max int) (firstParentWalk, error) {
	w := firstParentWalk{head: head.Hash}
	for c := head; ; {
		if !base.IsZero() && c.Hash == base {
			w.found = true
			return w, nil
		}
		if len(w.chain) == max {
			w.truncated = true
			return w, nil
		}
		w.chain = append(w.chain, c)
		if len(c.ParentHashes) == 0 {
			w.reachedRoot = true
			return w, nil
		}
		if r.shallow[c.Hash] {
			w.hitShallow = true
			return w, nil
		}
		p, err := r.commit(c.ParentHashes[0])
		if err != nil && r.IsShallow() && isMissing(err) {
			w.hitShallow = true // cut where the shallow file did not say
			return w, nil
		}
		if err != nil {
			return w, fmt.Errorf("first parent of %s: %w", c.Hash, err)
		}
		c = p
	}
}

// endChain returns the iterations' commits (newest first) of a walk,
// noting in h how it ended: at a shallow boundary, at a base that is not
// on the first-parent chain, or at max commits. A walk that reached the
// root without meeting a base that is not an ancestor of HEAD, or one the
// caller named and the clone does not have, is an error.
func (r *Repo) endChain(h *History, w firstParentWalk, base baseChoice, max int) ([]*object.Commit, error) {
	chain := w.chain
	switch {
	case w.found:
	case w.hitShallow:
		boundary := chain[len(chain)-1]
		chain = chain[:len(chain)-1]
		h.Shallow = true
		visible := len(chain)
		if !base.hash.IsZero() && boundary.ParentHashes[0] == base.hash {
			h.Notes = append(h.Notes, fmt.Sprintf("shallow clone: %d of %d iterations visible (the parent of %s is not in the clone; fetch the full history, e.g. fetch-depth: 0)", visible, visible+1, textcut.Hash(boundary.Hash.String())))
		} else {
			h.Notes = append(h.Notes, fmt.Sprintf("shallow clone: %d of an unknown number of iterations visible (history is cut at %s; fetch the full history, e.g. fetch-depth: 0)", visible, textcut.Hash(boundary.Hash.String())))
		}
	case w.reachedRoot && !base.hash.IsZero():
		cut, err := r.cutAtBase(chain, base)
		if err != nil {
			return nil, err
		}
		if len(cut) == len(chain) {
			// Nothing on the chain is in the base: make sure it is an
			// ancestor at all (a shallow clone can hide the connection).
			if ok, err := r.isAncestor(base.hash, w.head); err != nil || !ok {
				if err == nil {
					err = ErrNotAncestor
				}
				return nil, fmt.Errorf("base %s in %s: %w (%s)", describeBase(base), r.dir, err, w.head)
			}
		}
		h.Notes = append(h.Notes, fmt.Sprintf("base %s is not on HEAD's first-parent chain: iterations start after the newest first-parent commit it contains", describeBase(base)))
		return cut, nil
	case w.reachedRoot && base.unknown:
		if base.given != "" {
			return nil, fmt.Errorf("base %q in %s: %w", base.given, r.dir, ErrUnknownRevision)
		}
	case w.truncated:
		h.Truncated = true
		h.Notes = append(h.Notes, fmt.Sprintf("history longer than %d commits: only the newest %d are iterations", max, max))
	}
	return chain, nil
}

// addEvidence fills h.Commits (oldest first) with each commit's metadata,
// change against its first parent and task counts, and h.BaseTasks and
// h.BaseChecked.
func (r *Repo) addEvidence(h *History, chain []*object.Commit, base plumbing.Hash, opts Options) error {
	prevTree, err := r.treeBefore(chain, base)
	if err != nil {
		return err
	}
	tracker, err := r.newTaskTracker(opts.TaskFiles, orEmpty(prevTree))
	if err != nil {
		return err
	}
	prevTasks, err := tracker.state()
	if err != nil {
		return err
	}
	h.BaseTasks, h.BaseChecked = prevTasks.counts, prevTasks.checked()
	unreadable := 0
	h.Commits = make([]Commit, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		tree, err := r.tree(c.TreeHash)
		if err != nil {
			return fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		raw, err := r.treeChanges(prevTree, tree, opts.MaxFileBytes)
		if err != nil {
			return fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		prevTree = tree
		cm := describe(c)
		if cm.Change, err = r.classify(raw, opts); err != nil {
			return fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		if n := len(cm.Change.Unreadable); n > 0 {
			if unreadable < maxUnreadableNotes {
				h.Notes = append(h.Notes, unreadableNote(c.Hash, cm.Change.Unreadable))
			}
			unreadable++
		}
		tracker.apply(raw)
		tasks, err := tracker.state()
		if err != nil {
			return fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		cm.Tasks = clone(tasks.counts)
		cm.CurrentTask = clone(tasks.current)
		if tasks.counts != nil || prevTasks.counts != nil {
			cm.TaskChange = &TaskChange{}
			if tasks != prevTasks {
				*cm.TaskChange = compareStates(prevTasks, tasks)
			}
		}
		prevTasks = tasks
		h.Commits = append(h.Commits, cm)
	}
	if unreadable > maxUnreadableNotes {
		h.Notes = append(h.Notes, fmt.Sprintf("%d commits in all changed objects that are not in the repository", unreadable))
	}
	h.Notes = append(h.Notes, tracker.notes...)
	return nil
}

// maxUnreadableNotes bounds the notes about objects that are not in the
// repository: one per commit up to it, then a count.
const maxUnreadableNotes = 5

// unreadableNote names a commit and the objects of it that could not be
// read.
func unreadableNote(commit plumbing.Hash, what []string) string {
	list := what
	more := ""
	if len(list) > 3 {
		list, more = list[:3], fmt.Sprintf(" and %d more", len(what)-3)
	}
	return fmt.Sprintf("commit %s: counted as changed without reading %s%s", textcut.Hash(commit.String()), strings.Join(list, ", "), more)
}

// clone copies *p, so that callers never share the caches' values; nil
// stays nil.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// treeBefore returns the tree the oldest iteration of chain (newest first)
// is diffed against: its first parent's, the base's when the chain is
// empty, or nil (the empty tree) for a root.
func (r *Repo) treeBefore(chain []*object.Commit, base plumbing.Hash) (*object.Tree, error) {
	var from plumbing.Hash
	switch n := len(chain); {
	case n > 0 && len(chain[n-1].ParentHashes) > 0:
		p, err := r.commit(chain[n-1].ParentHashes[0])
		if err != nil {
			return nil, fmt.Errorf("first parent of %s: %w", chain[n-1].Hash, err)
		}
		from = p.TreeHash
	case n == 0 && !base.IsZero():
		bc, err := r.commit(base)
		if err != nil {
			return nil, err
		}
		from = bc.TreeHash
	default:
		return nil, nil
	}
	return r.tree(from)
}

func orEmpty(t *object.Tree) *object.Tree {
	if t == nil {
		return &object.Tree{}
	}
	return t
}

func describeBase(b baseChoice) string {
	switch {
	case b.given != "":
		return fmt.Sprintf("%q (%s)", b.given, textcut.Hash(b.hash.String()))
	case b.ref != "":
		return fmt.Sprintf("%s (merge base with %s)", textcut.Hash(b.hash.String()), b.ref)
	}
	return textcut.Hash(b.hash.String())
}

// chooseBase resolves Options.Base, or finds the merge base with the default
// branch.
func (r *Repo) chooseBase(rev string, head plumbing.Hash) (baseChoice, error) {
	b := baseChoice{given: rev}
	if rev != "" {
		h, err := r.resolve(rev)
		if err != nil {
			if r.IsShallow() && isHexRevision(rev) {
				// Probably beyond the shallow boundary: walk to it, and fail
				// only if the walk reaches a root instead.
				b.unknown = true
				b.shallow = append(b.shallow, fmt.Sprintf("base %q is not in this shallow clone", rev))
				return b, nil
			}
			return b, fmt.Errorf("base: %w", err)
		}
		b.hash = h
		if h == head {
			return b, nil
		}
		mb, found, shallowCut, err := r.mergeBase(h, head)
		switch {
		case err != nil:
			return b, fmt.Errorf("base %q: %w", rev, err)
		case found && mb == h:
			return b, nil
		case !found && shallowCut:
			// The connection may lie beyond the shallow boundary.
			b.shallow = append(b.shallow, fmt.Sprintf("base %q is not reachable from HEAD within this shallow clone", rev))
			return b, nil
		}
		return b, fmt.Errorf("base %q (%s) in %s: %w (%s)", rev, h, r.dir, ErrNotAncestor, head)
	}
	name, tip, ok, err := r.DefaultBranch()
	if err != nil {
		return b, err
	}
	if !ok {
		b.notes = append(b.notes, "no default branch (origin/HEAD, main, master, origin/main, origin/master): counting from the root")
		return b, nil
	}
	b.ref = name
	mb, found, shallowCut, err := r.mergeBase(head, plumbing.NewHash(tip))
	if err != nil && r.IsShallow() && errors.Is(err, ErrUnknownRevision) {
		// The branch tip (or its history) was not fetched.
		found, shallowCut, err = false, true, nil
	}
	if err != nil {
		return b, fmt.Errorf("merge base of HEAD and %s: %w", name, err)
	}
	switch {
	case found && mb == head:
		b.hash = mb
		b.notes = append(b.notes, fmt.Sprintf("HEAD is on the default branch %s: 0 iterations after the merge base; pass a base to choose where the loop started", name))
	case found:
		b.hash = mb
	case shallowCut:
		b.unknown = true
		b.shallow = append(b.shallow, fmt.Sprintf("the merge base of HEAD and %s is not in this shallow clone", name))
	default:
		b.notes = append(b.notes, fmt.Sprintf("HEAD shares no history with %s: counting from the root", name))
	}
	return b, nil
}

// cutAtBase handles a base that is an ancestor of HEAD but not on its
// first-parent chain: the chain ends before the newest commit the base
// contains. Containment is monotone along the chain, so a binary search
// finds it.
func (r *Repo) cutAtBase(chain []*object.Commit, base baseChoice) ([]*object.Commit, error) {
	lo, hi := 0, len(chain) // chain[hi:] are contained in base
	for lo < hi {
		mid := (lo + hi) / 2
		ok, err := r.isAncestor(chain[mid].Hash, base.hash)
		if err != nil {
			return nil, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return chain[:lo], nil
}

// isAncestor reports whether a is an ancestor of b (or b itself).
func (r *Repo) isAncestor(a, b plumbing.Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	mb, found, _, err := r.mergeBase(a, b)
	return found && mb == a, err
}

// Flags of the merge-base walk.
const (
	fromA = 1 << iota
	fromB
	stale
	result
)

// mergeBase finds the best common ancestor of a and b by walking both
// histories newest first (git's paint-down). shallowCut says that the walk
// could not follow a shallow commit's parents, so "not found" may only mean
// "not in this clone".
func (r *Repo) mergeBase(a, b plumbing.Hash) (mb plumbing.Hash, found, shallowCut bool, err error) {
	if a == b {
		return a, true, false, nil
	}
	flags := map[plumbing.Hash]uint8{}
	var q commitQueue
	for _, s := range []struct {
		h    plumbing.Hash
		flag uint8
	}{{a, fromA}, {b, fromB}} {
		c, err := r.commit(s.h)
		if err != nil {
			return mb, false, false, err
		}
		flags[s.h] |= s.flag
		q.push(c)
	}
	var results []plumbing.Hash
	for q.hasLive(flags) {
		c := q.pop()
		f := flags[c.Hash] & (fromA | fromB | stale)
		if f&(fromA|fromB) == fromA|fromB {
			if flags[c.Hash]&result == 0 {
				flags[c.Hash] |= result
				results = append(results, c.Hash)
			}
			f |= stale
		}
		if r.shallow[c.Hash] && len(c.ParentHashes) > 0 {
			shallowCut = true
			continue
		}
		for _, ph := range c.ParentHashes {
			if flags[ph]&f == f {
				continue
			}
			p, err := r.commit(ph)
			if err != nil && r.IsShallow() && errors.Is(err, ErrUnknownRevision) {
				shallowCut = true // history not fetched
				continue
			}
			if err != nil {
				return mb, false, shallowCut, fmt.Errorf("parent of %s: %w", c.Hash, err)
			}
			flags[ph] |= f
			q.push(p)
		}
	}
	for _, h := range results {
		if flags[h]&stale == 0 {
			return h, true, shallowCut, nil
		}
	}
	return mb, false, shallowCut, nil
}

// commitQueue is a max-heap of commits by committer time (then hash, for
// determinism).
type commitQueue struct{ items []*object.Commit }

func (q *commitQueue) less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.Committer.When.Equal(b.Committer.When) {
		return a.Committer.When.After(b.Committer.When)
	}
	return a.Hash.String() > b.Hash.String()
}

func (q *commitQueue) push(c *object.Commit) {
	q.items = append(q.items, c)
	for i := len(q.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

func (q *commitQueue) pop() *object.Commit {
	top := q.items[0]
	n := len(q.items) - 1
	q.items[0] = q.items[n]
	q.items = q.items[:n]
	for i := 0; ; {
		l, rt, m := 2*i+1, 2*i+2, i
		if l < n && q.less(l, m) {
			m = l
		}
		if rt < n && q.less(rt, m) {
			m = rt
		}
		if m == i {
			break
		}
		q.items[i], q.items[m] = q.items[m], q.items[i]
		i = m
	}
	return top
}

// hasLive reports whether any queued commit is not yet stale.
func (q *commitQueue) hasLive(flags map[plumbing.Hash]uint8) bool {
	for _, c := range q.items {
		if flags[c.Hash]&stale == 0 {
			return true
		}
	}
	return false
}

// describe fills a Commit's metadata (not its change or tasks).
func describe(c *object.Commit) Commit {
	msg := ParseMessage(c.Message)
	cm := Commit{
		Hash:     c.Hash.String(),
		Tree:     c.TreeHash.String(),
		Parents:  make([]string, len(c.ParentHashes)),
		Author:   c.Author.Name,
		Email:    c.Author.Email,
		At:       c.Committer.When,
		AuthorAt: c.Author.When,
		Message:  msg.Text,
		Subject:  msg.Subject,
		Trailers: msg.Trailers,
		Revert:   msg.Revert,
		Reverts:  msg.Reverts,
	}
	for i, p := range c.ParentHashes {
		cm.Parents[i] = p.String()
	}
	return cm
}

// Diff returns the change between two commits (from "" is the empty tree),
// the task counts at to and what happened to the tasks between them. Both
// may be any revision Resolve accepts. It is used when iterations come
// from ledger records, one record covering every commit since the previous
// record's; Ranges diffs a sequence of them.
func (r *Repo) Diff(from, to string, opts Options) (*Range, error) {
	w, err := r.NewRanges(from, opts)
	if err != nil {
		return nil, err
	}
	return w.Next(to)
}

// classifiedChange diffs and classifies two trees (nil: the empty tree),
// remembering the answer: a ledger record asks CommitInfo and Diff for the
// same pair.
func (r *Repo) classifiedChange(from, to *object.Tree, opts Options) (Change, error) {
	var fh, th plumbing.Hash
	if from != nil {
		fh = from.Hash
	}
	if to != nil {
		th = to.Hash
	}
	k := newChangeKey(fh, th, opts)
	if ch, ok := r.memoizedChange(k); ok {
		return ch, nil
	}
	raw, err := r.treeChanges(from, to, opts.MaxFileBytes)
	if err != nil {
		return Change{}, err
	}
	ch, err := r.classify(raw, opts)
	if err != nil {
		return Change{}, err
	}
	r.memoChange(k, ch)
	return ch, nil
}

// Describe returns one commit's metadata (any revision Resolve accepts):
// hash, tree, parents, author, times, message, trailers and revert, but
// neither its change nor its task counts, which cost a diff and a tree walk
// (CommitInfo has them).
func (r *Repo) Describe(rev string) (*Commit, error) {
	_, c, err := r.resolveCommit(rev)
	if err != nil {
		return nil, err
	}
	cm := describe(c)
	cm.Shallow = len(c.ParentHashes) > 0 && r.shallow[c.Hash]
	return &cm, nil
}

// CommitInfo returns one commit (any revision Resolve accepts) with its
// change against its first parent and its task counts. For a commit at a
// shallow clone's boundary, Shallow is set and Change is left empty.
func (r *Repo) CommitInfo(rev string, opts Options) (*Commit, error) {
	opts = opts.withDefaults()
	_, c, err := r.resolveCommit(rev)
	if err != nil {
		return nil, err
	}
	cm := describe(c)
	tree, err := r.tree(c.TreeHash)
	if err != nil {
		return nil, err
	}
	switch {
	case len(c.ParentHashes) > 0 && r.shallow[c.Hash]:
		cm.Shallow = true
	default:
		var parentTree *object.Tree
		if len(c.ParentHashes) > 0 {
			p, err := r.commit(c.ParentHashes[0])
			if err != nil {
				return nil, fmt.Errorf("first parent of %s: %w", c.Hash, err)
			}
			if parentTree, err = r.tree(p.TreeHash); err != nil {
				return nil, err
			}
		}
		if cm.Change, err = r.classifiedChange(parentTree, tree, opts); err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.Hash, err)
		}
	}
	_, st, err := r.tasksOf(tree, opts)
	if err != nil {
		return nil, err
	}
	cm.Tasks = st.counts
	return &cm, nil
}
