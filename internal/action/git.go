package action

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

// gitState is the clone as the run uses it.
type gitState struct {
	clone *checkout.Clone // nil when the workspace is not a clone
	// dir is where the evaluated commit is read: the workspace, or a view
	// of the clone whose HEAD is that commit.
	dir string
	// head is the commit evaluated and recorded; base where the loop
	// started ("" lets the history walk choose).
	head, base string
	// shallow says the clone's history is cut before the base and could
	// not be deepened.
	shallow bool
	// chain walks head's first parents, as far as the questions need.
	chain *checkout.Chain
	// ancestors are head's ancestors by any parent, read once when a
	// commit is off the first-parent chain (nil: too many to tell).
	ancestors map[string]bool
	walked    bool
}

// prepareGit picks the commit the run evaluates, fetches what the clone
// lacks of it with the token, and finds the loop's base. The commit is the
// pull request's head, never GitHub's test merge (made anew on every push,
// so no later run finds its record): when HEAD is that merge (its second
// parent is the head) or another ref, the head is read through a view.
// A shallow clone is deepened; when that fails the run says so.
func (r *run) prepareGit(ctx context.Context) (*gitState, error) {
	g := &gitState{dir: r.ws, base: cmp.Or(r.in.Base, r.ev.BaseSHA)}
	cl, err := checkout.Open(r.ws)
	if err != nil {
		return g, nil // the history walk says what is wrong with the workspace
	}
	g.clone = cl
	head, err := cl.Head()
	if err != nil {
		return g, nil
	}
	g.head = r.pickCommit(cl, head)

	if !cl.Has(g.head) {
		r.deepen(ctx, g)
		if !cl.Has(g.head) {
			return nil, fmt.Errorf("the pull request's head %s is not in the clone and could not be fetched (%s): check it out (actions/checkout with ref: %s and fetch-depth: 0)",
				g.head, orDefault(r.deepenErr, "no error"), g.head)
		}
	} else if cl.Shallow() {
		if cut, err := cl.Cut(g.head, g.base); err == nil && cut {
			r.deepen(ctx, g)
		}
	}
	if g.head != head {
		if g.dir, err = cl.View(g.head); err != nil {
			return nil, err
		}
	}
	if cl.Shallow() {
		if cut, err := cl.Cut(g.head, g.base); err == nil && cut {
			g.shallow = true
		}
	}
	r.mergeBase(g)
	return g, nil
}

// mergeBase moves the loop's base to the merge base of the base given and
// the head when that base (a pull request's base branch, which moved on)
// is not in the head's history: the fold then starts where the loop did.
func (r *run) mergeBase(g *gitState) {
	if g.clone == nil || g.base == "" || g.inHistory(g.base) {
		return
	}
	mb, err := g.clone.MergeBase(g.base, g.head)
	if err != nil || mb == g.base {
		return
	}
	r.note(fmt.Sprintf("the base %.12s is not in the head's history (the base branch moved on): the loop starts at their merge base %.12s", g.base, mb))
	g.base, g.chain = mb, nil
}

// pickCommit returns the commit the run evaluates: HEAD, or the pull
// request's head when HEAD is GitHub's test merge of it or another ref.
func (r *run) pickCommit(cl *checkout.Clone, head string) string {
	want := r.ev.HeadSHA
	if r.ev.Number == 0 || want == "" || want == head {
		return head
	}
	parents, _ := cl.Parents(head)
	mergeRef := r.getenv("GITHUB_REF") == fmt.Sprintf("refs/pull/%d/merge", r.ev.Number)
	switch {
	case len(parents) == 2 && parents[1] == want || mergeRef:
		r.note(fmt.Sprintf("HEAD %.12s is GitHub's test merge of the pull request's head into its base (refs/pull/%d/merge): the head %.12s is evaluated and recorded; check out github.event.pull_request.head.sha to skip the merge", head, r.ev.Number, want))
		return want
	case onChain(cl, head, want):
		return head // the run's own steps committed on top of the head
	}
	r.note(fmt.Sprintf("HEAD %.12s is not the pull request's head: the head %.12s is evaluated", head, want))
	return want
}

// onChain reports whether want is head or one of its first parents.
func onChain(cl *checkout.Clone, head, want string) bool {
	chain, err := cl.Chain(head, "")
	return err == nil && chain.Has(want)
}

