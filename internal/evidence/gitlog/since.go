package gitlog

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Head returns HEAD's commit hash, "" when HEAD names no commit (an empty
// repository or an unborn branch).
func (r *Repo) Head() (string, error) {
	h, ok, err := r.head()
	if err != nil || !ok {
		return "", err
	}
	return h.String(), nil
}

// DefaultBranch returns the first default branch that exists, in the order
// History looks for them when Options.Base is empty, and its tip; ok is
// false when there is none. It does not look for the merge base.
func (r *Repo) DefaultBranch() (name, tip string, ok bool, err error) {
	for _, cand := range defaultBranches {
		ref, err := r.reference(cand.ref)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return "", "", false, fmt.Errorf("read %s in %s: %w", cand.ref, r.dir, err)
		}
		return cand.name, ref.Hash().String(), true, nil
	}
	return "", "", false, nil
}

// Walk is a walk back along HEAD's first parents (Since).
type Walk struct {
	// Head is HEAD's hash.
	Head string
	// Chain are the commits walked before the one the walk stopped at,
	// newest first (HEAD first).
	Chain []string
	// At is the commit the walk stopped at; "" when it ended without one.
	At string
	// Merges says that a commit of Chain has more than one parent.
	Merges bool
}

// Since walks back from HEAD along first parents until stop accepts a
// commit, which it is told with the number of commits walked before it.
// The walk ends without one (Walk.At "") at the barrier commit (when not
// ""), at a root, at a shallow clone's boundary, or after max commits
// (<= 0: DefaultMaxCommits). Only commits are read: the cost follows the
// commits walked, not the loop's length.
func (r *Repo) Since(stop func(hash string, after int) bool, barrier string, max int) (*Walk, error) {
	if max <= 0 {
		max = DefaultMaxCommits
	}
	head, ok, err := r.head()
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Walk{}, nil
	}
	w := &Walk{Head: head.String()}
	c, err := r.commit(head)
	if err != nil {
		return nil, fmt.Errorf("HEAD: %w", err)
	}
	for len(w.Chain) < max {
		h := c.Hash.String()
		if h == barrier {
			return w, nil
		}
		if stop(h, len(w.Chain)) {
			w.At = h
			return w, nil
		}
		w.Chain = append(w.Chain, h)
		w.Merges = w.Merges || len(c.ParentHashes) > 1
		if len(c.ParentHashes) == 0 || r.shallow[c.Hash] {
			return w, nil
		}
		if c, err = r.commit(c.ParentHashes[0]); err != nil {
			return nil, fmt.Errorf("first parent of %s: %w", h, err)
		}
	}
	return w, nil
}

// After returns the commits of a walk that stopped at a commit, oldest
// first, each with its evidence as History gives it, diffed from the
// commit the walk stopped at; History.BaseTasks and BaseChecked are the
// tasks at that commit. Base and BaseTree are left empty.
func (r *Repo) After(w *Walk, opts Options) (*History, error) {
	if w.At == "" {
		return nil, errors.New("the walk did not stop at a commit")
	}
	opts = opts.withDefaults()
	h := &History{Head: w.Head}
	chain := make([]*object.Commit, len(w.Chain))
	for i, s := range w.Chain {
		c, err := r.commit(plumbing.NewHash(s))
		if err != nil {
			return nil, err
		}
		chain[i] = c
	}
	if err := r.addEvidence(h, chain, plumbing.NewHash(w.At), opts); err != nil {
		return nil, err
	}
	return h, nil
}

// GitDir is the repository's git directory (.git of a work tree, the
// repository itself when bare): where a program may keep what it knows of
// the repository.
func (r *Repo) GitDir() string { return r.gitDir }
