package policy

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/pathmatch"
)

func mustBuiltin(t *testing.T, name string) *Policy {
	t.Helper()
	p, err := Builtin(name)
	if err != nil {
		t.Fatalf("Builtin(%q): %v", name, err)
	}
	return p
}

func TestNames(t *testing.T) {
	t.Parallel()
	want := []string{"default", "profiles", "ralph", "strict", "tdd"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names() mismatch (-want +got):\n%s", diff)
	}
}

// TestBuiltinOverridesApply parses every built-in as a policy file is
// parsed, which applies each of its phases and profiles: loading a
// built-in skips that, so a phase or profile that does not apply must
// fail here. The result must be the built-in itself.
func TestBuiltinOverridesApply(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		src, err := Source(name)
		if err != nil {
			t.Fatalf("Source(%q): %v", name, err)
		}
		p, err := Parse(src, "builtin:"+name)
		if err != nil {
			t.Errorf("Parse(builtin %s): %v", name, err)
			continue
		}
		if diff := cmp.Diff(mustBuiltin(t, name), p); diff != "" {
			t.Errorf("builtin %s parsed as a file differs from Builtin (-builtin +parsed):\n%s", name, diff)
		}
	}
}

// TestBuiltinsLoadAndValidate loads every built-in by Builtin and by Load,
// validates it and checks that both give the same policy.
func TestBuiltinsLoadAndValidate(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := mustBuiltin(t, name)
			if err := p.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if p.Name != name {
				t.Errorf("got name %q, want %q", p.Name, name)
			}
			if p.Extends != "" {
				t.Errorf("got extends %q in an effective policy, want empty", p.Extends)
			}
			q, err := Load(name)
			if err != nil {
				t.Fatalf("Load(%q): %v", name, err)
			}
			if diff := cmp.Diff(p, q); diff != "" {
				t.Errorf("Load differs from Builtin (-builtin +load):\n%s", diff)
			}
			src, err := Source(name)
			if err != nil {
				t.Fatalf("Source(%q): %v", name, err)
			}
			if !bytes.Contains(src, []byte("name = \""+name+"\"")) {
				t.Errorf("Source(%q) does not name the policy", name)
			}
		})
	}
}

func TestLoadEmptyIsDefault(t *testing.T) {
	t.Parallel()
	p, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "default" {
		t.Errorf("got %q, want default", p.Name)
	}
}

func TestBuiltinIsACopy(t *testing.T) {
	t.Parallel()
	p := mustBuiltin(t, "default")
	p.Rules.NoProgress.NoProgressThreshold = 99
	p.Progress.Signals[0] = "changed"
	p.Profiles["debugging"]["progress"].(map[string]any)["stagnation_percent"] = 50.0
	q := mustBuiltin(t, "default")
	if q.Rules.NoProgress.NoProgressThreshold != 3 || q.Progress.Signals[0] != SignalFiles {
		t.Errorf("changing a returned policy changed the built-in: got threshold %d, signal %q",
			q.Rules.NoProgress.NoProgressThreshold, q.Progress.Signals[0])
	}
	if got := q.Profiles["debugging"]["progress"].(map[string]any)["stagnation_percent"]; got != 2.0 {
		t.Errorf("changing a returned override changed the built-in: got %v, want 2", got)
	}
}

