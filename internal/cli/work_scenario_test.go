package cli

import (
	"fmt"
	"strings"
)

// workScenarios are the scenarios of progress as a change to the work
// product, not activity: the loop's journal learned from its history, the
// agent's admissions, ticks that need work, digits in code against churn
// elsewhere, errors that go away on empty iterations, new tests spread over
// packages, and phases the agent chooses.
func workScenarios() []scenario {
	board := func(i int) string {
		var b strings.Builder
		b.WriteString("# Board\n\n")
		for k := 1; k <= i; k++ {
			fmt.Fprintf(&b, "Session %s: looked over the open items and the queue, wrote down what is next.\n", strings.Repeat("I", k))
		}
		return b.String()
	}
	retro := func(i int) string {
		return fmt.Sprintf("# Retro\n\nWhat went well: the session %s went as planned.\nWhat to change: keep going.\n", strings.Repeat("I", i))
	}
	return []scenario{
		// --- the loop's journal, learned from its history ------------------
		{
			name: "journal-learned-board",
			about: "the loop appends a paragraph to BOARD.md (no notes name) with every iteration, code in the first three, then " +
				"only the board: the board is learned as the loop's journal (changed with prose in 3 of the last 4 iterations), " +
				"so the board-only iterations are no progress",
			loop: []*scnStep{
				code(1).with("BOARD.md", board(1)),
				code(2).with("BOARD.md", board(2)),
				code(3).with("BOARD.md", board(3)),
				edit("BOARD.md", board(4), "board: update"),
				edit("BOARD.md", board(5), "board: update"),
				edit("BOARD.md", board(6), "board: update"),
			},
			want: scnWant{exit: 1, iteration: 6, state: "OPEN", trigger: "no_progress", states: "CCCCHO", progress: "yyynnn"},
		},
		{
			name: "journal-learned-notes-folder",
			about: "the loop adds one retro note a session to retros/ (no notes name), code beside the first two: a folder that grows " +
				"by one prose note an iteration is the loop's journal from the third note on",
			loop: []*scnStep{
				code(1).with("retros/2026-11-01.md", retro(1)),
				code(2).with("retros/2026-11-02.md", retro(2)),
				edit("retros/2026-11-03.md", retro(3), "retro"),
				edit("retros/2026-11-04.md", retro(4), "retro"),
				edit("retros/2026-11-05.md", retro(5), "retro"),
			},
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCCHO", progress: "yynnn"},
		},
		{
			name: "journal-published-folder",
			about: "a content bot adds one dated post a run to content/posts/ and changes nothing else: a folder that grows " +
				"only by itself is what the repository publishes, not the loop's account of itself, so every post is progress",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 5; i++ {
					s = append(s, edit(fmt.Sprintf("content/posts/2026-11-0%d-daily.md", i),
						fmt.Sprintf("# Daily research %d\n\nToday's reading: a long essay about tide pools, summarised in %s.\n", i, strings.Repeat("many ", i)),
						"post: daily research"))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 5, state: "CLOSED", states: "CCCCC", progress: "yyyyy"},
		},
		{
			name:  "journal-beside-work",
			about: "the same board written beside code in every iteration: the code is progress, the journal takes nothing away",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 6; i++ {
					s = append(s, code(i).with("BOARD.md", board(i)))
				}
				return s
			}(),
			want: scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCCCCC", progress: "yyyyyy"},
		},

		// --- admissions of no progress ------------------------------------
		{
			name: "admission-idle-ticks",
			about: "after one code change each commit appends a line to HEARTBEAT.md and says it is an idle tick: the agent's " +
				"admission is no progress at once, before the heartbeat is learned as a journal",
			loop: []*scnStep{
				code(1),
				edit("HEARTBEAT.md", "tick one: queue looked at\n", "chore: idle tick, nothing to do"),
				edit("HEARTBEAT.md", "tick one: queue looked at\ntick two: queue looked at\n", "chore: idle tick, nothing to do"),
				edit("HEARTBEAT.md", "tick one: queue looked at\ntick two: queue looked at\ntick three: queue looked at\n", "no-op iteration: still nothing to do"),
			},
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", progress: "ynnn"},
		},
		{
			name: "admission-same-blocker",
			about: "each commit rewrites BLOCKERS.md and says it is still blocked on the same thing (the check number changes): " +
				"the blocker reported again counts like a repeated error, so same_error (threshold 3) trips",
			policyTOML: "extends = \"default\"\nname = \"blocker3\"\n\n[rules.same_error]\nsame_error_threshold = 3\n",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 3; i++ {
					s = append(s, edit("BLOCKERS.md", fmt.Sprintf("# Blockers\n\nThe staging credentials are missing (%s).\n", strings.Repeat("!", i)),
						fmt.Sprintf("Still blocked on staging database credentials (check #%d)", i)))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 3, state: "OPEN", trigger: "same_error", states: "CHO", progress: "nnn"},
		},
		{
			name: "admission-status-blocked",
			about: "two iterations of code, then code whose agent log ends with a status block saying BLOCKED: the admission makes it " +
				"no progress, whatever changed",
			runs:    []scnRun{{commit: code(1), output: 20}, {commit: code(2), output: 20}},
			head:    code(3),
			headLog: "working\n---RALPH_STATUS---\nSTATUS: BLOCKED\nCURRENT_TASK: wire the payment API\nEXIT_SIGNAL: false\n---END_RALPH_STATUS---\n",
			want:    scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyn"},
		},

		{
			name: "admission-in-log",
			about: "two iterations of code, then code whose agent log says no changes were needed this iteration: the log's " +
				"admission makes it no progress",
			runs:    []scnRun{{commit: code(1), output: 20}, {commit: code(2), output: 20}},
			head:    code(3),
			headLog: "reading the plan\nNo changes needed this iteration; nothing to do until the API lands.\n",
			want:    scnWant{exit: 0, iteration: 3, state: "CLOSED", states: "CCC", progress: "yyn"},
		},

		// --- ticks need work ----------------------------------------------
		{
			name: "ticks-need-work",
			about: "code with a tick (progress), a tick alone (bookkeeping right after progress: neutral), code, a tick " +
				"recording that code (bookkeeping: neutral, no credit of its own), then three boxes ticked at once with nothing " +
				"done: a second bookkeeping iteration in a row is a run, no progress, and the run counts whole (the " +
				"score window, which bookkeeping does not lift, watched from the fourth)",
			base: withBase(map[string]string{"fix_plan.md": plan(0, 6)}),
			loop: []*scnStep{
				code(1).with("fix_plan.md", plan(1, 6)),
				edit("fix_plan.md", plan(2, 6), "plan: task 2 done"),
				code(3),
				edit("fix_plan.md", plan(3, 6), "plan: task 3 done"),
				edit("fix_plan.md", plan(6, 6), "plan: tasks 4-6 done"),
			},
			want: scnWant{exit: 0, iteration: 5, state: "HALF_OPEN", trigger: "no_progress", states: "CCCHH", progress: "ynynn"},
		},

		// --- digits: changes in code and docs, churn elsewhere ------------
		{
			name: "digits-in-code-and-docs",
			about: "each commit changes one figure: a constant in Go code (an off-by-one fix), a count in the install guide, a " +
				"version number in the README, then the constant three times in a row: real changes, not churn, and code is never " +
				"the loop's journal",
			base: withBase(map[string]string{
				"internal/app/limits.go": "package app\n\nconst maxRetries = 3\n",
				"docs/install.md":        "# Install\n\nIt needs 2 GB of memory.\n",
				"README.md":              "# App\n\nVersion 1.4.0\n",
			}),
			loop: []*scnStep{
				edit("internal/app/limits.go", "package app\n\nconst maxRetries = 4\n", "fix: one retry more (#11)"),
				edit("docs/install.md", "# Install\n\nIt needs 4 GB of memory.\n", "docs: memory figure (#12)"),
				edit("README.md", "# App\n\nVersion 1.5.0\n", "docs: version (#13)"),
				edit("internal/app/limits.go", "package app\n\nconst maxRetries = 5\n", "fix: one retry more (#14)"),
				edit("internal/app/limits.go", "package app\n\nconst maxRetries = 6\n", "fix: one retry more (#15)"),
				edit("internal/app/limits.go", "package app\n\nconst maxRetries = 7\n", "fix: one retry more (#16)"),
			},
			want: scnWant{exit: 0, iteration: 6, state: "CLOSED", states: "CCCCCC", progress: "yyyyyy"},
		},
		{
			name:  "hex-churn-in-status",
			about: "after one code change the loop refreshes the timestamp and fingerprint of its state.json: churn, no progress",
			base:  withBase(map[string]string{"state.json": stateJSON("2026-11-28T00:50:00Z", "77aa01be9e04c3d2")}),
			loop:  hexRefreshes(),
			want:  scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "no_progress", states: "CCHO", progress: "ynnn"},
		},

		{
			name:   "hex-churn-in-status-ralph",
			policy: "ralph",
			about: "the same refreshes under ralph, whose breaker counts changed files and has no churn rule: progress, as " +
				"ralph's own breaker says",
			base: withBase(map[string]string{"state.json": stateJSON("2026-11-28T00:50:00Z", "77aa01be9e04c3d2")}),
			loop: hexRefreshes(),
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "yyyy"},
		},

		// --- values re-tuned back and forth ------------------------------
		{
			name: "retune-same-files",
			about: "each iteration changes two values in the same two components, a line out and a line in per file, and nothing " +
				"else: from the third such iteration in a row the values are re-tuned back and forth, no progress",
			base: withBase(map[string]string{"web/prompt.tsx": tuned(0), "web/popup.tsx": tuned(100)}),
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 5; i++ {
					s = append(s, edit("web/prompt.tsx", tuned(i), "fix: prompt timing").with("web/popup.tsx", tuned(100+i)))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 5, state: "OPEN", trigger: "no_progress", states: "CCCHO", progress: "yynnn"},
		},

		// --- existing tests rewritten --------------------------------------
		{
			name: "test-only-scattered-one-liners",
			about: "each iteration rewrites the same e2e test and adds a one-line test file in three folders, and no code or spec " +
				"moves in the window: a count of folders is not new coverage laid down beside moving specs or code, so test_only fires",
			base: withBase(map[string]string{"tests/e2e/app.spec.ts": lines("spec", 200)}),
			loop: specRounds(),
			want: scnWant{exit: 1, iteration: 4, state: "OPEN", trigger: "test_only", states: "CCCO", progress: "yyyy"},
		},

		// --- phases the agent chooses are bounded --------------------------
		{
			name: "phase-document-date-only",
			about: "eight commits that only rewrite a date in NOTES.md, each with a Loop-Phase: document trailer in another case: " +
				"no phase counts date churn, so the breaker opens as it does without the trailer",
			base: withBase(map[string]string{"NOTES.md": "Last updated: 2026-10-31\n"}),
			loop: dateRewrites(true),
			want: scnWant{exit: 1, iteration: 8, state: "OPEN", trigger: "no_progress", states: "CHOOOOOO", progress: "nnnnnnnn", ignored: 5},
		},
		{
			name:  "phase-document-date-only-no-trailer",
			about: "the same eight date rewrites without a trailer: the reference the trailer must not change",
			base:  withBase(map[string]string{"NOTES.md": "Last updated: 2026-10-31\n"}),
			loop:  dateRewrites(false),
			want:  scnWant{exit: 1, iteration: 8, state: "OPEN", trigger: "no_progress", states: "CHOOOOOO", progress: "nnnnnnnn", ignored: 5},
		},
		{
			name: "phase-document-bounded",
			about: "the agent declares DOCUMENT and writes prose into NOTES.md every iteration: documentation's work for the phase's " +
				"allowance of 5 iterations, then the phase no longer applies and notes are no progress",
			loop: func() []*scnStep {
				var s []*scnStep
				for i := 1; i <= 8; i++ {
					s = append(s, edit("NOTES.md", board(i), "docs: notes\n\nLoop-Phase: DOCUMENT\n"))
				}
				return s
			}(),
			want: scnWant{exit: 1, iteration: 8, state: "OPEN", trigger: "no_progress", states: "CCCCCHHO", progress: "yyyyynnn"},
		},
		{
			name: "phase-order-only-forward",
			about: "tdd: the agent's trailers go RED, GREEN, REFACTOR, then back to GREEN: a phase may only move on along the " +
				"order (or start a new cycle at RED), so the last iteration stays in REFACTOR and its code change is progress; " +
				"GREEN without a test report is not",
			policy: "tdd",
			loop: []*scnStep{
				edit("internal/app/calc_test.go", lines("test", 10), "test: cases\n\nLoop-Phase: RED\n"),
				edit("internal/app/calc.go", lines("calc", 10), "feat: calc\n\nLoop-Phase: GREEN\n"),
				edit("internal/app/calc.go", lines("tidy", 10), "refactor: calc\n\nLoop-Phase: REFACTOR\n"),
				edit("internal/app/calc.go", lines("again", 10), "feat: calc again\n\nLoop-Phase: GREEN\n"),
			},
			want: scnWant{exit: 0, iteration: 4, state: "CLOSED", states: "CCCC", progress: "ynyy"},
		},
	}
}

