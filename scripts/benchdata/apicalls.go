//go:build ignore

// Command apicalls counts the GitHub API calls of the action on each run of
// one pull request's life, for scripts/bench.sh. The fake GitHub API
// (package fakegithub) runs in this process and counts every call; the
// action is the loopbreaker binary, run as a workflow step runs it (the
// environment of a pull_request run, the event payload the fake builds).
//
//	go run scripts/benchdata/apicalls.go -bin loopbreaker -repo DIR -ledger FILE
//
// DIR is the loop's repository: a branch main and a branch loop whose
// newest seven commits are the pushes of the life: two that make progress,
// then five that change nothing. FILE is the cumulative record of the runs
// before them (a JSON array), the previous run's artifact. Each run pushes
// the next commit, runs the action on it, and uploads the record it wrote
// as its run's artifact, as the workflow's upload-artifact step does. The
// repository already has loopbreaker's labels (a label's first use in a
// repository costs one call more).
//
// It prints one line per run, tab-separated: the run's name, the state the
// action reported and its API calls. It exits 1 when a run fails or ends
// in another state than the life expects, 2 on bad flags.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

const (
	owner, name = "octo", "loop"
	number      = 7
	firstRun    = 100 // the run id of the first run of the life
	artifact    = "loopbreaker-record"
)

// life is the runs, in order: the name, the state the action must report,
// and whether the event payload lists the pull request's labels.
var life = []struct {
	name, state string
	labels      bool
}{
	{"first run", "CLOSED", true},
	{"steady CLOSED", "CLOSED", true},
	{"no progress once", "CLOSED", true},
	{"enters HALF_OPEN", "HALF_OPEN", true},
	{"the trip (HALF_OPEN to OPEN)", "OPEN", true},
	{"steady OPEN, the label in the payload", "OPEN", true},
	{"steady OPEN, the label not in the payload", "OPEN", false},
}

func main() {
	bin := flag.String("bin", "", "the loopbreaker `binary`")
	repo := flag.String("repo", "", "the loop's repository `dir`ectory (branches main and loop)")
	ledger := flag.String("ledger", "", "`file` of the earlier runs' records (a JSON array)")
	policy := flag.String("policy", "ralph", "the action's policy input")
	flag.Parse()
	if *bin == "" || *repo == "" || *ledger == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: apicalls -bin FILE -repo DIR -ledger FILE [-policy NAME]")
		os.Exit(2)
	}
	if err := run(*bin, *repo, *ledger, *policy); err != nil {
		fmt.Fprintln(os.Stderr, "apicalls:", err)
		os.Exit(1)
	}
}

func run(bin, repo, ledger, policy string) error {
	pushes, err := git(repo, "rev-list", "--first-parent", fmt.Sprintf("--max-count=%d", len(life)), "loop")
	if err != nil {
		return err
	}
	heads := strings.Fields(pushes)
	if len(heads) != len(life) {
		return fmt.Errorf("%s: branch loop has %d commits, want at least %d", repo, len(heads), len(life))
	}
	for i, j := 0, len(heads)-1; i < j; i, j = i+1, j-1 {
		heads[i], heads[j] = heads[j], heads[i]
	}
	base, err := git(repo, "rev-parse", "main")
	if err != nil {
		return err
	}
	before, err := git(repo, "rev-parse", heads[0]+"^")
	if err != nil {
		return err
	}
	records, err := os.ReadFile(ledger)
	if err != nil {
		return fmt.Errorf("read the ledger: %w", err)
	}

	s := fakegithub.New()
	defer s.Close()
	if err := seed(s, strings.TrimSpace(base), strings.TrimSpace(before), heads[0]); err != nil {
		return err
	}
	if err := upload(s, firstRun-1, records); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "apicalls-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	at := time.Now().UTC().Truncate(time.Second)
	for i, r := range life {
		id := int64(firstRun + i)
		head := heads[i]
		if err := s.Push(owner, name, number, head, head); err != nil {
			return err
		}
		s.AddRun(owner, name, fakegithub.Run{ID: id, Name: "loop", Path: ".github/workflows/loop.yml", HeadBranch: "loop",
			HeadSHA: head, Event: "pull_request", Status: "in_progress", CreatedAt: at, PullNumbers: []int{number}})
		if _, err := git(repo, "update-ref", "--no-deref", "HEAD", head); err != nil {
			return err
		}
		event := filepath.Join(work, fmt.Sprintf("event-%d.json", id))
		if err := writeEvent(s, event, r.labels); err != nil {
			return err
		}
		s.ResetCalls()
		state, err := action(bin, repo, work, event, id, policy, s.URL)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		calls := s.CallLog()
		fmt.Printf("%s\t%s\t%d\n", r.name, state, len(calls))
		if state != r.state {
			return fmt.Errorf("%s: the action reported %s, the life expects %s", r.name, state, r.state)
		}
		record, err := os.ReadFile(filepath.Join(repo, ".loopbreaker", "record.json"))
		if err != nil {
			return fmt.Errorf("%s: the record: %w", r.name, err)
		}
		if err := upload(s, id, record); err != nil {
			return err
		}
		s.AddRun(owner, name, fakegithub.Run{ID: id, Name: "loop", Path: ".github/workflows/loop.yml", HeadBranch: "loop",
			HeadSHA: head, Event: "pull_request", Status: "completed", Conclusion: "success", CreatedAt: at, PullNumbers: []int{number}})
		at = at.Add(time.Minute)
	}
	return nil
}