// TestDefaultMatchesSpec checks the default policy's documented
// thresholds and edge rules.
func TestDefaultMatchesSpec(t *testing.T) {
	t.Parallel()
	p := mustBuiltin(t, "default")
	r := p.Rules
	checks := []struct {
		name      string
		got, want any
	}{
		{"half_open_after", r.NoProgress.HalfOpenAfter, 2},
		{"no_progress_threshold", r.NoProgress.NoProgressThreshold, 3},
		{"same_error_threshold", r.SameError.SameErrorThreshold, 5},
		{"same_error_mode", r.SameError.SameErrorMode, SameErrorConsecutive},
		{"output_decline_percent", r.OutputDecline.OutputDeclinePercent, 70.0},
		{"output_window", r.OutputDecline.OutputWindow, 3},
		{"max_iterations", r.MaxIterations.MaxIterations, 20},
		{"warning_iterations", r.MaxIterations.WarningIterations, 8},
		{"critical_iterations", r.MaxIterations.CriticalIterations, 15},
		{"score_window", r.Score.ScoreWindow, 3},
		{"score_action", r.Score.ScoreAction, ScoreWatch},
		{"weights", r.Score.Weights, Weights{TestFixed: 3, TaskCompleted: 5, FileChanged: 1, ErrorResolved: 2, SameError: -2, NoChange: -3, Revert: -1, TestRegression: -3}},
		{"permission_denied_threshold", r.PermissionDenied.PermissionDeniedThreshold, 3},
		{"test_only_percent", r.TestOnly.TestOnlyPercent, 80.0},
		{"test_only_window", r.TestOnly.TestOnlyWindow, 3},
		{"circular_threshold", r.Circular.CircularThreshold, 2},
		{"circular_window", r.Circular.CircularWindow, 6},
		{"protected_mode", r.ProtectedPath.ProtectedMode, ProtectedDelete},
		{"completion_claim", r.CompletionClaim.CompletionClaim, ClaimWarn},
		{"max_iterations_per_hour", r.Rate.MaxIterationsPerHour, 100},
		{"cooldown", p.Breaker.Cooldown, Duration{}},
		{"cooldown_multiplier", p.Breaker.CooldownMultiplier, 2.0},
		{"cooldown_max", p.Breaker.CooldownMax, Duration{}},
		{"probe_iterations", p.Breaker.ProbeIterations, 1},
		{"max_held", p.Progress.MaxHeld, 3},
		{"questions_hold", p.Progress.QuestionsHold, true},
		{"stagnation_percent", p.Progress.StagnationPercent, 3.0},
		{"task_files", p.Progress.TaskFiles, []string{"fix_plan.md", "@fix_plan.md", "IMPLEMENTATION_PLAN.md", "TODO.md"}},
		{"busywork_is_progress", p.Progress.BusyworkIsProgress, false},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", c.name, diff)
		}
	}
	for _, rule := range []bool{r.NoProgress.Enabled, r.SameError.Enabled, r.OutputDecline.Enabled, r.MaxIterations.Enabled,
		r.Score.Enabled, r.PermissionDenied.Enabled, r.TestOnly.Enabled, r.Circular.Enabled, r.ProtectedPath.Enabled, r.Rate.Enabled} {
		if !rule {
			t.Errorf("a rule is off in default, want every rule on: %+v", r)
			break
		}
	}
	// What steers the agent or the breaker is protected; the
	// loop's ephemeral state is ignored (and deletable); the loop's own
	// code under .ralph/ is neither.
	matches := func(key string, list []string, path string, want bool) {
		t.Helper()
		set, err := pathmatch.Compile(list)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if got := set.Match(path); got != want {
			t.Errorf("%s matches %q: got %v, want %v", key, path, got, want)
		}
	}
	for _, path := range []string{".loopbreaker.toml", ".github/loopbreaker.toml", ".github/workflows/ci.yml", "AGENTS.md", "CLAUDE.md",
		"PROMPT.md", ".ralphrc", ".ralph/PROMPT.md", ".ralph/AGENT.md", ".ralph/fix_plan.md"} {
		matches("protected_paths", r.ProtectedPath.ProtectedPaths, path, true)
		matches("ignore_paths", p.Progress.IgnorePaths, path, false)
	}
	for _, path := range []string{"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum", "Cargo.lock", "poetry.lock", "uv.lock",
		"Gemfile.lock", "composer.lock", "vendor/x.go", "node_modules/x/index.js", ".loopbreaker/record.json",
		".ralph/.claude_session_id", ".ralph/.response_analysis", ".ralph/.call_count", ".ralph/logs/ralph.log", ".ralph/live.log",
		".ralph/status.json", ".ralph/progress.json", ".circuit_breaker_state", ".claude_session_id"} {
		matches("ignore_paths", p.Progress.IgnorePaths, path, true)
		matches("protected_paths", r.ProtectedPath.ProtectedPaths, path, false)
	}
	for _, path := range []string{".ralph/lib/context.sh", ".ralph/ralph.sh", ".ralph/templates/coding-prompt.md", "specs/api.md"} {
		matches("ignore_paths", p.Progress.IgnorePaths, path, false)
		matches("protected_paths", r.ProtectedPath.ProtectedPaths, path, false)
	}
	for _, path := range []string{"NOTES.md", "PROGRESS.md", ".ralph/PROGRESS.md", "progress.txt", "PROJECT_STATUS.md", "build.log", "TODO"} {
		matches("notes_paths", p.Progress.NotesPaths, path, true)
	}
	for _, path := range []string{"tests/fixtures/a.json", "pkg/testdata/in.txt", "src/__snapshots__/a.snap"} {
		matches("test_data_paths", p.Progress.TestDataPaths, path, true)
	}
	for _, ph := range []string{"RED", "GREEN", "REFACTOR", "DOCUMENT"} {
		if !p.HasPhase(ph) {
			t.Errorf("default lacks phase %s", ph)
		}
	}
}

