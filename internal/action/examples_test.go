package action

import (
	"fmt"
	"os"

	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// workflow is what the tests read of a workflow file: its triggers, its
// jobs, and for the tests of one job's workflows the permissions of its
// last job (a job's own block replaces the workflow's, as on GitHub) and
// every step.
type workflow struct {
	path  string
	on    map[string]bool
	perms map[string]string
	steps []wfStep
	jobs  []*wfJob
	text  string
}

// wfJob is a job: its name, its effective permissions, its condition and
// its steps.
type wfJob struct {
	name  string
	perms map[string]string
	cond  string
	steps []wfStep
}

// wfStep is a step: the action it uses (or "" for a run step), its script,
// its with: inputs and its env.
type wfStep struct {
	uses, run string
	with, env map[string]string
}

// rawWorkflow is the YAML of a workflow, as far as the tests read it.
type rawWorkflow struct {
	On          yaml.Node `yaml:"on"`
	Permissions yaml.Node `yaml:"permissions"`
	Jobs        yaml.Node `yaml:"jobs"`
}

type rawJob struct {
	If          string    `yaml:"if"`
	Permissions yaml.Node `yaml:"permissions"`
	Steps       []struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	} `yaml:"steps"`
}

// readWorkflow parses a workflow file.
func readWorkflow(t *testing.T, path string) *workflow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw rawWorkflow
	if err := yaml.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	w := &workflow{path: path, on: map[string]bool{}, text: string(data)}
	switch raw.On.Kind {
	case yaml.ScalarNode:
		w.on[raw.On.Value] = true
	case yaml.SequenceNode:
		for _, n := range raw.On.Content {
			w.on[n.Value] = true
		}
	case yaml.MappingNode:
		for i := 0; i < len(raw.On.Content); i += 2 {
			w.on[raw.On.Content[i].Value] = true
		}
	}
	top := permissions(t, path, &raw.Permissions, nil)
	w.perms = top
	for i := 0; i+1 < len(raw.Jobs.Content); i += 2 {
		var rj rawJob
		if err := raw.Jobs.Content[i+1].Decode(&rj); err != nil {
			t.Fatalf("%s: job %s: %v", path, raw.Jobs.Content[i].Value, err)
		}
		j := &wfJob{name: raw.Jobs.Content[i].Value, cond: rj.If, perms: permissions(t, path, &rj.Permissions, top)}
		for _, rs := range rj.Steps {
			st := wfStep{uses: rs.Uses, run: rs.Run, with: map[string]string{}, env: map[string]string{}}
			for k, v := range rs.With {
				st.with[k] = strings.TrimSpace(v)
			}
			for k, v := range rs.Env {
				st.env[k] = v
			}
			j.steps = append(j.steps, st)
		}
		w.jobs = append(w.jobs, j)
		w.steps = append(w.steps, j.steps...)
		w.perms = j.perms
	}
	return w
}

// permissions reads a permissions block: a map of scopes, or read-all,
// write-all or {} (nothing); an absent block inherits (the workflow's, or
// GitHub's default for the workflow token, which may write: "write-all").
func permissions(t *testing.T, path string, n *yaml.Node, inherit map[string]string) map[string]string {
	t.Helper()
	all := func(level string) map[string]string {
		out := map[string]string{}
		for _, s := range []string{"actions", "checks", "contents", "deployments", "id-token", "issues", "packages", "pages", "pull-requests", "statuses"} {
			out[s] = level
		}
		return out
	}
	switch {
	case n.Kind == 0:
		if inherit != nil {
			return inherit
		}
		return all("write")
	case n.Kind == yaml.ScalarNode && n.Value == "read-all":
		return all("read")
	case n.Kind == yaml.ScalarNode && n.Value == "write-all":
		return all("write")
	case n.Kind == yaml.MappingNode:
		out := map[string]string{}
		if err := n.Decode(&out); err != nil {
			t.Fatalf("%s: permissions: %v", path, err)
		}
		return out
	}
	t.Fatalf("%s: permissions: %q is not a block GitHub knows", path, n.Value)
	return nil
}

