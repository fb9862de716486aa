package gitlog

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// side is one side of a changed path; path is "" when the side is absent.
type side struct {
	path string
	hash plumbing.Hash
	mode filemode.FileMode
}

// rawChange is one tree-diff entry before classification. unreadable,
// when set, says why its content cannot be read (a directory nested too
// deep, a tree object that is not in the repository): it counts as changed.
type rawChange struct {
	from, to   side
	unreadable string
}

// treeChanges diffs two trees (nil: the empty tree) with rename detection.
// Subtrees with equal hashes are skipped without being read, so the cost
// follows the size of the change, not of the repository.
func (r *Repo) treeChanges(a, b *object.Tree, maxFileBytes int64) ([]rawChange, error) {
	var ah, bh plumbing.Hash
	if a != nil {
		ah = a.Hash
	}
	if b != nil {
		bh = b.Hash
	}
	var out []rawChange
	if err := r.diffTrees(ah, bh, "", 0, &out); err != nil {
		return nil, err
	}
	out, err := exactRenames(out)
	if err != nil {
		return nil, fmt.Errorf("detect renames between trees %s and %s in %s: %w", ah, bh, r.dir, err)
	}
	return r.pairRenames(out, maxFileBytes)
}

// treeEntries returns a tree's entries in git order (see Repo.tree).
func (r *Repo) treeEntries(h plumbing.Hash) ([]object.TreeEntry, error) {
	if h.IsZero() {
		return nil, nil
	}
	t, err := r.tree(h)
	if err != nil {
		return nil, err
	}
	return t.Entries, nil
}

// diffTrees appends the file-level changes between trees a and b (zero hash:
// empty) under prefix. A directory nested deeper than maxTreeDepth, or one
// whose tree object is not in the repository, is one unreadable change.
func (r *Repo) diffTrees(a, b plumbing.Hash, prefix string, depth int, out *[]rawChange) error {
	if a == b {
		return nil
	}
	if depth > maxTreeDepth {
		r.unreadableDir(a, b, prefix, fmt.Sprintf("nested deeper than %d directories", maxTreeDepth), out)
		return nil
	}
	ea, err := r.treeEntries(a)
	if isMissing(err) && prefix != "" {
		r.unreadableDir(a, b, prefix, fmt.Sprintf("tree %s is not in the repository", a), out)
		return nil
	}
	if err != nil {
		return err
	}
	eb, err := r.treeEntries(b)
	if isMissing(err) && prefix != "" {
		r.unreadableDir(a, b, prefix, fmt.Sprintf("tree %s is not in the repository", b), out)
		return nil
	}
	if err != nil {
		return err
	}
	i, j := 0, 0
	for i < len(ea) || j < len(eb) {
		var order int
		switch {
		case i == len(ea):
			order = 1
		case j == len(eb):
			order = -1
		default:
			order = compareEntries(ea[i], eb[j])
		}
		switch {
		case order < 0: // only in a
			if err := r.oneSide(ea[i], prefix, depth, true, out); err != nil {
				return err
			}
			i++
		case order > 0: // only in b
			if err := r.oneSide(eb[j], prefix, depth, false, out); err != nil {
				return err
			}
			j++
		default:
			x, y := ea[i], eb[j]
			i++
			j++
			if x.Hash == y.Hash && x.Mode == y.Mode {
				continue
			}
			if x.Mode == filemode.Dir { // both directories (same sort key)
				if err := r.diffTrees(x.Hash, y.Hash, prefix+x.Name+"/", depth+1, out); err != nil {
					return err
				}
				continue
			}
			p := prefix + x.Name
			*out = append(*out, rawChange{from: side{p, x.Hash, x.Mode}, to: side{p, y.Hash, y.Mode}})
		}
	}
	return nil
}

