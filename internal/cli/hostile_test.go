//go:build unix

package cli_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/loopbreaker/loopbreaker/internal/cli"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// hostileNow is the clock of the in-process calls below: the --at times
// they give are before it.
var hostileNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// minute is the RFC 3339 time i minutes after 2026-06-01T10:00:00Z.
func minute(i int) string {
	return time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
}

// decided reports whether out is a text decision.
func decided(out string) bool {
	return strings.HasPrefix(out, "loopbreaker: ") && strings.Contains(out, "iteration:")
}

// twoCommits is a loop of two commits, the first the base.
func twoCommits(t *testing.T) string {
	t.Helper()
	return commitLoop(t, []map[string]string{{"main.go": "package main\n"}, {"main.go": "package main\n\nfunc main() {}\n"}})
}

// holdFIFO makes a named pipe and keeps a writer on it until the test
// ends: a reader of it blocks for good unless it refuses the pipe.
func holdFIFO(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_RDWR, 0) // O_RDWR: does not wait for a reader
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return path
}

// TestParallelCallsKeepEveryRecord: record and check calls in parallel on
// one ledger file each add their record (before: 30 calls left 4 to 8).
func TestParallelCallsKeepEveryRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := twoCommits(t)
	led := filepath.Join(dir, "ledger")
	if err := os.Mkdir(led, 0o755); err != nil {
		t.Fatal(err)
	}
	records := filepath.Join(led, "records.json")
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := []string{"check", "--repo", repo, "--base", "HEAD~1", "--ledger", led, "--record", records}
			if i%2 == 0 {
				// Each on its own state file: only the ledger file is shared.
				args = []string{"record", "--state", filepath.Join(dir, fmt.Sprintf("s%d.json", i)), "--record", records, "--files-changed", "1"}
			}
			cmd := exec.Command(binary, args...)
			cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=")
			if out, err := cmd.CombinedOutput(); err != nil && !isExit1(err) {
				errs <- fmt.Sprintf("%s: %v: %s", args[0], err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := len(readLedger(t, records)); got != n {
		t.Errorf("got %d records after %d parallel calls, want %d", got, n, n)
	}
}

// TestStateFileThroughASymlink: a state file given through a symbolic
// link is written where the link points; the link stays.
func TestStateFileThroughASymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{"shared", "work"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	target := filepath.Join(dir, "shared", "state.json")
	link := filepath.Join(dir, "work", "state.json")
	if err := os.Symlink("../shared/state.json", link); err != nil { // dangling until the first write
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if code, _, errs := call(hostileNow, nil, "record", "--state", link, "--files-changed", "1", "--at", minute(i)); code != 0 {
			t.Fatalf("record %d: exit %d: %s", i, code, errs)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if sf := loadState(t, target); sf == nil || len(sf.Records) != 3 {
		t.Fatalf("the linked file: got %+v; want 3 records", sf)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "work"))
	if len(entries) != 1 {
		t.Errorf("got %d files beside the link, want the link alone (the lock lives beside the file)", len(entries))
	}
}

// TestLongResetReasonKeepsTheStateReadable: a reason of 20 MiB is cut on
// the way in with a marker; a state file an earlier version wrote with a
// long reason still loads.
func TestLongResetReasonKeepsTheStateReadable(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	call(hostileNow, nil, "record", "--state", state, "--at", minute(0))
	long := strings.Repeat("é", 10<<20) // 20 MiB
	if code, _, errs := call(hostileNow, nil, "reset", "--state", state, "--reason", long, "--at", minute(1)); code != 0 {
		t.Fatalf("reset: exit %d: %s", code, errs)
	}
	code, out, errs := call(hostileNow, nil, "status", "--state", state, "--format", "json", "--at", minute(2))
	if code != 0 {
		t.Fatalf("status after a long reason: exit %d: %s", code, errs)
	}
	var d struct {
		History []struct{ Reason string } `json:"history"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.History) == 0 {
		t.Fatalf("status: %v\n%s", err, out)
	}
	r := d.History[len(d.History)-1].Reason
	if len(r) > cli.MaxReason || !strings.Contains(r, fmt.Sprintf("[cut: %d bytes in all]", len(long))) || !strings.HasPrefix(r, "ééé") {
		t.Errorf("got a reason of %d bytes ending %q, want at most %d with the cut marked", len(r), r[max(0, len(r)-40):], cli.MaxReason)
	}
	// An earlier version kept reasons whole: such a file still loads.
	data, _ := os.ReadFile(state)
	old := bytes.Replace(data, []byte(r), []byte(strings.Repeat("x", 200<<10)), 1)
	os.WriteFile(state, old, 0o600)
	if code, _, errs := call(hostileNow, nil, "record", "--state", state, "--at", minute(3)); code == 2 {
		t.Errorf("record on a state file with a 200 KiB reason: exit 2: %s", errs)
	}
}

// TestFutureTimesAreRefusedAndResetAlwaysWorks: --at in the future is
// refused on the way in; a state file that already holds a future event
// (written before that) can still be reset, and then recorded into.
func TestFutureTimesAreRefusedAndResetAlwaysWorks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "s.json")
	for _, cmd := range []string{"record", "status", "reset"} {
		code, _, errs := call(hostileNow, nil, cmd, "--state", state, "--at", "9999-12-31T00:00:00Z")
		if code != 2 || !strings.Contains(errs, "--at 9999-12-31T00:00:00Z is in the future") {
			t.Errorf("%s --at 9999-12-31: got exit %d %q, want 2 and the future refused", cmd, code, errs)
		}
	}
	// Within the allowed skew of another machine's clock: accepted.
	if code, _, errs := call(hostileNow, nil, "record", "--state", state, "--at", hostileNow.Add(4*time.Minute).Format(time.RFC3339)); code == 2 {
		t.Errorf("--at 4 minutes ahead: exit 2: %s", errs)
	}
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("no state file after an accepted record: %v", err)
	}
	// A state file whose last event is in the year 9999 (a clock that far
	// ahead wrote it): a person's reset still closes it.
	future := filepath.Join(dir, "future.json")
	far := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		call(far.Add(time.Duration(i)*time.Minute), nil, "record", "--state", future)
	}
	code, out, errs := call(hostileNow, nil, "reset", "--state", future, "--reason", "clock fixed")
	if code != 0 || !strings.Contains(out, "CLOSED") {
		t.Fatalf("reset after a future event: got exit %d %q %q, want 0 and CLOSED", code, out, errs)
	}
	code, _, errs = call(hostileNow, nil, "reset", "--state", future, "--reason", "again", "--at", minute(0))
	if code != 0 {
		t.Errorf("reset --at before the newest event: got exit %d %q, want 0", code, errs)
	}
	if code, out, errs := call(hostileNow, nil, "record", "--state", future, "--files-changed", "1"); code != 0 || !strings.Contains(out, "is behind the newest event") {
		t.Errorf("record after the reset: got exit %d %q %q, want 0 and a note on the clock", code, out, errs)
	}
}

// TestAtBefore1970 names the fault instead of "iteration has no time".
func TestAtBefore1970(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	for _, at := range []string{"0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"} {
		code, _, errs := call(hostileNow, nil, "record", "--state", state, "--at", at)
		if code != 2 || !strings.Contains(errs, "before 1970") || !strings.Contains(errs, at) {
			t.Errorf("--at %s: got exit %d %q, want 2 naming the time and 1970", at, code, errs)
		}
	}
}

// manyRecords is a ledger of n records a minute apart.
func manyRecords(n int) []ledger.Record {
	recs := make([]ledger.Record, n)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range recs {
		recs[i] = ledger.Record{Version: 1, At: start.Add(time.Duration(i) * time.Minute), Errors: []ledger.Error{}}
	}
	return recs
}

// TestLedgerOverMaxRecordsSaysSo: appending to a full ledger file, or
// reading a ledger of more records than are kept, drops the oldest and
// says so, naming the file.
func TestLedgerOverMaxRecordsSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	led := filepath.Join(dir, "ledger")
	os.Mkdir(led, 0o755)
	records := filepath.Join(led, "records.json")
	var buf bytes.Buffer
	if err := ledger.Encode(&buf, manyRecords(ledger.MaxRecords)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(records, buf.Bytes(), 0o644)
	code, out, errs := call(hostileNow, nil, "record", "--state", filepath.Join(dir, "s.json"), "--record", records, "--files-changed", "1", "--at", minute(0))
	if code != 0 || !strings.Contains(out, records) || !strings.Contains(out, "the 1 oldest were dropped") {
		t.Errorf("record into a full ledger file: got exit %d, want 0 and a note naming the file and the record dropped:\n%s%s", code, out, errs)
	}
	recs := readLedger(t, records)
	if len(recs) != ledger.MaxRecords || recs[len(recs)-1].At.Format(time.RFC3339) != minute(0) {
		t.Errorf("got %d records, newest at %s; want %d, the newest this call's", len(recs), recs[len(recs)-1].At, ledger.MaxRecords)
	}
	if !cli.LongTests() {
		return // folding 10,000 iterations takes minutes under -race: LOOPBREAKER_LONG_TESTS=1 runs it
	}
	// A second file puts the directory over the bound.
	buf.Reset()
	ledger.Encode(&buf, manyRecords(3)[1:])
	os.WriteFile(filepath.Join(led, "more.json"), bytes.ReplaceAll(buf.Bytes(), []byte("2026-01-01"), []byte("2025-01-01")), 0o644)
	repo := twoCommits(t)
	code, out, errs = call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led)
	if code == 2 || !strings.Contains(out, fmt.Sprintf("more than %d records: the 2 oldest were not read", ledger.MaxRecords)) {
		t.Errorf("check with %d records: got exit %d, want a note that the 2 oldest were not read:\n%s%s", ledger.MaxRecords+2, code, out, errs)
	}
}

// TestFilesKeepTheirMode: a new state file is 0600; a state or record file
// keeps the mode (and, as root, the owner) it had.
func TestFilesKeepTheirMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state, records := filepath.Join(dir, "s.json"), filepath.Join(dir, "records.json")
	call(hostileNow, nil, "record", "--state", state, "--record", records, "--at", minute(0))
	mode := func(p string) fs.FileMode {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	if m := mode(state); m != 0o600 {
		t.Errorf("new state file: got mode %v, want 0600", m)
	}
	os.Chmod(state, 0o640)
	os.Chmod(records, 0o600)
	root := os.Geteuid() == 0
	if root {
		os.Chown(state, 4321, 4321)
	}
	call(hostileNow, nil, "record", "--state", state, "--record", records, "--at", minute(1))
	if m := mode(state); m != 0o640 {
		t.Errorf("state file after a write: got mode %v, want 0640 kept", m)
	}
	if m := mode(records); m != 0o600 {
		t.Errorf("record file after a write: got mode %v, want 0600 kept", m)
	}
	if st, _ := os.Stat(state); root && st.Sys().(*syscall.Stat_t).Uid != 4321 {
		t.Errorf("state file after a write: got owner %d, want 4321 kept", st.Sys().(*syscall.Stat_t).Uid)
	}
}

// TestRecordFileReadIsBounded: --record naming a device or a huge file is
// refused without reading it all.
func TestRecordFileReadIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.json")
	sparse(t, huge, "[", ledger.MaxFileBytes+1)
	for _, rec := range []string{"/dev/zero", huge} {
		began := time.Now()
		code, out, rss, err := runBounded(nil, "record", "--state", filepath.Join(dir, "s.json"), "--record", rec, "--at", minute(0))
		if err != nil {
			t.Fatal(err)
		}
		if code != 2 || !strings.Contains(out, rec) || !(strings.Contains(out, "not a regular file") || strings.Contains(out, "larger than")) {
			t.Errorf("--record %s: got exit %d %q, want 2 naming the file and the fault", rec, code, out)
		}
		if rss > maxRSS { // an upper bound: see maxRSS
			t.Errorf("--record %s: peak memory %d MiB", rec, rss>>20)
		}
		t.Logf("--record %s: %s", rec, time.Since(began).Round(time.Millisecond))
	}
}

// TestFIFOsAreRefused: a named pipe given as a file to read (with a writer
// holding it open, so that a read would block for good) is refused at
// once, naming it; the state file's lock is not held waiting.
func TestFIFOsAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "s.json")
	for _, c := range []struct{ flag, name string }{
		{"--record", "records.json"}, {"--log", "agent.log"}, {"--reports", "report.xml"}, {"--policy", "policy.toml"},
	} {
		p := holdFIFO(t, filepath.Join(dir, c.name))
		code, out, _, err := runBounded(nil, "record", "--state", state, c.flag, p, "--at", minute(0))
		if err != nil {
			t.Fatal(err)
		}
		// A report glob keeps regular files only: the pipe matches none.
		if code != 2 || !strings.Contains(out, p) || !(strings.Contains(out, "not a regular file") || strings.Contains(out, "matches no file")) {
			t.Errorf("%s FIFO: got exit %d %q, want 2 naming the pipe", c.flag, code, out)
		}
	}
	unheld := filepath.Join(dir, "unheld.json")
	if err := syscall.Mkfifo(unheld, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _, err := runBounded(nil, "record", "--state", state, "--record", unheld, "--at", minute(0)); err != nil || code != 2 {
		t.Errorf("--record FIFO without a writer: got exit %d %q, want 2", code, out)
	}
}

// TestBaseMustNameACommit: revisions that go-git would silently read as
// another one are refused.
func TestBaseMustNameACommit(t *testing.T) {
	t.Parallel()
	repo := twoCommits(t)
	for _, base := range []string{"HEAD:main.go", "HEAD~1:", "HEAD^{tree}", "HEAD^{/iteration}", "HEAD~1..HEAD", "-HEAD", "HEAD~1 "} {
		code, _, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", base)
		if code != 2 || !strings.Contains(errs, "--base") {
			t.Errorf("--base %q: got exit %d %q, want 2", base, code, errs)
		}
	}
	for _, base := range []string{"HEAD~1", "HEAD^", "HEAD~1^{commit}", "HEAD~1^{}"} {
		if code, _, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", base); code == 2 {
			t.Errorf("--base %q: got exit 2 %q", base, errs)
		}
	}
}

// TestCheckRecordIntoAMissingDirectory: the directory is made (0700); when
// the file still cannot be written the decision comes first, then the
// error naming the file (not a temporary file).
func TestCheckRecordIntoAMissingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	repo := twoCommits(t)
	records := filepath.Join(dir, "new", "sub", "records.json")
	code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--record", records)
	if code != 0 || !decided(out) {
		t.Fatalf("check --record into a missing directory: got exit %d %q %q, want 0 and the decision", code, out, errs)
	}
	if st, err := os.Stat(filepath.Dir(records)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("record directory: got %v %v, want made with mode 0700", st.Mode(), err)
	}
	if len(readLedger(t, records)) == 0 {
		t.Errorf("no record written")
	}
	blocker := filepath.Join(dir, "blocker")
	os.WriteFile(blocker, nil, 0o644)
	for _, bad := range []string{filepath.Join(blocker, "records.json"), filepath.Join(dir, "new")} {
		code, out, errs = call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--record", bad)
		if code != 2 || !decided(out) || !strings.Contains(errs, bad) || strings.Contains(errs, ".tmp-") {
			t.Errorf("check --record %s: got exit %d %q %q, want the decision, then exit 2 naming the file", bad, code, out, errs)
		}
	}
}

// TestMissingLedgerDirectory: a --ledger directory that does not exist
// holds no records: the iterations are the commits, and a note says so.
func TestMissingLedgerDirectory(t *testing.T) {
	t.Parallel()
	repo := commitLoop(t, []map[string]string{{"main.go": "package main\n"}, {"a.go": "package main\n"}, {"b.go": "package main\n"}})
	led := filepath.Join(t.TempDir(), "ledger")
	code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~2", "--ledger", led)
	if code != 0 || !strings.Contains(out, "iteration:  2 ") || !strings.Contains(out, "ledger "+led+" does not exist") {
		t.Errorf("got exit %d %q %q, want the two commits as iterations and a note", code, out, errs)
	}
	if _, err := os.Stat(led); err == nil {
		t.Errorf("the ledger directory was made without --record")
	}
}

// TestStatusCreatesNothing: status of a missing state file is a fresh
// breaker and leaves no file (lock or directory) behind.
func TestStatusCreatesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, state := range []string{filepath.Join(dir, "s.json"), filepath.Join(dir, "missing", "s.json")} {
		if code, out, errs := call(hostileNow, nil, "status", "--state", state); code != 0 || !strings.Contains(out, "CLOSED") {
			t.Errorf("status %s: got exit %d %q %q, want 0 CLOSED", state, code, out, errs)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("status left %d files behind, want none", len(entries))
	}
}

// TestBadZipEntryIsReportedOnce: an archive entry whose bytes fail their
// checksum is one problem, not two.
func TestBadZipEntryIsReportedOnce(t *testing.T) {
	t.Parallel()
	led := filepath.Join(t.TempDir(), "ledger")
	os.Mkdir(led, 0o755)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "records.json", Method: zip.Store})
	w.Write([]byte(`[` + strings.Replace(validRecord, `"phase":""`, `"phase":"GREEN"`, 1) + `]`))
	zw.Close()
	data := bytes.Replace(buf.Bytes(), []byte("GREEN"), []byte("GRAY!"), 1) // valid JSON, bad checksum
	os.WriteFile(filepath.Join(led, "artifact.zip"), data, 0o644)
	repo := twoCommits(t)
	code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led)
	if code == 2 || strings.Count(out, "artifact.zip:records.json") != 1 || !strings.Contains(out, "checksum") {
		t.Errorf("got exit %d, want the damaged entry noted once:\n%s%s", code, out, errs)
	}
}

// TestPolicyFileIsNamedInDecisions: a policy file shows as itself, not as
// the built-in policy it extends.
func TestPolicyFileIsNamedInDecisions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pol := filepath.Join(dir, "loop.toml")
	os.WriteFile(pol, []byte("extends = \"default\"\n[rules.no_progress]\nno_progress_threshold = 4\n"), 0o644)
	named := filepath.Join(dir, "named.toml")
	os.WriteFile(named, []byte("extends = \"default\"\nname = \"team\"\n"), 0o644)
	repo := twoCommits(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--state", filepath.Join(dir, "s.json"), "--policy", pol, "--at", minute(0)}, pol},
		{[]string{"check", "--repo", repo, "--base", "HEAD~1", "--policy", pol}, pol},
		{[]string{"check", "--repo", repo, "--base", "HEAD~1", "--policy", named}, "team"},
		{[]string{"check", "--repo", repo, "--base", "HEAD~1", "--policy", "ralph"}, "ralph"},
	} {
		_, out, errs := call(hostileNow, nil, append(c.args, "--format", "json")...)
		var d struct{ Policy string }
		if err := json.Unmarshal([]byte(out), &d); err != nil || d.Policy != c.want {
			t.Errorf("%v: got policy %q (%v %s), want %q", c.args, d.Policy, err, errs, c.want)
		}
	}
}

// policyRepo is a repository whose loop.toml holds committed, and two
// later commits of code.
func policyRepo(t *testing.T, committed string) string {
	t.Helper()
	return commitLoop(t, []map[string]string{{"loop.toml": committed, "main.go": "package main\n"}, {"main.go": "package main\n\nfunc main() {}\n"}, {"a.go": "package main\n"}})
}

// TestUncommittedPolicyEditIsNoticed: a policy file tracked in the
// repository and changed in the work tree is noted; when it is strict (at
// HEAD or in the work tree) HEAD's version is used. A symbolic link out of
// the repository put in its place is such a change.
func TestUncommittedPolicyEditIsNoticed(t *testing.T) {
	t.Parallel()
	loose := "extends = \"ralph\"\nname = \"loose\"\n"
	for _, c := range []struct {
		name, committed, want string
		link                  bool
	}{
		{"strict at HEAD", "extends = \"strict\"\nname = \"team\"\n", "team", false},
		{"default at HEAD", "extends = \"default\"\nname = \"team\"\n", "loose", false},
		{"link out of the repository", "extends = \"strict\"\nname = \"team\"\n", "team", true},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			repo := policyRepo(t, c.committed)
			pol := filepath.Join(repo, "loop.toml")
			if c.link {
				outside := filepath.Join(t.TempDir(), "loose.toml")
				os.WriteFile(outside, []byte(loose), 0o644)
				os.Remove(pol)
				os.Symlink(outside, pol)
			} else {
				os.WriteFile(pol, []byte(loose), 0o644)
			}
			code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~2", "--policy", pol, "--format", "json")
			var d struct{ Policy string }
			if err := json.Unmarshal([]byte(out), &d); err != nil || d.Policy != c.want {
				t.Errorf("got exit %d, policy %q (%v %s), want %q", code, d.Policy, err, errs, c.want)
			}
			_, text, _ := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~2", "--policy", pol)
			if !strings.Contains(text, "differs from its version at HEAD") {
				t.Errorf("no note on the uncommitted change:\n%s", text)
			}
		})
	}
	// Unchanged, or not tracked: no note.
	repo := policyRepo(t, loose)
	untracked := filepath.Join(repo, "other.toml")
	os.WriteFile(untracked, []byte(loose), 0o644)
	for _, pol := range []string{filepath.Join(repo, "loop.toml"), untracked} {
		if _, text, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~2", "--policy", pol); strings.Contains(text, "differs") || !decided(text) {
			t.Errorf("--policy %s: got %q %q, want a decision without a note", pol, text, errs)
		}
	}
}

// TestLargeLogReadsItsTail: a log larger than agentlog.TailBytes is
// analysed in its tail only (the error on its first line is not seen) and
// counted whole, and the decision says so.
func TestLargeLogReadsItsTail(t *testing.T) {
	t.Parallel()
	if !cli.LongTests() {
		t.Skip("a 40 MiB log takes minutes under -race: LOOPBREAKER_LONG_TESTS=1 runs it, as .ci/run does")
	}
	dir := t.TempDir()
	line := strings.Repeat("working on the parser, step by step ", 3) + "\n"
	n := (40<<20)/len(line) + 1
	log := write(t, filepath.Join(dir, "agent.log"), "Error: an early failure the loop got past\n"+strings.Repeat(line, n)+"Error: the failure it stopped on\n")
	lines := n + 1
	code, out, errs := call(hostileNow, nil, "record", "--state", filepath.Join(dir, "s.json"), "--log", log, "--at", minute(0), "--format", "json")
	var d struct {
		ErrorCounts map[string]int `json:"error_counts"`
		OutputTrend []int          `json:"output_trend"`
		Notes       []struct{ Text string }
	}
	if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil {
		t.Fatalf("record --log: exit %d %v %s", code, err, errs)
	}
	if len(d.ErrorCounts) != 1 || d.ErrorCounts["Error: the failure it stopped on"] != 1 {
		t.Errorf("got errors %v, want only the one in the tail", d.ErrorCounts)
	}
	if len(d.OutputTrend) != 1 || d.OutputTrend[0] != lines+1 {
		t.Errorf("got output %v, want %d lines counted over the whole file", d.OutputTrend, lines+1)
	}
	if !strings.Contains(out, "were analysed") {
		t.Errorf("no note that only the tail was analysed:\n%s", out)
	}
}

// TestLedgerOfLinksToDevices: a ledger directory full of symbolic links to
// /dev/zero is skipped entry by entry and the decision made from git.
func TestLedgerOfLinksToDevices(t *testing.T) {
	t.Parallel()
	led := filepath.Join(t.TempDir(), "ledger")
	os.Mkdir(led, 0o755)
	for i := 0; i < 200; i++ {
		os.Symlink("/dev/zero", filepath.Join(led, fmt.Sprintf("r%03d.json", i)))
	}
	os.Symlink("/dev/zero", filepath.Join(led, "artifact.zip"))
	repo := twoCommits(t)
	code, out, rss, err := runBounded(nil, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led)
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || !strings.Contains(out, "r000.json: not a regular file") || !strings.Contains(out, "more problems") {
		t.Errorf("got exit %d, want the decision with the links skipped:\n%s", code, clip(out))
	}
	if rss > maxRSS {
		t.Errorf("peak memory %d MiB", rss>>20)
	}
}

// TestRecordFileReplacedByADirectory: record refuses it; check decides,
// then fails naming it. The directory is left alone.
func TestRecordFileReplacedByADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	records := filepath.Join(dir, "records.json")
	os.MkdirAll(filepath.Join(records, "keep"), 0o755)
	code, _, errs := call(hostileNow, nil, "record", "--state", filepath.Join(dir, "s.json"), "--record", records, "--at", minute(0))
	if code != 2 || !strings.Contains(errs, records) || !strings.Contains(errs, "not a regular file") {
		t.Errorf("record: got exit %d %q, want 2 naming the directory", code, errs)
	}
	repo := twoCommits(t)
	code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--record", records)
	if code != 2 || !decided(out) || !strings.Contains(errs, "not a regular file") {
		t.Errorf("check: got exit %d %q %q, want the decision, then 2", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(records, "keep")); err != nil {
		t.Errorf("the directory was changed: %v", err)
	}
}

// TestDiskFullLeavesTheOldFiles: with the file size limit reached
// mid-write (what a full disk does to a write), the call fails naming the
// file, and the old state and ledger files stay whole, with no temporary
// file left.
func TestDiskFullLeavesTheOldFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state, records := filepath.Join(dir, "s.json"), filepath.Join(dir, "records.json")
	for i := 0; i < 12; i++ {
		call(hostileNow, nil, "record", "--state", state, "--record", records, "--error", fmt.Sprintf("main.go:%d: undefined: x%d", i, i), "--at", minute(i))
	}
	oldState, _ := os.ReadFile(state)
	oldRecords, _ := os.ReadFile(records)
	// The state file is written alone, then with the record file, which
	// is written first. A limit of one block (512 or 1024 bytes, by shell)
	// is below either file's size.
	for _, c := range []struct {
		file string
		args []string
	}{{state, nil}, {records, []string{"--record", records}}} {
		args := append([]string{"-c", `ulimit -f 1 && exec "$@"`, "sh", binary, "record", "--state", state, "--error", "disk full", "--at", minute(20)}, c.args...)
		cmd := exec.Command("sh", args...)
		cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "write "+c.file+": file too large") {
			t.Errorf("writing %s over the limit: got %v %q, want exit 2 naming it", c.file, err, out)
		}
	}
	if got, _ := os.ReadFile(state); !bytes.Equal(got, oldState) {
		t.Errorf("the state file changed")
	}
	if got, _ := os.ReadFile(records); !bytes.Equal(got, oldRecords) {
		t.Errorf("the record file changed")
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestLockFileThatIsNotALockFile: a directory or a symbolic link where the
// lock file belongs is refused, naming it; nothing is made where a link
// points (before, the lock was created there: a way to make this program
// create a file anywhere it may write).
func TestLockFileThatIsNotALockFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	asDir := filepath.Join(dir, "a.json")
	os.Mkdir(asDir+".lock", 0o755)
	asLink := filepath.Join(dir, "b.json")
	os.Mkdir(filepath.Join(dir, "elsewhere"), 0o755)
	elsewhere := filepath.Join(dir, "elsewhere", "planted")
	os.Symlink(elsewhere, asLink+".lock")
	for _, state := range []string{asDir, asLink} {
		code, _, errs := call(hostileNow, nil, "record", "--state", state, "--at", minute(0))
		if code != 2 || !strings.Contains(errs, state+".lock") {
			t.Errorf("%s: got exit %d %q, want 2 naming the lock file", state, code, errs)
		}
	}
	if _, err := os.Lstat(elsewhere); err == nil {
		t.Errorf("a file was made where the planted link points")
	}
}

// TestClockGoingBackwards: a call without --at on a machine whose clock
// stepped back behind the newest event is taken at that event, with a
// note, instead of refusing every call until the clock catches up.
func TestClockGoingBackwards(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	call(hostileNow.Add(time.Hour), nil, "record", "--state", state, "--files-changed", "1")
	for _, cmd := range [][]string{{"record", "--files-changed", "1"}, {"status"}} {
		code, out, errs := call(hostileNow, nil, append(cmd, "--state", state)...)
		if code != 0 || !strings.Contains(out, "is behind the newest event") {
			t.Errorf("%s with the clock an hour back: got exit %d %q %q, want 0 and a note", cmd[0], code, out, errs)
		}
	}
	if sf := loadState(t, state); len(sf.Records) != 2 {
		t.Errorf("got %+v, want 2 records", sf)
	}
}

// TestControlCharactersInAReason: NUL, escapes and invalid UTF-8 in a
// reason are kept out of the state file and the output.
func TestControlCharactersInAReason(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	call(hostileNow, nil, "record", "--state", state, "--at", minute(0))
	if code, _, errs := call(hostileNow, nil, "reset", "--state", state, "--reason", "ok\x00\x1b[31m red\xff\nnext", "--at", minute(1)); code != 0 {
		t.Fatalf("reset: exit %d %s", code, errs)
	}
	sf := loadState(t, state)
	if r := sf.Resets[len(sf.Resets)-1].Reason; r != "ok  [31m red\uFFFD next" {
		t.Errorf("got reason %q, want controls as spaces and valid UTF-8", r)
	}
	_, out, _ := call(hostileNow, nil, "status", "--state", state, "--at", minute(2))
	if strings.ContainsAny(out, "\x00\x1b") {
		t.Errorf("status output holds a control character: %q", out)
	}
}

// TestDuplicateRecords: one record in a cumulative archive, again in its
// own file and twice in the archive counts once.
func TestDuplicateRecords(t *testing.T) {
	t.Parallel()
	led := filepath.Join(t.TempDir(), "ledger")
	os.Mkdir(led, 0o755)
	second := strings.Replace(validRecord, `"run_id":1`, `"run_id":2`, 1)
	second = strings.Replace(second, "09:00:30Z", "09:00:40Z", 1)
	zipFile(t, filepath.Join(led, "artifact.zip"), func(zw *zip.Writer) {
		for _, name := range []string{"record.json", "copy/record.json"} {
			w, _ := zw.Create(name)
			w.Write([]byte("[" + validRecord + "," + second + "]"))
		}
	})
	write(t, filepath.Join(led, "single.json"), second)
	repo := twoCommits(t)
	code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led, "--format", "json")
	var d struct{ Iteration int }
	if err := json.Unmarshal([]byte(out), &d); code == 2 || err != nil || d.Iteration != 3 {
		t.Errorf("got exit %d iteration %d (%v %s), want 3: two records and this run", code, d.Iteration, err, errs)
	}
}

// TestStateLinkToADevice: a state file that is a link to /dev/zero is
// refused, and nothing is created beside the device.
func TestStateLinkToADevice(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "s.json")
	os.Symlink("/dev/zero", state)
	for _, cmd := range []string{"record", "status", "reset"} {
		code, _, errs := call(hostileNow, nil, stateArgs(cmd, "--state", state, "--at", minute(0))...)
		if code != 2 || !strings.Contains(errs, "not a regular file") || !strings.Contains(errs, state) {
			t.Errorf("%s: got exit %d %q, want 2 naming the file", cmd, code, errs)
		}
	}
	if _, err := os.Lstat("/dev/zero.lock"); err == nil {
		t.Errorf("a lock file was made beside /dev/zero")
	}
}

// TestOneStateFileByTwoNames: calls in parallel through a link and through
// the file it names are serialised by one lock.
func TestOneStateFileByTwoNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	link := filepath.Join(dir, "link.json")
	os.Symlink("state.json", link)
	const n = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := state
			if i%2 == 1 {
				name = link
			}
			cmd := exec.Command(binary, "record", "--state", name, "--files-changed", "1")
			cmd.Env = append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=")
			if out, err := cmd.CombinedOutput(); err != nil && !isExit1(err) {
				t.Errorf("record %s: %v %s", name, err, out)
				return
			}
			mu.Lock()
			ok++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if got := iterations(t, state); got != ok {
		t.Errorf("got iteration %d after %d calls by two names, want equal", got, ok)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
}

// TestStaleTemporaryFileInTheLedger: a killed writer's temporary file in
// the ledger directory is not read as records, and the next writer of the
// file removes it.
func TestStaleTemporaryFileInTheLedger(t *testing.T) {
	t.Parallel()
	led := filepath.Join(t.TempDir(), "ledger")
	stale := write(t, filepath.Join(led, ".records.json.tmp-12345"), "["+validRecord+",")
	repo := twoCommits(t)
	records := filepath.Join(led, "records.json")
	code, out, errs := call(hostileNow, nil, "check", "--repo", repo, "--base", "HEAD~1", "--ledger", led, "--record", records, "--format", "json")
	var d struct{ Iteration int }
	if err := json.Unmarshal([]byte(out), &d); code == 2 || err != nil || d.Iteration != 1 || strings.Contains(errs, "tmp") {
		t.Errorf("got exit %d iteration %d %q, want 1 and the temporary file unread", code, d.Iteration, errs)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the stale temporary file is still there")
	}
}

// TestStateDirectoryIsAFile names the path when the state file's directory
// is a regular file.
// stateArgs are a state-file command's arguments, with the --reason a
// reset needs.
func stateArgs(cmd string, args ...string) []string {
	out := append([]string{cmd}, args...)
	if cmd == "reset" {
		out = append(out, "--reason", "the cause is fixed")
	}
	return out
}

func TestStateDirectoryIsAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := write(t, filepath.Join(dir, "file"), "x")
	for _, cmd := range []string{"record", "status", "reset"} {
		code, _, errs := call(hostileNow, nil, stateArgs(cmd, "--state", filepath.Join(file, "s.json"), "--at", minute(0))...)
		if code != 2 || !strings.Contains(errs, file) {
			t.Errorf("%s: got exit %d %q, want 2 naming the path", cmd, code, errs)
		}
	}
}

// TestCommitDatesCannotLoosen: the agent dates its commits as it likes:
// fifty years ahead, thirty years back, days apart, all at one second,
// running backwards, or the last one a minute before the check. The same
// stuck iterations open the breaker at the same iteration as honestly
// dated ones.
func TestCommitDatesCannotLoosen(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	decide := func(when func(i int) time.Time) (int, string) {
		dir := t.TempDir()
		repo, err := git.PlainInit(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		wt, _ := repo.Worktree()
		write(t, filepath.Join(dir, "main.go"), "package main\n")
		wt.Add("main.go")
		for i := range 8 {
			sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: when(i)}
			if _, err := wt.Commit("iteration", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errs := call(hostileNow, nil, "check", "--repo", dir, "--base", "HEAD~7", "--format", "json")
		var d struct {
			State     string `json:"state"`
			Iteration int    `json:"iteration"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("check: exit %d %q %q", code, out, errs)
		}
		return code, fmt.Sprintf("%s at %d", d.State, d.Iteration)
	}
	wantCode, want := decide(func(i int) time.Time { return start.Add(time.Duration(i) * time.Minute) })
	if wantCode != 1 {
		t.Fatalf("honest dates: got exit %d (%s), want 1", wantCode, want)
	}
	for name, when := range map[string]func(int) time.Time{
		"fifty years ahead": func(i int) time.Time { return start.AddDate(50, 0, i) },
		"thirty years back": func(i int) time.Time { return start.AddDate(-30, 0, -i) },
		"days apart":        func(i int) time.Time { return start.AddDate(0, 0, 3*i) },
		"one second":        func(int) time.Time { return start },
		"backwards":         func(i int) time.Time { return start.Add(-time.Duration(i) * time.Hour) },
		"last one recent": func(i int) time.Time {
			if i == 7 {
				return hostileNow.Add(-time.Minute)
			}
			return start.Add(time.Duration(i) * time.Minute)
		},
	} {
		if code, got := decide(when); code != wantCode || got != want {
			t.Errorf("%s: got exit %d %s, want exit %d %s", name, code, got, wantCode, want)
		}
	}
}
