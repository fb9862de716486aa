package action

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// realGit runs the git command line in dir as the agent's job does, with
// dates minutes after the loop's start, and returns its output. The test
// is skipped where git is not installed.
func realGit(t *testing.T, dir string, minute int, args ...string) string {
	t.Helper()
	return realGitIn(t, dir, minute, "", args...)
}

// realGitIn is realGit with stdin as the command's input.
func realGitIn(t *testing.T, dir string, minute int, stdin string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: no bundle made by real git")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	date := start.Add(time.Duration(minute) * time.Minute).Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_COMMITTER_NAME=agent",
		"GIT_COMMITTER_EMAIL=agent@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeLines writes n numbered lines to path: a text file that a one-line
// edit changes by a small delta.
func writeLines(t *testing.T, path string, n int, word string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, "%08d %s the quick brown fox jumps over the lazy dog\n", i, word)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// thin reports whether the pack of the bundle at path has a ref-delta
// whose base is not in the pack: a thin pack.
func thin(t *testing.T, path string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, pack, _ := bytes.Cut(data, []byte("\n\n"))
	s := packfile.NewScanner(bytes.NewReader(pack))
	_, n, err := s.Header()
	if err != nil {
		t.Fatal(err)
	}
	whole, refs := map[plumbing.Hash]bool{}, []plumbing.Hash{}
	for i := uint32(0); i < n; i++ {
		h, err := s.NextObjectHeader()
		if err != nil {
			t.Fatal(err)
		}
		if h.Type == plumbing.REFDeltaObject {
			refs = append(refs, h.Reference)
			continue
		}
		hasher := plumbing.NewHasher(h.Type, h.Length)
		s.NextObject(&hasher)
		whole[hasher.Sum()] = true
	}
	return slices.ContainsFunc(refs, func(h plumbing.Hash) bool { return !whole[h] })
}

// TestJudgeAppliesBundlesOfRealGit: iteration after iteration the agent
// works with the git command line and hands over what `git bundle create
// START..HEAD` writes: a thin pack whose deltas name objects of the
// prerequisite commit (before, the judge failed with "reference delta not
// found" on the first edit of an existing file). The judge applies each
// bundle and pushes it: a one-line edit, a rename, a deletion, a binary
// file, 200 commits, a merge of main into the loop's branch, and a file of
// 50 MB.
func TestJudgeAppliesBundlesOfRealGit(t *testing.T) {
	t.Parallel()
	loop, server, bare, ws, _ := judgeSetup(t)
	agent := loop.dir
	realGit(t, agent, 0, "checkout", "-q", "-B", "agent/loop", loop.head)
	writeLines(t, filepath.Join(agent, "data.txt"), 2000, "line")
	realGit(t, agent, 1, "add", "data.txt")
	realGit(t, agent, 1, "commit", "-q", "-m", "iteration 2: the data")
	minute := 2
	h := newHTTPHarness(t, &loopRepo{dir: ws, base: loop.base, head: loop.head})
	h.env["GITHUB_SERVER_URL"] = server
	h.dispatched()
	h.env["INPUT_BUNDLE"] = "agent.bundle"
	// iterate hands the agent's work over as its job does and checks that
	// the judge pushed it; the bundles after the first have deltas whose
	// bases are objects of the earlier ones, which the judge holds.
	iterate := func(name string, work func()) {
		t.Helper()
		// START is the branch's head, which the judge has checked out.
		before := realGit(t, ws, minute, "rev-parse", "HEAD")
		if work != nil {
			work()
		}
		minute++
		tip := realGit(t, agent, minute, "rev-parse", "HEAD")
		realGit(t, agent, minute, "bundle", "create", "-q", filepath.Join(ws, "agent.bundle"), before+"..HEAD")
		if name == "a one-line edit" && !thin(t, filepath.Join(ws, "agent.bundle")) {
			t.Fatal("git wrote no ref-delta against the prerequisite for a one-line edit: the case is not tested")
		}
		h.nextRun()
		if code := h.run(); code == exitError {
			t.Fatalf("%s: the judge failed:\n%s", name, h.log.String())
		}
		ref, err := bare.Reference("refs/heads/agent/loop", true)
		if err != nil || ref.Hash().String() != tip {
			t.Fatalf("%s: the loop's branch on the server is at %v (%v), want the agent's %s\n%s", name, ref, err, tip, h.log.String())
		}
		if got := realGit(t, ws, minute, "rev-parse", "HEAD"); got != tip {
			t.Fatalf("%s: the judge's HEAD is %s, want %s", name, got, tip)
		}
		// The next judge's checkout has the branch as pushed.
		realGit(t, ws, minute, "update-ref", "refs/remotes/origin/agent/loop", tip)
	}
	commit := func(msg string) {
		minute++
		realGit(t, agent, minute, "commit", "-q", "-am", msg)
	}
	iterate("the data", nil)
	iterate("a one-line edit", func() {
		data, _ := os.ReadFile(filepath.Join(agent, "data.txt"))
		edited := strings.Replace(string(data), "00001000 line", "00001000 LINE", 1)
		os.WriteFile(filepath.Join(agent, "data.txt"), []byte(edited), 0o644)
		commit("iteration 3: one line")
	})
	iterate("a rename and a deletion", func() {
		realGit(t, agent, minute, "mv", "data.txt", "records.txt")
		realGit(t, agent, minute, "rm", "-q", "main.go")
		commit("iteration 4: rename the data, drop main.go")
	})
	iterate("a binary file", func() {
		bin := make([]byte, 64<<10)
		for i := range bin {
			bin[i] = byte(i*7 + i/251)
		}
		os.WriteFile(filepath.Join(agent, "logo.png"), bin, 0o644)
		realGit(t, agent, minute, "add", "logo.png")
		commit("iteration 5: a logo")
		bin[100] ^= 0xff
		os.WriteFile(filepath.Join(agent, "logo.png"), bin, 0o644)
		commit("iteration 5: the logo, fixed")
	})
	iterate("200 commits", func() {
		// git fast-import makes them in one go, each an edit of a file.
		var stream strings.Builder
		for i := 0; i < 200; i++ {
			when := start.Add(time.Duration(minute) * time.Minute).Unix()
			body := fmt.Sprintf("count %d\n", i)
			msg := fmt.Sprintf("iteration 6: step %d", i)
			fmt.Fprintf(&stream, "commit refs/heads/agent/loop\ncommitter agent <agent@example.com> %d +0000\ndata %d\n%s\n", when, len(msg), msg)
			if i == 0 {
				fmt.Fprintf(&stream, "from %s\n", realGit(t, agent, minute, "rev-parse", "HEAD"))
			}
			fmt.Fprintf(&stream, "M 100644 inline counter.txt\ndata %d\n%s\n", len(body), body)
		}
		realGitIn(t, agent, minute, stream.String(), "fast-import", "--quiet")
		realGit(t, agent, minute, "reset", "-q", "--hard")
	})
	iterate("a merge of main", func() {
		realGit(t, agent, minute, "checkout", "-q", "-b", "main-moved", loop.base)
		os.WriteFile(filepath.Join(agent, "README.md"), []byte("# the project\n"), 0o644)
		realGit(t, agent, minute, "add", "README.md")
		commit("main's own work")
		// A person's commit on main, on GitHub: the judge's clone lacks it.
		remote := strings.Replace(server, "://", "://x-access-token:"+fakegithub.DefaultToken+"@", 1) + "/octo/loop.git"
		realGit(t, agent, minute, "push", "-q", remote, "main-moved:main")
		realGit(t, agent, minute, "checkout", "-q", "agent/loop")
		realGit(t, agent, minute, "merge", "-q", "--no-ff", "-m", "iteration 7: merge main", "main-moved")
	})
	// 50 MB takes a minute under -race on a busy machine: the README's
	// test command hands over 8 MB, LOOPBREAKER_LONG_TESTS (.ci/run) 50.
	size := 8 << 20
	if os.Getenv("LOOPBREAKER_LONG_TESTS") != "" {
		size = 50 << 20
	}
	iterate(fmt.Sprintf("a file of %d MB", size>>20), func() {
		writeLines(t, filepath.Join(agent, "big.csv"), size/59, "cell")
		realGit(t, agent, minute, "add", "big.csv")
		commit("iteration 8: the big table")
	})
}
