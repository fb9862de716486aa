package localstate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		w    Where
		want string
	}{
		{Where{Dir: "/s", XDGStateHome: "/x", Home: "/h"}, "/s"},
		{Where{XDGStateHome: "/x", Home: "/h"}, "/x/loopbreaker"},
		{Where{XDGStateHome: "relative", Home: "/h"}, "/h/.local/state/loopbreaker"},
		{Where{Home: "/h"}, "/h/.local/state/loopbreaker"},
	}
	for _, tt := range tests {
		if got, err := tt.w.Root(); err != nil || got != tt.want {
			t.Errorf("%+v: got %q %v, want %q", tt.w, got, err, tt.want)
		}
	}
	if _, err := (Where{}).Root(); err == nil {
		t.Errorf("no directory at all: want an error")
	}
}

// gitDir makes dir/.git a git directory as git sees one.
func gitDir(t *testing.T, dir string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(dir, ".git", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestForRepo: the repository is found from a directory inside it, and two
// repositories of the same name have two states.
func TestForRepo(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "app"), filepath.Join(t.TempDir(), "app")
	for _, d := range []string{a, b} {
		gitDir(t, d)
		os.MkdirAll(filepath.Join(d, "src", "deep"), 0o755)
	}
	w := Where{Dir: t.TempDir()}
	ra, err := w.ForRepo(filepath.Join(a, "src", "deep"))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := w.ForRepo(b)
	if err != nil {
		t.Fatal(err)
	}
	if ra.Dir == rb.Dir || !strings.HasPrefix(filepath.Base(ra.Dir), "app-") {
		t.Errorf("state directories %s and %s", ra.Dir, rb.Dir)
	}
	if _, err := w.ForRepo(t.TempDir()); err == nil {
		t.Errorf("a directory outside any repository: want an error")
	}
}

// TestTopLevelByGitRules: a .git directory that is not a git directory is
// passed over, as git passes it; a .git file that does not point to a git
// directory (an empty one the agent planted) is an error, never a new top.
func TestTopLevelByGitRules(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	gitDir(t, top)
	mk := func(rel, gitFile string) string {
		d := filepath.Join(top, rel)
		os.MkdirAll(d, 0o755)
		if gitFile != "" {
			os.WriteFile(filepath.Join(d, ".git"), []byte(gitFile), 0o644)
		}
		return d
	}
	emptyDir := mk("a", "")
	os.Mkdir(filepath.Join(emptyDir, ".git"), 0o755)
	gitDir(t, filepath.Join(top, ".git", "worktrees", "w")) // a linked worktree's git directory
	os.WriteFile(filepath.Join(top, ".git", "worktrees", "w", ".git", "commondir"), []byte("../..\n"), 0o644)
	for _, c := range []struct {
		dir, want, fault string
	}{
		{mk("src/deep", ""), top, ""},
		{emptyDir, top, ""},
		{mk("b", "\n"), "", "invalid gitfile format"},
		{mk("c", "gitdir: nowhere\n"), "", "is not a git directory"},
		{mk("d", "gitdir: "+filepath.Join(top, ".git", "worktrees", "w", ".git")+"\n"), filepath.Join(top, "d"), ""},
	} {
		got, err := TopLevel(c.dir)
		switch {
		case c.fault == "" && (err != nil || got != c.want):
			t.Errorf("TopLevel(%s): got %q %v, want %q", c.dir, got, err, c.want)
		case c.fault != "" && (err == nil || !strings.Contains(err.Error(), c.fault) || !strings.Contains(err.Error(), c.dir)):
			t.Errorf("TopLevel(%s): got %q %v, want an error naming its .git and %q", c.dir, got, err, c.fault)
		}
	}
}

// copyDir copies the files under src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o700)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOldLayoutLoads: the files an earlier version wrote (testdata/v1: the
// shell loop's loop.json and ledger, the hook's one state file and marks,
// the ralph drop-in's state directory) load as the loops' stores; the old
// files go once the store is saved.
func TestOldLayoutLoads(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	top := filepath.Join(t.TempDir(), "app")
	r := &Repo{Dir: filepath.Join(root, Key(top)), Top: top}
	copyDir(t, filepath.Join("testdata", "v1", "repo"), r.Dir)
	copyDir(t, filepath.Join("testdata", "v1", "state-open.json"), filepath.Join(root, "ralph", Key(top), "state.json"))
	loops, err := r.Loops()
	if err != nil || !slices.Equal(loops, []string{"check", "ralph", "session-sess-1"}) {
		t.Fatalf("got loops %v %v, want check, ralph and session-sess-1", loops, err)
	}
	check, err := r.Open(LoopCheck, true)
	if err != nil {
		t.Fatal(err)
	}
	if f := check.File; f == nil || f.Base != "fa8f8acbee66acee3f8b2f42191055ebac8b0ccd" || len(f.Records) != 2 {
		t.Fatalf("the shell loop's store: %+v", f)
	}
	if err := check.Save(check.File); err != nil {
		t.Fatal(err)
	}
	check.Close()
	if _, err := os.Stat(filepath.Join(r.Dir, "check", "loop.json")); err == nil {
		t.Errorf("the old loop file is still there after the store was saved")
	}
	hook, err := r.Open("session-sess-1", true)
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	f := hook.File
	if f == nil || f.Session != "sess-1" || f.Tree == nil || len(f.Tree.Files) != 1 || f.Carried == nil || f.Carried.State != "OPEN" || f.Carried.Iterations != 3 {
		t.Fatalf("the hook's store: %+v", f)
	}
	ralph, err := r.Open("ralph", true)
	if err != nil {
		t.Fatal(err)
	}
	defer ralph.Close()
	if c := ralph.File.Carried; c == nil || c.State != "OPEN" || c.Reason != "no progress in 3 consecutive iterations" || !c.At.Equal(time.Date(2026, 3, 1, 9, 3, 0, 0, time.UTC)) {
		t.Fatalf("the ralph drop-in's store: %+v", ralph.File.Carried)
	}
}

// TestOpenLeavesABadFile: a store that is not valid, not a regular file
// or in a directory that is a file is an error naming it, and stays as it
// is; a missing one opened to peek is neither locked nor created.
func TestOpenLeavesABadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{nope"), 0o600)
	if _, err := Open(bad, false); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("got %v, want an error naming %s", err, bad)
	}
	if data, _ := os.ReadFile(bad); string(data) != "{nope" {
		t.Errorf("the file was changed: %q", data)
	}
	invalid := filepath.Join(dir, "invalid.json")
	os.WriteFile(invalid, []byte(`{"version":2,"kind":"loopbreaker-state","records":[{"version":1,"at":"2026-01-01T00:00:00Z","output":{"lines":-1,"bytes":0}}]}`), 0o600)
	if _, err := Open(invalid, false); err == nil || !strings.Contains(err.Error(), "records[0]") {
		t.Errorf("a record out of its bounds: got %v", err)
	}
	if _, err := Open(dir, false); err == nil || !strings.Contains(err.Error(), "not a regular file (a directory)") {
		t.Errorf("a directory: got %v", err)
	}
	before, _ := os.ReadDir(dir)
	s, err := Open(filepath.Join(dir, "none.json"), true)
	if err != nil || s.File != nil {
		t.Fatalf("a missing store: got %+v %v", s, err)
	}
	s.Close()
	if entries, _ := os.ReadDir(dir); len(entries) != len(before) {
		t.Errorf("peeking at a missing store made files: %v", entries)
	}
	asFile := &Repo{Dir: bad}
	if _, err := asFile.Loops(); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a state directory that is a file: got %v, want an error naming it", err)
	}
}

// TestSessionLoop: a session id is a plain file name, or is made one.
func TestSessionLoop(t *testing.T) {
	t.Parallel()
	if got := SessionLoop("0b6c4e2a-1f3d-4c5e-9a7b-123456789abc"); got != "session-0b6c4e2a-1f3d-4c5e-9a7b-123456789abc" {
		t.Errorf("got %q", got)
	}
	for _, id := range []string{"", "../../x", strings.Repeat("a", 100), "a/b"} {
		if got := SessionLoop(id); CheckLoopName(got) != nil || strings.Contains(got, "/") {
			t.Errorf("SessionLoop(%q) = %q: not a plain name", id, got)
		}
	}
	if SessionLoop("a/b") == SessionLoop("a_b") {
		t.Errorf("two sessions share a store")
	}
}
