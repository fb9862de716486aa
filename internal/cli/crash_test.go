//go:build unix

package cli_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/statefile"
)

// crashRuns is how many record calls the crash test makes: 200 by
// default, LOOPBREAKER_CRASH_N to change it (the reliability report
// quotes a run of 1000).
func crashRuns(t *testing.T) int {
	t.Helper()
	if v := os.Getenv("LOOPBREAKER_CRASH_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LOOPBREAKER_CRASH_N=%q is not a positive count", v)
		}
		return n
	}
	return 200
}

// iterations loads the state file and returns its iteration count (0 for
// no file); any state that is not complete fails the test.
func iterations(t *testing.T, path string) int {
	t.Helper()
	sf, err := statefile.Load(path)
	if err != nil {
		t.Fatalf("the state file is not a complete state: %v", err)
	}
	if sf == nil {
		return 0
	}
	return sf.Breaker.Iteration
}

func recordCmd(state string, i int) *exec.Cmd {
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	cmd := exec.Command(binary, "record", "--state", state, "--files-changed", strconv.Itoa(i%3),
		"--error", fmt.Sprintf("main.go:%d: undefined: x%d", i, i%4), "--at", at.Format(time.RFC3339), "--format", "json")
	cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=")
	return cmd
}

// TestKilledRecordLeavesOldOrNewState kills record calls with SIGKILL at
// random points of their run: after each one the state file must decode
// as a complete state, the old one (iteration unchanged) or the new one
// (iteration plus one), never a mix, and a call that finished must have
// advanced it.
func TestKilledRecordLeavesOldOrNewState(t *testing.T) {
	t.Parallel()
	n := crashRuns(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	rng := rand.New(rand.NewPCG(7, 1))

	// How long one call takes, so that kills land anywhere in it: before
	// the lock, while folding, while writing, after the rename.
	var took []time.Duration
	for i := 0; i < 5; i++ {
		began := time.Now()
		if out, err := recordCmd(state, i).CombinedOutput(); err != nil && !isExit1(err) {
			t.Fatalf("record: %v\n%s", err, out)
		}
		took = append(took, time.Since(began))
	}
	slices.Sort(took)
	span := took[len(took)/2] * 3 / 2

	var finished, killedOld, killedNew int
	for i := 5; i < n; i++ {
		before := iterations(t, state)
		cmd := recordCmd(state, i)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := i%4 != 0 // three calls in four are killed
		var timer *time.Timer
		if kill {
			timer = time.AfterFunc(time.Duration(rng.Int64N(int64(span))), func() { cmd.Process.Signal(syscall.SIGKILL) })
		}
		err := cmd.Wait()
		if timer != nil {
			timer.Stop()
		}
		after := iterations(t, state)
		killed := false
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() && st.Signal() == syscall.SIGKILL {
				killed = true
			} else if ee.ExitCode() != 1 {
				t.Fatalf("call %d: exit %d: %s", i, ee.ExitCode(), ee.Stderr)
			}
		} else if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		switch {
		case !killed && after != before+1:
			t.Fatalf("call %d finished: iteration %d -> %d, want +1", i, before, after)
		case killed && after != before && after != before+1:
			t.Fatalf("call %d killed: iteration %d -> %d, want unchanged or +1", i, before, after)
		case !killed:
			finished++
		case after == before:
			killedOld++
		default:
			killedNew++
		}
	}
	t.Logf("%d calls: %d finished, %d killed before the rename (old state), %d killed after it (new state); kill window %s",
		n, finished+5, killedOld, killedNew, span)
	// Kills after the rename land in a window of a millisecond or two, so
	// a short run may see none; kills before it must happen.
	if killedOld == 0 {
		t.Errorf("no call was killed before it wrote: the test did not exercise the kill")
	}
	// A finished call removes the temporary files that killed ones left.
	if out, err := recordCmd(state, n).CombinedOutput(); err != nil && !isExit1(err) {
		t.Fatalf("record: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left beside the state file", e.Name())
		}
	}
}

func isExit1(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == 1
}

// TestConcurrentRecordsAreSerialised starts record calls on one state file
// from several goroutines at once: the file lock serialises them, so the
// final iteration count is the number of calls that succeeded and the
// file is a complete state.
func TestConcurrentRecordsAreSerialised(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	const workers, each = 8, 5
	var mu sync.Mutex
	ok, refused := 0, 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				// No --at: each call takes the time when it holds the lock.
				cmd := exec.Command(binary, "record", "--state", state, "--files-changed", "1")
				cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=")
				out, err := cmd.CombinedOutput()
				mu.Lock()
				switch {
				case err == nil || isExit1(err):
					ok++
				default:
					refused++
					t.Errorf("concurrent record refused: %v: %s", err, out)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if got := iterations(t, state); got != ok {
		t.Errorf("got iteration %d after %d successful calls (%d refused), want equal", got, ok, refused)
	}
}
