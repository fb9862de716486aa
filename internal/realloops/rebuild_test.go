package realloops

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

var factsDir = flag.String("realloops.facts", filepath.Join("..", "..", "testdata", "realloops"), "the directory of the facts files the rebuild test reads")

// shape is what gitlog reads of one changed path.
type shape struct {
	status, from    string
	added, deleted  int
	binary, ws, gen bool
	digits          bool
	churn, code     bool
}

func (s shape) String() string {
	return fmt.Sprintf("%s from=%q +%d -%d binary=%t ws=%t digits=%t churn=%t code=%t generated=%t", s.status, s.from, s.added, s.deleted, s.binary, s.ws, s.digits, s.churn, s.code, s.gen)
}

var gitlogStatus = map[string]string{
	gitlog.StatusAdded: StatusAdded, gitlog.StatusModified: StatusModified,
	gitlog.StatusDeleted: StatusDeleted, gitlog.StatusRenamed: StatusRenamed,
}

// mismatch is one way a rebuilt commit differs from its facts.
type mismatch struct {
	commit int
	what   string
}

// compareRebuilt rebuilds f and reads the result back with gitlog. It
// returns the differences; restored is the part of them that are line
// counts of file restores (the content is the earlier content, so the
// counts follow from it).
func compareRebuilt(t *testing.T, f *Facts) (diffs []mismatch, restored int) {
	t.Helper()
	dir := t.TempDir()
	if err := Rebuild(dir, f, ""); err != nil {
		t.Fatal(err)
	}
	repo, err := gitlog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	opts, err := ReadOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.Shapes = true
	tasks := opts.TaskFiles
	base := ""
	if f.Base != nil {
		if base, err = Synthetic(dir, f.Base.Hash); err != nil {
			t.Fatal(err)
		}
	}
	opts.Base = base
	h, err := repo.History(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != len(f.Commits) {
		t.Fatalf("%s: rebuilt %d commits, want %d", f.Repo, len(h.Commits), len(f.Commits))
	}
	treeAt := func(hash string) string {
		if f.Base != nil && hash == f.Base.Hash {
			return h.BaseTree
		}
		return h.Commits[f.Index(hash)].Tree
	}
	synth := func(i int) string { return h.Commits[i].Hash }
	keys := keyMap{}
	lists := map[string][]Task{}
	if f.Base != nil {
		maps.Copy(lists, f.Base.Tasks)
	}
	for i, c := range f.Commits {
		got := h.Commits[i]
		add := func(format string, args ...any) {
			diffs = append(diffs, mismatch{i, fmt.Sprintf(format, args...)})
		}
		if !got.At.Equal(c.Time) || got.At.Format("-0700") != c.Time.Format("-0700") {
			add("time %s, want %s", got.At, c.Time)
		}
		if len(got.Parents) != len(c.Parents) {
			add("%d parents, want %d", len(got.Parents), len(c.Parents))
		}
		want := map[string]shape{}
		submodules := map[string]bool{}
		for _, ch := range c.Changes {
			submodules[ch.Path] = ch.Submodule
			want[ch.Path] = shape{ch.Status, ch.From, ch.Added, ch.Deleted, ch.Binary, ch.WhitespaceOnly, ch.Generated, ch.DigitsOnly,
				(ch.Churn || ch.DigitsOnly) && !IsTaskFile(ch.Path), ch.Code}
		}
		have := map[string]shape{}
		for _, fc := range got.Change.Files {
			// Task lists are read for their boxes, never for their shape.
			text := !fc.Binary && !fc.Large && !submodules[fc.Path] && fc.Status != gitlog.StatusDeleted && !IsTaskFile(fc.Path)
			s := shape{gitlogStatus[fc.Status], fc.OldPath, fc.Added, fc.Deleted, fc.Binary || fc.Large, fc.WhitespaceOnly, fc.Generated, false,
				fc.Churn && !IsTaskFile(fc.Path), text && fc.Added+fc.Deleted > 0 && !fc.Prose && !gitlog.IsSource(fc.Path)}
			if s.status == StatusModified && !s.binary && !s.ws && !submodules[fc.Path] {
				s.digits = digitsOnly(t, repo, parentOf(h, i), got.Hash, fc.Path)
			}
			if w := want[fc.Path]; s.churn || s.ws || s.added == 0 {
				// A change of only volatile tokens is never read for its
				// shape, and the lines a change only removes were written
				// earlier, in their own style. A hex or timestamp rewrite is
				// rebuilt as a hex rewrite of the lines' own tokens.
				s.code = w.code
			}
			have[fc.Path] = s
			// A file restore writes what the earlier content had, read as
			// the lines it adds back: not compared, as its line counts are
			// not.
			if got, want := WrittenItems(fc.Written), writtenOf(c, fc.Path); c.FileRestores[fc.Path] == "" && !keys.same(got, want) {
				add("%s: wrote %v, want the same as %v", fc.Path, got, want)
			}
		}
		for _, p := range slices.Sorted(maps.Keys(want)) {
			w, g := want[p], have[p]
			if w == g {
				continue
			}
			if _, ok := c.FileRestores[p]; ok && w.status == g.status && w.from == g.from {
				restored++
				continue
			}
			add("%s: %v, want %v", p, g, w)
		}
		for p, g := range have {
			if _, ok := want[p]; !ok {
				add("%s: %v, not in the facts", p, g)
			}
		}
		if c.Restores != "" && got.Tree != treeAt(c.Restores) {
			add("tree does not restore %s", textcut.Hash(c.Restores))
		}
		for p, from := range c.FileRestores {
			old := fileAt(t, repo, synthAt(h, f, from, base), p)
			if now := fileAt(t, repo, synth(i), p); !bytes.Equal(old, now) {
				add("%s does not restore its content at %s", p, textcut.Hash(from))
			}
		}
		for _, ch := range c.Changes {
			switch ch.Status {
			case StatusDeleted:
				delete(lists, ch.Path)
			case StatusRenamed:
				if l, ok := lists[ch.From]; ok {
					delete(lists, ch.From)
					if IsTaskFile(ch.Path) {
						lists[ch.Path] = l
					}
				}
			case StatusAdded:
				if IsTaskFile(ch.Path) {
					lists[ch.Path] = nil
				}
			}
		}
		maps.Copy(lists, c.Tasks)
		done, total := 0, 0
		for _, l := range lists {
			for _, task := range l {
				total++
				if task.Checked {
					done++
				}
			}
		}
		switch {
		case got.Tasks == nil && total == 0:
		case got.Tasks == nil || got.Tasks.Done != done || got.Tasks.Total != total:
			add("tasks %+v, want %d of %d", got.Tasks, done, total)
		}
		if !maps.EqualFunc(got.Trailers, c.Trailers, slices.Equal) && (len(c.Trailers) > 0 || len(got.Trailers) > 0) {
			add("trailers %v, want %v", got.Trailers, c.Trailers)
		}
		if got.Revert != c.Revert {
			add("revert %t, want %t", got.Revert, c.Revert)
		}
		if claimed := evidence.FromCommit(&got, nil, tasks).CompletionClaimed; claimed != c.Completion {
			add("completion claim %t, want %t", claimed, c.Completion)
		}
		it := evidence.FromCommit(&got, nil, tasks)
		if it.Admitted != c.Admitted || (it.Blocker != nil) != (c.Blocker != "") {
			add("admission %t blocker %v, want %t %q", it.Admitted, it.Blocker, c.Admitted, c.Blocker)
		}
		if got := ClaimKey(it.Claim); !keys.same([]string{"c" + got}, []string{"c" + c.Claim}) {
			add("claim %q, want the same as %q", got, c.Claim)
		}
	}
	return diffs, restored
}

// keyMap pairs the keys of what a rebuilt repository wrote (synthetic
// text) with the real ones: the engine only compares keys, so the pairing
// must be one to one.
type keyMap map[string]string

// same reports whether the rebuilt items got are the real items want, kind
// by kind, their keys paired one to one across the repository.
func (k keyMap) same(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g[0] != w[0] {
			return false
		}
		if g, w = "s"+g[1:], "r"+w[1:]; (k[g] != "" && k[g] != w) || (k[w] != "" && k[w] != g) {
			return false
		}
		k[g], k[w] = w, g
	}
	return true
}

