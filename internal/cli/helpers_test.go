package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/cli"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// call runs Main in-process with the clock now.
func call(now time.Time, env map[string]string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Main(args, cli.Env{
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return now },
	})
	return code, out.String(), errb.String()
}

// readLedger decodes a ledger file and fails on any fault in it.
func readLedger(t *testing.T, path string) []ledger.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.Decode(data, path)
	if len(l.Problems) > 0 {
		t.Fatalf("%s is not a valid ledger: %v", path, l.Problems)
	}
	return l.Records
}

// loadState reads a state file as every command reads it (nil: none yet);
// a state that is not complete fails the test.
func loadState(t *testing.T, path string) *localstate.File {
	t.Helper()
	st, err := localstate.Open(path, true)
	if err != nil {
		t.Fatalf("the state file is not a complete state: %v", err)
	}
	st.Close()
	return st.File
}

// isExit1 reports whether a command exited with 1 (OPEN).
func isExit1(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == 1
}
