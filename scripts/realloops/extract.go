// Command realloops reads a window of a repository's first-parent history
// and writes its facts file for the real-loop corpus (see
// internal/realloops): derived facts only, never file contents or commit
// message text. It reads git with go-git (through internal/evidence/gitlog,
// the reader loopbreaker itself uses), never the git binary.
//
//	go run ./scripts/realloops -repo DIR -name owner/name [-from REV] [-to REV] [-max 400] [-out testdata/realloops]
//
// The window is the first-parent chain ending at -to (default HEAD): from
// -from when given, else its newest -max commits.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
	"github.com/loopbreaker/loopbreaker/internal/realloops"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "realloops:", err)
		os.Exit(2)
	}
}

func run(args []string, log io.Writer) error {
	fs := flag.NewFlagSet("realloops", flag.ContinueOnError)
	fs.SetOutput(log)
	repoDir := fs.String("repo", "", "the repository (a work tree or a bare git directory)")
	name := fs.String("name", "", "the repository's public name, owner/name")
	from := fs.String("from", "", "the window's first commit (default: the newest -max commits)")
	to := fs.String("to", "HEAD", "the window's last commit")
	maxCommits := fs.Int("max", 400, "the most commits in the window")
	out := fs.String("out", filepath.Join("testdata", "realloops"), "the directory the facts file is written to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *repoDir == "" || *name == "" || fs.NArg() > 0 {
		return errors.New("usage: realloops -repo DIR -name owner/name [-from REV] [-to REV] [-max N] [-out DIR]")
	}
	if *maxCommits < 1 {
		return fmt.Errorf("-max: %d is not a positive count", *maxCommits)
	}
	x, err := open(*repoDir)
	if err != nil {
		return err
	}
	defer x.log.Close()
	facts, err := x.extract(*name, *from, *to, *maxCommits)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := realloops.Write(&buf, facts); err != nil {
		return err
	}
	path := filepath.Join(*out, realloops.FileName(*name))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if _, err := realloops.LoadFacts(path); err != nil {
		return fmt.Errorf("the written facts do not load back: %w", err)
	}
	fmt.Fprintf(log, "%s: %d commits (%s..%s), %d bytes, %d task-count checks\n",
		path, len(facts.Commits), facts.Commits[0].Hash[:12], facts.Head[:12], buf.Len(), x.checked)
	return nil
}

// extractor reads one repository.
type extractor struct {
	git   *git.Repository
	log   *gitlog.Repo
	opts  gitlog.Options
	tasks *pathmatch.Set

	// contents maps a path to the position (-1 the base) where each of its
	// contents (blob and mode) first appeared.
	contents map[string]map[entryKey]int
	// lists are the current checkbox lists of the task files.
	lists   map[string][]realloops.Task
	checked int // commits whose task counts were checked against gitlog
}

type entryKey struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

func open(dir string) (*extractor, error) {
	// A bare repository is dir itself; a work tree has .git in dir or above.
	g, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		g, err = git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	lr, err := gitlog.Open(dir)
	if err != nil {
		return nil, err
	}
	opts, err := realloops.ReadOptions()
	if err != nil {
		return nil, err
	}
	return &extractor{git: g, log: lr, opts: opts, tasks: opts.TaskFiles,
		contents: map[string]map[entryKey]int{}, lists: map[string][]realloops.Task{}}, nil
}

// chain returns the window's commits, oldest first.
func (x *extractor) chain(from, to string, maxCommits int) ([]*object.Commit, error) {
	resolve := func(rev string) (plumbing.Hash, error) {
		h, err := x.git.ResolveRevision(plumbing.Revision(rev))
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("resolve %q: %w", rev, err)
		}
		return *h, nil
	}
	head, err := resolve(to)
	if err != nil {
		return nil, err
	}
	var first plumbing.Hash
	if from != "" {
		if first, err = resolve(from); err != nil {
			return nil, err
		}
	}
	var chain []*object.Commit
	for h := head; ; {
		c, err := x.git.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("read commit %s: %w", h, err)
		}
		chain = append(chain, c)
		if c.Hash == first || (first.IsZero() && len(chain) == maxCommits) || len(c.ParentHashes) == 0 {
			break
		}
		if len(chain) == maxCommits {
			return nil, fmt.Errorf("-from %s is more than %d first-parent commits before %s", from, maxCommits, to)
		}
		h = c.ParentHashes[0]
	}
	if !first.IsZero() && chain[len(chain)-1].Hash != first {
		return nil, fmt.Errorf("-from %s is not on the first-parent chain of %s", from, to)
	}
	slices.Reverse(chain)
	return chain, nil
}