// TestBuiltinsMatchSpec checks what each other built-in changes from
// default.
func TestBuiltinsMatchSpec(t *testing.T) {
	t.Parallel()
	t.Run("ralph", func(t *testing.T) {
		t.Parallel()
		p := mustBuiltin(t, "ralph")
		r := p.Rules
		if got, want := p.Breaker.Cooldown, (Duration{D: 30 * time.Minute, Set: true}); got != want {
			t.Errorf("got cooldown %v, want %v", got, want)
		}
		// ralph's breaker also counts the agent's claims; a claim is never
		// evidence here.
		if diff := cmp.Diff([]Signal{SignalFiles}, p.Progress.Signals); diff != "" {
			t.Errorf("signals mismatch (-want +got):\n%s", diff)
		}
		if !p.Progress.QuestionsHold || p.Progress.MaxHeld != 0 {
			t.Errorf("got questions_hold %v max_held %d, want true and 0 (unbounded)", p.Progress.QuestionsHold, p.Progress.MaxHeld)
		}
		if r.SameError.SameErrorMode != SameErrorAny {
			t.Errorf("got same_error_mode %q, want any", r.SameError.SameErrorMode)
		}
		if r.PermissionDenied.PermissionDeniedThreshold != 2 {
			t.Errorf("got permission_denied_threshold %d, want 2", r.PermissionDenied.PermissionDeniedThreshold)
		}
		off := map[string]bool{
			RuleScore: r.Score.Enabled, RuleOutputDecline: r.OutputDecline.Enabled, RuleCircular: r.Circular.Enabled,
			RuleTestOnly: r.TestOnly.Enabled, RuleProtectedPath: r.ProtectedPath.Enabled,
			RuleCompletionClaim: r.CompletionClaim.CompletionClaim != ClaimOff, RuleRate: r.Rate.Enabled,
			RuleMaxIterations: r.MaxIterations.Enabled,
		}
		for rule, on := range off {
			if on {
				t.Errorf("rule %s is on in ralph, want off", rule)
			}
		}
		if !r.NoProgress.Enabled || !r.SameError.Enabled || !r.PermissionDenied.Enabled {
			t.Errorf("ralph must keep no_progress, same_error and permission_denied on: %+v", r)
		}
	})
	t.Run("strict", func(t *testing.T) {
		t.Parallel()
		p := mustBuiltin(t, "strict")
		b := p.Breaker
		if b.Cooldown.D != 30*time.Minute || !b.Cooldown.Set || b.CooldownMultiplier != 2 || b.CooldownMax.D != 8*time.Hour {
			t.Errorf("got cooldown %v x%v max %v, want 30m x2 max 8h", b.Cooldown, b.CooldownMultiplier, b.CooldownMax)
		}
		if p.Rules.Score.ScoreAction != ScoreOpen {
			t.Errorf("got score_action %q, want open", p.Rules.Score.ScoreAction)
		}
		if p.Rules.ProtectedPath.ProtectedMode != ProtectedDeny {
			t.Errorf("got protected_mode %q, want deny", p.Rules.ProtectedPath.ProtectedMode)
		}
	})
	t.Run("tdd", func(t *testing.T) {
		t.Parallel()
		p := mustBuiltin(t, "tdd")
		want := map[string]struct {
			signal    Signal
			threshold int
		}{"RED": {SignalTestsAdded, 3}, "GREEN": {SignalTests, 2}, "REFACTOR": {SignalRefactor, 5}, "DOCUMENT": {SignalDocs, 3}}
		for ph, w := range want {
			q := p.WithPhase(ph)
			if diff := cmp.Diff([]Signal{w.signal}, q.Progress.Signals); diff != "" {
				t.Errorf("%s signals mismatch (-want +got):\n%s", ph, diff)
			}
			if got := q.Rules.NoProgress.NoProgressThreshold; got != w.threshold {
				t.Errorf("%s: got no_progress_threshold %d, want %d", ph, got, w.threshold)
			}
		}
		if g := p.WithPhase("GREEN").Rules.NoProgress; g.HalfOpenAfter < g.NoProgressThreshold {
			t.Errorf("GREEN: half_open_after %d is below the threshold %d: want GREEN to open at 2 straight from CLOSED", g.HalfOpenAfter, g.NoProgressThreshold)
		}
	})
	t.Run("profiles", func(t *testing.T) {
		t.Parallel()
		p := mustBuiltin(t, "profiles")
		if !p.HasSignal(SignalPercent) || p.Progress.StagnationPercent != 3 {
			t.Errorf("got signals %v stagnation %v, want percent and 3", p.Progress.Signals, p.Progress.StagnationPercent)
		}
		if p.Rules.NoProgress.NoProgressThreshold != 10 || p.Rules.MaxIterations.MaxIterations != 20 {
			t.Errorf("got threshold %d max %d, want seed 001's 10 and 20", p.Rules.NoProgress.NoProgressThreshold, p.Rules.MaxIterations.MaxIterations)
		}
		// Seed 001's project types: max_loops_no_progress and stagnation_threshold.
		seed := map[string][2]float64{
			"critical_feature": {15, 2}, "research_task": {20, 5}, "simple_script": {3, 10},
			"documentation": {5, 5}, "debugging": {8, 2}, "generic": {10, 3},
		}
		for name, w := range seed {
			q, err := p.WithProfile(name)
			if err != nil {
				t.Fatalf("WithProfile(%q): %v", name, err)
			}
			got := [2]float64{float64(q.Rules.NoProgress.NoProgressThreshold), q.Progress.StagnationPercent}
			if got != w {
				t.Errorf("%s: got [threshold, stagnation] %v, want %v", name, got, w)
			}
			// Seed 001: the absolute maximum holds whatever the project type,
			// and progress stays the percentage model.
			if q.Rules.MaxIterations.MaxIterations != 20 || !q.HasSignal(SignalPercent) {
				t.Errorf("%s: got max_iterations %d signals %v, want 20 and percent", name, q.Rules.MaxIterations.MaxIterations, q.Progress.Signals)
			}
		}
	})
}

