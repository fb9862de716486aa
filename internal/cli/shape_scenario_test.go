package cli

import (
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/ledger"
)

// shapeScenarios are the shapes of real loops that the breaker stopped
// while they progressed, or let run while they went nowhere: bookkeeping
// beside work, the watch after a recovery, new tests against rewritten
// ones, claims, errors the loop writes into its own files, and journals
// kept in several files.
func shapeScenarios() []scenario {
	note := func(lines ...string) string { return "# Progress\n\n" + strings.Join(lines, "\n") + "\n" }
	return []scenario{
		// --- bookkeeping beside work, and the watch after recovery -------
		{
			name: "watch-not-armed-by-work",
			about: "code lands every iteration while the first open task stays current: task_stuck watches (HALF_OPEN) at the " +
				"sixth, the seventh ticks it and recovers; that HALF_OPEN was raised while work landed, so it arms no watch, and " +
				"two empty iterations after it are two iterations without progress, not stagnation recurring",
			base: withBase(map[string]string{"fix_plan.md": plan(0, 6)}),
			loop: []*scnStep{
				code(1).with("fix_plan.md", plan(1, 6)),
				code(2), code(3), code(4), code(5), code(6),
				code(7).with("fix_plan.md", plan(2, 6)),
				empty("chore: sync"), empty("chore: sync"),
			},
			want: scnWant{exit: 0, iteration: 9, state: "HALF_OPEN", trigger: "no_progress", states: "CCCCCHCCH", progress: "yyyyyyynn"},
		},
		{
			name: "bookkeeping-after-work-no-false-stop",
			about: "code, code, a progress note (the score window watches), code, a reformatting pass, a wrap-up note, code: " +
				"the score window's HALF_OPEN arms no watch, the reformatting right after the code is bookkeeping (neutral) and " +
				"the wrap-up after it makes a run of two (no progress, HALF_OPEN): the loop is never stopped",
			loop: []*scnStep{
				code(1), code(2),
				edit("PROGRESS.md", note("step 2 done in {{c2}}"), "docs: progress"),
				code(3),
				edit("internal/app/step03.go", strings.ReplaceAll(codeText(3), "\t", "    "), "style: format"),
				edit("PROGRESS.md", note("step 2 done in {{c2}}", "step 3 done in {{c4}}; wrap-up: three steps of the feature are in"), "docs: wrap-up"),
				code(4),
			},
			want: scnWant{exit: 0, iteration: 7, state: "CLOSED", states: "CCHCHHC", progress: "yynynny"},
		},
		{
			name: "bookkeeping-run-is-no-progress",
			about: "after code, the loop ticks its task (bookkeeping right after progress: neutral, no credit), adds the next task, " +
				"reformats and writes notes: from the second bookkeeping iteration in a row the run is no progress, counted whole",
			base: withBase(map[string]string{"fix_plan.md": plan(0, 3)}),
			loop: []*scnStep{
				code(1),
				edit("fix_plan.md", plan(1, 3), "plan: task 1 done in {{c1}}"),
				edit("fix_plan.md", plan(1, 4), "plan: next task"),
				edit("internal/app/step01.go", strings.ReplaceAll(codeText(1), "\t", "    "), "style: format"),
				edit("PROGRESS.md", note("task 1 done"), "docs: progress"),
			},
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCHOO", progress: "ynnnn", ignored: 1},
		},

		// --- a claim is never progress -----------------------------------
		{
			name: "claim-percent-trailer-without-work",
			about: "after one code change, empty commits whose Loop-Progress trailer climbs 10%, 30%, 50%, 70%: a reported " +
				"percentage counts only with work behind it in the same iteration, so they are no progress",
			loop: []*scnStep{
				code(1),
				empty("chore: progress\n\nLoop-Progress: 10%\n"), empty("chore: progress\n\nLoop-Progress: 30%\n"),
				empty("chore: progress\n\nLoop-Progress: 50%\n"), empty("chore: progress\n\nLoop-Progress: 70%\n"),
			},
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCHOO", progress: "ynnnn", ignored: 1},
		},

		// --- new tests are work; rewritten ones are not -------------------
		{
			name: "new-test-files-are-work",
			about: "each run adds a test file in a new package and nothing else, its report passing the same suite: new tests " +
				"and new test files are work, test_only (existing tests edited or deleted) never fires",
			runs: func() []scnRun {
				var runs []scnRun
				for i, pkg := range []string{"parse", "render", "store", "cache"} {
					runs = append(runs, scnRun{commit: newTestFile(pkg, 40+i), tests: &ledger.Tests{Passed: 120}, output: 40})
				}
				return runs
			}(),
			head: newTestFile("sync", 44),
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCCC", progress: "yyyyy"},
		},
		{
			name: "tests-rewritten-do-not-close",
			about: "two tests fail; two empty runs half-open the breaker; then the agent rewrites the two tests' expectations to " +
				"match the bug and the report turns green with no code changed: tests rewritten, a trip, never a fix that closes",
			base: withBase(map[string]string{"internal/app/parse_test.go": parseTests("2")}),
			runs: []scnRun{
				{commit: code(1), tests: twoFailing(), output: 40},
				{tests: twoFailing(), output: 40},
				{tests: twoFailing(), output: 40},
				{commit: edit("internal/app/parse_test.go", parseTests("1"), "test: align expectations"),
					tests: &ledger.Tests{Passed: 10}, output: 40},
			},
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "test_only", states: "CCHOO", ignored: 1},
		},

		// --- journals, notes and plans -------------------------------------
		{
			name: "journal-in-two-files-by-turns",
			about: "after two code changes the loop writes its session notes into memory/journal-a.md and memory/journal-b.md " +
				"by turns and changes nothing else: a journal spread over two files of a folder is still the journal, so the " +
				"note-only iterations are bookkeeping right after progress, then a run without progress",
			loop: []*scnStep{
				code(1).with("memory/journal-a.md", sessionNote(1)),
				code(2).with("memory/journal-b.md", sessionNote(2)),
				edit("memory/journal-a.md", sessionNote(1)+sessionNote(3), "memory: session"),
				edit("memory/journal-b.md", sessionNote(2)+sessionNote(4), "memory: session"),
				edit("memory/journal-a.md", sessionNote(1)+sessionNote(3)+sessionNote(5), "memory: session"),
			},
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCCHO", progress: "yynnn"},
		},
		{
			name: "journal-in-numbered-session-files",
			about: "after two code changes the loop writes a new SESSION_<n>_SUMMARY.md or SESSION_<n>_NOTES.md every iteration and " +
				"changes nothing else: new files named as one numbered series are still the journal, so from the third " +
				"the note-only iterations are no progress",
			loop: []*scnStep{
				code(1),
				code(2),
				edit("SESSION_3_SUMMARY.md", sessionNote(3), "docs: session 3 summary"),
				edit("SESSION_3_NOTES.md", sessionNote(3)+sessionNote(3), "docs: session 3 notes"),
				edit("SESSION_4_SUMMARY.md", sessionNote(4), "docs: session 4 summary"),
				edit("SESSION_4_NOTES.md", sessionNote(4)+sessionNote(4), "docs: session 4 notes"),
				edit("SESSION_5_SUMMARY.md", sessionNote(5), "docs: session 5 summary"),
			},
			want: scnWant{exit: 1, iteration: 7, state: "OPEN", trigger: "no_progress", states: "CCCCHHO", progress: "yyyynnn"},
		},
		{
			name: "journal-entry-once-a-session",
			about: "a loop that writes JOURNAL.md once a session, too seldom for the journal rule to learn it: a file named as the " +
				"journal is notes from the first entry, so a session that only plans and writes its entry makes no progress",
			loop: []*scnStep{
				code(1),
				edit("session_plan/assessment.md", sessionNote(2)+sessionNote(2)+sessionNote(2), "session 2: assessment"),
				edit("JOURNAL.md", "## Session 2: planning only\n\n"+sessionNote(2), "session 2: journal entry"),
				edit("session_plan/task_01.md", sessionNote(3)+sessionNote(3), "session 3: plan"),
				edit("JOURNAL.md", "## Session 2: planning only\n\n"+sessionNote(2)+"## Session 3: planning again\n\n"+sessionNote(3), "session 3: journal entry"),
			},
			want: scnWant{exit: 0, iteration: 5, state: "HALF_OPEN", trigger: "score", states: "CCHCH", progress: "yynyn"},
		},
		{
			name: "claude-progress-only",
			about: "an idle run that only appends a line to claude-progress.txt: the harness's progress file is notes from the " +
				"first iteration, not work the journal rule has to learn",
			base: withBase(map[string]string{"claude-progress.txt": sessionNote(0)}),
			loop: []*scnStep{
				edit("claude-progress.txt", sessionNote(0)+sessionNote(1), "progress: session 1"),
				edit("claude-progress.txt", sessionNote(0)+sessionNote(1)+sessionNote(2), "progress: session 2"),
				edit("claude-progress.txt", sessionNote(0)+sessionNote(1)+sessionNote(2)+sessionNote(3), "progress: session 3"),
				edit("claude-progress.txt", sessionNote(0)+sessionNote(1)+sessionNote(2)+sessionNote(3)+sessionNote(4), "progress: session 4"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CHOO", progress: "nnnn", ignored: 1},
		},
		{
			name: "audit-findings-into-plan",
			about: "an audit loop audits one story an iteration and writes 35 to 64 lines of findings under it in " +
				"IMPLEMENTATION_PLAN.md, ticking the story: findings written into the plan are work, not bookkeeping",
			base: withBase(map[string]string{"IMPLEMENTATION_PLAN.md": auditPlan(0)}),
			loop: []*scnStep{
				edit("IMPLEMENTATION_PLAN.md", auditPlan(1), "audit: story 1"),
				edit("IMPLEMENTATION_PLAN.md", auditPlan(2), "audit: story 2"),
				edit("IMPLEMENTATION_PLAN.md", auditPlan(3), "audit: story 3"),
				edit("IMPLEMENTATION_PLAN.md", auditPlan(4), "audit: story 4"),
			},
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "yyyy"},
		},

		// --- errors and claims the loop writes into its own files ---------
		{
			name: "error-written-into-state-file",
			about: "a cron agent edits a different module every cycle and rewrites its state file with the time and the API's " +
				"\"402 Payment Required\" as its last error: the same error written every cycle is a repeated error, and " +
				"same_error opens at the fifth",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 5; i++ {
					s = append(s, code(i).with("state/agent.json", agentState(i)).msgf(fmt.Sprintf("cron: cycle %d", i)))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "same_error", states: "CCCCO", progress: "yyyyy"},
		},
		{
			name: "review-rejections-in-memory",
			about: "a coding agent's pull request: each round changes code and adds a memory note with the reviewer's rejection, " +
				"a different finding each time: a series of review rejections counts as one repeated error",
			loop: func() []*scnStep {
				var s []*scnStep
				for i, finding := range []string{"the migration drops the index", "the retry swallows the timeout",
					"the handler skips the role check", "the cache key misses the tenant", "the test mocks the bug away"} {
					s = append(s, code(i+1).with(fmt.Sprintf(".copilot/memory/round-%d.md", i+1),
						fmt.Sprintf("# Round %d\n\nChanges requested: %s.\nNext: address it and ask for review again.\n", i+1, finding)).
						msgf("Address review feedback"))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "same_error", states: "CCCCO", progress: "yyyyy"},
		},
		{
			name: "epic-complete-again",
			about: "after code, the loop re-verifies an epic that is done: it rewrites the verification note and commits " +
				"\"epic 16 complete\" again and again with no new work: a claim repeated with no work since is going round",
			loop: []*scnStep{
				code(1).msgf("feat: epic 16 complete"),
				edit("docs/epic-16-verification.md", verification(1), "feat: epic 16 complete"),
				edit("docs/epic-16-verification.md", verification(2), "feat: epic 16 complete"),
				edit("docs/epic-16-verification.md", verification(3), "feat: epic 16 complete"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "circular", states: "CCOO", progress: "ynnn", ignored: 1},
		},
		{
			name: "day-count-success-journal",
			about: "each day the loop bumps DAY_COUNT and appends a journal block saying SUCCESS (committed) around a call that " +
				"never ran: the counter is churn, the journal is prose, and the same SUCCESS claimed again with no work since " +
				"is going round",
			base: withBase(map[string]string{"DAY_COUNT": "11\n", "journal/JOURNAL.md": "# Journal\n"}),
			loop: func() []*scnStep {
				var s []*scnStep
				j := "# Journal\n"
				for i := 12; i <= 15; i++ {
					j += fmt.Sprintf("\n## Day %d\n\nRan the daily publish step and checked the feed.\nStatus: SUCCESS (committed)\n", i)
					s = append(s, edit("DAY_COUNT", fmt.Sprintf("%d\n", i), fmt.Sprintf("day %d", i)).with("journal/JOURNAL.md", j))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "circular", states: "CHOO", progress: "nnnn", ignored: 1},
		},
	}
}

// agentState is a cron agent's state file after cycle i: its last run
// and the error the API gave then.
func agentState(i int) string {
	return fmt.Sprintf("{\n  \"cycle\": %d,\n  \"last_error\": \"2026-11-%02dT06:00:00Z HTTP 402 Payment Required from api.example.com\"\n}\n", i, i)
}

// verification is the note of the i-th re-verification of a done epic.
func verification(i int) string {
	return fmt.Sprintf("# Epic 16\n\nVerified again (pass %d): every story of the epic is merged and its checks pass.\n", i)
}

// sessionNote is a paragraph of session notes.
func sessionNote(i int) string {
	return fmt.Sprintf("Session %d: read the open items, looked at the queue and wrote down what comes next for the team.\n", i)
}

// auditPlan is an audit plan with six stories, the first done of them audited:
// each ticked, with its findings (35 lines and more) under it.
func auditPlan(done int) string {
	var b strings.Builder
	b.WriteString("# Audit plan\n\n")
	for i := 1; i <= 6; i++ {
		box := " "
		if i <= done {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] story %d\n", box, i)
		if i <= done {
			for k := 1; k <= 30+5*i; k++ {
				fmt.Fprintf(&b, "  - finding %d.%d: the handler for story %d does not check the caller's role before writing\n", i, k, i)
			}
		}
	}
	return b.String()
}

// newTestFile adds a test file of n lines in a new package.
func newTestFile(pkg string, n int) *scnStep {
	return edit(fmt.Sprintf("internal/%s/%s_test.go", pkg, pkg), fmt.Sprintf("package %s\n\n", pkg)+lines("case", n), "test: cover "+pkg)
}

// parseTests is a Go test file whose two tests expect want.
func parseTests(want string) string {
	return "package app\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tif Parse() != " + want +
		" {\n\t\tt.Fatal(\"parse\")\n\t}\n}\n\nfunc TestRender(t *testing.T) {\n\tif Render() != " + want +
		" {\n\t\tt.Fatal(\"render\")\n\t}\n}\n"
}

// twoFailing is a report of 8 passing tests and TestParse and TestRender
// failing.
func twoFailing() *ledger.Tests {
	return &ledger.Tests{Passed: 8, Failed: 2, Failing: []string{"TestParse", "TestRender"}}
}