// workflows reads the examples and the repository's own workflows.
func workflows(t *testing.T) []*workflow {
	t.Helper()
	var out []*workflow
	for _, glob := range []string{"../../examples/*.yml", "../../.github/workflows/*.yml"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			out = append(out, readWorkflow(t, p))
		}
	}
	if len(out) < 8 {
		t.Fatalf("read %d workflows: the reader or the paths are broken", len(out))
	}
	return out
}

func usesLoopbreaker(s wfStep) bool {
	return strings.HasPrefix(s.uses, "loopbreaker/loopbreaker") || s.uses == "./" || s.uses == "./dockerless"
}

func grants(perms map[string]string, scope, level string) bool {
	have := perms[scope]
	return have == "write" || (have == "read" && level == "read")
}

// TestExamplesGrantWhatLoopbreakerUses: every workflow that runs
// loopbreaker with the workflow token grants what its features need:
// labels need pull-requests: write and, to create them the first time,
// issues: write (pull-requests: write alone is refused since 2025); the
// status statuses: write, a check run checks: write; the record artifacts
// actions: read. A dry run writes nothing.
func TestExamplesGrantWhatLoopbreakerUses(t *testing.T) {
	t.Parallel()
	checked := 0
	for _, w := range workflows(t) {
		for _, j := range w.jobs {
			for _, s := range j.steps {
				if !usesLoopbreaker(s) || strings.Contains(s.with["token"], "secrets.") || s.with["dry-run"] == "true" {
					continue
				}
				checked++
				need := map[string]string{"pull-requests": "read", "issues": "read", "contents": "read"}
				if s.with["labels"] != "false" || strings.Contains(orDefault(s.with["on-open"], "comment")+orDefault(s.with["on-half-open"], "comment"), "comment") {
					need = map[string]string{"pull-requests": "write", "issues": "write"}
				}
				if s.with["mode"] == "gate" {
					need = map[string]string{"pull-requests": "read", "issues": "read", "contents": "read"}
				}
				if s.with["use-artifact"] != "false" {
					need["actions"] = "read"
				}
				if s.with["mode"] == "" || s.with["mode"] == "check" {
					switch s.with["status"] {
					case "", "status":
						need["statuses"] = "write"
					case "check-run":
						need["checks"] = "write"
					}
				}
				if s.with["bundle"] != "" {
					need["contents"] = "write"
				}
				for scope, level := range need {
					if !grants(j.perms, scope, level) {
						t.Errorf("%s: job %s: the loopbreaker step needs %s: %s, the job has %q", w.path, j.name, scope, level, j.perms[scope])
					}
				}
			}
		}
	}
	if checked < 4 {
		t.Fatalf("checked %d loopbreaker steps, want the examples' (at least 4)", checked)
	}
}

// TestExamplePermissionsLabelANewRepository: with exactly the permissions
// of examples/pr-status-check.yml, a tripped breaker labels its pull
// request in a repository that has no loopbreaker label yet; without
// issues: write, GitHub refuses to create it.
func TestExamplePermissionsLabelANewRepository(t *testing.T) {
	t.Parallel()
	perms := readWorkflow(t, "../../examples/pr-status-check.yml").perms
	for _, withIssues := range []bool{true, false} {
		p := map[string]string{}
		for k, v := range perms {
			if k != "issues" || withIssues {
				p[k] = v
			}
		}
		h := newHTTPHarness(t, stagnant(t))
		h.fake.SetPermissions(fakegithub.DefaultToken, p)
		if code := h.run(); code != exitOpen {
			t.Fatalf("got exit %d, want %d", code, exitOpen)
		}
		labelled := contains(h.fake.IssueLabels("octo", "loop", 7), present.LabelOpen)
		if labelled != withIssues {
			t.Errorf("issues: write granted %v: got labelled %v", withIssues, labelled)
		}
		if !withIssues && !strings.Contains(h.log.String(), "Resource not accessible by integration") {
			t.Errorf("the refused label is not reported:\n%s", h.log.String())
		}
		if st := h.fake.Statuses("octo", "loop", h.loop.head); len(st) != 1 {
			t.Errorf("got %d statuses, want 1", len(st))
		}
	}
}

