package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// workflow is what the line reader takes from a workflow file: its
// triggers, its permissions (a job's own block replaces the workflow's, as
// on GitHub) and its steps.
type workflow struct {
	path  string
	on    map[string]bool
	perms map[string]string
	steps []wfStep
	text  string
}

// wfStep is a step: the action it uses (or "" for a run step), its script
// and its with: inputs.
type wfStep struct {
	uses, run string
	with      map[string]string
}

// readWorkflow reads the two-space-indented YAML of a workflow line by
// line: enough for this repository's workflows, not a YAML parser.
func readWorkflow(t *testing.T, path string) *workflow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := &workflow{path: path, on: map[string]bool{}, text: string(data)}
	var top string
	var jobPerms map[string]string
	inPerms, inWith, inRun := false, false, false
	stepIndent := -1
	for _, l := range yamlLines(t, path) {
		indent, trimmed, key := l.indent, l.trimmed, l.key
		value := unquote(strings.TrimSpace(stripComment(l.value)))
		if inRun && indent > stepIndent+2 {
			w.steps[len(w.steps)-1].run += trimmed + "\n"
			continue
		}
		inRun = false
		switch {
		case indent == 0:
			top, inPerms = key, key == "permissions"
			if key == "on" && value != "" {
				for _, ev := range strings.FieldsFunc(value, func(r rune) bool { return strings.ContainsRune("[], ", r) }) {
					w.on[ev] = true
				}
			}
			if inPerms {
				w.perms = map[string]string{}
			}
		case top == "on" && indent == 2:
			w.on[key] = true
		case inPerms && indent == 2 && top == "permissions":
			w.perms[key] = value
		case top == "jobs" && indent == 2:
			inPerms = false
		case top == "jobs" && indent == 4:
			inPerms = key == "permissions"
			if inPerms {
				jobPerms = map[string]string{}
			}
		case top == "jobs" && indent == 6 && inPerms && jobPerms != nil:
			jobPerms[key] = value
		case top == "jobs" && strings.HasPrefix(trimmed, "- ") && (stepIndent < 0 || indent == stepIndent):
			stepIndent, inWith = indent, false
			w.steps = append(w.steps, wfStep{with: map[string]string{}})
			fallthrough
		case stepIndent >= 0 && indent == stepIndent+2:
			s := &w.steps[len(w.steps)-1]
			switch key {
			case "uses":
				s.uses = value
			case "run":
				s.run, inRun = value, value == "|" || value == ">"
				if inRun {
					s.run = ""
				}
			}
			inWith = key == "with"
		case inWith && indent == stepIndent+4:
			w.steps[len(w.steps)-1].with[key] = value
		}
	}
	if jobPerms != nil {
		w.perms = jobPerms
	}
	return w
}

func stripComment(v string) string {
	if i := strings.Index(v, " #"); i >= 0 {
		return v[:i]
	}
	return v
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
		for _, s := range w.steps {
			if !usesLoopbreaker(s) || strings.Contains(s.with["token"], "secrets.") || s.with["dry-run"] == "true" {
				continue
			}
			checked++
			need := map[string]string{"pull-requests": "write", "issues": "write"}
			if s.with["use-artifact"] != "false" {
				need["actions"] = "read"
			}
			if s.with["mode"] != "audit" {
				switch s.with["status"] {
				case "", "status":
					need["statuses"] = "write"
				case "check-run":
					need["checks"] = "write"
				}
			}
			for scope, level := range need {
				if !grants(w.perms, scope, level) {
					t.Errorf("%s: the loopbreaker step needs %s: %s, the workflow grants %q", w.path, scope, level, w.perms[scope])
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

// TestAgentLoopExampleRunsOnTheLoopsBranch: a scheduled run is on the
// default branch, where the loop has no iterations; the example runs on
// the loop's branch, pushes the agent's commits, and starts the next run
// only while the breaker allows it.
func TestAgentLoopExampleRunsOnTheLoopsBranch(t *testing.T) {
	t.Parallel()
	w := readWorkflow(t, "../../examples/agent-loop.yml")
	if w.on["schedule"] || !w.on["workflow_dispatch"] {
		t.Errorf("got triggers %v, want workflow_dispatch and no schedule", w.on)
	}
	if !strings.Contains(w.text, "github.ref != format('refs/heads/{0}', github.event.repository.default_branch)") {
		t.Error("the job does not refuse to run on the default branch")
	}
	pushed, next := false, false
	for _, s := range w.steps {
		if strings.HasPrefix(s.uses, "actions/checkout@") && s.with["ref"] != "${{ github.ref }}" {
			t.Errorf("the checkout's ref is %q, want the loop's branch", s.with["ref"])
		}
		if strings.Contains(s.run, "git push origin") {
			pushed = true
		}
		if strings.Contains(s.run, "gh workflow run") {
			next = true
		}
	}
	if !pushed || !next {
		t.Errorf("pushes the agent's work: %v; starts the next run: %v", pushed, next)
	}
	if !strings.Contains(w.text, "if: steps.breaker.outputs.allow-continue == 'true'") {
		t.Error("the next run starts whatever the breaker says")
	}
	if !grants(w.perms, "contents", "write") || !grants(w.perms, "actions", "write") {
		t.Errorf("got permissions %v, want contents: write (push) and actions: write (the next run)", w.perms)
	}
}

// TestReleaseIsMultiArchAndMovesTheMajorTag: the release builds the image
// for linux/amd64 and linux/arm64 with the source label that links the
// GHCR package to the repository, moves v1 to each release, and the
// composite variant has binaries for Linux and macOS on both
// architectures and Windows.
func TestReleaseIsMultiArchAndMovesTheMajorTag(t *testing.T) {
	t.Parallel()
	read := func(p string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
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
