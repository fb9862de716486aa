package realloops

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// Branch is the branch a rebuilt repository's HEAD points at.
const Branch = "refs/heads/loop"

// refPrefix names the rebuilt commit of each real one:
// refs/realloops/<real hash>.
const refPrefix = "refs/realloops/"

// Rebuild builds a bare git repository at dir (which must not exist or be
// empty) whose first-parent history has the shape of f up to the commit
// upTo ("" for all of it): the base, then one commit per commit of the
// chain with the same committer time, the same changed paths with the
// same line counts and kinds, the same tree and file restores, the same
// checkbox states and the same trailers, all with synthetic content. A
// merge gets a synthetic second parent. HEAD is the branch Branch at the
// last commit built; Synthetic maps a real hash to its rebuilt commit and
// Checkout moves the branch.
func Rebuild(dir string, f *Facts, upTo string) error {
	last := len(f.Commits) - 1
	if upTo != "" {
		if last = f.Index(upTo); last < 0 {
			return fmt.Errorf("rebuild %s: %s is not a commit of its facts", f.Repo, textcut.Hash(upTo))
		}
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("rebuild %s: %s is not empty", f.Repo, dir)
	}
	g, err := git.PlainInit(dir, true)
	if err != nil {
		return fmt.Errorf("rebuild %s: init %s: %w", f.Repo, dir, err)
	}
	// The objects stream into one pack file: thousands of loose object
	// files, or a repository held in memory, cost far more than the
	// content.
	pack, err := newPackWriter(dir)
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", f.Repo, err)
	}
	defer pack.discard()
	b := &builder{f: f, pack: pack, root: newDirNode(), cur: map[string]*fileState{}, hist: map[string][]version{}}
	if err := b.build(last); err != nil {
		return fmt.Errorf("rebuild %s: %w", f.Repo, err)
	}
	if err := pack.finish(g.Storer); err != nil {
		return fmt.Errorf("rebuild %s: %w", f.Repo, err)
	}
	if err := b.refs(g.Storer, dir, last); err != nil {
		return fmt.Errorf("rebuild %s: %w", f.Repo, err)
	}
	return nil
}

// Synthetic returns the hash of the rebuilt commit of a real commit (or of
// the base) in the repository Rebuild made at dir.
func Synthetic(dir, real string) (string, error) {
	g, err := git.PlainOpen(dir)
	if err != nil {
		return "", fmt.Errorf("open rebuilt repository %s: %w", dir, err)
	}
	ref, err := g.Storer.Reference(plumbing.ReferenceName(refPrefix + real))
	if err != nil {
		return "", fmt.Errorf("rebuilt repository %s has no commit for %s: %w", dir, textcut.Hash(real), err)
	}
	return ref.Hash().String(), nil
}

// Checkout points the branch Branch (HEAD) of the repository Rebuild made
// at dir at the rebuilt commit of a real commit.
func Checkout(dir, real string) error {
	h, err := Synthetic(dir, real)
	if err != nil {
		return err
	}
	g, err := git.PlainOpen(dir)
	if err != nil {
		return fmt.Errorf("open rebuilt repository %s: %w", dir, err)
	}
	return g.Storer.SetReference(plumbing.NewHashReference(Branch, plumbing.NewHash(h)))
}

// version is a path's state from a commit on (at: -1 for the base); st nil
// means the path is absent.
type version struct {
	at int
	st *fileState
}

type builder struct {
	f     *Facts
	pack  *packWriter
	root  *dirNode
	lines lineMaker
	cur   map[string]*fileState
	hist  map[string][]version
	// built maps a position (-1 the base) to its rebuilt commit and tree.
	commits map[int]plumbing.Hash
	trees   map[int]plumbing.Hash
	// blanks are the blank lines each path's whitespace-only deletions
	// still need (countBlanks).
	blanks map[string]int
	// keep are the paths whose earlier versions a file restore takes up
	// again; other paths keep only their newest version.
	keep map[string]bool
}

// put stores an encoded object (a tree or a commit) once.
func (b *builder) put(obj *plumbing.MemoryObject) (plumbing.Hash, error) {
	return b.pack.add(obj.Type(), obj.Size(), func(w *bufio.Writer) error {
		r, err := obj.Reader()
		if err != nil {
			return err
		}
		_, err = io.Copy(w, r)
		return err
	})
}