// TestExamplesUploadTheRecordFile: upload-artifact v4 answers 409 to a
// second upload of a name in a run (a re-run of a failed job too) unless
// overwrite: true, and since v4.4 skips hidden files: a search rooted at
// the .loopbreaker folder uploads nothing, the file itself is found
// (https://github.com/actions/upload-artifact#breaking-changes).
func TestExamplesUploadTheRecordFile(t *testing.T) {
	t.Parallel()
	uploads := 0
	for _, w := range workflows(t) {
		for _, s := range w.steps {
			if !strings.HasPrefix(s.uses, "actions/upload-artifact@") {
				continue
			}
			uploads++
			if s.with["overwrite"] != "true" {
				t.Errorf("%s: upload of %s without overwrite: true fails on a re-run (409)", w.path, s.with["name"])
			}
			path := s.with["path"]
			hiddenRoot := regexp.MustCompile(`(^|/)\.[^/]*/?$`).MatchString(strings.TrimSuffix(path, "/")) || strings.ContainsAny(path, "*?[")
			if strings.Contains(path, ".loopbreaker") && (hiddenRoot || strings.HasSuffix(path, "/")) && s.with["include-hidden-files"] != "true" {
				t.Errorf("%s: path %q is searched from a hidden folder: upload-artifact skips it (name the file or set include-hidden-files)", w.path, path)
			}
		}
	}
	if uploads < 4 {
		t.Fatalf("found %d upload-artifact steps, want the examples' (at least 4)", uploads)
	}
}

// TestExamplesCheckOutThePullRequestsHead: a pull_request run checks out
// GitHub's test merge commit unless told otherwise; the workflows that run
// loopbreaker or make its evidence name the head. (CI that tests the merge
// result does so on purpose.)
func TestExamplesCheckOutThePullRequestsHead(t *testing.T) {
	t.Parallel()
	for _, w := range workflows(t) {
		if !w.on["pull_request"] || !strings.Contains(w.text, "loopbreaker") || strings.HasSuffix(w.path, "ci.yml") {
			continue
		}
		for _, s := range w.steps {
			if strings.HasPrefix(s.uses, "actions/checkout@") && !strings.Contains(s.with["ref"], "github.event.pull_request.head.sha") {
				t.Errorf("%s: a pull_request checkout without ref: github.event.pull_request.head.sha gets the test merge commit", w.path)
			}
		}
	}
}

// examples reads the example workflows.
func examples(t *testing.T) []*workflow {
	t.Helper()
	paths, _ := filepath.Glob("../../examples/*.yml")
	if len(paths) < 6 {
		t.Fatalf("found %d examples: the path is broken", len(paths))
	}
	var out []*workflow
	for _, p := range paths {
		out = append(out, readWorkflow(t, p))
	}
	return append(out, readmeWorkflows(t)...)
}

// readmeWorkflows are the workflows of the README's yaml blocks: the
// copy-paste start must keep the agent apart from its judge as the examples
// do.
func readmeWorkflows(t *testing.T) []*workflow {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```yaml\n(.*?)^```$").FindAllSubmatch(data, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md: no yaml block, the Action's copy-paste start is missing")
	}
	var out []*workflow
	for i, b := range blocks {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("README-block-%d.yml", i+1))
		if err := os.WriteFile(path, b[1], 0o600); err != nil {
			t.Fatal(err)
		}
		out = append(out, readWorkflow(t, path))
	}
	return out
}

// judges reports whether a job runs loopbreaker as the judge: the action's
// check (the default mode) or audit, never the gate, or the command line
// (an organisation's audit), and no agent.
func judges(j *wfJob) bool {
	for _, s := range j.steps {
		if usesLoopbreaker(s) && s.with["mode"] != "gate" || cliRun.MatchString(s.run) {
			return true
		}
	}
	return false
}

// cliRun matches a step that runs the loopbreaker command line.
var cliRun = regexp.MustCompile(`(?m)^\s*(matrix=\$\()?loopbreaker (audit|discover|org-report)\b`)

// dispatchOnly reports whether a job only starts the next run: no
// checkout, and every step a `gh workflow run`.
func dispatchOnly(j *wfJob) bool {
	for _, s := range j.steps {
		if s.uses != "" || !strings.HasPrefix(strings.TrimSpace(s.run), "gh workflow run ") {
			return false
		}
	}
	return len(j.steps) > 0
}

// writes lists the scopes a job may write.
func writes(perms map[string]string) []string {
	var out []string
	for scope, level := range perms {
		if level == "write" {
			out = append(out, scope)
		}
	}
	sort.Strings(out)
	return out
}

