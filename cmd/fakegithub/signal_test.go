//go:build unix

package main

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestRunDumpsOnSIGTERM is not parallel: the signal reaches every run in
// the process.
func TestRunDumpsOnSIGTERM(t *testing.T) {
	dumpPath := filepath.Join(t.TempDir(), "dump.json")
	base, errc := start(t, "-dump", dumpPath)
	post(t, base+"/_fake/reset-calls")
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatalf("send SIGTERM: %v", err)
	}
	wait(t, errc)
	st := readDump(t, dumpPath)
	if st.Calls == nil || st.Calls.Total != 0 || len(st.Tokens) != 1 {
		t.Errorf("dump after SIGTERM: got calls %+v and %d tokens, want 0 calls and the default token", st.Calls, len(st.Tokens))
	}
}