func (x *extractor) extract(name, from, to string, maxCommits int) (*realloops.Facts, error) {
	chain, err := x.chain(from, to, maxCommits)
	if err != nil {
		return nil, err
	}
	f := &realloops.Facts{Repo: name, Head: chain[len(chain)-1].Hash.String()}
	var prevTree *object.Tree
	// trees maps a tree hash to the earliest position with it (-1 the base).
	trees := map[plumbing.Hash]int{}
	position := func(at int) string {
		if at < 0 {
			return f.Base.Hash
		}
		return f.Commits[at].Hash
	}
	if first := chain[0]; len(first.ParentHashes) > 0 {
		parent, err := x.git.CommitObject(first.ParentHashes[0])
		if err != nil {
			return nil, fmt.Errorf("read the base %s: %w", first.ParentHashes[0], err)
		}
		if prevTree, err = parent.Tree(); err != nil {
			return nil, fmt.Errorf("read the base tree: %w", err)
		}
		f.Base = &realloops.Base{Hash: parent.Hash.String()}
		trees[parent.TreeHash] = -1
		if err := x.baseTasks(f.Base, prevTree); err != nil {
			return nil, err
		}
	}
	for i, c := range chain {
		tree, err := c.Tree()
		if err != nil {
			return nil, fmt.Errorf("read the tree of %s: %w", c.Hash, err)
		}
		fc, err := x.commit(f, i, c, prevTree, tree)
		if err != nil {
			return nil, fmt.Errorf("commit %s: %w", c.Hash, err)
		}
		if at, ok := trees[c.TreeHash]; ok && len(fc.Changes) > 0 {
			fc.Restores = position(at)
		} else if !ok {
			trees[c.TreeHash] = i
		}
		for p, at := range fc.restoreAt {
			if fc.FileRestores == nil {
				fc.FileRestores = map[string]string{}
			}
			fc.FileRestores[p] = position(at)
		}
		f.Commits = append(f.Commits, fc.Commit)
		prevTree = tree
	}
	return f, nil
}

// baseTasks records the task lists at the base and lists those files. It
// walks the tree's entries and reads only the task files' blobs: a fetched
// snapshot lacks its largest files, and the base tree may still name them.
func (x *extractor) baseTasks(b *realloops.Base, tree *object.Tree) error {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("walk the base tree: %w", err)
		}
		if !e.Mode.IsFile() || !x.tasks.Match(name) {
			continue
		}
		data, err := x.blob(e.Hash)
		if err != nil {
			return fmt.Errorf("read %s at the base: %w", name, err)
		}
		list := realloops.ParseTasks(data.bytes)
		x.lists[name] = list
		if b.Tasks == nil {
			b.Tasks = map[string][]realloops.Task{}
		}
		b.Tasks[name] = list
		x.baseFile(b, name, entryKey{e.Hash, e.Mode}, data)
	}
}

// baseFile lists a path as it was at the base, once.
func (x *extractor) baseFile(b *realloops.Base, path string, e entryKey, data content) {
	if _, seen := x.contents[path]; seen || b == nil {
		return
	}
	x.contents[path] = map[entryKey]int{e: -1}
	file := realloops.File{Path: path, Exec: e.mode == filemode.Executable}
	switch {
	case e.mode == filemode.Submodule:
		file.Submodule = true
	case !data.text():
		file.Binary = true
	default:
		file.Lines = countLines(data.bytes)
		file.Generated = isGenerated(data.bytes)
	}
	b.Files = append(b.Files, file)
}

// extracted is a commit as read, with the positions (-1 the base) its
// file restores go back to; extract turns them into hashes.
type extracted struct {
	realloops.Commit
	restoreAt map[string]int
}

