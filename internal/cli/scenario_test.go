package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"
	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/evidence/signature"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// The scenario corpus: loops built as real repositories, commit by commit,
// each run through `replay` and `check` in-process. The decision stream is
// compared with testdata/scenarios/NAME.golden (regenerate with
// go test ./internal/cli -run TestScenarios -update-scenarios) and the final
// decision with the expectation written from the documented behaviour in
// the table, so that
// a regenerated golden cannot drift silently.

var updateScenarios = flag.Bool("update-scenarios", false, "rewrite testdata/scenarios/*.golden from the current behaviour")

// scnStart is the time of a loop's first iteration; base commits come
// before it, and each later commit or run is 10 minutes after the one
// before unless a scenario says otherwise.
var scnStart = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

const scnGap = 10 * time.Minute

// scnStep is one commit: files written, removed and renamed, and the
// message. "{{c2}}" in the message is replaced by the hash of commit c2.
type scnStep struct {
	write  map[string]string
	remove []string
	rename map[string]string // old path → new path
	msg    string
	gap    time.Duration // time since the previous commit; 0 means 10 minutes
}

// scnRun is one ledger record: a workflow run, with or without a commit.
type scnRun struct {
	commit     *scnStep // nil: the run made no commit
	tests      *ledger.Tests
	errors     []string // error texts; hashed as the evidence readers do
	output     int      // agent output lines (0: none measured)
	denials    int
	completion bool
	questions  bool
	phase      string // the record's phase ("" for none)
}

// scnWant is the expectation, written from the documented behaviour.
type scnWant struct {
	exit      int    // of both replay and check
	iteration int    // the final decision's iteration number
	state     string // the final state
	trigger   string // the final trigger ("" for none)
	states    string // the whole stream, one letter per decision: C, H, O ("" to skip)
	progress  string // progress per decision: y or n ("" to skip)
	ignored   int    // the final ignored_open
	warning   string // a substring of one of the final decision's warnings ("" to skip)
	stderr    string // a substring of replay's stderr ("" to skip)
}

type scenario struct {
	name   string
	about  string
	policy string // built-in policy name ("" is default)
	// policyTOML, when set, is written to a file outside the repository
	// and passed as --policy.
	policyTOML string
	profile    string
	flags      []string
	base       []*scnStep // commits on main before the loop (nil: withBase(nil))
	loop       []*scnStep // the loop's commits on the loop branch
	// runs make the scenario a ledger scenario: each is a record in
	// --ledger; check adds HEAD (after head, when set) as the newest
	// iteration.
	runs []scnRun
	head *scnStep
	// headLog and headReports are the newest iteration's agent log and
	// JUnit reports (file name → content).
	headLog     string
	headReports map[string]string
	// build replaces the standard repository; it returns the extra
	// arguments (such as --base) and may set a custom clock.
	build func(t *testing.T, r *scnRepo, sc *scenario) []string
	env   map[string]string // the environment Main sees
	want  scnWant
	// spec is set where the current behaviour departs from the documented
	// one: want then pins the current behaviour, spec holds what is asked for,
	// and issue says why. Once the behaviour matches spec the test fails,
	// so that the scenario is moved over (want = spec) and issue dropped.
	spec  *scnWant
	issue string
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, sc := range scenarios() {
		if seen[sc.name] {
			t.Fatalf("scenario %s is defined twice", sc.name)
		}
		seen[sc.name] = true
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, sc)
		})
	}
	if *updateScenarios {
		return
	}
	// Every golden file belongs to a scenario.
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".golden"); !seen[name] {
			t.Errorf("golden file %s has no scenario", f)
		}
	}
}

func TestScenarioCorpusSize(t *testing.T) {
	t.Parallel()
	if n := len(scenarios()); n < 30 {
		t.Errorf("got %d scenarios, want at least 30", n)
	}
}

// ---------------------------------------------------------------------
// The corpus.

