package audit

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/policy"
)

// source is where one pull request's iterations come from: the clone or
// the API.
type source interface {
	// kind is "git" or "api".
	kind() string
	// commits holds the pull request's commit hashes (to match artifacts).
	commits() map[string]bool
	// baseTree is the base's tree hash ("" when unknown).
	baseTree() string
	// iterations builds the iterations, from the ledger's records when l
	// has any, else one per commit.
	iterations(l *ledger.Ledger) ([]breaker.Iteration, []string, error)
	close()
}

// ---- git

type gitSource struct {
	repo  *gitlog.Repo
	h     *gitlog.History
	opts  gitlog.Options
	tree  string
	set   map[string]bool
	notes []string
}

// openGit reads a pull request's history from the clone, through a view
// whose HEAD is the fetched head.
func openGit(c *Clone, p *github.Pull, base gitlog.Options, onShallow policy.OnShallow) (*gitSource, error) {
	head, err := c.head(p.Number)
	if err != nil {
		return nil, err
	}
	dir, err := c.viewAt(head)
	if err != nil {
		return nil, err
	}
	repo, err := gitlog.Open(dir)
	if err != nil {
		return nil, err
	}
	s := &gitSource{repo: repo, opts: base}
	s.opts.Base = ""
	if p.BaseSHA != "" {
		if _, err := repo.Resolve(p.BaseSHA); err == nil {
			s.opts.Base = p.BaseSHA
		} else {
			s.notes = append(s.notes, fmt.Sprintf("the base commit %.12s is not in the clone: the base is the merge base with the default branch", p.BaseSHA))
		}
	}
	s.h, err = repo.History(s.opts)
	if err != nil && s.opts.Base != "" {
		// The base branch moved on without the head: use the merge base.
		s.notes = append(s.notes, fmt.Sprintf("the base commit %.12s is not an ancestor of the head: the base is the merge base with the default branch", p.BaseSHA))
		s.opts.Base = ""
		s.h, err = repo.History(s.opts)
	}
	if err != nil {
		repo.Close()
		return nil, err
	}
	if s.h.Shallow && onShallow == policy.OnShallowFail {
		repo.Close()
		return nil, fmt.Errorf("the clone is shallow and the policy has on_shallow = \"fail\": fetch the full history (actions/checkout with fetch-depth: 0)")
	}
	s.notes = append(s.notes, s.h.Notes...)
	s.tree = s.h.BaseTree
	s.set = map[string]bool{s.h.Head: true}
	for i := range s.h.Commits {
		s.set[s.h.Commits[i].Hash] = true
	}
	return s, nil
}

func (s *gitSource) kind() string             { return "git" }
func (s *gitSource) commits() map[string]bool { return s.set }
func (s *gitSource) baseTree() string         { return s.tree }
func (s *gitSource) close()                   { s.repo.Close() }
func (s *gitSource) headTime() (t time.Time) {
	if n := len(s.h.Commits); n > 0 {
		return s.h.Commits[n-1].At.UTC()
	}
	return t
}

func (s *gitSource) iterations(l *ledger.Ledger) ([]breaker.Iteration, []string, error) {
	notes := append([]string(nil), s.notes...)
	if l == nil || len(l.Records) == 0 {
		return evidence.FromHistory(s.h, s.opts.TaskFiles), notes, nil
	}
	recs := withHead(l.Records, s.h.Head, s.headTime())
	its, more, err := evidence.FromLedger(s.repo, s.h.Base, recs, s.opts)
	return its, append(notes, more...), err
}

// withHead appends an iteration for the head when commits were pushed
// after the newest record's run: the loop has not judged them yet, but
// they are the newest evidence. The audit itself is never an iteration.
func withHead(recs []ledger.Record, head string, headAt time.Time) []ledger.Record {
	n := len(recs)
	if head == "" || n == 0 || recs[n-1].Commit == head {
		return recs
	}
	at := recs[n-1].At
	if headAt.After(at) {
		at = headAt
	}
	return append(append([]ledger.Record{}, recs...), ledger.Record{Version: ledger.Version, Commit: head, At: at})
}

// ---- API