// writeToken matches what hands a job a GitHub token or loopbreaker's
// secret: the workflow's token, or a secret named like a token or key of
// GitHub's or loopbreaker's.
var writeToken = regexp.MustCompile(`github\.token|secrets\.GITHUB_TOKEN|secrets\.[A-Z_]*(TOKEN|PAT|LOOPBREAKER|DIGEST)[A-Z_]*`)

// TestAgentAndJudgeApart: in every example the jobs that run the agent's
// or a pull request's code hold no write permission, no token and no
// persisted credentials; only the judge (loopbreaker's check or audit)
// writes, beside a job that does nothing but dispatch the next run. The
// agent loop gates the agent, hands its commits over as a bundle, and the
// judge pushes them. No example runs with write permission on a
// pull_request trigger, whose workflow file and code are the pull
// request's.
func TestAgentAndJudgeApart(t *testing.T) {
	t.Parallel()
	agents := 0
	for _, w := range examples(t) {
		for _, j := range w.jobs {
			judge := judges(j)
			if w.on["pull_request"] && len(writes(j.perms)) > 0 {
				t.Errorf("%s: job %s writes %v on a pull_request run: the pull request's own workflow file and code run there", w.path, j.name, writes(j.perms))
			}
			for _, s := range j.steps {
				if strings.HasPrefix(s.uses, "actions/checkout@") && s.with["persist-credentials"] != "false" {
					t.Errorf("%s: job %s: checkout without persist-credentials: false leaves the token in .git/config", w.path, j.name)
				}
			}
			if judge || dispatchOnly(j) {
				continue
			}
			if got := writes(j.perms); len(got) > 0 {
				t.Errorf("%s: job %s is no judge and writes %v", w.path, j.name, got)
			}
			for _, s := range j.steps {
				for what, m := range map[string]map[string]string{"with": s.with, "env": s.env} {
					for k, v := range m {
						if writeToken.MatchString(v) && !(usesLoopbreaker(s) && k == "digest-key") {
							t.Errorf("%s: job %s hands a token to a step (%s.%s: %s)", w.path, j.name, what, k, v)
						}
					}
				}
				if strings.Contains(s.run, "agent") && !usesLoopbreaker(s) {
					agents++
				}
			}
		}
	}
	if agents == 0 {
		t.Fatal("found no agent step in the examples")
	}

	w := readWorkflow(t, "../../examples/agent-loop.yml")
	jobs := map[string]*wfJob{}
	for _, j := range w.jobs {
		jobs[j.name] = j
	}
	gate, agent, judge := jobs["gate"], jobs["agent"], jobs["judge"]
	if gate == nil || agent == nil || judge == nil {
		t.Fatalf("agent-loop.yml: got jobs %v, want gate, agent and judge", w.jobs)
	}
	if !strings.Contains(agent.cond, "needs.gate.outputs.proceed == 'true'") || !strings.Contains(judge.cond, "needs.gate.outputs.proceed == 'true'") {
		t.Errorf("the agent (if: %s) or the judge (if: %s) starts whatever the gate says", agent.cond, judge.cond)
	}
	if !strings.Contains(gate.cond, "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)") {
		t.Error("the gate starts a dispatched iteration whose workflow file is not the default branch's")
	}
	bundled, pushed, next := false, false, false
	for _, s := range agent.steps {
		bundled = bundled || strings.Contains(s.run, "git bundle create")
		if strings.Contains(s.run, "git push") {
			t.Errorf("the agent's job pushes: %s", s.run)
		}
	}
	cleared := false
	for _, s := range judge.steps {
		if strings.HasPrefix(s.uses, "actions/download-artifact@") {
			// The checkout is the agent's branch: a committed link or
			// stale file at the download's path must be gone first.
			if path := s.with["path"]; !cleared || path != "handover" {
				t.Errorf("the judge downloads the handover into %q without clearing it first (a committed link there redirects the download)", path)
			}
		}
		if usesLoopbreaker(s) && !strings.Contains(strings.Join(runs(judge), "\n"), "rm -rf handover .loopbreaker") {
			// The upload step runs even when this one fails: a record
			// file the agent committed would become the run's record.
			t.Error("the judge does not clear the record path the agent's branch may hold before the breaker runs")
		}
		cleared = cleared || strings.Contains(s.run, "rm -rf handover")
		pushed = pushed || usesLoopbreaker(s) && s.with["bundle"] != ""
		next = next || strings.Contains(s.run, "gh workflow run")
	}
	if !bundled || !pushed || !next {
		t.Errorf("the agent bundles its commits: %v; the judge pushes them: %v; the judge starts the next run: %v", bundled, pushed, next)
	}
	if !strings.Contains(w.text, "if: steps.breaker.outputs.allow-continue == 'true'") {
		t.Error("the next run starts whatever the breaker says")
	}
	if !grants(judge.perms, "contents", "write") || !grants(judge.perms, "actions", "write") {
		t.Errorf("the judge has %v, want contents: write (the push) and actions: write (the next run)", judge.perms)
	}
	for _, trigger := range []string{"issue_comment", "pull_request_target"} {
		if !w.on[trigger] {
			t.Errorf("agent-loop.yml: no %s trigger: a person's resume cannot restart the loop", trigger)
		}
	}

	check := readWorkflow(t, "../../examples/pr-status-check.yml")
	if !check.on["pull_request_target"] || check.on["pull_request"] || check.on["merge_group"] {
		t.Errorf("pr-status-check.yml: got triggers %v, want pull_request_target, neither pull_request nor merge_group (their runs use the pull request's workflow files)", check.on)
	}
}