// dateRewrites are eight commits that only rewrite the date in NOTES.md,
// with a Loop-Phase: document trailer in changing case when phase is set.
func dateRewrites(phase bool) []*scnStep {
	var s []*scnStep
	for i := 1; i <= 8; i++ {
		msg := "notes: date"
		if phase {
			msg += "\n\nLoop-Phase: " + []string{"document", "Document", "DOCUMENT", "docUMENT"}[i%4] + "\n"
		}
		s = append(s, edit("NOTES.md", fmt.Sprintf("Last updated: 2026-11-%02d\n", i), msg))
	}
	return s
}

// stateJSON is a loop's state file: a time and a fingerprint.
func stateJSON(updated, fingerprint string) string {
	return fmt.Sprintf("{\"updated\": %q, \"fingerprint\": %q}\n", updated, fingerprint)
}

// hexRefreshes is one code change, then three commits that only refresh
// the time and fingerprint of state.json.
func hexRefreshes() []*scnStep {
	return []*scnStep{
		code(1),
		edit("state.json", stateJSON("2026-11-28T01:00:00Z", "9f86d081884c7d65"), "state: refresh"),
		edit("state.json", stateJSON("2026-11-28T01:10:00Z", "a3c1e0bf2d44e6f1"), "state: refresh"),
		edit("state.json", stateJSON("2026-11-28T01:20:00Z", "c0ffee12b7d9a845"), "state: refresh"),
	}
}

// specRounds are four iterations that each rewrite the e2e spec and add a
// one-line test file in three packages.
func specRounds() []*scnStep {
	var s []*scnStep
	for i, word := range []string{"alpha", "beta", "gamma", "delta"} {
		st := edit("tests/e2e/app.spec.ts", lines(word, 200), fmt.Sprintf("test: specs round %d", i+1))
		for _, pkg := range []string{"parse", "render", "store"} {
			st = st.with(fmt.Sprintf("internal/%s/case%d_test.go", pkg, i+1), fmt.Sprintf("package %s\n", pkg))
		}
		s = append(s, st)
	}
	return s
}

// tuned is a component whose delay and opacity are set by i.
func tuned(i int) string {
	return fmt.Sprintf("export const config = {\n  delayMs: %d,\n  opacity: 0.%d,\n  label: \"Install the app\",\n};\n", 500+i*50, 10+i%80)
}
