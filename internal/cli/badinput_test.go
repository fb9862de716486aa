//go:build unix

package cli_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// maxRSS is the memory bound every hostile input must stay under, in
// bytes of peak resident memory. Linux carries a parent's peak into a
// child started with vfork (as os/exec does), and this test process under
// the race detector can peak above the bound by itself on a loaded
// machine; so the binary is started by a small helper process (this test
// binary, re-executed before any test runs, see init) and the figure is
// the larger of the helper's peak and the binary's: an upper bound on the
// binary's own, near it. The binary's own peaks are far lower
// (docs/reliability.md quotes them); its largest buffers are one state file
// (16 MiB), one policy file (1 MiB), one event payload (25 MiB) and the
// windows of the streaming readers.
const maxRSS = 256 << 20

// measureEnv makes this test binary the helper that runs the binary.
const measureEnv = "LOOPBREAKER_TEST_MEASURE"

func init() {
	if os.Getenv(measureEnv) == "1" {
		os.Exit(measureChild(os.Args[1:]))
	}
}

// measureChild runs args[0] with the rest as its arguments and this
// process's standard files, writes its peak resident memory in bytes to
// file descriptor 3, and returns its exit code (128 + the signal when a
// signal ended it, 125 when it could not start).
func measureChild(args []string) int {
	report := os.NewFile(3, "rss")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		return 125
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		fmt.Fprintln(report, int64(ru.Maxrss)<<10) // kilobytes on Linux
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

// badTimeout bounds one run: a hostile input must never hang the binary.
const badTimeout = 60 * time.Second

// sparse makes a file of size bytes that starts with prefix and is a hole
// after it: a multi-GB file that costs no disk.
func sparse(t *testing.T, path, prefix string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(prefix); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// sparseText writes n copies of unit to path without holding them all.
func sparseText(t *testing.T, path, unit string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := strings.Repeat(unit, 4096)
	for i := 0; i < n; i += 4096 {
		if _, err := f.WriteString(chunk[:len(unit)*min(4096, n-i)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// zipFile writes a zip archive whose entries come from add.
func zipFile(t *testing.T, path string, add func(zw *zip.Writer)) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	add(zw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

const validRecord = `{"version":1,"run_id":1,"run_attempt":1,"commit":"","at":"2026-02-01T09:00:30Z","phase":"","tests":null,"errors":[],"output":null,"permission_denials":0,"completion_claimed":false,"questions_asked":false,"progress_percent":null,"tasks":null}`

// stateHead is the start of a valid state file.
const stateHead = `{"version":1,"kind":"loopbreaker-state","policy":"default","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",`

// badCase is one malformed or hostile input. setup returns the arguments
// (and extra environment) of one run of the binary; the run must exit with
// code and print every string of want (stderr and stdout together).
type badCase struct {
	name  string
	setup func(t *testing.T, dir string) (args, env []string)
	code  int
	want  []string
}

// stateCase records into a state file with the given content.
func stateCase(name, content string, code int, want ...string) badCase {
	return badCase{name: name, code: code, want: want, setup: func(t *testing.T, dir string) ([]string, []string) {
		p := write(t, filepath.Join(dir, "state.json"), content)
		return []string{"record", "--state", p, "--files-changed", "1", "--at", "2026-02-01T00:00:00Z"}, nil
	}}
}

// flagCase records into a fresh state file with a file flag (--policy,
// --reports, --log) naming a file with the given content.
func flagCase(name, flag, file, content string, code int, want ...string) badCase {
	return badCase{name: name, code: code, want: want, setup: func(t *testing.T, dir string) ([]string, []string) {
		p := write(t, filepath.Join(dir, file), content)
		return []string{"record", "--state", filepath.Join(dir, "s.json"), flag, p, "--at", "2026-02-01T00:00:00Z"}, nil
	}}
}

// ledgerCase checks a two-commit loop with a ledger directory that mk
// fills.
func ledgerCase(name string, mk func(t *testing.T, dir string), code int, want ...string) badCase {
	return badCase{name: name, code: code, want: want, setup: func(t *testing.T, dir string) ([]string, []string) {
		repo := commitLoop(t, []map[string]string{{"main.go": "package main\n"}, {"main.go": "package main\n\nfunc main() {}\n"}})
		led := filepath.Join(dir, "ledger")
		if err := os.MkdirAll(led, 0o755); err != nil {
			t.Fatal(err)
		}
		mk(t, led)
		return []string{"check", "--repo", repo, "--base", "HEAD~1", "--ledger", led}, nil
	}}
}

// packedLoop is a loop of seven commits whose objects are all in one pack
// (no loose objects), as a clone has them; it returns the repository and
// the pack.
func packedLoop(t *testing.T) (repo, pack string) {
	t.Helper()
	steps := []map[string]string{{"main.go": "package main\n"}}
	for i := range 6 {
		steps = append(steps, map[string]string{"main.go": fmt.Sprintf("package main\n\n// step %d\n%s", i, strings.Repeat("// filler line\n", 40))})
	}
	repo = commitLoop(t, steps)
	g, err := git.PlainOpen(repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.RepackObjects(&git.RepackConfig{}); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs after the repack, want 1", len(packs))
	}
	loose, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "??"))
	for _, d := range loose {
		os.RemoveAll(d)
	}
	return repo, packs[0]
}

// packCase checks a loop whose objects are all in one pack that damage
// rewrites: exit 2 naming the repository, never a panic or a verdict.
func packCase(name string, damage func([]byte) []byte, want ...string) badCase {
	return badCase{name: name, code: 2, want: want, setup: func(t *testing.T, dir string) ([]string, []string) {
		repo, pack := packedLoop(t)
		data, err := os.ReadFile(pack)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pack, damage(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"check", "--repo", repo, "--base", "HEAD~5"}, nil
	}}
}

// eventCase runs the action mode with an event payload from mk.
func eventCase(name string, mk func(t *testing.T, path string), extra []string, code int, want ...string) badCase {
	return badCase{name: name, code: code, want: want, setup: func(t *testing.T, dir string) ([]string, []string) {
		repo := commitLoop(t, []map[string]string{{"main.go": "package main\n"}, {"main.go": "package main\n\nfunc main() {}\n"}})
		ev := filepath.Join(dir, "event.json")
		mk(t, ev)
		env := append([]string{"GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + ev, "GITHUB_WORKSPACE=" + repo,
			"GITHUB_OUTPUT=" + filepath.Join(dir, "out"), "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary"), "INPUT_TOKEN="}, extra...)
		return []string{"action"}, env
	}}
}

func badCases() []badCase {
	deepXML := strings.Repeat("<testsuite>", 100000) + strings.Repeat("</testsuite>", 100000)
	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><testsuite><testcase name="&lol2;"/></testsuite>`
	validState := stateHead + `"breaker":{"state":"CLOSED","iteration":1,"last_at":"2026-01-01T00:00:00Z","since_reset":1,"consecutive_no_progress":0,"held":0,"ignored_open":0,"last_transition_at":"0001-01-01T00:00:00Z","opens":0,"output_base":{},"primary_streak":0,"error_streak":0,"denial_streak":0,"last_score":0,"last_progress_flag":false}}`
	// The state file as this version writes it: records and resets.
	const v2Head = `{"version":2,"kind":"loopbreaker-state","policy":"default","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",`
	var resets strings.Builder
	for i := 0; i < 101; i++ {
		fmt.Fprintf(&resets, `{"at":"2026-01-01T00:00:00Z","reason":"y"},`)
	}
	return []badCase{
		// The state file of record/status/reset.
		stateCase("state truncated", stateHead+`"breaker":{"state":"OP`, 2, "state.json", "truncated"),
		stateCase("state wrong JSON type", stateHead+`"breaker":{"iteration":"three"}}`, 2, "state.json", "iteration"),
		stateCase("state huge number", stateHead+`"breaker":{"iteration":1e400}}`, 2, "state.json", "iteration"),
		stateCase("state int overflow", stateHead+`"breaker":{"iteration":9223372036854775808}}`, 2, "state.json", "iteration"),
		stateCase("state negative count", stateHead+`"breaker":{"iteration":-4}}`, 2, "state.json", "negative"),
		stateCase("state negative count in a record", v2Head+`"records":[{"version":1,"at":"2026-01-01T00:00:00Z","permission_denials":-4}]}`, 2, "state.json", "negative"),
		stateCase("state NaN", stateHead+`"breaker":{"iteration":NaN}}`, 2, "state.json", "invalid character"),
		stateCase("state future version", `{"version":3,"kind":"loopbreaker-state"}`, 2, "state.json", "newer loopbreaker"),
		stateCase("state BOM", "\xef\xbb\xbf"+validState, 0),
		stateCase("state CRLF", strings.ReplaceAll(strings.ReplaceAll(validState, ",", ",\r\n"), "{", "{\r\n"), 0),
		stateCase("state NUL byte", stateHead+"\x00}", 2, "state.json", "invalid character"),
		stateCase("state nested 100000 deep", stateHead+`"breaker":{"recent":`+strings.Repeat("[", 100000), 2, "state.json"),
		stateCase("state list over its bound", v2Head+`"resets":[`+strings.TrimSuffix(resets.String(), ",")+`],"records":[]}`, 2, "state.json", "bound"),
		{name: "state is a directory", code: 2, want: []string{"state.json", "not a regular file"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "state.json")
			os.Mkdir(p, 0o755)
			return []string{"record", "--state", p}, nil
		}},
		{name: "state is a symlink to a directory", code: 2, want: []string{"state.json", "not a regular file"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "state.json")
			os.Symlink(dir, p)
			return []string{"record", "--state", p}, nil
		}},
		{name: "state is a named pipe", code: 2, want: []string{"state.json", "not a regular file"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "state.json")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"record", "--state", p}, nil
		}},
		{name: "state is a 4 GB sparse file", code: 2, want: []string{"state.json", "larger than"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "state.json")
			sparse(t, p, stateHead, 4<<30)
			return []string{"record", "--state", p}, nil
		}},
		// Measurement flags.
		{name: "flag count above the bound", code: 2, want: []string{"files changed", "above"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--files-changed", "9223372036854775807"}, nil
		}},
		{name: "flag percent is Inf", code: 2, want: []string{"progress-percent"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--progress-percent", "+Inf"}, nil
		}},
		// Policy files.
		flagCase("policy NUL byte", "--policy", "p.toml", "extends = \"default\"\x00\n", 2, "p.toml", "NUL"),
		flagCase("policy huge number", "--policy", "p.toml", "extends = \"default\"\n[rules.no_progress]\nno_progress_threshold = 99999999999999999999\n", 2, "p.toml"),
		flagCase("policy negative number", "--policy", "p.toml", "extends = \"default\"\n[rules.no_progress]\nno_progress_threshold = -3\n", 2, "p.toml", "line 3"),
		flagCase("policy NaN", "--policy", "p.toml", "extends = \"default\"\n[rules.output_decline]\noutput_decline_percent = nan\n", 2, "p.toml", "output_decline_percent"),
		flagCase("policy wrong type", "--policy", "p.toml", "extends = \"default\"\n[rules.no_progress]\nno_progress_threshold = \"three\"\n", 2, "p.toml", "no_progress_threshold"),
		flagCase("policy truncated", "--policy", "p.toml", "extends = \"default\"\n[rules.no_prog", 2, "p.toml"),
		flagCase("policy unknown base", "--policy", "p.toml", "extends = \"lenient\"\n", 2, "p.toml", "lenient"),
		flagCase("policy BOM", "--policy", "p.toml", "\xef\xbb\xbfextends = \"default\"\n", 0),
		flagCase("policy CRLF", "--policy", "p.toml", "extends = \"default\"\r\n[rules.no_progress]\r\nno_progress_threshold = 4\r\n", 0),
		{name: "policy is a directory", code: 2, want: []string{"pol.d", "directory"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "pol.d")
			os.Mkdir(p, 0o755)
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--policy", p}, nil
		}},
		{name: "policy is a named pipe", code: 2, want: []string{"p.toml"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "p.toml")
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--policy", p}, nil
		}},
		{name: "policy is a 4 GB sparse file", code: 2, want: []string{"p.toml", "larger than"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "p.toml")
			sparse(t, p, "extends = \"default\"\n#", 4<<30)
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--policy", p}, nil
		}},
		// Test reports.
		flagCase("report nested 100000 deep", "--reports", "deep.xml", deepXML, 2, "deep.xml", "nested deeper"),
		flagCase("report entity expansion", "--reports", "lol.xml", laughs, 2, "lol.xml", "entity"),
		flagCase("report truncated XML", "--reports", "cut.xml", `<testsuite tests="2"><testcase name="a"><failure message="x">boom`, 2, "cut.xml"),
		flagCase("report NUL byte", "--reports", "nul.xml", "<testsuite>\x00</testsuite>", 2, "nul.xml", "binary"),
		flagCase("report go test -json wrong types", "--reports", "t.json", `{"Action":7,"Package":["p"],"Test":{}}`+"\n", 2, "t.json"),
		flagCase("report TAP huge numbers", "--reports", "t.tap", "TAP version 13\n1..99999999999999999999999\nok 99999999999999999999999 - a\nnot ok -1 - b\n", 0),
		{name: "report is a 4 GB sparse file", code: 2, want: []string{"big.xml", "larger than"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "big.xml")
			sparse(t, p, "<testsuite>", 4<<30)
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--reports", p}, nil
		}},
		{name: "report glob matches only a directory", code: 2, want: []string{"r.xml"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			os.Mkdir(filepath.Join(dir, "r.xml"), 0o755)
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--reports", filepath.Join(dir, "r.xml")}, nil
		}},
		// Agent logs.
		flagCase("log NUL byte", "--log", "a.log", "Error: x\n\x00\n", 2, "a.log", "binary"),
		flagCase("log 70000-character line", "--log", "a.log", "Error: "+strings.Repeat("x", 70000)+"\n", 0),
		flagCase("log UTF-16", "--log", "a.log", "\xff\xfeE\x00r\x00", 2, "a.log", "UTF-16"),
		{name: "log is a directory", code: 2, want: []string{"a.log", "directory"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "a.log")
			os.Mkdir(p, 0o755)
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--log", p}, nil
		}},
		{name: "log is a 4 GB sparse file", code: 2, want: []string{"a.log", "binary"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			p := filepath.Join(dir, "a.log")
			sparse(t, p, "Error: x\n", 4<<30)
			return []string{"record", "--state", filepath.Join(dir, "s.json"), "--log", p}, nil
		}},
		// Ledgers: bad entries are reported and skipped; the decision is
		// still made from git.
		ledgerCase("ledger zip slip", func(t *testing.T, dir string) {
			zipFile(t, filepath.Join(dir, "a.zip"), func(zw *zip.Writer) {
				w, _ := zw.Create("../../escaped.json")
				w.Write([]byte(validRecord))
			})
		}, 0),
		ledgerCase("ledger zip bomb", func(t *testing.T, dir string) {
			zipFile(t, filepath.Join(dir, "bomb.zip"), func(zw *zip.Writer) {
				w, _ := zw.Create("record.json")
				w.Write([]byte("[" + validRecord + ","))
				pad := bytes.Repeat([]byte(" "), 1<<20)
				for i := 0; i < 100; i++ {
					w.Write(pad)
				}
			})
		}, 0, "bomb.zip:record.json", "uncompressed size over"),
		ledgerCase("ledger zip with 100000 entries", func(t *testing.T, dir string) {
			zipFile(t, filepath.Join(dir, "many.zip"), func(zw *zip.Writer) {
				for i := 0; i < 100000; i++ {
					zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("%d.json", i), Method: zip.Store})
				}
			})
		}, 0, "many.zip", "entries"),
		ledgerCase("ledger corrupt zip", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "bad.zip"), "PK\x03\x04 not really a zip")
		}, 0, "bad.zip", "not a zip archive"),
		ledgerCase("ledger record of a future version", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "r.json"), strings.Replace(validRecord, `"version":1`, `"version":9`, 1))
		}, 0, "r.json", "newer"),
		ledgerCase("ledger record with wrong types and NaN", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "r.json"), `[{"version":"1"},{"version":1,"at":"2026-02-01T09:00:00Z","progress_percent":NaN}]`)
		}, 0, "r.json"),
		ledgerCase("ledger 60 MB of empty records", func(t *testing.T, dir string) {
			sparseText(t, filepath.Join(dir, "flood.json"), "{}\n", 20<<20)
		}, 0, "flood.json", "the rest of the file was skipped"),
		ledgerCase("ledger entry is a symlink", func(t *testing.T, dir string) {
			os.Symlink("/etc/passwd", filepath.Join(dir, "r.json"))
		}, 0, "r.json", "not a regular file"),
		{name: "ledger is a file", code: 2, want: []string{"led.json", "not a directory"}, setup: func(t *testing.T, dir string) ([]string, []string) {
			repo := commitLoop(t, []map[string]string{{"main.go": "package main\n"}, {"main.go": "package main\n\nfunc main() {}\n"}})
			return []string{"check", "--repo", repo, "--base", "HEAD~1", "--ledger", write(t, filepath.Join(dir, "led.json"), "[]")}, nil
		}},
		// A clone's pack damaged on disk: the object readers refuse it, go-git
		// reports the object it cannot read.
		packCase("git pack with flipped bytes", func(data []byte) []byte {
			for i := 12; i < len(data)-20; i++ { // every object, not the header or checksum
				data[i] ^= 0x5a
			}
			return data
		}, "HEAD: read commit "),
		packCase("git pack truncated", func(data []byte) []byte { return data[:len(data)*2/3] },
			"damaged pack: pack-", "index does not belong to the pack"),
		// Commit times are the agent's to write.
		{name: "commit dated before its parent", code: 1, want: []string{"dated 2001-01-01T00:00:00Z, before the iteration it follows", "OPEN"},
			setup: func(t *testing.T, dir string) ([]string, []string) {
				repo := datedLoop(t, "2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "2001-01-01T00:00:00Z", "2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z")
				return []string{"check", "--repo", repo, "--base", "HEAD~4"}, nil
			}},
		// Event payloads and inputs of the action mode.
		eventCase("event wrong JSON types", func(t *testing.T, p string) {
			write(t, p, `{"pull_request":{"number":"seven","labels":"x"}}`)
		}, nil, 2, "event.json"),
		eventCase("event truncated", func(t *testing.T, p string) { write(t, p, `{"pull_request":{"number":7,`) }, nil, 2, "event.json"),
		eventCase("event is a 4 GB sparse file", func(t *testing.T, p string) { sparse(t, p, "{", 4<<30) }, nil, 2, "event.json", "larger than"),
		eventCase("event is a directory", func(t *testing.T, p string) { os.Mkdir(p, 0o755) }, nil, 2, "event.json"),
		eventCase("policy input escapes the repository", func(t *testing.T, p string) { write(t, p, `{}`) },
			[]string{"INPUT_POLICY=../outside.toml"}, 2, "../outside.toml", "inside the repository"),
	}
}