func (b *builder) build(last int) error {
	b.commits, b.trees = map[int]plumbing.Hash{}, map[int]plumbing.Hash{}
	b.countBlanks()
	b.keep = map[string]bool{}
	for _, c := range b.f.Commits {
		for p := range c.FileRestores {
			b.keep[p] = true
		}
	}
	var parent plumbing.Hash
	if base := b.f.Base; base != nil {
		for _, file := range base.Files {
			st := b.baseState(file, base.Tasks[file.Path])
			b.set(-1, file.Path, st)
		}
		at := b.f.Commits[0].Time.Add(-time.Minute)
		h, tree, err := b.commit("realloops base", at, nil)
		if err != nil {
			return err
		}
		b.commits[-1], b.trees[-1] = h, tree
		parent = h
	}
	for i := 0; i <= last; i++ {
		c := &b.f.Commits[i]
		if err := b.apply(i, c); err != nil {
			return fmt.Errorf("commit %s (#%d): %w", textcut.Hash(c.Hash), i+1, err)
		}
		var parents []plumbing.Hash
		if !parent.IsZero() {
			parents = append(parents, parent)
		}
		if len(c.Parents) > 1 && !parent.IsZero() {
			// A merge: a side commit with the merged tree as second parent.
			side, _, err := b.commit("realloops side branch", c.Time, []plumbing.Hash{parent})
			if err != nil {
				return err
			}
			parents = append(parents, side)
		}
		h, tree, err := b.commit(b.message(i, c), c.Time, parents)
		if err != nil {
			return err
		}
		if c.Restores != "" {
			if want := b.trees[b.position(c.Restores)]; tree != want {
				return fmt.Errorf("commit %s (#%d): the rebuilt tree does not restore the tree of %s", textcut.Hash(c.Hash), i+1, textcut.Hash(c.Restores))
			}
		}
		b.commits[i], b.trees[i] = h, tree
		parent = h
	}
	return nil
}

// position maps a hash of the chain to its position (-1 the base).
func (b *builder) position(h string) int {
	if b.f.Base != nil && h == b.f.Base.Hash {
		return -1
	}
	return b.f.Index(h)
}

func (b *builder) baseState(file File, tasks []Task) *fileState {
	st := &fileState{exec: file.Exec}
	switch {
	case file.Binary:
		st.kind, st.serial = kindBinary, b.lines.id()
	case file.Submodule:
		st.kind, st.serial = kindSubmodule, b.lines.id()
	default:
		st.header = file.Generated
		n := file.Lines
		if st.header {
			n--
		}
		if IsTaskFile(file.Path) {
			st.boxes = tasks
			n -= len(tasks)
		}
		st.body = b.newBody(file.Path, n)
	}
	return st
}

// newBody is the body of a new text of n lines at path, with as many blank
// lines as the path's later whitespace-only deletions take.
func (b *builder) newBody(path string, n int) []string {
	n = max(n, 0)
	blanks := min(b.blanks[path], n)
	b.blanks[path] -= blanks
	return b.lines.newBody(n, blanks)
}

// countBlanks finds the lines each path's whitespace-only deletions take
// (changes that delete lines and add none).
func (b *builder) countBlanks() {
	b.blanks = map[string]int{}
	for _, c := range b.f.Commits {
		for _, ch := range c.Changes {
			if ch.WhitespaceOnly && ch.Added == 0 {
				b.blanks[ch.Path] += ch.Deleted
			}
		}
	}
}

// apply makes commit i's changes to the current files.
func (b *builder) apply(i int, c *Commit) error {
	leaving := map[string]*fileState{}
	for _, ch := range c.Changes {
		switch ch.Status {
		case StatusDeleted:
			leaving[ch.Path] = b.cur[ch.Path]
		case StatusRenamed:
			leaving[ch.From] = b.cur[ch.From]
		}
	}
	for _, p := range sortedKeys(leaving) {
		if leaving[p] == nil {
			return fmt.Errorf("%s leaves but is not present", p)
		}
		b.set(i, p, nil)
	}
	for _, ch := range c.Changes {
		if ch.Status == StatusDeleted {
			continue
		}
		var old *fileState
		switch ch.Status {
		case StatusModified:
			if old = b.cur[ch.Path]; old == nil {
				return fmt.Errorf("%s is modified but not present", ch.Path)
			}
		case StatusRenamed:
			old = leaving[ch.From]
		}
		// The lines a change writes read as code or as prose, as the
		// change's did.
		b.lines.code = ch.Code
		st, err := b.next(i, c, ch, old)
		b.lines.code = false
		if err != nil {
			return fmt.Errorf("%s: %w", ch.Path, err)
		}
		b.set(i, ch.Path, st)
	}
	return nil
}