// seed adds the repository with loopbreaker's labels, the pull request at
// its first push, and the run before the life.
func seed(s *fakegithub.Server, base, before, head string) error {
	var labels []fakegithub.Label
	for _, l := range present.Labels() {
		labels = append(labels, fakegithub.Label{Name: l.Name, Color: l.Color, Description: l.Description})
	}
	created := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	st := fakegithub.State{Repos: []fakegithub.RepoState{{
		Owner: owner, Name: name, DefaultBranch: "main", Labels: labels,
		Pulls: []fakegithub.Pull{{Number: number, Title: "agent loop", User: "agent", HeadSHA: head, HeadRef: "loop",
			BaseRef: "main", BaseSHA: base, CreatedAt: created}},
		Runs: []fakegithub.Run{{ID: firstRun - 1, Name: "loop", Path: ".github/workflows/loop.yml", HeadBranch: "loop",
			HeadSHA: before, Event: "pull_request", Status: "completed", Conclusion: "success", CreatedAt: created, PullNumbers: []int{number}}},
	}}}
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := s.LoadSeed(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("seed the fake: %w", err)
	}
	return nil
}

// upload stores a record file as run id's artifact.
func upload(s *fakegithub.Server, id int64, record []byte) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("record.json")
	if err == nil {
		_, err = w.Write(record)
	}
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		_, err = s.UploadArtifact(owner, name, id, artifact, buf.Bytes(), false)
	}
	if err != nil {
		return fmt.Errorf("upload run %d's record: %w", id, err)
	}
	return nil
}

// writeEvent writes the pull_request payload the fake builds, without the
// pull request's labels when labels is false.
func writeEvent(s *fakegithub.Server, path string, labels bool) error {
	payload, _, _, err := s.PullRequestEvent(owner, name, number, "synchronize")
	if err != nil {
		return err
	}
	if !labels {
		var ev map[string]any
		if err := json.Unmarshal(payload, &ev); err != nil {
			return fmt.Errorf("the fake's payload: %w", err)
		}
		pr, ok := ev["pull_request"].(map[string]any)
		if !ok {
			return errors.New("the fake's payload has no pull_request")
		}
		pr["labels"] = []any{}
		if payload, err = json.Marshal(ev); err != nil {
			return err
		}
	}
	return os.WriteFile(path, payload, 0o644)
}

// action runs the binary as the action's step and returns the state output.
func action(bin, repo, work, event string, id int64, policy, api string) (string, error) {
	out := filepath.Join(work, fmt.Sprintf("output-%d", id))
	cmd := exec.Command(bin)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=pull_request", "GITHUB_EVENT_PATH=" + event,
		"GITHUB_REPOSITORY=" + owner + "/" + name, "GITHUB_WORKSPACE=" + repo, "GITHUB_API_URL=" + api,
		fmt.Sprintf("GITHUB_REF=refs/pull/%d/merge", number), fmt.Sprintf("GITHUB_RUN_ID=%d", id), "GITHUB_RUN_ATTEMPT=1",
		"GITHUB_OUTPUT=" + out, "GITHUB_STEP_SUMMARY=" + filepath.Join(work, "summary.md"),
		"INPUT_TOKEN=" + fakegithub.DefaultToken, "INPUT_POLICY=" + policy,
	}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return "", fmt.Errorf("the action: %w\n%s", err, log.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return "", fmt.Errorf("the action wrote no outputs: %w\n%s", err, log.String())
	}
	if state := output(string(data), "state"); state != "" {
		return state, nil
	}
	return "", fmt.Errorf("the action set no state output\n%s", log.String())
}

// output reads one output from a GITHUB_OUTPUT file: "key=value" or the
// delimited form "key<<DELIM", the value, "DELIM".
func output(file, key string) string {
	lines := strings.Split(file, "\n")
	for i, l := range lines {
		if v, ok := strings.CutPrefix(l, key+"="); ok {
			return v
		}
		if delim, ok := strings.CutPrefix(l, key+"<<"); ok {
			var v []string
			for _, m := range lines[i+1:] {
				if m == delim {
					return strings.Join(v, "\n")
				}
				v = append(v, m)
			}
		}
	}
	return ""
}

func git(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(exit.Stderr))
		}
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