// datedLoop is a repository whose commits carry the given committer
// times; the first changes a file, the rest are empty.
func datedLoop(t *testing.T, times ...string) string {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	for i, ts := range times {
		when, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			t.Fatal(err)
		}
		if i <= 1 {
			write(t, filepath.Join(dir, "main.go"), fmt.Sprintf("package main\n\n// %d\n", i))
			wt.Add("main.go")
		}
		sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: when}
		if _, err := wt.Commit(fmt.Sprintf("iteration %d", i), &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBadInput runs the binary on each malformed or hostile input: it must
// exit as the case says, naming the input and the fault, within the time
// and memory bounds, and never panic.
func TestBadInput(t *testing.T) {
	t.Parallel()
	cases := badCases()
	if len(cases) < 30 {
		t.Fatalf("got %d bad-input cases, want at least 30", len(cases))
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args, env := c.setup(t, dir)
			began := time.Now()
			code, out, rss, err := runBounded(env, args...)
			t.Logf("exit %d in %s, peak memory %d MiB", code, time.Since(began).Round(time.Millisecond), rss>>20)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if code != c.code {
				t.Errorf("got exit %d, want %d\n%s", code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output does not say %q:\n%s", w, clip(out))
				}
			}
			if strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") {
				t.Errorf("the binary panicked:\n%s", clip(out))
			}
			if rss > maxRSS {
				t.Errorf("peak memory %d MiB, want at most %d MiB", rss>>20, maxRSS>>20)
			}
			if _, err := os.Stat(filepath.Join(dir, "..", "escaped.json")); err == nil {
				t.Errorf("a zip entry was written outside the ledger")
			}
		})
	}
}

// runBounded runs the binary with a deadline and returns its exit code,
// stdout and stderr together, and its peak resident memory in bytes
// (measured by the helper, see maxRSS).
func runBounded(env []string, args ...string) (int, string, int64, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, "", 0, err
	}
	report, w, err := os.Pipe()
	if err != nil {
		return 0, "", 0, err
	}
	defer report.Close()
	ctx, cancel := context.WithTimeout(context.Background(), badTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, append([]string{binary}, args...)...)
	cmd.Env = append(append(os.Environ(), "LOOPBREAKER_PROFILE=", "GITHUB_RUN_ID=", "GITHUB_ACTIONS=", measureEnv+"=1"), env...)
	cmd.ExtraFiles = []*os.File{w}
	// A hang is ended for the helper and the binary together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Start()
	w.Close()
	if err != nil {
		return 0, "", 0, err
	}
	err = cmd.Wait()
	var rss int64
	fmt.Fscan(report, &rss)
	if ctx.Err() != nil {
		return 0, out.String(), rss, fmt.Errorf("run %v: still running after %s", args, badTimeout)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), rss, nil
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), rss, nil
	}
	return 0, out.String(), rss, err
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}