// next is a changed path's new state.
func (b *builder) next(i int, c *Commit, ch Change, old *fileState) (*fileState, error) {
	if h, ok := c.FileRestores[ch.Path]; ok {
		st := b.stateAt(ch.Path, b.position(h))
		if st == nil {
			return nil, fmt.Errorf("restored from %s, where it did not exist", textcut.Hash(h))
		}
		return st, nil
	}
	tasks, hasTasks := c.Tasks[ch.Path]
	isTask := IsTaskFile(ch.Path)
	switch {
	case ch.Submodule:
		return &fileState{kind: kindSubmodule, serial: b.lines.id()}, nil
	case ch.Binary && ch.Lines == nil:
		if ch.Status == StatusRenamed && old != nil && old.kind == kindBinary {
			return old.withExec(ch.Exec), nil // taken as an exact rename
		}
		return &fileState{kind: kindBinary, serial: b.lines.id(), exec: ch.Exec}, nil
	case old == nil || old.kind != kindText:
		// A new text file (or one that was binary or a submodule).
		n := ch.Added
		if ch.Lines != nil {
			n = *ch.Lines
		}
		st := &fileState{header: ch.Generated, exec: ch.Exec}
		if st.header {
			n--
		}
		if isTask {
			st.boxes = tasks
			n -= len(tasks)
		}
		st.written, _ = b.writtenSection(nil, ch)
		n -= len(st.written)
		st.body = b.newBody(ch.Path, n)
		return st, nil
	case ch.Added == 0 && ch.Deleted == 0 && !hasTasks && old.header == ch.Generated:
		// A mode change or an exact rename.
		return old.withExec(ch.Exec), nil
	}

	st := &fileState{exec: ch.Exec, header: ch.Generated}
	del, add := ch.Deleted, ch.Added
	if old.header && !st.header {
		del--
	}
	if !old.header && st.header {
		add--
	}
	body := old.body
	switch {
	case isTask:
		st.boxes = old.boxes
		if hasTasks {
			st.boxes = tasks
		}
		d, a := boxDiff(old.boxes, st.boxes)
		del, add = del-d, add-a
	case len(old.boxes) > 0:
		// A task list renamed to a name that is not one: its boxes
		// become ordinary lines.
		body = append(renderBoxes(old.boxes), body...)
	}
	var redone int
	st.written, redone = b.writtenSection(old.written, ch)
	del, add = max(del-redone, 0), max(add-len(ch.Written), 0)
	if extra := del - len(body); extra > 0 {
		// The change removes more lines than the body has: the written
		// lines it had go too, the oldest first.
		k := min(extra, len(old.written))
		st.written, del = st.written[k:], del-k
	}
	switch {
	case ch.WhitespaceOnly:
		st.body, _ = b.lines.whitespaceEdit(body, del, add)
	case ch.DigitsOnly:
		st.body, _ = b.lines.digitsEdit(body, del, add)
	case ch.Churn:
		st.body, _ = b.lines.hexEdit(body, del, add)
	default:
		st.body = b.lines.plainEdit(body, del, add)
	}
	return st, nil
}

// writtenSection is a text file's written lines after a change: it keeps
// what it had and gains a line per item, which the engine reads as the
// lines the change added. A whitespace-only change re-indents a line it
// had with the item instead (redone counts them: deleted and added).
func (b *builder) writtenSection(old []string, ch Change) (out []string, redone int) {
	if len(ch.Written) == 0 {
		return old, 0
	}
	out = slices.Clone(old)
	for _, item := range ch.Written {
		i := -1
		if ch.WhitespaceOnly {
			// The line the item had: its text but the serial.
			same, _, _ := strings.Cut(writtenLine(item, 0), " line ")
			i = slices.IndexFunc(out, func(l string) bool { return strings.HasPrefix(l, same+" line ") })
		}
		if i < 0 {
			out = append(out, writtenLine(item, b.lines.id()))
			continue
		}
		out[i] = " " + out[i]
		redone++
	}
	return out, redone
}

func renderBoxes(ts []Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = boxLine(t)
	}
	return out
}

// withExec is s with another executable bit (s itself when it has it).
func (s *fileState) withExec(exec bool) *fileState {
	if s.exec == exec {
		return s
	}
	c := *s
	c.exec, c.hash = exec, plumbing.ZeroHash
	return &c
}

// set records path's state from position at on (nil: absent).
func (b *builder) set(at int, path string, st *fileState) {
	if st == nil {
		delete(b.cur, path)
		b.root.remove(path)
	} else {
		b.cur[path] = st
		b.root.set(path, st)
	}
	hs := b.hist[path]
	if !b.keep[path] {
		hs = hs[:0] // no file restore takes up an earlier version
	}
	if n := len(hs); n > 0 && hs[n-1].at == at {
		hs[n-1].st = st
	} else {
		hs = append(hs, version{at, st})
	}
	b.hist[path] = hs
}