func scenarios() []scenario {
	phaseMsg := func(subject, phase string) string { return subject + "\n\nLoop-Phase: " + phase + "\n" }
	progressMsg := func(subject string, p int) string {
		return fmt.Sprintf("%s\n\nLoop-Progress: %d%%\n", subject, p)
	}
	failing := junit(8, 2)
	return append([]scenario{
		// --- progress and stagnation -------------------------------------
		{
			name:  "steady-progress",
			about: "every iteration adds real code",
			loop:  []*scnStep{code(1), code(2), code(3), code(4), code(5), code(6)},
			want:  scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCCCCC"},
		},
		{
			name:  "no-commits",
			about: "HEAD is the base: no iteration yet, a fresh CLOSED breaker and a note",
			want:  scnWant{exit: 0, iteration: 0, state: "CLOSED", states: "C", stderr: "no iterations"},
		},
		{
			name:  "no-commits-ledger",
			about: "runs that made no commit are iterations all the same: the stagnant case",
			runs:  []scnRun{{}, {}},
			want:  scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "no_progress", states: "CHO"},
		},
		{
			name:  "empty-commits",
			about: "one change, then empty commits: HALF_OPEN at 2, OPEN at 3",
			loop:  []*scnStep{code(1), empty("chore: retry"), empty("chore: retry"), empty("chore: retry")},
			want:  scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO"},
		},
		{
			name:  "whitespace-only",
			about: "re-indenting and trailing blanks are not meaningful changes",
			loop: []*scnStep{
				code(1),
				edit("internal/app/step01.go", strings.ReplaceAll(codeText(1), "\t", "    "), "style: indent with spaces"),
				edit("internal/app/step01.go", strings.ReplaceAll(codeText(1), "\t", "    ")+"\n\n", "style: blank lines"),
				edit("internal/app/step01.go", strings.ReplaceAll(codeText(1), "\n", "  \n"), "style: trailing blanks"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO"},
		},
		{
			name:  "lock-file-only",
			about: "lock files are in ignore_paths: changing only them is no progress",
			loop: []*scnStep{
				code(1),
				edit("go.sum", "example.com/dep v1.0.0 h1:aaa=\n", "deps: tidy"),
				edit("package-lock.json", "{\"lockfileVersion\": 3}\n", "deps: npm install"),
				edit("go.sum", "example.com/dep v1.0.1 h1:bbb=\n", "deps: bump").with("package-lock.json", "{\"lockfileVersion\": 3, \"x\": 1}\n"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO"},
		},
		{
			name:  "generated-only",
			about: "files with a \"Code generated ... DO NOT EDIT.\" header are never meaningful",
			loop: []*scnStep{
				code(1),
				edit("internal/gen/api.pb.go", generated(1), "gen: regenerate"),
				edit("internal/gen/api.pb.go", generated(2), "gen: regenerate"),
				edit("internal/gen/api.pb.go", generated(3), "gen: regenerate"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO"},
		},
		{
			name:  "slow-real-progress",
			about: "one small real change every two hours, reported percentage rising by 4: never trips, warns from iteration 8",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 12; i++ {
					st := edit("internal/app/parser.go", lines("parse", i), progressMsg(fmt.Sprintf("parser: handle case %d", i), 4*i))
					if i > 1 {
						st.gap = 2 * time.Hour
					}
					s = append(s, st)
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 12, state: "CLOSED", states: "CCCCCCCCCCCC", warning: "warning: iteration 12 of at most 20"},
		},
		{
			name:  "percent-stalls",
			about: "files change but the reported percentage rises by less than stagnation_percent: no progress",
			loop: []*scnStep{
				code(1).msgf(progressMsg("feat: step 1", 40)),
				code(2).msgf(progressMsg("feat: step 2", 41)),
				code(3).msgf(progressMsg("feat: step 3", 42)),
				code(4).msgf(progressMsg("feat: step 4", 42)),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO"},
		},
		{
			name:  "recovery-from-half-open",
			about: "HALF_OPEN after two empty commits, progress closes it and resets the counter",
			loop:  []*scnStep{code(1), empty("wip"), empty("wip"), code(2), empty("wip"), code(3)},
			want:  scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCHCHC", progress: "ynnyny"},
		},
		{
			name:  "dry-run",
			about: "--dry-run: the stagnant loop is OPEN (\"would open\") but the exit code lets it continue",
			flags: []string{"--dry-run"},
			loop:  []*scnStep{code(1), empty("chore: retry"), empty("chore: retry"), empty("chore: retry")},
			want:  scnWant{exit: 0, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO"},
		},
		{
			name:  "profile-from-environment",
			about: "LOOPBREAKER_PROFILE=simple_script under default: HALF_OPEN after 1, OPEN after 2",
			env:   map[string]string{"LOOPBREAKER_PROFILE": "simple_script"},
			loop:  []*scnStep{code(1), empty("wip"), empty("wip")},
			want:  scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "no_progress", states: "CHO"},
		},
		{
			name:  "max-iterations",
			about: "progress every time, but iteration 20 reaches max_iterations; warnings from 8, critical from 15; 21 ran while OPEN",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 21; i++ {
					s = append(s, code(i))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 21, state: "OPEN", trigger: "max_iterations", states: "CCCCCCCCCCCCCCCCCCCOO", ignored: 1},
		},

		// --- oscillation and reverts ------------------------------------
		{
			name:  "oscillation-abab",
			about: "the agent alternates between two versions: the second return trips circular (2 in 6)",
			loop: []*scnStep{
				edit("internal/app/config.go", configText("A"), "config: approach A"),
				edit("internal/app/config.go", configText("B"), "config: approach B"),
				edit("internal/app/config.go", configText("A"), "config: back to A"),
				edit("internal/app/config.go", configText("B"), "config: back to B"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "circular", states: "CCHO"},
		},
		{
			name:  "oscillation-abcabc",
			about: "three approaches in a cycle: circular at the second return, the sixth iteration runs while OPEN",
			loop: []*scnStep{
				edit("internal/app/config.go", configText("A"), "config: approach A"),
				edit("internal/app/config.go", configText("B"), "config: approach B"),
				edit("internal/app/config.go", configText("C"), "config: approach C"),
				edit("internal/app/config.go", configText("A"), "config: back to A"),
				edit("internal/app/config.go", configText("B"), "config: back to B"),
				edit("internal/app/config.go", configText("C"), "config: back to C"),
			},
			want: scnWant{exit: 1, iteration: 6, state: "OPEN", trigger: "circular", states: "CCCHOO", ignored: 1},
		},
		{
			name:  "revert",
			about: "a revert restores an earlier tree: no progress, -1 on top of -3; new work closes the circuit again",
			loop: []*scnStep{
				code(1), code(2),
				revertOf(2),
				code(3), code(4),
			},
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCHCC"},
		},
		{
			name:  "revert-to-base",
			about: "reverting the loop's only change restores the base tree, an earlier tree",
			loop: []*scnStep{
				code(1), revertOf(1), empty("wip"), empty("wip"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", progress: "ynnn"},
		},

		// --- tests and tasks --------------------------------------------
		{
			name: "test-only-churn",
			about: "after one real change only the same test file's expectations are rewritten, again and again: test_only " +
				"trips when the window is all existing tests edited",
			loop: []*scnStep{
				edit("internal/app/calc.go", lines("calc", 10), "feat: calculator").with("internal/app/calc_test.go", lines("test", 12)),
				edit("internal/app/calc_test.go", lines("want", 12), "test: fix expectations"),
				edit("internal/app/calc_test.go", lines("expect", 12), "test: fix expectations"),
				edit("internal/app/calc_test.go", lines("assert", 12), "test: fix expectations"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "test_only", states: "CCCO"},
		},
		{
			name:  "fix-plan-ticking",
			about: "each iteration ticks a task in fix_plan.md and changes code: +5 per task, +1 per file",
			base:  withBase(map[string]string{"fix_plan.md": plan(0, 5)}),
			loop: []*scnStep{
				code(1).with("fix_plan.md", plan(1, 5)),
				code(2).with("fix_plan.md", plan(2, 5)),
				code(3).with("fix_plan.md", plan(3, 5)),
				code(4).with("fix_plan.md", plan(4, 5)),
			},
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC"},
		},
		{
			name: "task-list-only",
			about: "only .ralph/@fix_plan.md changes (an ignored path): ticking boxes with no work done is bookkeeping, not progress " +
				"(before ticks needed work: CCCHC, yynny)",
			base: withBase(map[string]string{".ralph/@fix_plan.md": plan(0, 5)}),
			loop: taskOnlyLoop(true),
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CHOOO", progress: "nnnnn", ignored: 2},
		},
		{
			name: "task-list-untick-retick",
			about: "with ticks credited on their own, unticking and re-ticking with nothing else changed is no progress and, being " +
				"no meaningful change, not an alternation of approaches either; a tick above the high-water mark is progress again",
			policyTOML: ticksAlone,
			base:       withBase(map[string]string{".ralph/@fix_plan.md": plan(0, 5)}),
			loop:       taskOnlyLoop(false),
			want:       scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCHC", progress: "yynny"},
		},
		{
			name: "ledger-task-ticking",
			about: "with ticks credited on their own, ledger runs that only tick tasks: the first tick counts against the base's " +
				"count, as from git",
			policyTOML: ticksAlone,
			base:       withBase(map[string]string{"fix_plan.md": plan(0, 4)}),
			runs: []scnRun{
				{commit: edit("fix_plan.md", plan(1, 4), "plan: task 1 done")},
				{commit: edit("fix_plan.md", plan(2, 4), "plan: task 2 done")},
			},
			head: edit("fix_plan.md", plan(3, 4), "plan: task 3 done"),
			want: scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyy"},
		},
		{
			name:   "task-list-only-ralph",
			about:  "ralph's false positive: the same task-list progress under ralph (files or claims only) opens",
			policy: "ralph",
			base:   withBase(map[string]string{".ralph/@fix_plan.md": plan(0, 5)}),
			loop:   taskOnlyLoop(true),
			want:   scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CHOOO", ignored: 2},
		},
		{
			name:   "ralph-work-committed",
			about:  "ralph's false positive: work committed inside the loop (and ralph's own state) is seen from git",
			policy: "ralph",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 6; i++ {
					s = append(s, code(i).with(".ralph/status.json", fmt.Sprintf("{\"loop\": %d}\n", i)))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCCCCC"},
		},
		{
			name:        "completion-claim-git",
			about:       "commits claim completion while tasks remain, then while tests fail: completion_claim warns (default)",
			base:        withBase(map[string]string{"fix_plan.md": plan(1, 3)}),
			loop:        []*scnStep{code(1), code(2).msgf("Implementation complete"), code(3).msgf("All tasks complete")},
			headReports: map[string]string{"junit.xml": failing},
			want:        scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", warning: "claims completion while 2 tests fail"},
		},

		// --- protected paths --------------------------------------------
		{
			name:  "protected-path-deleted",
			about: "deleting AGENTS.md trips protected_path at once, from CLOSED",
			loop:  []*scnStep{code(1), code(2).del("AGENTS.md"), code(3)},
			want:  scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "protected_path", states: "COO", ignored: 1},
		},
		{
			name:  "protected-renamed-away",
			about: "renaming .github/workflows/ci.yml out of .github/workflows/ deletes a protected path",
			loop:  []*scnStep{{rename: map[string]string{".github/workflows/ci.yml": "ci/ci.yml"}, msg: "ci: move the workflow"}},
			want:  scnWant{exit: 1, iteration: 1, state: "OPEN", trigger: "protected_path", states: "O"},
		},
		{
			name:  "workflow-edited",
			about: "editing .github/workflows/ci.yml warns under protected_mode delete; the code change is progress",
			loop:  []*scnStep{code(1), code(2).with(".github/workflows/ci.yml", "on: push\njobs: {}\n"), code(3)},
			want:  scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC"},
		},
		{
			name:   "workflow-edited-strict",
			about:  "the same edit under strict (protected_mode deny) opens",
			policy: "strict",
			loop:   []*scnStep{code(1), code(2).with(".github/workflows/ci.yml", "on: push\njobs: {}\n"), code(3)},
			want:   scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "protected_path", states: "COO", ignored: 1},
		},

		// --- cooldowns and probes ---------------------------------------
		{
			name:   "cooldown-probe-recovers",
			about:  "ralph: OPEN at +30m with a 30m cooldown; runs before +60m are ignored, the +60m probe makes progress and closes",
			policy: "ralph",
			loop:   []*scnStep{code(1), empty("wip"), empty("wip"), empty("wip"), empty("wip"), empty("wip"), code(2), code(3)},
			want:   scnWant{exit: 0, iteration: 8, state: "CLOSED", states: "CCHOOOCC", ignored: 2},
		},
		{
			name:   "strict-probe-fails",
			about:  "strict: a negative score window opens; the probe at +50m makes no progress and doubles the cooldown",
			policy: "strict",
			loop:   []*scnStep{code(1), empty("wip"), empty("wip"), empty("wip"), empty("wip"), empty("wip"), empty("wip")},
			want:   scnWant{exit: 1, iteration: 7, state: "OPEN", trigger: "no_progress", states: "CCOOOOO", ignored: 3},
		},

		// --- phases and profiles ----------------------------------------
		{
			name:   "tdd-cycle",
			about:  "tdd: RED adds tests, GREEN makes them pass, REFACTOR keeps them green, DOCUMENT changes docs",
			policy: "tdd",
			runs: []scnRun{
				{commit: edit("internal/app/calc_test.go", lines("test", 12), phaseMsg("test: cases for Add", "RED")), tests: &ledger.Tests{Passed: 10}},
				{commit: edit("internal/app/calc_test.go", lines("test", 24), phaseMsg("test: cases for Sub", "RED")), tests: &ledger.Tests{Passed: 10, Failed: 2, Failing: []string{"TestAdd", "TestSub"}}},
				{commit: edit("internal/app/calc.go", lines("add", 6), phaseMsg("feat: Add", "GREEN")), tests: &ledger.Tests{Passed: 11, Failed: 1, Failing: []string{"TestSub"}}},
				{commit: edit("internal/app/calc.go", lines("add", 12), phaseMsg("feat: Sub", "GREEN")), tests: &ledger.Tests{Passed: 12}},
				{commit: edit("internal/app/calc.go", lines("calc", 12), phaseMsg("refactor: share the loop", "REFACTOR")), tests: &ledger.Tests{Passed: 12}},
			},
			head:        edit("README.md", "# app\n\nAdd and Sub.\n", phaseMsg("docs: calculator", "DOCUMENT")),
			headReports: map[string]string{"junit.xml": junit(12, 0)},
			want:        scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCCCCC", progress: "yyyyyy"},
		},
		{
			name:   "tdd-green-no-evidence",
			about:  "tdd GREEN needs passing tests to rise; without reports two GREEN iterations open from CLOSED (threshold 2)",
			policy: "tdd",
			loop: []*scnStep{
				edit("internal/app/calc_test.go", lines("test", 10), phaseMsg("test: cases", "RED")),
				edit("internal/app/calc.go", lines("calc", 5), phaseMsg("feat: try one", "GREEN")),
				edit("internal/app/calc.go", lines("calc", 9), phaseMsg("feat: try two", "GREEN")),
			},
			want: scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "no_progress", states: "CCO"},
		},
		{
			name:   "tdd-green-stuck",
			about:  "tdd GREEN from records and --phase: one test fixed, then the same failure twice opens (GREEN threshold 2)",
			policy: "tdd",
			flags:  []string{"--phase", "GREEN"},
			runs: []scnRun{
				{commit: edit("internal/app/calc.go", lines("calc", 4), "feat: Add"), phase: "GREEN", tests: &ledger.Tests{Passed: 10, Failed: 2, Failing: []string{"TestAdd", "TestSub"}}},
				{commit: edit("internal/app/calc.go", lines("calc", 8), "feat: Sub"), phase: "GREEN", tests: &ledger.Tests{Passed: 11, Failed: 1, Failing: []string{"TestSub"}}},
				{phase: "GREEN", tests: &ledger.Tests{Passed: 11, Failed: 1, Failing: []string{"TestSub"}}},
			},
			headReports: map[string]string{"junit.xml": junit(11, 1)},
			want:        scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCCO", progress: "nynn"},
		},
		{
			name:    "profiles-simple-script",
			about:   "profiles/simple_script: a reported percentage must rise by 10; smaller rises are no progress even with files changed",
			policy:  "profiles",
			profile: "simple_script",
			loop: []*scnStep{
				code(1).msgf(progressMsg("feat: step 1", 10)),
				code(2).msgf(progressMsg("feat: step 2", 20)),
				code(3).msgf(progressMsg("feat: step 3", 25)),
				code(4).msgf(progressMsg("feat: step 4", 29)),
				code(5).msgf(progressMsg("feat: step 5", 35)),
			},
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCCHO"},
		},
		{
			name: "profiles-percent-only",
			about: "profiles: empty commits whose reported percentage rises by 5 each: seed 001's model counted them, but a " +
				"percentage is a claim and counts only with work behind it, so they are no progress (the counter needs 5 here; " +
				"the score window watches)",
			policy: "profiles",
			loop: []*scnStep{
				empty(progressMsg("plan: outline", 5)), empty(progressMsg("plan: design", 10)),
				empty(progressMsg("plan: review", 15)), empty(progressMsg("plan: split", 20)),
			},
			want: scnWant{exit: 0, iteration: 4, state: "HALF_OPEN", trigger: "score", states: "CCHH", progress: "nnnn"},
		},
		{
			name:  "research-default",
			about: "a research loop (reading, no commits) under default opens at the third run",
			runs:  []scnRun{{output: 300}, {output: 320}, {output: 310}, {output: 305}, {output: 315}},
			head:  edit("docs/findings.md", "# Findings\n\nThe parser is the bottleneck.\n", "docs: research findings"),
			want:  scnWant{exit: 1, iteration: 6, state: "OPEN", trigger: "no_progress", states: "CHOOOO", ignored: 3},
		},
		{
			name:    "research-profile",
			about:   "the same research loop under the lenient research_task profile is watched, then closed by the findings",
			profile: "research_task",
			runs:    []scnRun{{output: 300}, {output: 320}, {output: 310}, {output: 305}, {output: 315}},
			head:    edit("docs/findings.md", "# Findings\n\nThe parser is the bottleneck.\n", "docs: research findings"),
			want:    scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCHHHC"},
		},

		// --- ralph's false negatives ------------------------------------
		{
			name:    "questions-forever-ralph",
			about:   "ralph's false negative: a loop that only asks questions holds the counter without bound",
			policy:  "ralph",
			runs:    questionRuns(6),
			headLog: "Should I keep SQLite for the tests?\n",
			want:    scnWant{exit: 0, iteration: 7, state: "CLOSED", states: "CCCCCCC"},
		},
		{
			name:    "questions-forever-default",
			about:   "default: question-only runs hold the counter at most max_held (3) times in a row",
			runs:    questionRuns(6),
			headLog: "Should I keep SQLite for the tests?\n",
			want:    scnWant{exit: 1, iteration: 7, state: "OPEN", trigger: "no_progress", states: "CCHHHOO", ignored: 1, progress: "nnnnnnn"},
		},
		{
			name: "completion-claimed-ralph",
			about: "ralph's own breaker counts a completion claim as progress, even while tests fail; here a claim is never " +
				"evidence, so runs that only claim completion are no progress under ralph's thresholds too",
			policy:      "ralph",
			runs:        claimRuns(4),
			headLog:     "All tasks complete.\n",
			headReports: map[string]string{"junit.xml": failing},
			want:        scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CHOOO", ignored: 2},
		},
		{
			name:        "completion-claimed-default",
			about:       "default: a claim is not progress; each claim while tests fail warns; no progress opens",
			runs:        claimRuns(4),
			headLog:     "All tasks complete.\n",
			headReports: map[string]string{"junit.xml": failing},
			want:        scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CHOOO", ignored: 2},
		},
		{
			name:        "completion-claim-trip",
			about:       "completion_claim = \"trip\": the first claim while tests fail opens",
			policyTOML:  "extends = \"default\"\nname = \"claims-trip\"\n\n[rules.completion_claim]\ncompletion_claim = \"trip\"\n",
			runs:        claimRuns(2),
			headLog:     "All tasks complete.\n",
			headReports: map[string]string{"junit.xml": failing},
			want:        scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "completion_claim", states: "OOO", ignored: 2},
		},

		// --- other trip rules from the ledger ----------------------------
		{
			name:    "same-error",
			about:   "code changes every run but the primary error stays the same (line numbers differ): same_error at 5",
			runs:    sameErrorRuns(4),
			head:    code(5),
			headLog: "error: internal/app/parse.go:97:3: undefined: Tokenizer\n",
			want:    scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "same_error", states: "CCCCO"},
		},
		{
			name:    "permission-denied",
			about:   "tool permission denials in 3 consecutive runs open (default threshold 3)",
			runs:    []scnRun{{commit: code(1), denials: 1, output: 40}, {commit: code(2), denials: 2, output: 40}},
			head:    code(3),
			headLog: "bash: ./deploy.sh: Permission denied\n",
			want:    scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "permission_denied", states: "CCO"},
		},
		{
			name:    "permission-denied-ralph",
			about:   "ralph opens at 2 consecutive runs with denials",
			policy:  "ralph",
			runs:    []scnRun{{commit: code(1), denials: 1, output: 40}, {commit: code(2), denials: 2, output: 40}},
			head:    code(3),
			headLog: "bash: ./deploy.sh: Permission denied\n",
			want:    scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "permission_denied", states: "COO", ignored: 1},
		},
		{
			name:  "output-decline",
			about: "agent output falls from ~400 lines to ~50 while code still changes: output_decline (70%) opens",
			runs: []scnRun{
				{commit: code(1), output: 400}, {commit: code(2), output: 420}, {commit: code(3), output: 380},
				{commit: code(4), output: 60}, {commit: code(5), output: 50},
			},
			head:    code(6),
			headLog: plainLog(40),
			want:    scnWant{exit: 1, iteration: 6, state: "OPEN", trigger: "output_decline", states: "CCCCCO"},
		},

		// --- awkward repositories ---------------------------------------
		{
			name:  "merge-first-parent",
			about: "a merge of another branch is one iteration diffed against its first parent; the side branch's commits are not iterations",
			build: buildMerge,
			want:  scnWant{exit: 0, iteration: 4, state: "HALF_OPEN", trigger: "no_progress", states: "CCCH"},
		},
		{
			name:  "empty-repository",
			about: "no commit at all: exit 0, a note, a fresh CLOSED breaker",
			build: func(t *testing.T, r *scnRepo, sc *scenario) []string { return nil },
			want:  scnWant{exit: 0, iteration: 0, state: "CLOSED", states: "C", stderr: "empty repository"},
		},
		{
			name:  "single-commit",
			about: "one commit on a branch with no default branch and no --base: counted from the root",
			build: buildSingleCommit,
			want:  scnWant{exit: 0, iteration: 1, state: "CLOSED", states: "C", stderr: "counting from the root"},
			spec:  &scnWant{exit: 0, iteration: 0, state: "CLOSED", states: "C", stderr: "counting from the root"},
			issue: "--base defaults to the merge base with the default branch, else the root, and the base " +
				"exclusive, so the root commit itself is no iteration; the reader walks to the root and counts it (diffed " +
				"against the empty tree, every protected file it creates is a modification warning)",
		},
		{
			name:  "base-not-ancestor",
			about: "--base names a commit on another branch: exit 2 naming the base",
			build: buildNotAncestor,
			want:  scnWant{exit: 2, stderr: `base "other"`},
		},
		{
			name:  "detached-head",
			about: "HEAD detached one commit before the branch tip: iterations end at HEAD",
			loop:  []*scnStep{code(1), empty("wip"), empty("wip"), empty("wip")},
			build: buildDetached,
			want:  scnWant{exit: 0, iteration: 3, state: "HALF_OPEN", trigger: "no_progress", states: "CCH"},
		},
		{
			name:  "binary-files",
			about: "binary files have no line counts but are meaningful changes",
			loop: []*scnStep{
				edit("assets/logo.png", binaryBlob(1), "assets: logo"),
				edit("assets/logo.png", binaryBlob(2), "assets: sharper logo"),
				edit("assets/icon.ico", binaryBlob(3), "assets: icon"),
			},
			want: scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC"},
		},
		{
			name:  "non-utf8-path",
			about: "a Latin-1 file name (not UTF-8) is read byte for byte; the JSON stays valid",
			loop: []*scnStep{
				edit("docs/caf\xe9.txt", "menu\n", "docs: menu"),
				edit("docs/caf\xe9.txt", "menu\ncoffee\n", "docs: coffee"),
				{rename: map[string]string{"docs/caf\xe9.txt": "docs/na\xefve.txt"}, msg: "docs: rename"},
			},
			want: scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC"},
		},
		{
			name:  "shallow-decide",
			about: "a shallow clone cut at c3: the 3 visible iterations are decided on and a note says what was visible",
			loop:  []*scnStep{code(1), code(2), code(3), empty("wip"), empty("wip"), empty("wip")},
			build: buildShallow,
			want:  scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "no_progress", states: "CHO", stderr: "shallow clone: 3 of"},
		},
		{
			name:       "shallow-fail",
			about:      "the same shallow clone under a policy with on_shallow = \"fail\": exit 2",
			policyTOML: "extends = \"default\"\nname = \"full-history\"\non_shallow = \"fail\"\n",
			loop:       []*scnStep{code(1), code(2), code(3), empty("wip"), empty("wip"), empty("wip")},
			build:      buildShallow,
			want:       scnWant{exit: 2, stderr: "shallow clone"},
		},
	}, append(append(progressScenarios(), workScenarios()...), shapeScenarios()...)...)
}

// ---------------------------------------------------------------------
// Step and content helpers.

func codeText(i int) string {
	return fmt.Sprintf("package app\n\n// Step%02d is step %d of the feature.\nfunc Step%02d(x int) int {\n\treturn x + %d\n}\n", i, i, i, i)
}

// code adds a new source file: a meaningful change.
func code(i int) *scnStep {
	return &scnStep{write: map[string]string{fmt.Sprintf("internal/app/step%02d.go", i): codeText(i)}, msg: fmt.Sprintf("feat: step %d", i)}
}

func empty(msg string) *scnStep { return &scnStep{msg: msg} }

func edit(path, content, msg string) *scnStep {
	return &scnStep{write: map[string]string{path: content}, msg: msg}
}

// with adds a file write to the step.
func (s *scnStep) with(path, content string) *scnStep {
	if s.write == nil {
		s.write = map[string]string{}
	}
	s.write[path] = content
	return s
}

// del adds a deletion to the step.
func (s *scnStep) del(path string) *scnStep {
	s.remove = append(s.remove, path)
	return s
}

// msgf replaces the step's message.
func (s *scnStep) msgf(msg string) *scnStep {
	s.msg = msg
	return s
}

// revertOf undoes the step code(i) as `git revert` would.
func revertOf(i int) *scnStep {
	return &scnStep{
		remove: []string{fmt.Sprintf("internal/app/step%02d.go", i)},
		msg:    fmt.Sprintf("Revert \"feat: step %d\"\n\nThis reverts commit {{c%d}}.\n", i, i),
	}
}

func lines(word string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "// %s line %d\n", word, i)
	}
	return b.String()
}

func configText(variant string) string {
	return fmt.Sprintf("package app\n\n// Strategy is the approach in use.\nconst Strategy = %q\n", variant)
}

func generated(i int) string {
	return fmt.Sprintf("// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage gen\n\nconst Revision = %d\n", i)
}

func binaryBlob(i int) string {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for k := 0; k < 64; k++ {
		b = append(b, byte(k*i), 0)
	}
	return string(b)
}

// plan is a fix_plan.md with done of total tasks ticked.
func plan(done, total int) string {
	var b strings.Builder
	b.WriteString("# Fix plan\n\n")
	for i := 1; i <= total; i++ {
		box := " "
		if i <= done {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] task %d\n", box, i)
	}
	return b.String()
}

// taskOnlyLoop ticks, unticks and re-ticks boxes in .ralph/@fix_plan.md
// and changes nothing else; with notes, each iteration also rewrites a
// note line in the plan, so that no tree repeats.
func taskOnlyLoop(notes bool) []*scnStep {
	p := ".ralph/@fix_plan.md"
	content := func(done, i int) string {
		if !notes {
			return plan(done, 5)
		}
		return plan(done, 5) + fmt.Sprintf("\nLast loop: %d\n", i)
	}
	return []*scnStep{
		edit(p, content(1, 1), "plan: task 1 done"),
		edit(p, content(2, 2), "plan: task 2 done"),
		edit(p, content(1, 3), "plan: task 2 reopened"),
		edit(p, content(2, 4), "plan: task 2 done again"),
		edit(p, content(3, 5), "plan: task 3 done"),
	}
}

func questionRuns(n int) []scnRun {
	runs := make([]scnRun, n)
	for i := range runs {
		runs[i] = scnRun{questions: true, output: 12}
	}
	return runs
}

func claimRuns(n int) []scnRun {
	runs := make([]scnRun, n)
	for i := range runs {
		runs[i] = scnRun{completion: true, tests: &ledger.Tests{Passed: 8, Failed: 2, Failing: []string{"TestParse", "TestRender"}}, output: 30}
	}
	return runs
}

func sameErrorRuns(n int) []scnRun {
	runs := make([]scnRun, n)
	for i := range runs {
		runs[i] = scnRun{commit: code(i + 1), output: 50,
			errors: []string{fmt.Sprintf("error: internal/app/parse.go:%d:%d: undefined: Tokenizer", 40+i*7, i+2)}}
	}
	return runs
}

func plainLog(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "reading internal/app/step%02d.go\n", i)
	}
	return b.String()
}