// TestNoWorkflowTheAgentWroteHoldsAKey: a merge_group run uses the merge
// group's commit and a pull_request run the merge ref, so the workflow
// files a pull request changed run there: no job of a workflow on those
// triggers writes or holds the digest key or a token. A
// pull_request_target run uses the base branch's file, and must not check
// out or run the pull request's code beside its write token or key. Every
// next iteration is dispatched on the default branch with the loop's branch
// as an input (a dispatch on the loop's branch would run its workflow file).
func TestNoWorkflowTheAgentWroteHoldsAKey(t *testing.T) {
	t.Parallel()
	dispatches := 0
	for _, w := range append(examples(t), readWorkflow(t, "../../testdata/e2e/loop.yml")) {
		for _, j := range w.jobs {
			privileged := len(writes(j.perms)) > 0
			for _, st := range j.steps {
				for _, v := range st.with {
					privileged = privileged || writeToken.MatchString(v)
				}
				for _, v := range st.env {
					privileged = privileged || writeToken.MatchString(v)
				}
			}
			if privileged && (w.on["merge_group"] || w.on["pull_request"]) {
				t.Errorf("%s: job %s holds a write permission, a token or the key in a run of the pull request's own workflow file", w.path, j.name)
			}
			for _, st := range j.steps {
				if privileged && w.on["pull_request_target"] && (strings.Contains(st.with["ref"], "pull_request.head") || st.uses == "./") {
					t.Errorf("%s: job %s runs or checks out the pull request's code beside its write token or key", w.path, j.name)
				}
				if !strings.Contains(st.run, "gh workflow run") && !strings.Contains(st.run, "/dispatches") {
					continue
				}
				dispatches++
				onDefault := strings.Contains(st.env["DEFAULT_BRANCH"]+st.run, "github.event.repository.default_branch")
				if !onDefault || !strings.Contains(st.run, "branch=") && !strings.Contains(st.run, `"branch":`) {
					t.Errorf("%s: job %s dispatches the next run elsewhere than on the default branch with the loop's branch as an input:\n%s", w.path, j.name, st.run)
				}
			}
		}
	}
	if dispatches < 3 {
		t.Errorf("found %d dispatches of the next iteration, want the example's, the README's and the end-to-end loop's", dispatches)
	}
}