// unreadableDir records a directory whose content the diff cannot read as
// one changed path.
func (r *Repo) unreadableDir(a, b plumbing.Hash, prefix, why string, out *[]rawChange) {
	p := strings.TrimSuffix(prefix, "/")
	c := rawChange{unreadable: why}
	if !a.IsZero() {
		c.from = side{p, a, filemode.Dir}
	}
	if !b.IsZero() {
		c.to = side{p, b, filemode.Dir}
	}
	*out = append(*out, c)
}

// oneSide records an entry present on one side only (a whole directory
// when it is one).
func (r *Repo) oneSide(e object.TreeEntry, prefix string, depth int, deleted bool, out *[]rawChange) error {
	if e.Mode == filemode.Dir {
		if deleted {
			return r.diffTrees(e.Hash, plumbing.ZeroHash, prefix+e.Name+"/", depth+1, out)
		}
		return r.diffTrees(plumbing.ZeroHash, e.Hash, prefix+e.Name+"/", depth+1, out)
	}
	s := side{prefix + e.Name, e.Hash, e.Mode}
	if deleted {
		*out = append(*out, rawChange{from: s})
	} else {
		*out = append(*out, rawChange{to: s})
	}
	return nil
}

// compareEntries is git's tree order: a directory sorts as if named
// "name/". The name is not built: comparing two entries was a tenth of a
// walk's allocations.
func compareEntries(a, b object.TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	return cmp.Compare(sortByte(a, n), sortByte(b, n))
}

// sortByte is the byte at i of an entry's sort name, -1 past its end.
func sortByte(e object.TreeEntry, i int) int {
	switch {
	case i < len(e.Name):
		return int(e.Name[i])
	case i == len(e.Name) && e.Mode == filemode.Dir:
		return '/'
	}
	return -1
}

// exactRenames pairs deleted and added files with the same content and
// mode into renames, with go-git's rename detector (exact matches only:
// blob hashes, never content).
func exactRenames(changes []rawChange) ([]rawChange, error) {
	adds, dels := 0, 0
	for _, c := range changes {
		switch {
		case c.from.path == "":
			adds++
		case c.to.path == "":
			dels++
		}
	}
	if adds == 0 || dels == 0 {
		return changes, nil
	}
	entry := func(s side) object.ChangeEntry {
		if s.path == "" {
			return object.ChangeEntry{}
		}
		name := s.path[strings.LastIndexByte(s.path, '/')+1:]
		return object.ChangeEntry{Name: s.path, TreeEntry: object.TreeEntry{Name: name, Mode: s.mode, Hash: s.hash}}
	}
	in := make(object.Changes, len(changes))
	for i, c := range changes {
		in[i] = &object.Change{From: entry(c.from), To: entry(c.to)}
	}
	res, err := object.DetectRenames(in, &object.DiffTreeOptions{DetectRenames: true, OnlyExactRenames: true})
	if err != nil {
		return nil, err
	}
	out := make([]rawChange, 0, len(res))
	for _, c := range res {
		var rc rawChange
		if c.From.Name != "" {
			rc.from = side{c.From.Name, c.From.TreeEntry.Hash, c.From.TreeEntry.Mode}
		}
		if c.To.Name != "" {
			rc.to = side{c.To.Name, c.To.TreeEntry.Hash, c.To.TreeEntry.Mode}
		}
		out = append(out, rc)
	}
	return out, nil
}

// isBlobMode reports whether the entry's hash names a blob (a file or a
// symbolic link, not a submodule commit).
func isBlobMode(m filemode.FileMode) bool {
	return isFileMode(m) || m == filemode.Symlink
}

// blob opens a blob object: read whole into memory (and kept for its
// second use) unless it is over the large-object threshold, whose content
// is not read until its reader is.
func (r *Repo) blob(h plumbing.Hash) (plumbing.EncodedObject, error) {
	if obj, ok := r.blobs.Get(h); ok {
		return obj, nil
	}
	obj, err := r.st.EncodedObject(plumbing.BlobObject, h)
	if errors.Is(err, plumbing.ErrObjectNotFound) && r.st.HasEncodedObject(h) == nil {
		// There, but not a blob: damaged, not missing.
		return nil, fmt.Errorf("read blob %s in %s: the object is not a blob", h, r.dir)
	}
	if err != nil {
		return nil, r.objectError("blob", h, err)
	}
	if obj, err = wholeObject(obj); err != nil {
		return nil, r.objectError("blob", h, err)
	}
	if _, ok := obj.(*rawObject); ok {
		r.blobs.Put(obj)
	}
	return obj, nil
}

