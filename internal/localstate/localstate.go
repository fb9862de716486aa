package localstate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/loopbreaker/loopbreaker/internal/statefile"
)

// Where says where the user's state directory is: the first set of an
// explicit directory, $XDG_STATE_HOME/loopbreaker and
// $HOME/.local/state/loopbreaker.
type Where struct {
	// Dir is an explicit state directory (LOOPBREAKER_STATE_DIR or a flag).
	Dir string
	// XDGStateHome and Home are the environment's values.
	XDGStateHome, Home string
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

// Repo is the state of one repository's loop.
type Repo struct {
	// Dir is the repository's state directory.
	Dir string
	// Top is the repository's top-level directory, absolute.
	Top string
}

// ForRepo finds the repository that holds dir (the directory with .git,
// walking up) and its state directory: the repository's name and a hash
// of its absolute path, so that two clones never share a state.
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
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(top))
	if len(name) > 40 {
		name = name[:40]
	}
	return strings.TrimLeft(name, ".") + "-" + hex.EncodeToString(sum[:6])
}

// TopLevel is the absolute, symlink-free directory at or above dir that
// holds .git (a directory, or a file as in worktrees and submodules).
func TopLevel(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	for d := abs; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("%s is not inside a git repository (no .git found above it)", dir)
		}
		d = up
	}
}

// Path is a file of the repository's state.
func (r *Repo) Path(elem ...string) string {
	return filepath.Join(append([]string{r.Dir}, elem...)...)
}

// The files of a repository's state.
const (
	// HookState is the Claude Code hook's breaker (a state file).
	HookState = "hook/state.json"
	// HookMarks is where the hook's previous stop left off.
	HookMarks = "hook/marks.json"
	// CheckLoop is check's own start of the loop.
	CheckLoop = "check/loop.json"
	// CheckLedger is the directory of check's own ledger.
	CheckLedger = "check/ledger"
	// CheckRecords is check's ledger file in it.
	CheckRecords = "check/ledger/records.json"
)

// Exists reports whether the repository's state has the file.
func (r *Repo) Exists(name string) bool {
	_, err := os.Lstat(r.Path(name))
	return err == nil
}

// Reset is a person's reset of a loop kept as state.
type Reset struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// Loop is check's own loop: where it started and the resets made since.
type Loop struct {
	Version int       `json:"version"`
	Base    string    `json:"base"`
	Started time.Time `json:"started"`
	Resets  []Reset   `json:"resets,omitempty"`
}

// MaxResets bounds the resets a loop file keeps (the newest).
const MaxResets = 100

// MaxLoopBytes bounds a loop file read.
const MaxLoopBytes = 1 << 20

// ReadJSON reads a JSON file of the state, at most max bytes, into v; a
// missing file leaves v as it is and reports false. A file that is not
// valid is an error naming it, and stays untouched.
func ReadJSON(path string, max int64, v any) (bool, error) {
	data, err := statefile.ReadRegular(path, max, "state file")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("state file %s: %v; remove it to start again", path, err)
	}
	return true, nil
}

// WriteJSON writes v to path atomically (0600, its directory 0700).
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return statefile.WriteAtomic(path, append(data, '\n'), 0o600)
}

// ResetsFile is where the resets of a ledger directory the user named
// (check --ledger DIR) are kept: in the state directory, keyed by the
// ledger's absolute path, where the agent that may write the ledger
// cannot forge a reset.
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

// AddReset appends a reset to the loop, keeping the newest MaxResets.
func (l *Loop) AddReset(r Reset) {
	l.Resets = append(l.Resets, r)
	if n := len(l.Resets) - MaxResets; n > 0 {
		l.Resets = l.Resets[n:]
	}
}