// junit is a JUnit XML report with passed and failed tests.
func junit(passed, failed int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"app\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n", passed+failed, failed)
	for i := 0; i < passed; i++ {
		fmt.Fprintf(&b, "    <testcase classname=\"app\" name=\"TestOK%02d\" time=\"0.01\"/>\n", i)
	}
	names := []string{"TestParse", "TestRender", "TestSub", "TestAdd"}
	for i := 0; i < failed; i++ {
		fmt.Fprintf(&b, "    <testcase classname=\"app\" name=\"%s\" time=\"0.02\"><failure message=\"app_test.go:%d: got 1, want 2\">trace</failure></testcase>\n", names[i%len(names)], 10+i)
	}
	b.WriteString("  </testsuite>\n</testsuites>\n")
	return b.String()
}

// scnBaseFiles is the project the loop starts from.
var scnBaseFiles = map[string]string{
	"go.mod":                   "module example.com/app\n\ngo 1.26\n",
	"main.go":                  "package main\n\nfunc main() {}\n",
	"main_test.go":             "package main\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {}\n",
	"README.md":                "# app\n",
	"AGENTS.md":                "Run go test ./... before committing.\n",
	"specs/api.md":             "# API\n\nAdd(a, b int) int\n",
	".github/workflows/ci.yml": "on: push\n",
}