// commit reads one commit of the chain.
func (x *extractor) commit(f *realloops.Facts, i int, c *object.Commit, prevTree, tree *object.Tree) (*extracted, error) {
	info, err := x.log.CommitInfo(c.Hash.String(), x.opts)
	if err != nil {
		return nil, err
	}
	out := &extracted{Commit: realloops.Commit{Hash: c.Hash.String(), Time: c.Committer.When}}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	for _, k := range []string{realloops.TrailerPhase, realloops.TrailerProgress} {
		if v := info.Trailers[k]; len(v) > 0 {
			if out.Trailers == nil {
				out.Trailers = map[string][]string{}
			}
			out.Trailers[k] = v
		}
	}
	out.Revert = info.Revert
	if len(info.Reverts) == 40 {
		out.Reverts = info.Reverts
	}
	it := evidence.FromCommit(info, nil, x.tasks)
	out.Completion, out.Claim = it.CompletionClaimed, realloops.ClaimKey(it.Claim)
	out.Admitted, out.Blocker = realloops.Admission(info.Message)

	for _, fc := range info.Change.Files {
		ch := realloops.Change{Path: fc.Path, From: fc.OldPath, Added: fc.Added, Deleted: fc.Deleted,
			Binary: fc.Binary || fc.Large, WhitespaceOnly: fc.WhitespaceOnly, Generated: fc.Generated,
			Written: realloops.WrittenItems(fc.Written)}
		if ch.Binary {
			ch.Added, ch.Deleted = 0, 0
		}
		ch.Status = map[string]string{gitlog.StatusAdded: realloops.StatusAdded, gitlog.StatusModified: realloops.StatusModified,
			gitlog.StatusDeleted: realloops.StatusDeleted, gitlog.StatusRenamed: realloops.StatusRenamed}[fc.Status]
		oldPath := fc.Path
		if fc.OldPath != "" {
			oldPath = fc.OldPath
		}
		var oldEntry, newEntry *object.TreeEntry
		if ch.Status != realloops.StatusAdded && prevTree != nil {
			if oldEntry, err = prevTree.FindEntry(oldPath); err != nil {
				return nil, fmt.Errorf("%s in the parent: %w", oldPath, err)
			}
		}
		if ch.Status != realloops.StatusDeleted {
			if newEntry, err = tree.FindEntry(fc.Path); err != nil {
				return nil, fmt.Errorf("%s: %w", fc.Path, err)
			}
		}
		var oldData, newData content
		if oldEntry != nil && oldEntry.Mode != filemode.Submodule {
			if oldData, err = x.blob(oldEntry.Hash); err != nil {
				return nil, fmt.Errorf("%s in the parent: %w", oldPath, err)
			}
		}
		if newEntry != nil && newEntry.Mode != filemode.Submodule {
			if newData, err = x.blob(newEntry.Hash); err != nil {
				return nil, fmt.Errorf("%s: %w", fc.Path, err)
			}
		}
		if oldEntry != nil {
			x.baseFile(f.Base, oldPath, entryKey{oldEntry.Hash, oldEntry.Mode}, oldData)
		}
		ch.Submodule = (newEntry != nil && newEntry.Mode == filemode.Submodule) || (newEntry == nil && oldEntry != nil && oldEntry.Mode == filemode.Submodule)
		if ch.Submodule {
			ch.Binary, ch.Added, ch.Deleted, ch.Generated = false, 0, 0, false
		}
		if newEntry != nil {
			ch.Exec = newEntry.Mode == filemode.Executable
			newText := newEntry.Mode != filemode.Submodule && newData.text()
			oldText := oldEntry != nil && oldEntry.Mode != filemode.Submodule && oldData.text()
			if newText && ch.Status != realloops.StatusAdded && !oldText {
				n := countLines(newData.bytes)
				ch.Lines = &n
			}
			if newText && oldText && ch.Status == realloops.StatusModified && !ch.WhitespaceOnly && !ch.Binary &&
				realloops.DigitsOnly(oldData.bytes, newData.bytes) {
				ch.DigitsOnly = true
			}
			if newText && oldText && ch.Status == realloops.StatusModified && !ch.WhitespaceOnly && !ch.Binary && !ch.DigitsOnly &&
				gitlog.ChurnOnly(oldData.bytes, newData.bytes) {
				ch.Churn = true
			}
			if newText && !ch.Binary && ch.Added+ch.Deleted > 0 && !gitlog.IsSource(fc.Path) && !x.tasks.Match(fc.Path) {
				var old []byte
				if oldText {
					old = oldData.bytes
				}
				ch.Code = !gitlog.Prose(fc.Path, old, newData.bytes)
			}
			if newText && x.tasks.Match(fc.Path) {
				list := realloops.ParseTasks(newData.bytes)
				prev, had := x.lists[oldPath]
				if !had || ch.Status == realloops.StatusAdded || !slices.Equal(prev, list) {
					if out.Tasks == nil {
						out.Tasks = map[string][]realloops.Task{}
					}
					out.Tasks[fc.Path] = list
				}
			}
			// File restores: the new content was this path's content
			// earlier in the window (or at the base).
			key := entryKey{newEntry.Hash, newEntry.Mode}
			seen := x.contents[fc.Path]
			if seen == nil {
				seen = map[entryKey]int{}
				x.contents[fc.Path] = seen
			}
			if at, ok := seen[key]; ok {
				if out.restoreAt == nil {
					out.restoreAt = map[string]int{}
				}
				out.restoreAt[fc.Path] = at
			} else {
				seen[key] = i
			}
		}
		out.Changes = append(out.Changes, ch)
	}
	// Keep the task lists current and check their counts against gitlog.
	for _, ch := range out.Changes {
		switch ch.Status {
		case realloops.StatusDeleted:
			delete(x.lists, ch.Path)
		case realloops.StatusRenamed:
			delete(x.lists, ch.From)
		}
	}
	for _, ch := range out.Changes {
		if ch.Status == realloops.StatusDeleted || !x.tasks.Match(ch.Path) {
			continue
		}
		if list, ok := out.Tasks[ch.Path]; ok {
			x.lists[ch.Path] = list
		} else if ch.Status == realloops.StatusRenamed {
			// A rename that kept the list (checked above against the old path).
			entry, _ := tree.FindEntry(ch.Path)
			if entry != nil && entry.Mode.IsFile() {
				data, err := x.blob(entry.Hash)
				if err != nil {
					return nil, err
				}
				x.lists[ch.Path] = realloops.ParseTasks(data.bytes)
			}
		}
	}
	if err := x.checkTasks(info); err != nil {
		return nil, err
	}
	return out, nil
}