// TestEncodeRoundTrip prints every built-in, and every profile and phase
// of it, and loads the text back: the policy must come back unchanged.
func TestEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		base := mustBuiltin(t, name)
		variants := map[string]*Policy{name: base}
		for _, pr := range base.ProfileNames() {
			q, err := base.WithProfile(pr)
			if err != nil {
				t.Fatalf("%s: WithProfile(%q): %v", name, pr, err)
			}
			variants[name+"+profile="+pr] = q
		}
		for _, ph := range base.PhaseNames() {
			variants[name+"+phase="+ph] = base.WithPhase(ph)
		}
		for label, p := range variants {
			t.Run(label, func(t *testing.T) {
				t.Parallel()
				var buf bytes.Buffer
				if err := p.Encode(&buf); err != nil {
					t.Fatalf("Encode: %v", err)
				}
				q, err := Parse(buf.Bytes(), label+".toml")
				if err != nil {
					t.Fatalf("Parse(Encode()): %v\n%s", err, buf.String())
				}
				if diff := cmp.Diff(p, q); diff != "" {
					t.Errorf("policy changed through Encode and Parse (-before +after):\n%s", diff)
				}
				var again bytes.Buffer
				if err := q.Encode(&again); err != nil {
					t.Fatalf("Encode again: %v", err)
				}
				if diff := cmp.Diff(buf.String(), again.String()); diff != "" {
					t.Errorf("second Encode differs (-first +second):\n%s", diff)
				}
			})
		}
	}
}

