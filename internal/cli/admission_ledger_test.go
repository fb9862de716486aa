package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLedgerKeepsEarlierAdmissions runs check three times through
// --ledger and --record, each run after a commit of code whose agent log
// admits that nothing was done. Only the newest run's log is read, so the
// earlier admissions reach the fold through the records: the third run
// folds three admitted iterations and opens, where reading the earlier
// iterations from git alone would call their code progress.
func TestLedgerKeepsEarlierAdmissions(t *testing.T) {
	t.Parallel()
	r := newScnRepo(t, "loop")
	r.buildBase(nil)
	files := t.TempDir()
	ledgerDir := filepath.Join(files, "ledger")
	if err := os.Mkdir(ledgerDir, 0o755); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(ledgerDir, "records.json")
	logPath := filepath.Join(files, "agent.log")
	admission := "reading the plan\nNo changes needed this iteration; nothing to do until the API lands.\n"
	if err := os.WriteFile(logPath, []byte(admission), 0o644); err != nil {
		t.Fatal(err)
	}
	var states, progress []string
	var d map[string]any
	for n := 1; n <= 3; n++ {
		r.apply(code(n), fmt.Sprintf("c%d", n))
		env := map[string]string{"GITHUB_RUN_ID": fmt.Sprint(n), "GITHUB_RUN_ATTEMPT": "1"}
		code, out, errs := run(t, env, "check", "--repo", r.dir, "--base", "main", "--ledger", ledgerDir, "--record", record,
			"--log", logPath, "--format", "json")
		if code != 0 && code != 1 {
			t.Fatalf("run %d: exit %d: %s", n, code, errs)
		}
		d = decode(t, out)
		states = append(states, d["state"].(string))
		progress = append(progress, fmt.Sprint(d["progress"]))
	}
	if got, want := strings.Join(states, " "), "CLOSED HALF_OPEN OPEN"; got != want {
		t.Errorf("states %s, want %s (progress %v)", got, want, progress)
	}
	if d["trigger"] != "no_progress" {
		t.Errorf("trigger %v, want no_progress", d["trigger"])
	}
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"admitted": true`); n != 3 {
		t.Errorf("the ledger holds %d admitted records, want 3:\n%s", n, data)
	}
}
