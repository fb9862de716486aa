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

	"github.com/loopbreaker/loopbreaker/internal/cli"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// crashRuns is how many record (and check) calls each crash test makes:
// 25, 200 with LOOPBREAKER_LONG_TESTS (as CI runs them), or
// LOOPBREAKER_CRASH_N (the reliability report quotes a run of 1000).
func crashRuns(t *testing.T) int {
	t.Helper()
	if v := os.Getenv("LOOPBREAKER_CRASH_N"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("LOOPBREAKER_CRASH_N=%q is not a positive count", v)
		}
		return n
	}
	if cli.LongTests() {
		return 200
	}
	return 25
}

// iterations loads the state file and returns its iteration count (0 for
// no file); any state that is not complete fails the test.
func iterations(t *testing.T, path string) int {
	t.Helper()
	sf := loadState(t, path)
	if sf == nil {
		return 0
	}
	return len(sf.Records)
}

func recordCmd(state string, i int) *exec.Cmd {
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
	cmd := exec.Command(binary, "record", "--state", state, "--files-changed", strconv.Itoa(i%3),
		"--error", fmt.Sprintf("main.go:%d: undefined: x%d", i, i%4), "--at", at.Format(time.RFC3339), "--format", "json")
	cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=")
	return cmd
}

// killWindow runs the calls cmd(0) to cmd(4) to their end and returns how
// long a kill may wait, so that kills land anywhere in a call: before the
// lock, while folding, while writing, after the rename.
func killWindow(t *testing.T, cmd func(i int) *exec.Cmd) time.Duration {
	t.Helper()
	var took []time.Duration
	for i := 0; i < 5; i++ {
		began := time.Now()
		if out, err := cmd(i).CombinedOutput(); err != nil && !isExit1(err) {
			t.Fatalf("%v: %v\n%s", cmd(i).Args, err, out)
		}
		took = append(took, time.Since(began))
	}
	slices.Sort(took)
	return took[len(took)/2] * 3 / 2
}

// runKilled runs cmd and, three calls in four (by i), kills it with
// SIGKILL at a random point between from and span. It reports whether
// the kill ended the call; an exit other than 0 or 1 fails the test.
func runKilled(t *testing.T, cmd *exec.Cmd, i int, from, span time.Duration, rng *rand.Rand) bool {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var timer *time.Timer
	if i%4 != 0 {
		timer = time.AfterFunc(from+time.Duration(rng.Int64N(int64(span-from))), func() { cmd.Process.Signal(syscall.SIGKILL) })
	}
	err := cmd.Wait()
	if timer != nil {
		timer.Stop()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() && st.Signal() == syscall.SIGKILL {
			return true
		}
		if ee.ExitCode() != 1 {
			t.Fatalf("call %d: exit %d: %s", i, ee.ExitCode(), ee.Stderr)
		}
	} else if err != nil {
		t.Fatalf("call %d: %v", i, err)
	}
	return false
}

// noTemporaryFiles fails the test if killed writers left temporary files
// in dir that a finished call did not remove.
func noTemporaryFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
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
	span := killWindow(t, func(i int) *exec.Cmd { return recordCmd(state, i) })

	var finished, killedOld, killedNew int
	for i := 5; i < n; i++ {
		before := iterations(t, state)
		killed := runKilled(t, recordCmd(state, i), i, 0, span, rng)
		after := iterations(t, state)
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
	noTemporaryFiles(t, dir)
}

// checkCmd is one check of run id on the loop in repo, adding its record
// to the ledger file in led.
func checkCmd(repo, led string, run int) *exec.Cmd {
	cmd := exec.Command(binary, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led,
		"--record", filepath.Join(led, "records.json"), "--format", "json")
	cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", fmt.Sprintf("GITHUB_RUN_ID=%d", run), "GITHUB_RUN_ATTEMPT=1")
	return cmd
}

// ledgerRuns decodes the ledger file (none yet: no runs) and returns the
// run ids it holds; a file that is not a complete, valid ledger fails the
// test.
func ledgerRuns(t *testing.T, path string) map[int64]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[int64]bool{}
	}
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.Decode(data, path)
	if len(l.Problems) > 0 {
		t.Fatalf("the ledger file is not a valid ledger: %v", l.Problems)
	}
	runs := map[int64]bool{}
	for _, r := range l.Records {
		runs[r.RunID] = true
	}
	return runs
}

// TestKilledCheckKeepsTheLedger kills check --record calls with SIGKILL at
// random points, as TestKilledRecordLeavesOldOrNewState does record: after
// each one the ledger file is a complete, valid ledger; the record of
// every call that finished (its record reported written) is in it, and no
// record that was in it is ever lost.
func TestKilledCheckKeepsTheLedger(t *testing.T) {
	t.Parallel()
	n := crashRuns(t)
	repo := commitLoop(t, []map[string]string{{"main.go": "package main\n"}, {"main.go": "package main\n\nfunc main() {}\n"}})
	led := filepath.Join(t.TempDir(), "ledger")
	records := filepath.Join(led, "records.json")
	rng := rand.New(rand.NewPCG(11, 3))
	// Call i is run i+1.
	span := killWindow(t, func(i int) *exec.Cmd { return checkCmd(repo, led, i+1) })
	written := map[int64]bool{1: true, 2: true, 3: true, 4: true, 5: true}

	before := ledgerRuns(t, records)
	var finished, killedOld, killedNew int
	// Until n calls were killed (at most 8n calls), each at a random point
	// within a call's usual time (span is one and a half of it), so that
	// the kills fall in its reading, folding and writing alike; one call
	// in four runs to its end.
	i := 5
	for ; killedOld+killedNew < n && i < 8*n; i++ {
		run := int64(i + 1)
		killed := runKilled(t, checkCmd(repo, led, i+1), i, 0, span*2/3, rng)
		after := ledgerRuns(t, records)
		if !killed {
			written[run] = true
		}
		for id := range written {
			if !after[id] {
				t.Fatalf("call %d: the record of run %d, reported written, is not in the ledger", i, id)
			}
		}
		for id := range before {
			if !after[id] {
				t.Fatalf("call %d: the record of run %d was lost", i, id)
			}
		}
		switch {
		case !killed:
			finished++
		case after[run]:
			killedNew++
		default:
			killedOld++
		}
		before = after
	}
	t.Logf("%d checks: %d finished, %d killed before their record was written, %d after; kill window %s",
		i, finished+5, killedOld, killedNew, span*2/3)
	if killedOld+killedNew < n || killedOld == 0 {
		t.Errorf("%d checks killed, %d of them before they wrote: want %d kills, some before the write", killedOld+killedNew, killedOld, n)
	}
	if out, err := checkCmd(repo, led, i+1).CombinedOutput(); err != nil && !isExit1(err) {
		t.Fatalf("check: %v\n%s", err, out)
	}
	noTemporaryFiles(t, led)
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