// withBase is the standard base plus extra files.
func withBase(extra map[string]string) []*scnStep {
	s := &scnStep{write: map[string]string{}, msg: "project: start"}
	for k, v := range scnBaseFiles {
		s.write[k] = v
	}
	for k, v := range extra {
		s.write[k] = v
	}
	return []*scnStep{s}
}

// ---------------------------------------------------------------------
// The repository builder: objects written with go-git, no work tree.

type scnBlob struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// scnDir is one directory of the next commit's tree; hash caches its
// written tree until something below it changes.
type scnDir struct {
	files map[string]scnBlob
	dirs  map[string]*scnDir
	hash  plumbing.Hash
}

func newScnDir() *scnDir {
	return &scnDir{files: map[string]scnBlob{}, dirs: map[string]*scnDir{}}
}

func (d *scnDir) clone() *scnDir {
	c := &scnDir{files: make(map[string]scnBlob, len(d.files)), dirs: make(map[string]*scnDir, len(d.dirs)), hash: d.hash}
	for k, v := range d.files {
		c.files[k] = v
	}
	for k, v := range d.dirs {
		c.dirs[k] = v.clone()
	}
	return c
}

// scnRepo builds a repository commit by commit at fixed times.
type scnRepo struct {
	tb    testing.TB
	dir   string
	st    storage.Storer
	root  *scnDir
	head  plumbing.Hash
	clock time.Time // the last commit's time
	// labels name commits in goldens: base, c1, c2, ...
	labels  map[string]string
	byLabel map[string]plumbing.Hash
	// now is the clock Main sees (the newest evidence plus a gap).
	now time.Time
}

