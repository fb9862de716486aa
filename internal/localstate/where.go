package localstate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// Where says where the user's state directory is: the first set of an
// explicit directory, $XDG_STATE_HOME/loopbreaker and
// $HOME/.local/state/loopbreaker.
type Where struct {
	Dir                string // an explicit one (LOOPBREAKER_STATE_DIR or a flag)
	XDGStateHome, Home string // the environment's values
}

// Root is the state directory itself.
func (w Where) Root() (string, error) {
	switch {
	case w.Dir != "":
		return filepath.Abs(w.Dir)
	case w.XDGStateHome != "" && filepath.IsAbs(w.XDGStateHome):
		return filepath.Join(w.XDGStateHome, "loopbreaker"), nil
	case w.Home != "":
		return filepath.Join(w.Home, ".local", "state", "loopbreaker"), nil
	}
	return "", errors.New("no state directory: set LOOPBREAKER_STATE_DIR, XDG_STATE_HOME or HOME")
}

// Repo is the state of one repository's loops.
type Repo struct {
	Dir string // the repository's state directory
	Top string // the repository's top-level directory, absolute
}

// ForRepo finds the repository that holds dir, as git finds it, and its
// state directory: the repository's name and a hash of its absolute path,
// so that two clones never share a state.
func (w Where) ForRepo(dir string) (*Repo, error) {
	top, err := TopLevel(dir)
	if err != nil {
		return nil, err
	}
	root, err := w.Root()
	if err != nil {
		return nil, err
	}
	return &Repo{Dir: filepath.Join(root, Key(top)), Top: top}, nil
}

// Key is the name of a repository's state directory: a cleaned base name
// and the first 12 hex digits of the SHA-256 of its absolute path.
func Key(top string) string {
	sum := sha256.Sum256([]byte(top))
	return strings.TrimLeft(clean(filepath.Base(top), 40), ".") + "-" + hex.EncodeToString(sum[:6])
}

// clean keeps letters, digits, '-', '_' and '.' of s, the rest as '_', at
// most n bytes.
func clean(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
	return s[:min(len(s), n)]
}

// ErrNoRepository is wrapped by TopLevel's error for a directory that no
// git repository holds.
var ErrNoRepository = errors.New("not inside a git repository")

// TopLevel is the absolute, symlink-free top of the git working tree that
// holds dir, by git's rules: walking up, the first directory whose .git is
// a git directory (others are passed over), or a "gitdir: PATH" file (one
// that points nowhere is an error, as it is to git). gitlog.GitDirs finds
// a git directory to read instead: it takes any .git directory and a bare
// repository, which has no working tree for a loop's state.
func TopLevel(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; {
		dotgit := filepath.Join(d, ".git")
		st, err := os.Stat(dotgit)
		switch {
		case err == nil && st.IsDir() && isGitDir(dotgit):
			return d, nil
		case err == nil && !st.IsDir():
			if err := checkGitFile(dotgit); err != nil {
				return "", err
			}
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("%s is %w (no .git found above it)", dir, ErrNoRepository)
		}
		d = up
	}
}

// checkGitFile reads a .git file (gitlog.ReadGitFile): it must name a git
// directory.
func checkGitFile(path string) error {
	target, err := gitlog.ReadGitFile(path)
	if err != nil {
		return fmt.Errorf("%w: not a git repository (git refuses to work here)", err)
	}
	if !isGitDir(target) {
		return fmt.Errorf("git file %s: %s is not a git directory: not a git repository (git refuses to work here)", path, target)
	}
	return nil
}

// isGitDir reports whether dir looks like a git directory to git: a HEAD,
// and objects and refs directories or (a linked worktree) a commondir file.
func isGitDir(dir string) bool {
	head, err := os.Lstat(filepath.Join(dir, "HEAD"))
	if err != nil || !(head.Mode().IsRegular() || head.Mode()&fs.ModeSymlink != 0) {
		return false
	}
	if st, err := os.Lstat(filepath.Join(dir, "commondir")); err == nil && st.Mode().IsRegular() {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if st, err := os.Stat(filepath.Join(dir, sub)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// The loops of a repository, by the name of their store.
const (
	// LoopCheck is the shell loop's: `loopbreaker check` with no flags.
	LoopCheck = "check"
	// LoopRecord is `loopbreaker record --repo DIR` without --state.
	LoopRecord = "record"
	// sessionPrefix starts the name of a hook session's store.
	sessionPrefix = "session-"
)

// SessionLoop is the name of the store of the hook's session id: one
// breaker per session.
func SessionLoop(id string) string {
	c := clean(id, 64)
	if c != id || c == "" {
		sum := sha256.Sum256([]byte(id))
		c = clean(c, 40) + "-" + hex.EncodeToString(sum[:6])
	}
	return sessionPrefix + c
}

// CheckLoopName refuses a loop name that is not a plain file name.
func CheckLoopName(name string) error {
	if name == "" || len(name) > 64 || clean(name, 64) != name || strings.HasPrefix(name, ".") {
		return fmt.Errorf("loop name %q: want 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'", name)
	}
	return nil
}

// Loops names the repository's loops that have a store or files of an
// earlier layout, sorted.
func (r *Repo) Loops() ([]string, error) {
	seen := map[string]bool{}
	entries, err := os.ReadDir(r.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("state directory %s: %w; it is not a directory this program made: remove it or move it away", r.Dir, cmp.Or(errors.Unwrap(err), err))
	}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && CheckLoopName(name) == nil {
			seen[name] = true
		}
	}
	for name := range r.legacyLoops() {
		seen[name] = true
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// Open locks and reads the store of the repository's loop name (see the
// package Open), from the files of an earlier layout while it has none.
func (r *Repo) Open(name string, peek bool) (*Store, error) {
	return Open(filepath.Join(r.Dir, name+".json"), peek, r.legacyLoops()[name]...)
}

// legacyLoops are the files of the earlier layout, by the loop whose
// store now holds them (the hook's one breaker is its last session's).
func (r *Repo) legacyLoops() map[string][]string {
	out := map[string][]string{}
	add := func(name string, files ...string) {
		for _, f := range files {
			if _, err := os.Lstat(f); err == nil {
				out[name] = append(out[name], f)
			}
		}
	}
	add(LoopCheck, filepath.Join(r.Dir, "check", "loop.json"), filepath.Join(r.Dir, "check", "ledger", "records.json"))
	marks := filepath.Join(r.Dir, "hook", "marks.json")
	var m struct {
		Session string `json:"session"`
	}
	if data, err := regularfile.Read(marks, MaxBytes, "state file"); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	add(SessionLoop(m.Session), filepath.Join(r.Dir, "hook", "state.json"), marks)
	add("ralph", filepath.Join(filepath.Dir(r.Dir), "ralph", Key(r.Top), "state.json"))
	return out
}

// ResetsFile is the store of the resets of a ledger directory (check
// --ledger DIR), in the state directory where the agent cannot forge one.
func (w Where) ResetsFile(ledgerDir string) (string, error) {
	abs, err := filepath.Abs(ledgerDir)
	if err != nil {
		return "", err
	}
	root, err := w.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "ledgers", Key(abs)+".json"), nil
}