// writtenOf is the items the facts say a commit's change of path wrote.
func writtenOf(c Commit, path string) []string {
	for _, ch := range c.Changes {
		if ch.Path == path {
			return ch.Written
		}
	}
	return nil
}

func parentOf(h *gitlog.History, i int) string {
	if i == 0 {
		return h.Base
	}
	return h.Commits[i-1].Hash
}

// synthAt is the rebuilt hash of a real commit of the chain or the base.
func synthAt(h *gitlog.History, f *Facts, real, base string) string {
	if f.Base != nil && real == f.Base.Hash {
		return base
	}
	return h.Commits[f.Index(real)].Hash
}

func fileAt(t *testing.T, repo *gitlog.Repo, rev, path string) []byte {
	t.Helper()
	data, err := repo.FileAt(rev, path, 1<<30)
	if err != nil {
		t.Fatalf("read %s at %s: %v", path, rev, err)
	}
	return data
}

// digitsOnly tells whether a modification only changed digits.
func digitsOnly(t *testing.T, repo *gitlog.Repo, from, to, path string) bool {
	return DigitsOnly(fileAt(t, repo, from, path), fileAt(t, repo, to, path))
}

func TestRebuildCorpus(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob(filepath.Join(*factsDir, "*__*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Skipf("no facts files in %s", *factsDir)
	}
	if os.Getenv("LOOPBREAKER_LONG_TESTS") == "" {
		names = smallest(t, names, 6)
	}
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			f, err := LoadFacts(name)
			if err != nil {
				t.Fatal(err)
			}
			diffs, restored := compareRebuilt(t, f)
			for _, d := range diffs[:min(len(diffs), 20)] {
				t.Errorf("commit #%d %s: %s", d.commit+1, textcut.Hash(f.Commits[d.commit].Hash), d.what)
			}
			if len(diffs) > 20 {
				t.Errorf("... %d differences in all", len(diffs))
			}
			t.Logf("%s: %d commits; %d file restores with other line counts", f.Repo, len(f.Commits), restored)
		})
	}
}

// smallest returns the n smallest facts files: rebuilding all 40
// repositories takes minutes under -race, so the README's test command
// rebuilds a few and LOOPBREAKER_LONG_TESTS (.ci/run) every one.
func smallest(t *testing.T, names []string, n int) []string {
	t.Helper()
	size := map[string]int64{}
	for _, name := range names {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		size[name] = fi.Size()
	}
	names = slices.Clone(names)
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(size[a], size[b]) })
	return names[:min(n, len(names))]
}
