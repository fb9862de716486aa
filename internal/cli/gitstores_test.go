//go:build unix

package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runGit runs the git binary in dir with a fixed identity and clock and no
// user or system configuration, and returns its output. The tests that
// need git to make a repository (go-git cannot clone with --shared) skip
// when it is not installed; loopbreaker itself never runs it.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_AUTHOR_DATE=2026-02-01T10:00:00Z",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com", "GIT_COMMITTER_DATE=2026-02-01T10:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestSharedClonesAreRead: a clone that reads its history from another
// repository's object store (git clone --shared, or --reference) is read
// like the repository itself, its own new commits on top included, with a
// base given as an abbreviated hash of a commit only the other store
// holds. Before, check exited 2: "object not found".
func TestSharedClonesAreRead(t *testing.T) {
	t.Parallel()
	steps := []map[string]string{{"main.go": "package main\n"}}
	for i := range 5 {
		steps = append(steps, map[string]string{"main.go": fmt.Sprintf("package main\n\n// step %d\n", i)})
	}
	src := commitLoop(t, steps)
	runGit(t, src, "repack", "-a", "-d", "-q") // a clone's history is packed
	base := runGit(t, src, "rev-parse", "--short", "HEAD~5")
	clones := map[string][]string{
		"shared":    {"clone", "-q", "--shared"},
		"reference": {"clone", "-q", "--no-local", "--reference", src},
	}
	for name, args := range clones {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			origin := t.TempDir()
			runGit(t, origin, "clone", "-q", src, "origin")
			origin = filepath.Join(origin, "origin")
			dst := filepath.Join(t.TempDir(), name)
			runGit(t, "", append(args, origin, dst)...)
			if _, err := os.Stat(filepath.Join(dst, ".git", "objects", "info", "alternates")); err != nil {
				t.Fatalf("git clone %s made no alternates file: %v", strings.Join(args, " "), err)
			}
			// The same new commit in the clone (a loose object there, its
			// parent in the other store) and in the repository it shares.
			for _, dir := range []string{origin, dst} {
				if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				runGit(t, dir, "commit", "-q", "-a", "-m", "iteration")
			}
			if a, b := runGit(t, origin, "rev-parse", "HEAD"), runGit(t, dst, "rev-parse", "HEAD"); a != b {
				t.Fatalf("the clone's commit %s differs from the repository's %s", b, a)
			}
			args := func(repo string) []string {
				return []string{"check", "--repo", repo, "--base", base, "--format", "json"}
			}
			wantCode, want, wantErr := call(hostileNow, nil, args(origin)...)
			if wantCode == 2 {
				t.Fatalf("check of the repository itself: exit 2 %s", wantErr)
			}
			code, got, errs := call(hostileNow, nil, args(dst)...)
			// The reset command names the repository it was run on.
			want = strings.ReplaceAll(want, origin, dst)
			if code != wantCode || got != want {
				t.Errorf("check of the clone: got exit %d %s%s\nwant exit %d %s", code, got, errs, wantCode, want)
			}
			if !strings.Contains(got, `"iteration":6`) {
				t.Errorf("check of the clone: want iteration 6 (five shared commits and the clone's own), got %s", got)
			}
		})
	}
}
