package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// ticksAlone is the default policy with ticks credited on their own, for
// the scenarios about task identity.
const ticksAlone = "extends = \"default\"\nname = \"ticks-alone\"\n\n[progress]\nticks_need_work = false\n"

// progressScenarios are the scenarios of the progress model calibrated on
// real agent loops: what counts as a test-only iteration, task
// identity, the loop's state against protected paths, busywork, error
// alternation, test regressions, percentages, submodules, empty ledgers and
// unreadable or odd objects.
func progressScenarios() []scenario {
	phaseMsg := func(subject, phase string) string { return subject + "\n\nLoop-Phase: " + phase + "\n" }
	progressMsg := func(subject string, p int) string { return fmt.Sprintf("%s\n\nLoop-Progress: %d%%\n", subject, p) }
	return []scenario{
		// --- test_only: changed test files as the only progress signal ----
		{
			name:  "test-only-new-tasks",
			about: "each iteration adds a new test file and ticks its task: a new task is progress by another signal, test_only never fires",
			base:  withBase(map[string]string{"fix_plan.md": plan(0, 6)}),
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 5; i++ {
					s = append(s, edit(fmt.Sprintf("tests/e2e/feature%d.spec.ts", i), lines("spec", 40), fmt.Sprintf("test: e2e spec %d", i)).
						with("fix_plan.md", plan(i, 6)))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCCC", progress: "yyyyy"},
		},
		{
			name: "test-only-plan-iterations-take-no-slot",
			about: "two code iterations, two plan-only ticks (no changed line: no place in the window), then one new test file: no " +
				"trip; the ticks only record the code, bookkeeping, and two of them in a row are a run: no progress",
			base: withBase(map[string]string{"fix_plan.md": plan(0, 4)}),
			loop: []*scnStep{
				edit("internal/app/parse.go", lines("parse", 30), "feat: parser"),
				edit("internal/app/render.go", lines("render", 30), "feat: renderer"),
				edit("fix_plan.md", plan(1, 4), "plan: parser done"),
				edit("fix_plan.md", plan(2, 4), "plan: renderer done"),
				edit("tests/render_test.py", lines("test", 60), "test: renderer cases"),
			},
			// A tick records work (before: yyyyy, then yyyny when a tick
			// needed work since the last credited one).
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCHHC", progress: "yynny"},
		},
		{
			name:  "test-only-fixtures-are-test-data",
			about: "a test file grows by a line while large fixtures are added under tests/fixtures: test data, not test code",
			loop: func() []*scnStep {
				s := []*scnStep{edit("internal/app/load.go", lines("load", 20), "feat: loader").with("tests/load_test.py", lines("test", 2))}
				for i := 1; i <= 4; i++ {
					s = append(s, edit("tests/load_test.py", lines("test", 2+i), fmt.Sprintf("test: fixture %d", i)).
						with(fmt.Sprintf("tests/fixtures/case%d.json", i), lines("\"field\"", 50)))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCCC", progress: "yyyyy"},
		},
		{
			name:   "test-only-off-in-red",
			about:  "tdd: RED iterations add tests to one test file and nothing else; writing tests is RED's work, test_only is off",
			policy: "tdd",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 4; i++ {
					s = append(s, edit("internal/app/calc_test.go", lines("test", 10*i), phaseMsg(fmt.Sprintf("test: cases %d", i), "RED")))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "yyyy"},
		},
		{
			name:  "test-only-same-test-rewritten",
			about: "after one code change the same e2e test is rewritten again and again (waits, timeouts): test_only opens",
			loop: func() []*scnStep {
				s := []*scnStep{edit("internal/app/form.go", lines("form", 20), "feat: form").with("tests/e2e/test_form.py", lines("wait", 10))}
				for i := 1; i <= 4; i++ {
					s = append(s, edit("tests/e2e/test_form.py", lines("wait"+strings.Repeat("s", i), 10), fmt.Sprintf("test: longer waits %d", i)))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "test_only", states: "CCCOO", ignored: 1},
		},
		{
			name: "test-only-suites-padded",
			about: "after one code change each iteration appends eight tests to another existing suite and changes nothing else: " +
				"new tests are work, test_only concerns existing tests edited or deleted, so no trip (before: padding, opened)",
			base: withBase(suites(20)),
			loop: suiteLoop(lines("case", 20)+lines("more", 8), "test: 8 more tests"),
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCCC", progress: "yyyyy"},
		},
		{
			name: "test-only-suites-repaired",
			about: "after one code change each iteration rewrites lines of another existing suite (a different spec fixed each " +
				"time, as a loop does after a UI change): without reports that may be a fix, no trip",
			base: withBase(suites(20)),
			loop: suiteLoop(lines("case", 14)+lines("fixed", 8), "test: repair spec"),
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCCC", progress: "yyyyy"},
		},

		// --- task identity ----------------------------------------------
		{
			name: "tasks-plan-rewritten",
			about: "with ticks credited on their own, a plan of 10 is finished and rewritten as 5 new tasks (1 ticked): later ticks are " +
				"progress although the count never passes 10",
			policyTOML: ticksAlone,
			base:       withBase(map[string]string{"fix_plan.md": plan(9, 10)}),
			loop: []*scnStep{
				edit("fix_plan.md", plan(10, 10), "plan: task 10 done"),
				edit("fix_plan.md", namedPlan("phase 2", 1, 5), "plan: phase 2"),
				edit("fix_plan.md", namedPlan("phase 2", 2, 5), "plan: phase 2 task 2 done"),
				edit("fix_plan.md", namedPlan("phase 2", 3, 5), "plan: phase 2 task 3 done"),
			},
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "ynyy"},
		},
		{
			name:  "tasks-retick-after-swap",
			about: "task 1 (done before the loop) is unticked while task 2 is ticked, then re-ticked: no task was completed twice, nothing else changes",
			base:  withBase(map[string]string{"fix_plan.md": plan(1, 4)}),
			loop: []*scnStep{
				edit("fix_plan.md", "# Fix plan\n\n- [ ] task 1\n- [x] task 2\n- [ ] task 3\n- [ ] task 4\n", "plan: 1 reopened, 2 done"),
				edit("fix_plan.md", "# Fix plan\n\n- [x] task 1\n- [x] task 2\n- [ ] task 3\n- [ ] task 4\n", "plan: 1 done again"),
				empty("wip"),
			},
			want: scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "no_progress", states: "CHO", progress: "nnn"},
		},
		{
			name: "tasks-edited-when-ticked",
			about: "with ticks credited on their own, ticking a task while annotating its text is completing it; reopening it and " +
				"ticking another the same way completes nothing",
			policyTOML: ticksAlone,
			base:       withBase(map[string]string{"fix_plan.md": plan(0, 3)}),
			loop: []*scnStep{
				edit("fix_plan.md", "# Fix plan\n\n- [x] task 1 (done in c1)\n- [ ] task 2\n- [ ] task 3\n", "plan: 1 done"),
				edit("fix_plan.md", "# Fix plan\n\n- [ ] task 1\n- [x] task 2 (done in c2)\n- [ ] task 3\n", "plan: 2 done"),
				edit("fix_plan.md", "# Fix plan\n\n- [ ] task 1\n- [ ] task 2\n- [x] task 3 (done in c3)\n", "plan: 3 done"),
				edit("fix_plan.md", "# Fix plan\n\n- [x] task 1 (done in c4)\n- [ ] task 2\n- [ ] task 3\n", "plan: 1 done"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", progress: "ynnn"},
		},

		// --- the loop's state against protected paths ---------------------
		{
			name:  "ralph-session-files-deleted",
			about: "a feature commit that also deletes ralph's session files (loop state, ignored and deletable) is progress, not a protected deletion",
			base:  withBase(map[string]string{".ralph/.claude_session_id": "abc123\n", ".ralph/.response_analysis": "{\"loop\": 3}\n"}),
			loop:  []*scnStep{code(1), code(2).del(".ralph/.claude_session_id").del(".ralph/.response_analysis"), code(3)},
			want:  scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyy"},
		},
		{
			name:  "ralph-lib-code",
			about: "the loop's own code under .ralph/lib counts like any other file; only its ephemeral state is ignored",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 4; i++ {
					s = append(s, edit(fmt.Sprintf(".ralph/lib/module%d.sh", i), lines("#", 30), fmt.Sprintf("lib: module %d", i)).
						with(".ralph/status.json", fmt.Sprintf("{\"loop\": %d}\n", i)))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "yyyy"},
		},
		{
			name:  "ralph-prompt-deleted",
			about: "deleting .ralph/PROMPT.md, which steers the agent, trips protected_path",
			base:  withBase(map[string]string{".ralph/PROMPT.md": "Work through fix_plan.md.\n"}),
			loop:  []*scnStep{code(1), code(2).del(".ralph/PROMPT.md")},
			want:  scnWant{exit: 1, iteration: 2, state: "OPEN", trigger: "protected_path", states: "CO"},
		},
		{
			name:  "ralph-fix-plan-deleted",
			about: "ticking .ralph/fix_plan.md is how the loop works; deleting it trips protected_path",
			base:  withBase(map[string]string{".ralph/fix_plan.md": plan(0, 3)}),
			loop:  []*scnStep{code(1).with(".ralph/fix_plan.md", plan(1, 3)), code(2).del(".ralph/fix_plan.md")},
			want:  scnWant{exit: 1, iteration: 2, state: "OPEN", trigger: "protected_path", states: "CO"},
		},

		// --- busywork ----------------------------------------------------
		{
			name:  "todo-only",
			about: "after one code change the loop only appends to TODO.md: HALF_OPEN at its 2nd such iteration, OPEN at its 3rd",
			loop: []*scnStep{
				code(1),
				edit("TODO.md", "# TODO\n\n- look at the parser\n", "todo: parser"),
				edit("TODO.md", "# TODO\n\n- look at the parser\n- look at the renderer\n", "todo: renderer"),
				edit("TODO.md", "# TODO\n\n- look at the parser\n- look at the renderer\n- tidy up\n", "todo: tidy"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", progress: "ynnn"},
		},
		{
			name:  "timestamp-only",
			about: "a test-output file whose only change is its timestamp, and a progress log: busywork, no progress",
			base:  withBase(map[string]string{"test-output.txt": "ran 12 tests at 2026-03-02 08:50:00, 12 passed\n"}),
			loop: []*scnStep{
				code(1),
				edit("test-output.txt", "ran 12 tests at 2026-03-02 09:10:00, 12 passed\n", "test: run"),
				edit("test-output.txt", "ran 12 tests at 2026-03-02 09:20:00, 12 passed\n", "test: run").with("progress.txt", "loop 3: tests green\n"),
				edit("test-output.txt", "ran 12 tests at 2026-03-02 09:30:00, 12 passed\n", "test: run").with("progress.txt", "loop 3: tests green\nloop 4: tests green\n"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", progress: "ynnn"},
		},
		{
			name: "notes-with-a-task",
			about: "each iteration ticks a task and writes NOTES.md, nothing else: a tick needs work, notes are not work, so this is " +
				"bookkeeping (before ticks needed work: yyy)",
			base: withBase(map[string]string{"fix_plan.md": plan(0, 4)}),
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 3; i++ {
					s = append(s, edit("NOTES.md", lines("note", i), fmt.Sprintf("notes: task %d", i)).with("fix_plan.md", plan(i, 4)))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "no_progress", states: "CHO", progress: "nnn"},
		},
		{
			name:   "notes-in-document-phase",
			about:  "tdd DOCUMENT: writing PROGRESS.md is documentation's work",
			policy: "tdd",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 3; i++ {
					s = append(s, edit("PROGRESS.md", lines("done", i), phaseMsg(fmt.Sprintf("docs: progress %d", i), "DOCUMENT")))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyy"},
		},

		// --- errors ------------------------------------------------------
		{
			name: "error-alternation",
			about: "runs without commits whose errors alternate A/B/A/B: an error that goes away while nothing changed resolved " +
				"nothing, so no progress from the first run (before: the first swap was progress, nynnn)",
			runs:    alternatingErrorRuns(4),
			headLog: "error: internal/app/parse.go:12:3: undefined: Tokenizer\n",
			want:    scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CHOOO", progress: "nnnnn", ignored: 2},
		},
		{
			name: "error-alternation-same-error",
			about: "the same alternation with code changed every run (progress) trips same_error at the threshold: an error seen within " +
				"the window continues the row",
			runs: func() []scnRun {
				runs := alternatingErrorRuns(5)
				for i := range runs {
					runs[i].commit = code(i + 1)
				}
				return runs
			}(),
			head:    code(6),
			headLog: "error: internal/app/render.go:40:9: undefined: Layout\n",
			want:    scnWant{exit: 1, iteration: 6, state: "OPEN", trigger: "same_error", states: "CCCCCO"},
		},
		{
			name:       "same-error-total-opens",
			about:      "same_error_mode = \"total\": the same error five times, with progress in between, opens at the fifth",
			policyTOML: "extends = \"default\"\nname = \"total\"\n\n[rules.same_error]\nsame_error_mode = \"total\"\n",
			runs: func() []scnRun {
				runs := sameErrorRuns(5)
				runs[2].errors = []string{"error: internal/app/render.go:40:9: undefined: Layout"}
				return runs
			}(),
			head:    code(6),
			headLog: "error: internal/app/parse.go:97:3: undefined: Tokenizer\n",
			want:    scnWant{exit: 1, iteration: 6, state: "OPEN", trigger: "same_error", states: "CCCCCO"},
		},

		// --- test regressions --------------------------------------------
		{
			name:  "tests-regress",
			about: "code changes every run while passing tests fall 10, 8, 6: a regression is no progress, with a warning naming the tests",
			runs: []scnRun{
				{commit: code(1), tests: &ledger.Tests{Passed: 10}},
				{commit: code(2), tests: &ledger.Tests{Passed: 8, Failed: 2, Failing: []string{"app.TestParse", "app.Test\"Render\"\n"}}},
			},
			head:        code(3),
			headReports: map[string]string{"junit.xml": junit(6, 4)},
			want: scnWant{exit: 0, iteration: 3, state: "HALF_OPEN", trigger: "no_progress", states: "CCH", progress: "ynn",
				warning: `tests regressed: 6 passing, 8 before; failing now: "app.TestRender", "app.TestSub", "app.TestAdd"`},
		},
		{
			name:   "tdd-green-skipped",
			about:  "tdd GREEN: failing tests turned skipped are a regression, not tests fixed; GREEN opens at 2 without progress",
			policy: "tdd",
			flags:  []string{"--phase", "GREEN"},
			runs: []scnRun{
				{commit: edit("internal/app/calc.go", lines("calc", 2), "feat: start"), phase: "GREEN", tests: &ledger.Tests{Passed: 7, Failed: 3, Failing: []string{"app.TestMul", "app.TestAdd", "app.TestSub"}}},
				{commit: edit("internal/app/calc.go", lines("calc", 4), "feat: Mul"), phase: "GREEN", tests: &ledger.Tests{Passed: 8, Failed: 2, Failing: []string{"app.TestAdd", "app.TestSub"}}},
				{commit: edit("internal/app/calc.go", lines("calc", 6), "feat: skip Sub"), phase: "GREEN", tests: &ledger.Tests{Passed: 8, Failed: 1, Skipped: 1, Failing: []string{"app.TestAdd"}}},
			},
			head:        edit("internal/app/calc.go", lines("calc", 8), "feat: skip Add"),
			headReports: map[string]string{"junit.xml": skippedJUnit(8, 2)},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCCO", progress: "nynn",
				warning: `tests regressed: 1 failing test turned skipped: "app.TestAdd"`},
		},

		// --- percentages, submodules, ledgers, unreadable objects ---------
		{
			name: "percent-alternating",
			about: "code commits reporting 10%, 50%, 10%, 50%: a percentage counts only above its high-water mark, and one that " +
				"does not rise vetoes the code's progress",
			loop: []*scnStep{
				code(1).msgf(progressMsg("feat: outline", 10)), code(2).msgf(progressMsg("feat: design", 50)),
				code(3).msgf(progressMsg("feat: outline again", 10)), code(4).msgf(progressMsg("feat: design again", 50)),
				code(5).msgf(progressMsg("feat: outline again", 10)),
			},
			// Before claims needed work: empty commits, CCHHO.
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCCHO", progress: "yynnn"},
		},
		{
			name:  "submodule-bump",
			about: "updating a submodule's pointer is a change (a dependency moved), not \"no change\"",
			build: buildSubmoduleBumps,
			want:  scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "yyyy"},
		},
		{
			name:  "empty-ledger",
			about: "an existing but empty --ledger directory: the iterations are the commits since the base, and a note says so",
			loop:  []*scnStep{code(1), empty("wip"), empty("wip"), empty("wip")},
			build: buildEmptyLedger,
			want:  scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", stderr: "the ledger holds no record"},
		},
		{
			name:  "unreadable-blob",
			about: "a blob missing from the repository (a partial clone): its file counts as changed, a note names commit and object",
			loop:  []*scnStep{code(1), edit("internal/app/big.bin", "large content\n", "assets: big file"), code(2)},
			build: buildMissingBlob,
			want:  scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyy", stderr: "counted as changed without reading"},
		},
		{
			name:  "deep-directory",
			about: "a file nested deeper than the diff descends: the directory counts as changed, with a note",
			loop:  []*scnStep{code(1), edit(strings.Repeat("d/", 300)+"deep.txt", "deep\n", "deep: file"), code(2)},
			want:  scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyy", stderr: "deeper than"},
		},
		{
			name:  "unparsable-date",
			about: "a commit whose date does not parse is taken at the previous iteration's time, with a note",
			build: buildBadDate,
			want:  scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyy", stderr: "has no readable date"},
		},
	}
}

// namedPlan is a fix_plan.md of total tasks named after prefix, done ticked.
func namedPlan(prefix string, done, total int) string {
	var b strings.Builder
	b.WriteString("# Fix plan\n\n")
	for i := 1; i <= total; i++ {
		box := " "
		if i <= done {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] %s task %d\n", box, prefix, i)
	}
	return b.String()
}

// alternatingErrorRuns are n runs without commits whose agent reports two
// errors in turn (line numbers differ, as they do).
func alternatingErrorRuns(n int) []scnRun {
	runs := make([]scnRun, n)
	for i := range runs {
		e := fmt.Sprintf("error: internal/app/parse.go:%d:3: undefined: Tokenizer", 10+i)
		if i%2 == 1 {
			e = fmt.Sprintf("error: internal/app/render.go:%d:9: undefined: Layout", 40+i)
		}
		runs[i] = scnRun{output: 50, errors: []string{e}}
	}
	return runs
}

// skippedJUnit is a JUnit XML report with passed tests and skipped ones.
func skippedJUnit(passed, skipped int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"app\" tests=\"%d\" failures=\"0\" errors=\"0\" skipped=\"%d\">\n", passed+skipped, skipped)
	for i := 0; i < passed; i++ {
		fmt.Fprintf(&b, "    <testcase classname=\"app\" name=\"TestOK%02d\" time=\"0.01\"/>\n", i)
	}
	names := []string{"TestAdd", "TestSub"}
	for i := 0; i < skipped; i++ {
		fmt.Fprintf(&b, "    <testcase classname=\"app\" name=\"%s\" time=\"0\"><skipped/></testcase>\n", names[i%len(names)])
	}
	b.WriteString("  </testsuite>\n</testsuites>\n")
	return b.String()
}

// buildSubmoduleBumps adds a submodule and moves its pointer twice.
func buildSubmoduleBumps(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	r.apply(code(1), "c1")
	for i := 2; i <= 4; i++ {
		d, name := r.dirOf("third_party/parser")
		d.files[name] = scnBlob{plumbing.NewHash(fmt.Sprintf("%040x", i)), filemode.Submodule}
		r.apply(empty(fmt.Sprintf("deps: parser at %d", i)), fmt.Sprintf("c%d", i))
	}
	r.now = r.clock.Add(scnGap)
	return []string{"--base", "main"}
}

// buildEmptyLedger builds the loop and passes an existing, empty ledger
// directory (beside the history, in the work tree).
func buildEmptyLedger(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	r.buildLoop(sc.loop)
	dir := filepath.Join(r.dir, "ledger")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"--base", "main", "--ledger", dir}
}

// buildMissingBlob builds the loop and deletes the object of c2's file,
// as a partial clone or a copy without large files lacks it.
func buildMissingBlob(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	r.buildLoop(sc.loop)
	h := r.root.dirs["internal"].dirs["app"].files["big.bin"].hash.String()
	if err := os.Remove(filepath.Join(r.dir, ".git", "objects", h[:2], h[2:])); err != nil {
		t.Fatal(err)
	}
	return []string{"--base", "main"}
}

// buildBadDate commits c2 with a committer date that does not parse.
func buildBadDate(t *testing.T, r *scnRepo, sc *scenario) []string {
	r.buildBase(nil)
	r.apply(code(1), "c1")
	r.write("internal/app/step02.go", codeText(2))
	raw := fmt.Sprintf("tree %s\nparent %s\nauthor Loop Agent <agent@example.com> %d +0000\ncommitter Loop Agent <agent@example.com> yesterday +0000\n\nfeat: step 2\n",
		r.tree(r.root), r.head, r.clock.Add(scnGap).Unix())
	obj := r.st.NewEncodedObject()
	obj.SetType(plumbing.CommitObject)
	w, err := obj.Writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	r.head, r.clock = h, r.clock.Add(scnGap)
	r.ref("refs/heads/loop", h)
	r.labels[h.String()], r.byLabel["c2"] = "c2", h
	r.apply(code(3), "c3")
	r.now = r.clock.Add(time.Minute)
	return []string{"--base", "main"}
}

// suiteNames are the existing test suites of the test_only scenarios that
// rotate over them.
var suiteNames = []string{"tests/test_dom.py", "tests/test_css.py", "tests/test_url.py", "tests/test_http.py"}

// suites writes each of suiteNames with n lines.
func suites(n int) map[string]string {
	m := map[string]string{}
	for _, name := range suiteNames {
		m[name] = lines("case", n)
	}
	return m
}

// suiteLoop is one code change, then one iteration per suite of
// suiteNames that writes it as content and changes nothing else.
func suiteLoop(content, msg string) []*scnStep {
	s := []*scnStep{edit("internal/app/dom.go", lines("dom", 30), "feat: dom")}
	for i, name := range suiteNames {
		s = append(s, edit(name, content, fmt.Sprintf("%s (%d)", msg, i+1)))
	}
	return s
}