// stateAt is path's state at position at.
func (b *builder) stateAt(path string, at int) *fileState {
	hs := b.hist[path]
	i := sort.Search(len(hs), func(i int) bool { return hs[i].at > at })
	if i == 0 {
		return nil
	}
	return hs[i-1].st
}

// message is the synthetic commit message: a subject, a revert line and
// the trailers.
func (b *builder) message(i int, c *Commit) string {
	subject := "realloops commit " + strconv.Itoa(i+1)
	switch {
	case c.Claim != "":
		// The claim's words are its identity: the same key, the same
		// subject.
		subject = claimSubject(c.Claim, c.Completion)
	case c.Completion:
		subject += ": all tasks complete"
	}
	var paras []string
	if c.Admitted {
		paras = append(paras, admissionText(c.Blocker))
	}
	if c.Revert {
		subject = `Revert "` + subject + `"`
		line := "This reverts an earlier commit."
		if h, ok := b.commits[b.position(c.Reverts)]; c.Reverts != "" && ok {
			line = "This reverts commit " + h.String() + "."
		}
		paras = append(paras, line)
	}
	var trailers []string
	for _, k := range sortedKeys(c.Trailers) {
		for _, v := range c.Trailers[k] {
			trailers = append(trailers, k+": "+v)
		}
	}
	if len(trailers) > 0 {
		paras = append(paras, strings.Join(trailers, "\n"))
	}
	return strings.Join(append([]string{subject}, paras...), "\n\n") + "\n"
}

// commit writes the current files as a commit.
func (b *builder) commit(msg string, at time.Time, parents []plumbing.Hash) (commit, tree plumbing.Hash, err error) {
	tree, err = b.root.write(b)
	if err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, err
	}
	sig := object.Signature{Name: "realloops", Email: "realloops@example.invalid", When: at}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	h, err := b.put(obj)
	if err != nil {
		return plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("write commit: %w", err)
	}
	return h, tree, nil
}

// blob writes a state's content once and returns its hash and mode.
func (b *builder) blob(st *fileState) (plumbing.Hash, filemode.FileMode, error) {
	if st.kind == kindSubmodule {
		return plumbing.Hash(sha1.Sum([]byte("realloops submodule " + strconv.Itoa(st.serial)))), filemode.Submodule, nil
	}
	mode := filemode.Regular
	if st.exec {
		mode = filemode.Executable
	}
	if !st.hash.IsZero() {
		return st.hash, mode, nil
	}
	h, err := b.pack.add(plumbing.BlobObject, st.size(), st.writeTo)
	if err != nil {
		return plumbing.ZeroHash, 0, fmt.Errorf("write blob: %w", err)
	}
	st.hash = h
	return h, mode, nil
}

// refs names every rebuilt commit in packed-refs (one file, not hundreds)
// and points HEAD at the last through Branch.
func (b *builder) refs(st storage.Storer, dir string, last int) error {
	var refs []string
	if b.f.Base != nil {
		refs = append(refs, b.commits[-1].String()+" "+refPrefix+b.f.Base.Hash)
	}
	for i := 0; i <= last; i++ {
		refs = append(refs, b.commits[i].String()+" "+refPrefix+b.f.Commits[i].Hash)
	}
	slices.SortFunc(refs, func(x, y string) int { return strings.Compare(x[41:], y[41:]) })
	text := "# pack-refs with: peeled fully-peeled sorted \n" + strings.Join(refs, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "packed-refs"), []byte(text), 0o644); err != nil {
		return fmt.Errorf("write packed-refs: %w", err)
	}
	if err := st.SetReference(plumbing.NewHashReference(Branch, b.commits[last])); err != nil {
		return err
	}
	return st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, Branch))
}

// packWriter writes objects into a version 2 pack file as they are made,
// whole (no deltas) and compressed for speed, then hands the pack to the
// repository, which indexes it.
type packWriter struct {
	file    *os.File
	w       *bufio.Writer
	zw      *zlib.Writer
	buf     *bufio.Writer // in front of the hasher or zw, reused
	count   uint32
	written map[plumbing.Hash]bool
}

func newPackWriter(dir string) (*packWriter, error) {
	f, err := os.CreateTemp(dir, "realloops-*.pack")
	if err != nil {
		return nil, fmt.Errorf("create pack: %w", err)
	}
	p := &packWriter{file: f, w: bufio.NewWriterSize(f, 1<<16), buf: bufio.NewWriter(io.Discard), written: map[plumbing.Hash]bool{}}
	p.zw, _ = zlib.NewWriterLevel(p.w, zlib.BestSpeed)
	p.w.WriteString("PACK\x00\x00\x00\x02\x00\x00\x00\x00") // finish fills in the count
	return p, nil
}