func newScnRepo(tb testing.TB, branch string) *scnRepo {
	tb.Helper()
	dir := tb.TempDir()
	g, err := git.PlainInit(dir, false)
	if err != nil {
		tb.Fatalf("init %s: %v", dir, err)
	}
	r := &scnRepo{tb: tb, dir: dir, st: g.Storer, root: newScnDir(), labels: map[string]string{}, byLabel: map[string]plumbing.Hash{}}
	r.setHead(plumbing.NewBranchReferenceName(branch))
	return r
}

func (r *scnRepo) blob(content []byte) plumbing.Hash {
	obj := r.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		r.tb.Fatal(err)
	}
	if _, err := w.Write(content); err != nil {
		r.tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		r.tb.Fatal(err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		r.tb.Fatalf("write blob: %v", err)
	}
	return h
}

// dirOf returns the directory holding path (creating it) and marks every
// directory on the way as changed.
func (r *scnRepo) dirOf(path string) (*scnDir, string) {
	parts := strings.Split(path, "/")
	d := r.root
	d.hash = plumbing.ZeroHash
	for _, p := range parts[:len(parts)-1] {
		sub, ok := d.dirs[p]
		if !ok {
			sub = newScnDir()
			d.dirs[p] = sub
		}
		d = sub
		d.hash = plumbing.ZeroHash
	}
	return d, parts[len(parts)-1]
}