type apiSource struct {
	list   []github.PullCommit
	capped bool
	base   string
	set    map[string]bool
	paths  gitlog.Options
	// credit is what a commit that changed the tree counts as, when no
	// file list says otherwise: one meaningful file (the benefit of the
	// doubt) or none (to see whether the verdict depends on it).
	credit int
	files  *fileFacts
	// unlisted is the head when GitHub's list did not include it.
	unlisted string
}

func newAPISource(list []github.PullCommit, capped bool, p *github.Pull, paths gitlog.Options) *apiSource {
	s := &apiSource{list: list, capped: capped, base: p.BaseSHA, paths: paths, credit: 1, set: map[string]bool{}}
	for _, c := range list {
		s.set[c.SHA] = true
	}
	if p.HeadSHA != "" && !s.set[p.HeadSHA] {
		// The head is past the commits GitHub listed (its cap, or a push
		// between the two calls): one more iteration, change unknown.
		at := p.UpdatedAt
		if n := len(list); n > 0 {
			at = list[n-1].At
		}
		s.list = append(append([]github.PullCommit(nil), list...), github.PullCommit{SHA: p.HeadSHA, At: at})
		s.set[p.HeadSHA] = true
		s.unlisted = p.HeadSHA
	}
	return s
}

func (s *apiSource) kind() string             { return "api" }
func (s *apiSource) commits() map[string]bool { return s.set }
func (s *apiSource) baseTree() string         { return "" }
func (s *apiSource) close()                   {}

func (s *apiSource) notes() []string {
	var notes []string
	if s.capped {
		notes = append(notes, fmt.Sprintf("GitHub lists at most %d commits of a pull request: the others are not visible", github.MaxPullCommits))
	}
	if s.unlisted != "" {
		notes = append(notes, fmt.Sprintf("the head %.12s is not among the commits GitHub listed: it counts as one iteration whose change is unknown", s.unlisted))
	}
	if f := s.files; f != nil {
		notes = append(notes, f.describe())
	}
	return notes
}

// commitIteration is one API commit as an iteration, its change judged
// against prevTree ("" when unknown).
func (s *apiSource) commitIteration(c *github.PullCommit, prevTree string, newest bool) breaker.Iteration {
	mf := gitlog.ParseMessage(c.Message)
	gc := &gitlog.Commit{Hash: c.SHA, Tree: c.Tree, Parents: c.Parents, At: c.At, AuthorAt: c.AuthorAt,
		Message: mf.Text, Subject: mf.Subject, Trailers: mf.Trailers, Revert: mf.Revert, Reverts: mf.Reverts}
	it := evidence.FromCommit(gc, nil, s.paths.TaskFiles)
	it.Change = s.change(c.Tree, prevTree, mf.Revert, newest)
	return it
}

// change is what a commit changed as far as the API tells: nothing when
// its tree equals the previous one, else the credit (or the file list's
// verdict).
func (s *apiSource) change(tree, prevTree string, revert, newest bool) *breaker.Change {
	ch := &breaker.Change{Tree: tree, Reverted: revert}
	if tree != "" && prevTree != "" && tree == prevTree {
		return ch
	}
	f := s.files
	if f == nil {
		ch.MeaningfulFiles = s.credit
		return ch
	}
	if f.meaningful == 0 && f.busy > 0 {
		ch.BusyFiles = 1
	}
	if f.meaningful > 0 {
		ch.MeaningfulFiles = 1
		// Each changing commit is taken to have the pull request's mix of
		// test and other lines.
		ch.MeaningfulLines = 100
		if f.lines > 0 {
			ch.TestLines = 100 * f.testLines / f.lines
		}
		if f.docs > 0 {
			ch.DocFiles = 1
		}
	}
	if newest {
		ch.ProtectedDeleted = f.protectedDeleted
		ch.ProtectedModified = f.protectedModified
		if f.meaningful > 0 {
			ch.Files = f.names
		}
	}
	return ch
}