// TestEveryControlEventHasItsOwnConcurrencyGroup: GitHub keeps one running
// and one pending run per concurrency group and cancels the older pending
// one; every comment or label event starts a run, related or not. In the
// workflows that take people's controls, a control event's run is in a
// group of its own (the run id), so that an unrelated comment cannot
// cancel a pending /loopbreaker resume. The judge and the uploads run on
// !cancelled(): always() runs in a cancelled run too, which would push and
// dispatch.
func TestEveryControlEventHasItsOwnConcurrencyGroup(t *testing.T) {
	t.Parallel()
	for _, ex := range []string{"agent-loop.yml", "pr-status-check.yml"} {
		w := readWorkflow(t, "../../examples/"+ex)
		group := regexp.MustCompile(`(?m)^  group: (.*)$`).FindStringSubmatch(w.text)
		if group == nil || !strings.Contains(group[1], "github.run_id") || !strings.Contains(group[1], "control") {
			t.Errorf("%s: a control event's run shares a concurrency group (%v), where another comment's run replaces it while it is pending", ex, group)
		}
	}
	for _, w := range append(examples(t), readWorkflow(t, "../../testdata/e2e/loop.yml")) {
		if regexp.MustCompile(`(?m)^\s*(- )?if:.*always\(\)`).MatchString(w.text) {
			t.Errorf("%s: always() runs even when the run is cancelled; use !cancelled()", w.path)
		}
	}
}

// TestReleaseIsMultiArchAndMovesTheMajorTag: the release builds the image
// for linux/amd64 and linux/arm64 with the source label that links the
// GHCR package to the repository, moves v1 to each release, and the
// composite variant has binaries for Linux and macOS on both
// architectures and Windows.
func TestReleaseIsMultiArchAndMovesTheMajorTag(t *testing.T) {
	t.Parallel()
	read := func(p string) string { return repoFile(t, p) }
	release, dockerfile, composite, doc := read(".github/workflows/release.yml"), read("Dockerfile"), read("dockerless/action.yml"), read("docs/action.md")
	for what, want := range map[string][]string{
		"release.yml":           {"--platform linux/amd64,linux/arm64", "org.opencontainers.image.source=", `major="${TAG%%.*}"`, `git push -f origin "refs/tags/$major"`},
		"Dockerfile":            {"FROM --platform=$BUILDPLATFORM", "GOARCH=$TARGETARCH", "LABEL org.opencontainers.image.source="},
		"dockerless/action.yml": {"loopbreaker_linux_amd64", "loopbreaker_linux_arm64", "loopbreaker_darwin_amd64", "loopbreaker_darwin_arm64", "loopbreaker_windows_amd64.exe", "shasum -a 256"},
		"docs/action.md":        {"Change visibility", "Public", "dockerless@v1"},
	} {
		text := map[string]string{"release.yml": release, "Dockerfile": dockerfile, "dockerless/action.yml": composite, "docs/action.md": doc}[what]
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q", what, w)
			}
		}
	}
	for _, target := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"} {
		if !strings.Contains(release, target) {
			t.Errorf("the release builds no %s binary", target)
		}
	}
}

// TestReleasePinsByDigest: every base image of the Dockerfile, and the
// frontend of a syntax line if it had one, is named by digest; the release names the image in the tagged action.yml by the
// digest it built (its rewrite, applied here, gives a docker://…@sha256:
// reference); the action.yml of a branch builds the Dockerfile.
func TestReleasePinsByDigest(t *testing.T) {
	t.Parallel()
	read := func(p string) string { return repoFile(t, p) }
	pinned := regexp.MustCompile(`@sha256:[0-9a-f]{64}(\s|$)`)
	froms := 0
	for _, line := range strings.Split(read("Dockerfile"), "\n") {
		if !strings.HasPrefix(line, "FROM ") {
			continue
		}
		froms++
		if !pinned.MatchString(line) {
			t.Errorf("Dockerfile: %q names its image by a tag that can move, not by digest", line)
		}
	}
	if froms < 2 {
		t.Fatalf("read %d FROM lines, want the build and final stages", froms)
	}
	// A "# syntax=" parser directive pulls its frontend image at build time.
	if m := regexp.MustCompile(`(?mi)^#\s*syntax\s*=\s*(\S+)`).FindStringSubmatch(read("Dockerfile")); m != nil && !pinned.MatchString(m[1]) {
		t.Errorf("Dockerfile: the syntax line names %s, a frontend image by a tag that can move", m[1])
	}
	action := read("action.yml")
	if !strings.Contains(action, "\n  image: Dockerfile\n") {
		t.Fatal("action.yml does not build the Dockerfile")
	}
	release := read(".github/workflows/release.yml")
	rewrite := regexp.MustCompile(`sed -i "s\|\^  image: Dockerfile\$\|  image: docker://\$\{IMAGE\}\|" action.yml`)
	if !rewrite.MatchString(release) || !strings.Contains(release, `echo "image=$image@$digest" >> "$GITHUB_OUTPUT"`) ||
		!strings.Contains(release, `."containerimage.digest"`) {
		t.Fatal("the release does not name the image in action.yml by the digest it built")
	}
	image := "ghcr.io/loopbreaker/loopbreaker@sha256:" + strings.Repeat("ab", 32)
	tagged := strings.Replace(action, "\n  image: Dockerfile\n", "\n  image: docker://"+image+"\n", 1)
	if !regexp.MustCompile(`(?m)^  image: docker://ghcr\.io/[^:@ ]+@sha256:[0-9a-f]{64}$`).MatchString(tagged) {
		t.Error("the tagged action.yml does not name the image by digest")
	}
}