// deepen fetches what the clone lacks of the evaluated commit's history
// with the token (the whole history when shallow), giving what it writes
// the workspace's owner.
func (r *run) deepen(ctx context.Context, g *gitState) {
	var specs []string
	if r.ev.Number > 0 {
		specs = append(specs, fmt.Sprintf("+refs/pull/%d/head:refs/remotes/pull/%d/head", r.ev.Number, r.ev.Number))
		if r.ev.BaseRef != "" {
			specs = append(specs, branchSpec(r.ev.BaseRef))
		}
	} else {
		branch := cmp.Or(r.ev.HeadRef, strings.TrimPrefix(r.getenv("GITHUB_REF"), "refs/heads/"))
		if branch != "" && !strings.HasPrefix(branch, "refs/") {
			specs = append(specs, branchSpec(branch))
		}
	}
	if d := r.ev.DefaultBranch; d != "" && d != r.ev.BaseRef && d != r.ev.HeadRef {
		specs = append(specs, branchSpec(d))
	}
	if len(specs) == 0 {
		r.deepenErr = "the run names no branch or pull request to fetch"
		return
	}
	depth, what := 0, "fetched the pull request's head"
	if g.clone.Shallow() {
		depth, what = checkout.Unshallow, "deepened the shallow clone"
	}
	err := g.clone.Fetch(ctx, r.cloneURL(g.clone), r.in.Token, specs, depth)
	if oerr := checkout.Own(r.ws, g.clone.GitDir()); oerr != nil {
		r.gha.Warningf("loopbreaker: %s", render.Clean(oerr.Error()))
	}
	if err != nil {
		r.deepenErr = err.Error()
		return
	}
	r.note(what + " with the token (" + strings.Join(specs, " ") + ")")
}

func branchSpec(b string) string {
	return fmt.Sprintf("+refs/heads/%s:refs/remotes/origin/%s", b, b)
}

// cloneURL is the repository's URL on GitHub: the base repository, where
// GitHub keeps every pull request's head (a fork's too) at refs/pull/N/head.
func (r *run) cloneURL(cl *checkout.Clone) string {
	if r.owner == "" || r.repo == "" {
		return cl.Origin()
	}
	server := strings.TrimSuffix(orDefault(r.getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
	return server + "/" + r.owner + "/" + r.repo + ".git"
}

// inHistory reports whether h is the evaluated commit or one of its first
// parents, where a loop's runs are; the walk goes back only as far as h.
func (g *gitState) inHistory(h string) bool {
	if g.clone == nil {
		return true
	}
	if g.chain == nil {
		chain, err := g.clone.Chain(g.head, g.base)
		if err != nil {
			return false
		}
		g.chain = chain
	}
	return g.chain.Has(h)
}

// foreign says a commit the clone holds is outside the evaluated commit's
// history. A commit the clone lacks (force-pushed away) or an ancestor by a
// second parent still counts as the loop's.
func (g *gitState) foreign(h string) bool {
	if h == "" || g.clone == nil || !g.clone.Has(h) || g.inHistory(h) {
		return false
	}
	if !g.walked {
		g.ancestors, g.walked = g.clone.Ancestors(g.head), true
	}
	return g.ancestors != nil && !g.ancestors[h]
}

// ownCheck is how many of the newest earlier records ownRecords checks:
// the older ones were checked by the runs that kept them, and checking
// them again would walk the whole loop's history on every run.
const ownCheck = 64

// ownRecords drops the newest earlier records (ownCheck of them) whose
// commit is another loop's, with a note.
func (r *run) ownRecords(g *gitState, l *ledger.Ledger) *ledger.Ledger {
	if l == nil {
		return nil
	}
	first := max(0, len(l.Records)-ownCheck)
	recent := slices.DeleteFunc(slices.Clone(l.Records[first:]), func(rec ledger.Record) bool { return g.foreign(rec.Commit) })
	kept := &ledger.Ledger{Problems: l.Problems, Records: append(slices.Clone(l.Records[:first]), recent...)}
	if dropped := len(l.Records) - first - len(recent); dropped > 0 {
		r.note(fmt.Sprintf("%d earlier records are of commits outside the history of %.12s (another loop's) and were not used", dropped, g.head))
	}
	return kept
}

// belongs says which record artifacts are the loop's: its branch's, from a
// run whose head is in the evaluated commit's history (or gone from the
// clone, force-pushed away).
func (g *gitState) belongs(branch string) func(github.Artifact) bool {
	return func(a github.Artifact) bool {
		return a.HeadBranch == branch && !g.foreign(a.HeadSHA)
	}
}