func TestWithProfile(t *testing.T) {
	t.Parallel()
	p := mustBuiltin(t, "default")
	q, err := p.WithProfile("research_task")
	if err != nil {
		t.Fatal(err)
	}
	got := []any{q.Rules.NoProgress.HalfOpenAfter, q.Rules.NoProgress.NoProgressThreshold, q.Progress.StagnationPercent, q.Progress.MaxHeld, q.Rules.MaxIterations.MaxIterations}
	want := []any{3, 20, 5.0, 6, 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("research_task mismatch (-want +got):\n%s", diff)
	}
	if p.Rules.NoProgress.NoProgressThreshold != 3 {
		t.Errorf("WithProfile changed the base policy: threshold %d, want 3", p.Rules.NoProgress.NoProgressThreshold)
	}
	// Keys the profile does not give stay the base's.
	if q.Rules.SameError != p.Rules.SameError || q.Name != p.Name {
		t.Errorf("got same_error %+v name %q, want the base's %+v %q", q.Rules.SameError, q.Name, p.Rules.SameError, p.Name)
	}
	same, err := p.WithProfile("")
	if err != nil || same != p {
		t.Errorf("WithProfile(\"\") = %p, %v; want the policy itself", same, err)
	}
	_, err = p.WithProfile("gaming")
	if err == nil {
		t.Fatal("WithProfile(\"gaming\"): got no error")
	}
	for _, want := range []string{`"gaming"`, "critical_feature", "debugging", "documentation", "research_task", "simple_script"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if _, err := mustBuiltin(t, "strict").WithProfile("x"); err == nil || !strings.Contains(err.Error(), "critical_feature") {
		t.Errorf("strict inherits default's profiles: got %v", err)
	}
}

func TestWithPhase(t *testing.T) {
	t.Parallel()
	p := mustBuiltin(t, "tdd")
	g := p.WithPhase("GREEN")
	if g.Rules.NoProgress.NoProgressThreshold != 2 || g.Rules.SameError.SameErrorThreshold != 3 {
		t.Errorf("GREEN: got threshold %d same_error %d, want 2 and 3", g.Rules.NoProgress.NoProgressThreshold, g.Rules.SameError.SameErrorThreshold)
	}
	if p.Rules.NoProgress.NoProgressThreshold != 3 {
		t.Errorf("WithPhase changed the base policy")
	}
	for _, name := range []string{"", "BLUE", "green"} {
		if got := p.WithPhase(name); got != p {
			t.Errorf("WithPhase(%q) changed the policy; want the base policy for an unknown phase", name)
		}
	}
	if !p.HasPhase("GREEN") || p.HasPhase("BLUE") {
		t.Errorf("HasPhase: got GREEN %v BLUE %v", p.HasPhase("GREEN"), p.HasPhase("BLUE"))
	}
	if diff := cmp.Diff([]string{"DOCUMENT", "GREEN", "RED", "REFACTOR"}, p.PhaseNames()); diff != "" {
		t.Errorf("PhaseNames mismatch (-want +got):\n%s", diff)
	}
}

func TestRuleOrderIsSpecOrder(t *testing.T) {
	t.Parallel()
	want := []string{"protected_path", "permission_denied", "same_error", "circular", "test_only", "output_decline",
		"completion_claim", "no_progress", "task_stuck", "spend", "score", "rate", "max_iterations"}
	if diff := cmp.Diff(want, RuleOrder); diff != "" {
		t.Errorf("RuleOrder mismatch (-want +got):\n%s", diff)
	}
}

func TestDurationText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Duration
		text    string
		wantErr string
	}{
		{in: "", want: Duration{}, text: ""},
		{in: "  ", want: Duration{}, text: ""},
		{in: "0s", want: Duration{Set: true}, text: "0s"},
		{in: "30m", want: Duration{D: 30 * time.Minute, Set: true}, text: "30m0s"},
		{in: "1h30m", want: Duration{D: 90 * time.Minute, Set: true}, text: "1h30m0s"},
		{in: "30", wantErr: `"30" is not a duration`},
		{in: "half an hour", wantErr: "not a duration"},
		{in: "-5m", wantErr: `"-5m" is negative`},
	}
	for _, tc := range tests {
		var d Duration
		err := d.UnmarshalText([]byte(tc.in))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("UnmarshalText(%q): got error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("UnmarshalText(%q): %v", tc.in, err)
			continue
		}
		if d != tc.want {
			t.Errorf("UnmarshalText(%q): got %+v, want %+v", tc.in, d, tc.want)
		}
		if d.String() != tc.text {
			t.Errorf("String() of %q: got %q, want %q", tc.in, d.String(), tc.text)
		}
	}
}

func TestHasSignal(t *testing.T) {
	t.Parallel()
	p := mustBuiltin(t, "ralph")
	if !p.HasSignal(SignalFiles) || p.HasSignal(SignalClaims) {
		t.Errorf("ralph: got files %v claims %v, want true false", p.HasSignal(SignalFiles), p.HasSignal(SignalClaims))
	}
}

func TestUncommented(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"# a\nname = \"x\" # b\n  # c\n\nk = 1", "\nname = \"x\" # b\n\n\nk = 1"},
		{"# last line without a break", ""},
		{"s = \"\"\"\n# data\n\"\"\"\n# c\n", "s = \"\"\"\n# data\n\"\"\"\n# c\n"},
		{"s = '''\n# data\n'''\n", "s = '''\n# data\n'''\n"},
	} {
		if got := string(uncommented([]byte(c.in))); got != c.want {
			t.Errorf("uncommented(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