// checkTasks compares the recorded lists with gitlog's counts.
func (x *extractor) checkTasks(info *gitlog.Commit) error {
	var done, total int
	for _, list := range x.lists {
		for _, t := range list {
			total++
			if t.Checked {
				done++
			}
		}
	}
	switch {
	case info.Tasks == nil && total == 0:
	case info.Tasks == nil || info.Tasks.Done != done || info.Tasks.Total != total:
		return fmt.Errorf("task lists give %d of %d checked; gitlog counts %+v", done, total, info.Tasks)
	}
	x.checked++
	return nil
}

// content is a blob as read: its bytes, or large when it is over the size
// compared by lines (its bytes are then not read).
type content struct {
	bytes []byte
	large bool
}

// text reports whether the blob is compared by lines.
func (c content) text() bool { return !c.large && !isBinary(c.bytes) }

func (x *extractor) blob(h plumbing.Hash) (content, error) {
	b, err := x.git.BlobObject(h)
	if err != nil {
		return content{}, fmt.Errorf("read blob %s: %w", h, err)
	}
	if b.Size > x.opts.MaxFileBytes {
		return content{large: true}, nil
	}
	r, err := b.Reader()
	if err != nil {
		return content{}, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return content{}, fmt.Errorf("read blob %s: %w", h, err)
	}
	return content{bytes: data}, nil
}

// isBinary is git's test: a NUL byte in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// countLines counts lines; a last line without a newline counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// isGenerated reports a "Code generated ... DO NOT EDIT." line in the
// first 32 KiB, at the start of the line but for comment punctuation.
func isGenerated(data []byte) bool {
	head := data[:min(len(data), 32<<10)]
	for _, line := range bytes.Split(head, []byte{'\n'}) {
		i := bytes.Index(line, []byte("Code generated "))
		if i < 0 || !bytes.Contains(line[i:], []byte("DO NOT EDIT.")) {
			continue
		}
		if len(bytes.Trim(line[:i], " \t/#*;%'-!<")) == 0 {
			return true
		}
	}
	return false
}
