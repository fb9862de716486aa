package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPackTruncatedWhileOpen: a pack that another process truncates
// while check has it open (git gc, a work space cleaned under a running
// check) makes check exit 2 with an error naming the pack, not crash.
//
// The truncation has to fall between check opening the pack and reading
// it. The repository gets a second copy of the pack under a name that
// sorts after it, and the test holds a write lease on that copy's index:
// check opens the first pack, then its open of the copy's index waits for
// the lease, and the kernel tells the test (SIGIO). The test truncates
// the first pack, releases the lease, and check reads its objects from
// the first pack, now truncated.
func TestPackTruncatedWhileOpen(t *testing.T) {
	t.Parallel()
	repo, first := packedLoop(t)
	copyIdx := filepath.Join(filepath.Dir(first), "pack-zz-copy.idx")
	for from, to := range map[string]string{first: strings.TrimSuffix(copyIdx, ".idx") + ".pack", strings.TrimSuffix(first, ".pack") + ".idx": copyIdx} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	notified := make(chan os.Signal, 1)
	signal.Notify(notified, syscall.SIGIO)
	defer signal.Stop(notified)
	lease, err := os.OpenFile(copyIdx, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Close()
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, lease.Fd(), syscall.F_SETLEASE, syscall.F_WRLCK); errno != 0 {
		t.Skipf("take a write lease on %s: %v", copyIdx, errno)
	}

	cmd := exec.Command(binary, "check", "--repo", repo, "--base", "HEAD~5")
	cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=", "GITHUB_ACTIONS=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-notified:
	case err := <-done:
		t.Fatalf("check ended before it opened the second pack's index: %v\n%s", err, out.String())
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("check did not open the second pack's index within a minute\n%s", out.String())
	}
	if err := os.Truncate(first, 0); err != nil {
		t.Fatal(err)
	}
	if err := lease.Close(); err != nil { // releases the lease
		t.Fatal(err)
	}
	var code int
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("check still running a minute after the lease was released\n%s", out.String())
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	got := out.String()
	t.Logf("exit %d: %s", code, got)
	if code != 2 || !strings.Contains(got, filepath.Base(first)) || !strings.Contains(got, "truncated") {
		t.Errorf("got exit %d, want 2 with an error naming %s as truncated:\n%s", code, filepath.Base(first), clip(got))
	}
	for _, crash := range []string{"SIGBUS", "fatal error", "goroutine ", "panic"} {
		if strings.Contains(got, crash) {
			t.Errorf("the output says %q: check crashed:\n%s", crash, clip(got))
			break
		}
	}
}