// readBlob reads at most limit bytes of a blob, streaming.
func (r *Repo) readBlob(obj plumbing.EncodedObject, limit int64) ([]byte, error) {
	if raw, ok := obj.(*rawObject); ok {
		n := min(int64(len(raw.data)), limit)
		return raw.data[:n:n], nil // read-only
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, r.objectError("blob", obj.Hash(), err)
	}
	defer rd.Close()
	var buf bytes.Buffer
	buf.Grow(int(min(obj.Size(), limit)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(rd, limit)); err != nil {
		return nil, fmt.Errorf("read blob %s in %s: %w", obj.Hash(), r.dir, err)
	}
	return buf.Bytes(), nil
}

// classify turns raw changes into a Change.
func (r *Repo) classify(raw []rawChange, o Options) (Change, error) {
	var ch Change
	if len(raw) == 0 {
		return ch, nil
	}
	ch.Files = make([]FileChange, 0, len(raw))
	for _, c := range raw {
		fc := FileChange{Path: c.to.path}
		switch {
		case c.from.path == "":
			fc.Status = StatusAdded
		case c.to.path == "":
			fc.Status = StatusDeleted
			fc.Path = c.from.path
		case c.from.path != c.to.path:
			fc.Status = StatusRenamed
			fc.OldPath = c.from.path
		default:
			fc.Status = StatusModified
		}
		why, err := r.compare(&fc, c, o.MaxFileBytes, o.Shapes)
		if err != nil {
			return Change{}, fmt.Errorf("compare %s: %w", fc.Path, err)
		}
		if why != "" {
			fc.Unreadable = true
			ch.Unreadable = append(ch.Unreadable, fmt.Sprintf("%s (%s)", shortPath(fc.Path), why))
		}
		fc.Ignored = r.match(o.IgnorePaths, fc.Path) && (fc.OldPath == "" || r.match(o.IgnorePaths, fc.OldPath))
		fc.TestData = r.match(o.TestDataPaths, fc.Path)
		fc.Test = !fc.TestData && r.match(o.TestPaths, fc.Path)
		fc.Doc = r.match(o.DocPaths, fc.Path)
		fc.Notes = r.match(o.NotesPaths, fc.Path)
		newProtected := r.match(o.ProtectedPaths, fc.Path)
		oldProtected := fc.OldPath != "" && r.match(o.ProtectedPaths, fc.OldPath)
		fc.Protected = newProtected || oldProtected
		fc.Meaningful = !fc.Ignored && !fc.WhitespaceOnly && !fc.Generated
		if err := r.readWritten(c, &fc, o); err != nil {
			return Change{}, fmt.Errorf("read %s: %w", fc.Path, err)
		}
		switch {
		case fc.Status == StatusDeleted && newProtected:
			ch.ProtectedDeleted = append(ch.ProtectedDeleted, fc.Path)
		case fc.Status == StatusRenamed:
			if oldProtected {
				ch.ProtectedDeleted = append(ch.ProtectedDeleted, fc.OldPath)
			}
			if newProtected {
				ch.ProtectedModified = append(ch.ProtectedModified, fc.Path)
			}
		case newProtected:
			ch.ProtectedModified = append(ch.ProtectedModified, fc.Path)
		}
		if fc.Meaningful {
			ch.MeaningfulFiles++
			lines := fc.Added + fc.Deleted
			ch.MeaningfulLines += lines
			if fc.Test {
				ch.TestLines += lines
			}
			if fc.Doc {
				ch.DocFiles++
			}
		}
		ch.Files = append(ch.Files, fc)
	}
	sort.SliceStable(ch.Files, func(i, j int) bool {
		if ch.Files[i].Path != ch.Files[j].Path {
			return ch.Files[i].Path < ch.Files[j].Path
		}
		return ch.Files[i].OldPath < ch.Files[j].OldPath
	})
	sort.Strings(ch.ProtectedDeleted)
	sort.Strings(ch.ProtectedModified)
	sort.Strings(ch.Unreadable)
	return ch, nil
}

// compare fills the content facts of one change: sizes, binary, large,
// generated, whitespace-only, digits-only and line counts. It returns why
// the content could not be read ("" when it could): an object that is not
// in the repository, or a directory the diff did not descend into.
func (r *Repo) compare(fc *FileChange, c rawChange, maxBytes int64, shapes bool) (string, error) {
	if c.unreadable != "" {
		return c.unreadable, nil
	}
	fromBlob := c.from.path != "" && isBlobMode(c.from.mode)
	toBlob := c.to.path != "" && isBlobMode(c.to.mode)
	fc.Submodule = (c.from.path != "" && c.from.mode == filemode.Submodule) || (c.to.path != "" && c.to.mode == filemode.Submodule)
	var oldObj, newObj plumbing.EncodedObject
	var err error
	if fromBlob {
		if oldObj, err = r.blob(c.from.hash); isMissing(err) {
			return fmt.Sprintf("blob %s is not in the repository: a partial clone, or a copy without large files?", c.from.hash), nil
		} else if err != nil {
			return "", err
		}
		fc.OldSize = oldObj.Size()
	}
	if toBlob {
		if newObj, err = r.blob(c.to.hash); isMissing(err) {
			return fmt.Sprintf("blob %s is not in the repository: a partial clone, or a copy without large files?", c.to.hash), nil
		} else if err != nil {
			return "", err
		}
		fc.NewSize = newObj.Size()
	}
	if !fromBlob && !toBlob {
		return "", nil // submodule commits: nothing to read
	}
	same := fromBlob && toBlob && c.from.hash == c.to.hash // a mode change or a pure rename
	limit := maxBytes
	if fc.OldSize > maxBytes || fc.NewSize > maxBytes {
		// Compared by size only: look at the heads, never the whole.
		fc.Large = true
		limit = generatedProbe
	} else if same {
		limit = generatedProbe
	}
	var oldData, newData []byte
	if fromBlob {
		if oldData, err = r.readBlob(oldObj, limit); err != nil {
			return "", err
		}
	}
	if toBlob {
		if newData, err = r.readBlob(newObj, limit); err != nil {
			return "", err
		}
	}
	fc.Binary = isBinary(oldData) || isBinary(newData)
	if toBlob {
		fc.Generated = !isBinary(newData) && isGenerated(newData)
	} else {
		fc.Generated = !isBinary(oldData) && isGenerated(oldData)
	}
	if fc.Binary || fc.Large || same {
		return "", nil
	}
	fc.Added, fc.Deleted = lineStat(oldData, newData)
	if fc.Status == StatusModified && fromBlob && toBlob {
		// Both checks look only at the edited middle (see
		// equalIgnoringSpace), found once.
		a, b := editedMiddle(oldData, newData)
		fc.WhitespaceOnly = equalSkipping(a, b, isSpace)
		fc.DigitsOnly = !fc.WhitespaceOnly && len(a)+len(b) > 0 && equalSkipping(a, b, isDigit)
		fc.Churn = shapes && (fc.DigitsOnly || (!fc.WhitespaceOnly && ChurnOnly(oldData, newData)))
	}
	fc.Prose = shapes && Prose(fc.Path, oldData, newData)
	return "", nil
}

// shortPath keeps the end of a long path for a note: at most 80 bytes,
// cut at a rune's start.
func shortPath(p string) string {
	const most = 80
	if len(p) <= most {
		return p
	}
	i := len(p) - most
	for i < len(p) && !utf8.RuneStart(p[i]) {
		i++
	}
	return "…" + p[i:]
}