func (r *scnRepo) write(path, content string) {
	d, name := r.dirOf(path)
	d.files[name] = scnBlob{r.blob([]byte(content)), filemode.Regular}
}

func (r *scnRepo) remove(path string) scnBlob {
	r.tb.Helper()
	d, name := r.dirOf(path)
	b, ok := d.files[name]
	if !ok {
		r.tb.Fatalf("remove %s: no such file", path)
	}
	delete(d.files, name)
	r.prune(r.root)
	return b
}

// prune drops directories left empty.
func (r *scnRepo) prune(d *scnDir) bool {
	for name, sub := range d.dirs {
		if r.prune(sub) {
			delete(d.dirs, name)
			d.hash = plumbing.ZeroHash
		}
	}
	return len(d.files) == 0 && len(d.dirs) == 0
}

func (r *scnRepo) move(from, to string) {
	b := r.remove(from)
	d, name := r.dirOf(to)
	d.files[name] = b
}

func (r *scnRepo) tree(d *scnDir) plumbing.Hash {
	if !d.hash.IsZero() {
		return d.hash
	}
	entries := make([]object.TreeEntry, 0, len(d.files)+len(d.dirs))
	for name, b := range d.files {
		entries = append(entries, object.TreeEntry{Name: name, Mode: b.mode, Hash: b.hash})
	}
	for name, sub := range d.dirs {
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: r.tree(sub)})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	obj := r.st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		r.tb.Fatalf("encode tree: %v", err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		r.tb.Fatalf("write tree: %v", err)
	}
	d.hash = h
	return h
}

// apply makes one step's changes and commits them after the step's gap.
func (r *scnRepo) apply(s *scnStep, label string) plumbing.Hash {
	r.tb.Helper()
	paths := make([]string, 0, len(s.write))
	for p := range s.write {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		r.write(p, s.write[p])
	}
	for _, p := range s.remove {
		r.remove(p)
	}
	olds := make([]string, 0, len(s.rename))
	for p := range s.rename {
		olds = append(olds, p)
	}
	sort.Strings(olds)
	for _, p := range olds {
		r.move(p, s.rename[p])
	}
	gap := s.gap
	if gap == 0 {
		gap = scnGap
	}
	msg := s.msg
	if msg == "" {
		msg = "iteration " + label
	}
	for l, h := range r.byLabel {
		msg = strings.ReplaceAll(msg, "{{"+l+"}}", h.String())
	}
	var parents []plumbing.Hash
	if !r.head.IsZero() {
		parents = append(parents, r.head)
	}
	return r.commit(label, msg, r.clock.Add(gap), parents...)
}

// commit writes a commit of the current files with the given parents and
// moves HEAD's branch (or HEAD itself when detached) to it.
func (r *scnRepo) commit(label, msg string, at time.Time, parents ...plumbing.Hash) plumbing.Hash {
	r.tb.Helper()
	sig := object.Signature{Name: "Loop Agent", Email: "agent@example.com", When: at}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: r.tree(r.root), ParentHashes: parents}
	obj := r.st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		r.tb.Fatal(err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		r.tb.Fatalf("write commit: %v", err)
	}
	r.head, r.clock = h, at
	ref, err := r.st.Reference(plumbing.HEAD)
	if err != nil {
		r.tb.Fatal(err)
	}
	target := plumbing.HEAD
	if ref.Type() == plumbing.SymbolicReference {
		target = ref.Target()
	}
	r.ref(target, h)
	if label != "" {
		r.labels[h.String()] = label
		r.byLabel[label] = h
	}
	return h
}

func (r *scnRepo) ref(name plumbing.ReferenceName, h plumbing.Hash) {
	r.tb.Helper()
	if err := r.st.SetReference(plumbing.NewHashReference(name, h)); err != nil {
		r.tb.Fatal(err)
	}
}

func (r *scnRepo) setHead(branch plumbing.ReferenceName) {
	r.tb.Helper()
	if err := r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, branch)); err != nil {
		r.tb.Fatal(err)
	}
}

// buildBase commits the base on main and moves HEAD to the loop branch.
func (r *scnRepo) buildBase(steps []*scnStep) {
	r.tb.Helper()
	if steps == nil {
		steps = withBase(nil)
	}
	r.setHead("refs/heads/main")
	r.clock = scnStart.Add(-time.Duration(len(steps)+1) * scnGap)
	for i, s := range steps {
		label := "base"
		if i < len(steps)-1 {
			label = fmt.Sprintf("base%d", i+1)
		}
		r.apply(s, label)
	}
	r.setHead("refs/heads/loop")
	r.ref("refs/heads/loop", r.head)
}

// buildLoop commits the loop's steps as c1, c2, ...
func (r *scnRepo) buildLoop(steps []*scnStep) {
	r.tb.Helper()
	for i, s := range steps {
		r.apply(s, fmt.Sprintf("c%d", i+1))
	}
	r.now = r.clock.Add(scnGap)
}

// ---------------------------------------------------------------------
// Awkward repositories.

func buildMerge(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	base, side := r.head, r.root.clone()
	r.apply(code(1), "c1")
	loopRoot, loopHead := r.root, r.head
	// The side branch: three commits of somebody else's work.
	r.root, r.head = side, base
	r.setHead("refs/heads/upstream")
	for i := 1; i <= 3; i++ {
		r.apply(edit(fmt.Sprintf("lib/upstream%d.go", i), fmt.Sprintf("package lib\n\nconst Upstream%d = %d\n", i, i), fmt.Sprintf("lib: upstream %d", i)), fmt.Sprintf("side%d", i))
	}
	sideHead, sideLib := r.head, r.root.dirs["lib"]
	// Merge it into the loop: its files join the loop's.
	r.root, r.head = loopRoot, loopHead
	r.setHead("refs/heads/loop")
	r.root.dirs["lib"] = sideLib.clone()
	r.root.hash = plumbing.ZeroHash
	r.commit("c2", "Merge branch 'upstream' into loop", r.clock.Add(scnGap), loopHead, sideHead)
	r.apply(empty("wip"), "c3")
	r.apply(empty("wip"), "c4")
	r.now = r.clock.Add(scnGap)
	return []string{"--base", "main"}
}