// add writes an object of the given type and size, whose content write
// produces (it is called twice: to hash it, then to store it unless an
// equal object is stored already), and returns its hash.
func (p *packWriter) add(typ plumbing.ObjectType, size int64, write func(*bufio.Writer) error) (plumbing.Hash, error) {
	hasher := plumbing.NewHasher(typ, size)
	if err := p.through(hasher, write); err != nil {
		return plumbing.ZeroHash, err
	}
	h := hasher.Sum()
	if p.written[h] {
		return h, nil
	}
	p.written[h] = true
	p.count++
	// The entry header: type and size, 7 bits a byte after the first 4.
	u := uint64(size)
	c := byte(typ)<<4 | byte(u&0x0f)
	for u >>= 4; u > 0; u >>= 7 {
		p.w.WriteByte(c | 0x80)
		c = byte(u & 0x7f)
	}
	p.w.WriteByte(c)
	p.zw.Reset(p.w)
	if err := errors.Join(p.through(p.zw, write), p.zw.Close()); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write pack: %w", err)
	}
	return h, nil
}

// through runs write into dst through the reused buffer.
func (p *packWriter) through(dst io.Writer, write func(*bufio.Writer) error) error {
	p.buf.Reset(dst)
	if err := write(p.buf); err != nil {
		return err
	}
	return p.buf.Flush()
}

// finish completes the pack (object count, checksum) and stores it in dst.
func (p *packWriter) finish(dst storage.Storer) error {
	pw, ok := dst.(storer.PackfileWriter)
	if !ok {
		return errors.New("the repository's storage cannot take a pack file")
	}
	if err := p.w.Flush(); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], p.count)
	if _, err := p.file.WriteAt(n[:], 8); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	if _, err := p.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	w, err := pw.PackfileWriter()
	if err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	sum := sha1.New()
	_, err = io.Copy(io.MultiWriter(w, sum), p.file)
	if err == nil {
		_, err = w.Write(sum.Sum(nil))
	}
	if err := errors.Join(err, w.Close()); err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	return nil
}

// discard removes the pack's working file.
func (p *packWriter) discard() {
	p.file.Close()
	os.Remove(p.file.Name())
}

// dirNode is one directory of the next commit's tree; hash caches its
// written tree until something below it changes.
type dirNode struct {
	files map[string]*fileState
	dirs  map[string]*dirNode
	hash  plumbing.Hash
}

func newDirNode() *dirNode {
	return &dirNode{files: map[string]*fileState{}, dirs: map[string]*dirNode{}}
}

// walk returns the directory holding path, creating directories when
// create is set, and forgets the written trees on the way. nil when absent.
func (d *dirNode) walk(path string, create bool) (*dirNode, string) {
	parts := strings.Split(path, "/")
	d.hash = plumbing.ZeroHash
	for _, p := range parts[:len(parts)-1] {
		sub, ok := d.dirs[p]
		if !ok {
			if !create {
				return nil, ""
			}
			sub = newDirNode()
			d.dirs[p] = sub
		}
		d = sub
		d.hash = plumbing.ZeroHash
	}
	return d, parts[len(parts)-1]
}

func (d *dirNode) set(path string, st *fileState) {
	dir, name := d.walk(path, true)
	dir.files[name] = st
}

func (d *dirNode) remove(path string) {
	if dir, name := d.walk(path, false); dir != nil {
		delete(dir.files, name)
	}
	d.prune()
}

// prune drops directories left empty and reports whether d is empty.
func (d *dirNode) prune() bool {
	for name, sub := range d.dirs {
		if sub.hash.IsZero() && sub.prune() {
			delete(d.dirs, name)
			d.hash = plumbing.ZeroHash
		}
	}
	return len(d.files) == 0 && len(d.dirs) == 0
}

// write writes the tree of d (and of what changed below it).
func (d *dirNode) write(b *builder) (plumbing.Hash, error) {
	if !d.hash.IsZero() {
		return d.hash, nil
	}
	entries := make([]object.TreeEntry, 0, len(d.files)+len(d.dirs))
	for name, st := range d.files {
		h, mode, err := b.blob(st)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: mode, Hash: h})
	}
	for name, sub := range d.dirs {
		h, err := sub.write(b)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// git orders a directory as if its name ended in a slash.
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	obj := &plumbing.MemoryObject{}
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	h, err := b.put(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write tree: %w", err)
	}
	d.hash = h
	return h, nil
}
