//go:build unix

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRalphDropInCountsNoClaims runs the drop-in for ralph's breaker as
// ralph calls it, on an agent that changes nothing and only reports
// FILES_MODIFIED: 3 in its status block: the claim is never progress, so
// the breaker opens at the third loop; `loopbreaker status` in the project
// finds that breaker, with no flags.
func TestRalphDropInCountsNoClaims(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the drop-in needs it", tool)
		}
	}
	dir := commitLoop(t, []map[string]string{{"main.go": "package main\n", ".ralph/PROMPT.md": "Build it.\n"}})
	dropIn, err := filepath.Abs(filepath.Join("..", "..", "integrations", "ralph", "circuit_breaker.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := `set -u
source "$DROPIN"
init_circuit_breaker >/dev/null || { echo "init failed"; exit 1; }
mkdir -p .ralph/logs
for loop in 1 2 3 4 5 6 7 8; do
  printf -- '---RALPH_STATUS---\nSTATUS: IN_PROGRESS\nFILES_MODIFIED: 3\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n' > ".ralph/logs/claude_output_$loop.log"
  if ! record_loop_result "$loop" 3 false 100 >/dev/null; then echo "opened at $loop"; exit 0; fi
done
echo never`
	state := t.TempDir()
	env := append(os.Environ(), "DROPIN="+dropIn, "LOOPBREAKER_BIN="+binary, "LOOPBREAKER_STATE_DIR="+state, "LOOPBREAKER_PROFILE=", "GITHUB_ACTIONS=")
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "opened at 3" {
		t.Fatalf("the drop-in on an agent that only claims: %v\n%s", err, out)
	}
	status := exec.Command(binary, "status")
	status.Dir, status.Env = dir, env
	out, err = status.CombinedOutput()
	if !isExit1(err) || !strings.Contains(string(out), "OPEN") || !strings.Contains(string(out), "--loop ralph") {
		t.Fatalf("loopbreaker status in the project: %v\n%s", err, out)
	}
}