func (s *apiSource) iterations(l *ledger.Ledger) ([]breaker.Iteration, []string, error) {
	notes := s.notes()
	index := make(map[string]int, len(s.list))
	for i, c := range s.list {
		index[c.SHA] = i
	}
	// The newest commit that changes the tree carries the file list's
	// protected paths.
	newestChange := -1
	for i, c := range s.list {
		if i == 0 || c.Tree == "" || s.list[i-1].Tree == "" || c.Tree != s.list[i-1].Tree {
			newestChange = i
		}
	}
	var its []breaker.Iteration
	if l == nil || len(l.Records) == 0 {
		prevTree := ""
		for i := range s.list {
			c := &s.list[i]
			it := s.commitIteration(c, prevTree, i == newestChange)
			it.At, it.CommitAt = c.At.UTC(), c.At.UTC()
			prevTree = c.Tree
			its = append(its, it)
		}
		return its, notes, nil
	}

	head := ""
	var headAt time.Time
	if n := len(s.list); n > 0 {
		head, headAt = s.list[n-1].SHA, s.list[n-1].At
	}
	recs := withHead(l.Records, head, headAt)
	prev, prevTree := s.base, ""
	prevIdx := -1
	for i := range recs {
		r := &recs[i]
		it := breaker.Iteration{Commit: r.Commit}
		j, known := index[r.Commit]
		switch {
		case r.Commit == "" || r.Commit == prev:
			it.Change = &breaker.Change{Tree: prevTree}
		case !known:
			notes = append(notes, fmt.Sprintf("run %d: commit %.12s is not among the pull request's commits (force-pushed, or older than the %d GitHub lists); counted as an iteration without change", r.RunID, r.Commit, github.MaxPullCommits))
			it.Change = &breaker.Change{Tree: prevTree}
		default:
			c := &s.list[j]
			// The record covers every commit since the previous record's:
			// compare the trees at both ends.
			it = s.commitIteration(c, prevTree, newestChange > prevIdx && newestChange <= j)
			it.CommitAt = c.At.UTC()
			prev, prevTree, prevIdx = r.Commit, c.Tree, j
		}
		r.Apply(&it)
		its = append(its, it)
	}
	return its, notes, nil
}

// ---- the file list

// fileFacts summarise a pull request's file list under the policy's path
// rules.
type fileFacts struct {
	files             int
	meaningful        int // not ignored, not a task list, not notes
	busy              int // notes and scratch files (busywork)
	lines, testLines  int // of meaningful files
	docs              int
	protectedDeleted  []string
	protectedModified []string
	names             []string // meaningful paths, at most 50
	complete, capped  bool
}

func classify(pf github.PullFiles, o gitlog.Options) *fileFacts {
	f := &fileFacts{files: len(pf.Files), complete: pf.Complete, capped: pf.Capped}
	for _, x := range pf.Files {
		if x.Status == "unchanged" {
			continue
		}
		gone := x.Status == "removed"
		if o.ProtectedPaths.Match(x.Name) || (x.Previous != "" && o.ProtectedPaths.Match(x.Previous)) {
			switch {
			case gone:
				f.protectedDeleted = append(f.protectedDeleted, x.Name)
			case x.Previous != "" && o.ProtectedPaths.Match(x.Previous) && !o.ProtectedPaths.Match(x.Name):
				f.protectedDeleted = append(f.protectedDeleted, x.Previous)
			case !o.TaskFiles.Match(x.Name):
				f.protectedModified = append(f.protectedModified, x.Name)
			}
		}
		ignored := o.IgnorePaths.Match(x.Name) && (x.Previous == "" || o.IgnorePaths.Match(x.Previous))
		if ignored || o.TaskFiles.Match(x.Name) {
			continue
		}
		if o.NotesPaths.Match(x.Name) {
			f.busy++
			continue
		}
		f.meaningful++
		n := x.Additions + x.Deletions
		f.lines += n
		if o.TestPaths.Match(x.Name) && !o.TestDataPaths.Match(x.Name) {
			f.testLines += n
		}
		if o.DocPaths.Match(x.Name) {
			f.docs++
		}
		if len(f.names) < 50 {
			f.names = append(f.names, x.Name)
		}
	}
	return f
}

func (f *fileFacts) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the pull request's file list was read: %d files, %d meaningful", f.files, f.meaningful)
	switch {
	case f.capped:
		fmt.Fprintf(&b, " (GitHub lists at most %d files: the rest were not seen)", github.MaxPullFiles)
	case !f.complete:
		b.WriteString(" (only its first pages were read)")
	}
	if f.meaningful == 0 {
		b.WriteString("; no commit counts as a meaningful change")
	}
	return b.String()
}