// TestCompositeRunsItsOwnRelease: the composite variant downloads the
// release it was used at (the tag of uses: …/dockerless@v1.2.3) by
// default; building with the runner's Go happens only when asked for.
func TestCompositeRunsItsOwnRelease(t *testing.T) {
	t.Parallel()
	var meta struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	data, err := os.ReadFile("../../dockerless/action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if d := meta.Inputs["version"].Default; d != "" {
		t.Errorf("the version input defaults to %q, want empty (the release the action was used at)", d)
	}
	install := meta.Runs.Steps[0]
	if install.Env["ACTION_REF"] != "${{ github.action_ref }}" || !strings.Contains(install.Run, `VERSION="$ACTION_REF"`) {
		t.Errorf("the install step does not take the release from the action's ref:\n%s", install.Run)
	}
	if !strings.Contains(install.Run, `if [ "$VERSION" = source ]; then`) {
		t.Error("the build with the runner's Go is not limited to version: source")
	}
	for _, s := range meta.Runs.Steps {
		if strings.Contains(s.Run, "GITHUB_ENV") {
			t.Errorf("a step writes $GITHUB_ENV, which later steps of the job read:\n%s", s.Run)
		}
	}
}

// repoFile is the text of a file of the repository, by its path from the
// root.
func repoFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", p))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runs is the text of a job's run steps.
func runs(j *wfJob) []string {
	var out []string
	for _, s := range j.steps {
		out = append(out, s.run)
	}
	return out
}

// TestPinsNameCommitsOfThisRepository: no release tag exists, so
// uses: loopbreaker/loopbreaker@v1 fails at the job's set-up. Every pin of
// loopbreaker in the examples, the README and the documentation's
// workflows names a full commit of this repository's history (the
// comment beside it says how to move to the tag). Skipped in a shallow
// clone, whose history is cut.
func TestPinsNameCommitsOfThisRepository(t *testing.T) {
	t.Parallel()
	cl, err := checkout.Open("../..")
	if err != nil {
		t.Skipf("the repository is not a git clone here: %v", err)
	}
	defer cl.Close()
	if cl.Shallow() {
		t.Skip("the clone is shallow: the pins cannot be checked against the history (fetch it whole: git fetch --unshallow)")
	}
	head, err := cl.Head()
	if err != nil {
		t.Fatal(err)
	}
	history := cl.Ancestors(head)
	if history == nil {
		t.Fatalf("the history of %s could not be walked", head)
	}
	pin := regexp.MustCompile(`(?m)^\s*(?:(?:-\s+)?uses:\s*loopbreaker/loopbreaker(?:/dockerless)?@|LOOPBREAKER_REF:\s*)(\S+)`)
	files, _ := filepath.Glob("../../examples/*.yml")
	docs, _ := filepath.Glob("../../docs/*.md")
	pins := 0
	for _, f := range append(append(files, "../../README.md"), docs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pin.FindAllStringSubmatch(string(data), -1) {
			pins++
			ref := m[1]
			switch {
			case !fullHash.MatchString(ref):
				t.Errorf("%s: loopbreaker is pinned at %q, not a commit (no release tag exists)", f, ref)
			case !history[ref]:
				t.Errorf("%s: loopbreaker is pinned at %s, which is not in this repository's history", f, ref)
			}
		}
	}
	if pins < 8 {
		t.Errorf("found %d pins of loopbreaker, want every example's, the README's and the docs'", pins)
	}
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}$`)