func buildSingleCommit(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.clock = scnStart.Add(-scnGap)
	r.apply(withBase(nil)[0], "c1")
	r.now = r.clock.Add(scnGap)
	return nil
}

func buildNotAncestor(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	base, baseRoot := r.head, r.root.clone()
	r.buildLoop([]*scnStep{code(1), code(2)})
	loopRoot, loopHead := r.root, r.head
	r.root, r.head = baseRoot, base
	r.setHead("refs/heads/other")
	r.apply(code(9), "other1")
	r.root, r.head = loopRoot, loopHead
	r.setHead("refs/heads/loop")
	return []string{"--base", "other"}
}

func buildDetached(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	r.buildLoop(sc.loop)
	h := r.byLabel[fmt.Sprintf("c%d", len(sc.loop)-1)]
	if err := r.st.SetReference(plumbing.NewHashReference(plumbing.HEAD, h)); err != nil {
		t.Fatal(err)
	}
	return []string{"--base", "main"}
}

// buildShallow builds the loop, then copies the repository and cuts the
// copy's history at c3 as a shallow clone's .git/shallow does.
func buildShallow(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	r.buildLoop(sc.loop)
	clone := t.TempDir()
	if err := os.CopyFS(clone, os.DirFS(r.dir)); err != nil {
		t.Fatalf("copy %s: %v", r.dir, err)
	}
	cut := r.byLabel["c3"].String()
	if err := os.WriteFile(filepath.Join(clone, ".git", "shallow"), []byte(cut+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The boundary's ancestors are not in a shallow clone.
	for _, l := range []string{"c2", "c1"} {
		h := r.byLabel[l].String()
		if err := os.Remove(filepath.Join(clone, ".git", "objects", h[:2], h[2:])); err != nil {
			t.Fatal(err)
		}
	}
	r.dir = clone
	return []string{"--base", r.byLabel["base"].String()}
}

// ---------------------------------------------------------------------
// Running a scenario.

// scnDecision is the part of a decision the goldens show.
type scnDecision struct {
	State                 string     `json:"state"`
	AllowContinue         bool       `json:"allow_continue"`
	Trigger               *string    `json:"trigger"`
	Reason                *string    `json:"reason"`
	Iteration             int        `json:"iteration"`
	Commit                string     `json:"commit"`
	At                    *time.Time `json:"at"`
	Phase                 string     `json:"phase"`
	Progress              bool       `json:"progress"`
	ConsecutiveNoProgress int        `json:"consecutive_no_progress"`
	ProgressScore         int        `json:"progress_score"`
	WindowScore           *int       `json:"window_score"`
	IgnoredOpen           int        `json:"ignored_open"`
	CooldownUntil         *time.Time `json:"cooldown_until"`
	Warnings              []string   `json:"warnings"`
	RateFreesAt           *time.Time `json:"rate_frees_at"`
	Complete              bool       `json:"complete"`
	Completion            *struct {
		Tasks struct {
			Done  int `json:"done"`
			Total int `json:"total"`
		} `json:"tasks"`
		Tests *struct {
			Passed int `json:"passed"`
			Failed int `json:"failed"`
		} `json:"tests"`
		Claimed bool     `json:"claimed"`
		Percent *float64 `json:"percent"`
	} `json:"completion"`
	Recent []struct {
		Trend bool `json:"trend"`
	} `json:"recent"`
}

func (d *scnDecision) trigger() string {
	if d.Trigger == nil {
		return ""
	}
	return *d.Trigger
}

func (d *scnDecision) reason() string {
	if d.Reason == nil {
		return ""
	}
	return *d.Reason
}

type scnResult struct {
	code           int
	stdout, stderr string
}

func scnMain(env map[string]string, now time.Time, args []string) scnResult {
	var out, errb bytes.Buffer
	code := Main(args, Env{
		Stdout: &out,
		Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return now },
	})
	return scnResult{code, out.String(), errb.String()}
}

func runScenario(t *testing.T, sc scenario) {
	r := newScnRepo(t, "loop")
	files := t.TempDir() // policy, reports, log and ledger live outside the repository
	var args []string
	switch {
	case sc.build != nil:
		args = sc.build(t, r, &sc)
	case sc.runs != nil:
		r.buildBase(sc.base)
		args = append(args, "--base", "main", "--ledger", writeLedger(t, r, sc, filepath.Join(files, "ledger")))
	default:
		r.buildBase(sc.base)
		r.buildLoop(sc.loop)
		args = append(args, "--base", "main")
	}
	if r.now.IsZero() {
		r.now = scnStart
	}
	switch {
	case sc.policyTOML != "":
		path := filepath.Join(files, "policy.toml")
		if err := os.WriteFile(path, []byte(sc.policyTOML), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--policy", path)
	case sc.policy != "":
		args = append(args, "--policy", sc.policy)
	}
	if sc.profile != "" {
		args = append(args, "--profile", sc.profile)
	}
	if sc.headLog != "" {
		path := filepath.Join(files, "agent.log")
		if err := os.WriteFile(path, []byte(sc.headLog), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--log", path)
	}
	if len(sc.headReports) > 0 {
		dir := filepath.Join(files, "reports")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range sc.headReports {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "--reports", filepath.Join(dir, "*.xml"))
	}
	args = append(args, sc.flags...)
	common := append([]string{"--repo", r.dir, "--format", "json"}, args...)

	replay := scnMain(sc.env, r.now, append([]string{"replay"}, common...))
	check := scnMain(sc.env, r.now, append([]string{"check"}, common...))

	clean := func(s string) string {
		s = strings.ReplaceAll(s, r.dir, "$REPO")
		s = strings.ReplaceAll(s, files, "$FILES")
		for h, l := range r.labels {
			s = strings.ReplaceAll(s, h, l)
			s = strings.ReplaceAll(s, h[:12], l)
		}
		return s
	}

	var decisions []scnDecision
	if replay.code != 2 {
		for i, line := range strings.Split(strings.TrimRight(replay.stdout, "\n"), "\n") {
			var d scnDecision
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("replay line %d is not a JSON decision: %v\n%s", i+1, err, line)
			}
			decisions = append(decisions, d)
		}
	}

	// The golden: one compact line per iteration.
	var g strings.Builder
	fmt.Fprintf(&g, "# %s: %s\n", sc.name, sc.about)
	fmt.Fprintf(&g, "# replay %s\n", clean(strings.Join(common, " ")))
	fmt.Fprintf(&g, "# replay exit %d, check exit %d\n", replay.code, check.code)
	if len(decisions) > 0 {
		g.WriteString("#  it commit   at     state     progress score window np  trigger: reason\n")
	}
	for _, d := range decisions {
		g.WriteString(clean(scnLine(&d, r)))
	}
	for _, l := range strings.Split(strings.TrimRight(replay.stderr, "\n"), "\n") {
		if l != "" {
			fmt.Fprintf(&g, "stderr: %s\n", clean(l))
		}
	}
	if check.code == 2 {
		fmt.Fprintf(&g, "check stderr: %s\n", clean(strings.TrimRight(check.stderr, "\n")))
	}
	compareGolden(t, filepath.Join("testdata", "scenarios", sc.name+".golden"), g.String())

	// The expectation from the documented behaviour.
	for _, msg := range scnCheck(sc.want, replay, check, decisions) {
		t.Error(msg)
	}
	if sc.spec != nil {
		if len(scnCheck(*sc.spec, replay, check, decisions)) == 0 {
			t.Errorf("the behaviour now matches the documented one (%s): set want to spec and drop spec and issue", sc.issue)
		} else {
			t.Logf("known departure from the documented behaviour: %s", sc.issue)
		}
	}
	if replay.code == 2 {
		return
	}
	for i, d := range decisions {
		if want := i + 1; d.Iteration > 0 && d.Iteration != want {
			t.Errorf("replay line %d: got iteration %d, want %d", i+1, d.Iteration, want)
		}
		if d.AllowContinue != (d.State != "OPEN") {
			t.Errorf("iteration %d: got allow_continue %v with state %s", d.Iteration, d.AllowContinue, d.State)
		}
		if d.Iteration > 0 && len(d.Commit) != 40 {
			t.Errorf("iteration %d: got commit %q, want a full 40-hex hash", d.Iteration, d.Commit)
		}
	}
	if len(decisions) == 0 {
		return
	}
	last := decisions[len(decisions)-1]
	// check decides for the newest iteration exactly as replay's last line.
	var cd scnDecision
	if err := json.Unmarshal([]byte(check.stdout), &cd); err != nil {
		t.Fatalf("check output is not a JSON decision: %v\n%s", err, check.stdout)
	}
	if diff := cmp.Diff(last, cd); diff != "" {
		t.Errorf("check and replay's last line differ (-replay +check):\n%s", diff)
	}
}

// scnCheck compares the run with an expectation and returns the
// differences.
func scnCheck(w scnWant, replay, check scnResult, decisions []scnDecision) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if replay.code != w.exit || check.code != w.exit {
		bad("got exit replay %d, check %d, want %d (stderr %q)", replay.code, check.code, w.exit, replay.stderr+check.stderr)
	}
	if w.stderr != "" && !strings.Contains(replay.stderr, w.stderr) {
		bad("got replay stderr %q, want it to contain %q", replay.stderr, w.stderr)
	}
	if w.exit == 2 {
		for _, res := range []scnResult{replay, check} {
			if res.stdout != "" || strings.Count(res.stderr, "\n") != 1 || !strings.Contains(res.stderr, w.stderr) {
				bad("got stdout %q stderr %q, want no output and one error line naming %q", res.stdout, res.stderr, w.stderr)
			}
		}
		return errs
	}
	if len(decisions) == 0 {
		return append(errs, fmt.Sprintf("replay printed no decision (exit %d, stderr %q)", replay.code, replay.stderr))
	}
	last := decisions[len(decisions)-1]
	if last.State != w.state || last.trigger() != w.trigger {
		bad("got final %s %q, want %s %q", last.State, last.trigger(), w.state, w.trigger)
	}
	if last.Iteration != w.iteration {
		bad("got final iteration %d, want %d", last.Iteration, w.iteration)
	}
	if last.IgnoredOpen != w.ignored {
		bad("got ignored_open %d, want %d", last.IgnoredOpen, w.ignored)
	}
	var states, progress strings.Builder
	for _, d := range decisions {
		states.WriteByte(d.State[0])
		if d.Progress {
			progress.WriteByte('y')
		} else {
			progress.WriteByte('n')
		}
	}
	if w.states != "" && states.String() != w.states {
		bad("got states %s, want %s", states.String(), w.states)
	}
	if w.progress != "" && progress.String() != w.progress {
		bad("got progress %s, want %s", progress.String(), w.progress)
	}
	if w.warning != "" && !strings.Contains(strings.Join(last.Warnings, "\n"), w.warning) {
		bad("got final warnings %q, want one containing %q", last.Warnings, w.warning)
	}
	return errs
}

// scnLine is one iteration of a golden.
func scnLine(d *scnDecision, r *scnRepo) string {
	label := r.labels[d.Commit]
	if label == "" {
		label = "-"
	}
	at := "-"
	if d.At != nil {
		at = offset(*d.At)
	}
	prog := "no"
	if d.Progress {
		prog = "yes"
	}
	window := "."
	if d.WindowScore != nil {
		window = fmt.Sprintf("%+d", *d.WindowScore)
	}
	line := fmt.Sprintf("%4d %-8s %-6s %-9s %-8s %+5d %6s %3d", d.Iteration, label, at, d.State, prog, d.ProgressScore, window, d.ConsecutiveNoProgress)
	var extra []string
	if d.Phase != "" {
		extra = append(extra, "phase="+d.Phase)
	}
	if d.IgnoredOpen > 0 {
		extra = append(extra, fmt.Sprintf("ignored=%d", d.IgnoredOpen))
	}
	if d.CooldownUntil != nil {
		extra = append(extra, "cooldown_until="+offset(*d.CooldownUntil))
	}
	if d.Trigger != nil {
		reason := ""
		if d.Reason != nil {
			reason = *d.Reason
		}
		extra = append(extra, *d.Trigger+": "+reason)
	}
	if len(extra) > 0 {
		line += "  " + strings.Join(extra, "  ")
	}
	line += "\n"
	for _, w := range d.Warnings {
		line += "           ! " + w + "\n"
	}
	return line
}

// offset is a time relative to scnStart, in minutes.
func offset(t time.Time) string {
	return fmt.Sprintf("%+dm", int(t.Sub(scnStart)/time.Minute))
}

// writeLedger commits the runs' commits and writes their records; each run
// is 10 minutes after the one before and its commit a minute before it.
func writeLedger(t *testing.T, r *scnRepo, sc scenario, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	at := scnStart
	n := 0
	for i, run := range sc.runs {
		if run.commit != nil {
			n++
			s := *run.commit
			s.gap = at.Add(-time.Minute).Sub(r.clock)
			r.apply(&s, fmt.Sprintf("c%d", n))
		}
		rec := ledger.Record{Version: ledger.Version, RunID: int64(i + 1), RunAttempt: 1, Commit: r.head.String(), At: at,
			Phase: run.phase, Tests: run.tests, Errors: []ledger.Error{}, PermissionDenials: run.denials,
			CompletionClaimed: run.completion, QuestionsAsked: run.questions}
		if run.output > 0 {
			rec.Output = &ledger.Output{Lines: run.output, Bytes: int64(run.output) * 60}
		}
		for _, e := range run.errors {
			s := signature.Of(e)
			rec.Errors = append(rec.Errors, ledger.Error{Hash: s.Hash, Sample: s.Sample})
		}
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("run-%03d.json", i+1)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		at = at.Add(scnGap)
	}
	if sc.head != nil {
		s := *sc.head
		s.gap = at.Add(-time.Minute).Sub(r.clock)
		r.apply(&s, fmt.Sprintf("c%d", n+1))
	}
	r.now = at
	return dir
}

// compareGolden compares got with the golden file, or rewrites it under
// -update-scenarios.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *updateScenarios {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run go test ./internal/cli -run TestScenarios -update-scenarios)", path, err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
