package policy

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestParseErrors feeds bad policy texts: each error must name the source,
// the key, the line where the text has one, and what is wrong.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		want []string // substrings of the error
	}{
		{
			name: "unknown key",
			text: "extends = \"default\"\n\n[rules.no_progress]\nhalf_open_after = 2\nno_progres_threshold = 4\n",
			want: []string{"my.toml: line 5", `unknown key "rules.no_progress.no_progres_threshold"`},
		},
		{
			name: "unknown table",
			text: "extends = \"default\"\n[rules.speed]\nlimit = 3\n",
			want: []string{"my.toml: line 2", `unknown key "rules.speed"`},
		},
		{
			name: "unknown top-level key",
			text: "extends = \"default\"\ncolour = \"red\"\n",
			want: []string{"line 2", `unknown key "colour"`},
		},
		{
			name: "out of range int",
			text: "extends = \"default\"\n[rules.no_progress]\nhalf_open_after = 0\n",
			want: []string{"my.toml: line 3", "rules.no_progress.half_open_after = 0", "out of range", "want 1 to 1000"},
		},
		{
			name: "out of range float",
			text: "extends = \"default\"\n[rules.output_decline]\n\noutput_decline_percent = 170.0\n",
			want: []string{"line 4", "rules.output_decline.output_decline_percent = 170", "want 1 to 100"},
		},
		{
			name: "out of range weight",
			text: "extends = \"default\"\n[rules.score.weights]\nno_change = 3\n",
			want: []string{"line 3", "rules.score.weights.no_change = 3", "want -100 to 0"},
		},
		{
			name: "multiplier below one",
			text: "extends = \"default\"\n[breaker]\ncooldown_multiplier = 0.5\n",
			want: []string{"line 3", "breaker.cooldown_multiplier = 0.5", "want 1 to 100"},
		},
		{
			name: "bad enum",
			text: "extends = \"default\"\n[rules.same_error]\nsame_error_mode = \"sometimes\"\n",
			want: []string{"line 3", `rules.same_error.same_error_mode = "sometimes"`, "consecutive, total, any"},
		},
		{
			name: "bad completion claim",
			text: "extends = \"default\"\n[rules.completion_claim]\ncompletion_claim = \"yes\"\n",
			want: []string{"line 3", `"yes"`, "off, warn, trip"},
		},
		{
			name: "unknown signal",
			text: "extends = \"default\"\n[progress]\nsignals = [\"files\", \"vibes\"]\n",
			want: []string{"line 3", `progress.signals = "vibes"`, "files, tests"},
		},
		{
			name: "no signals",
			text: "extends = \"default\"\n[progress]\nsignals = []\n",
			want: []string{"line 3", "progress.signals is empty"},
		},
		{
			name: "warning above critical",
			text: "extends = \"default\"\n[rules.max_iterations]\nwarning_iterations = 16\n",
			want: []string{"line 3", "warning_iterations = 16 is above critical_iterations = 15"},
		},
		{
			name: "cooldown max below cooldown",
			text: "extends = \"default\"\n[breaker]\ncooldown = \"1h\"\ncooldown_max = \"30m\"\n",
			want: []string{"line 4", `breaker.cooldown_max = "30m0s" is shorter than breaker.cooldown = "1h0m0s"`},
		},
		{
			name: "bad pattern",
			text: "extends = \"default\"\n[progress]\nignore_paths = [\"vendor/\", \"a//b\"]\n",
			want: []string{"line 3", "progress.ignore_paths", `"a//b"`, "double slash"},
		},
		{
			name: "empty model",
			text: "extends = \"default\"\n[escalation]\nmodel_progression = [\"haiku\", \" \"]\n",
			want: []string{"line 3", "escalation.model_progression has an empty entry"},
		},
		{
			name: "empty name",
			text: "extends = \"default\"\nname = \" \"\n",
			want: []string{"line 2", "name is empty"},
		},
		{
			name: "wrong type",
			text: "extends = \"default\"\n[rules.no_progress]\nhalf_open_after = \"two\"\n",
			want: []string{"my.toml: line 3", "half_open_after", "incompatible types"},
		},
		{
			name: "wrong type bool",
			text: "extends = \"default\"\n[rules.rate]\nenabled = 1\n",
			want: []string{"line 3", "enabled"},
		},
		{
			name: "bad duration",
			text: "extends = \"default\"\n[breaker]\ncooldown = \"30 minutes\"\n",
			want: []string{"line 3", "cooldown", `"30 minutes" is not a duration`},
		},
		{
			name: "negative duration",
			text: "extends = \"default\"\n[breaker]\ncooldown = \"-1m\"\n",
			want: []string{"line 3", `"-1m" is negative`},
		},
		{
			name: "syntax error",
			text: "extends = \"default\"\n[rules.no_progress\n",
			want: []string{"my.toml: line 2"},
		},
		{
			name: "duplicate key",
			text: "extends = \"default\"\nname = \"a\"\nname = \"b\"\n",
			want: []string{"line 3", "name"},
		},
		{
			name: "unknown extends",
			text: "extends = \"lenient\"\nname = \"x\"\n",
			want: []string{"my.toml: line 1", `extends = "lenient"`, "not a built-in policy", "default, profiles, ralph, strict, tdd"},
		},
		{
			name: "extends a file",
			text: "extends = \"./base.toml\"\n",
			want: []string{`extends = "./base.toml"`, "not a built-in policy"},
		},
		{
			name: "no extends and keys missing",
			text: "name = \"mine\"\ndescription = \"short\"\non_shallow = \"decide\"\n",
			want: []string{"my.toml", `missing key "breaker.cooldown"`, `extends = "default"`},
		},
		{
			name: "override with unknown key",
			text: "extends = \"default\"\n[profiles.fast.rules.no_progress]\nno_progress_threshold = 2\nhalf_open = 1\n",
			want: []string{"my.toml: line 4", "profiles.fast", `unknown key "rules.no_progress.half_open"`},
		},
		{
			name: "phase override with unknown table",
			text: "extends = \"tdd\"\n[phases.GREEN.rulez.no_progress]\nno_progress_threshold = 2\n",
			want: []string{"line 2", "phases.GREEN", `unknown key "rulez`},
		},
		{
			name: "override out of range",
			text: "extends = \"default\"\n[profiles.fast.rules.no_progress]\nno_progress_threshold = 0\n",
			want: []string{"line 3", "profiles.fast", "rules.no_progress.no_progress_threshold = 0", "want 1 to 1000"},
		},
		{
			name: "override wrong type",
			text: "extends = \"default\"\n[phases.RED.progress]\nsignals = \"tests_added\"\n",
			want: []string{"my.toml: line 3", "phases.RED", `key "progress.signals"`, "incompatible types"},
		},
		{
			name: "override of the name",
			text: "extends = \"default\"\n[profiles.fast]\nname = \"fast\"\n",
			want: []string{"profiles.fast", `key "name" cannot be overridden`},
		},
		{
			name: "override bad duration",
			text: "extends = \"default\"\n[profiles.slow.breaker]\n\ncooldown = \"5 min\"\n",
			want: []string{"my.toml: line 4", "profiles.slow", `"5 min" is not a duration`},
		},
		{
			name: "binary",
			text: "extends = \"default\"\x00\n",
			want: []string{"my.toml", "binary file"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse([]byte(tc.text), "my.toml")
			if err == nil {
				t.Fatalf("Parse: got policy %q and no error, want an error", p.Name)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "policy my.toml") {
				t.Errorf("error %q does not start with the source", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q spans several lines", msg)
			}
		})
	}
}

// TestParseExtends checks that a file extending a built-in changes only
// the keys it gives, through a chain (file -> ralph -> default), and that
// its phase and profile overrides merge key by key with the base's.
func TestParseExtends(t *testing.T) {
	t.Parallel()
	text := `extends = "ralph"
name = "mine"

[rules.permission_denied]
permission_denied_threshold = 4

[phases.GREEN.rules.no_progress]
no_progress_threshold = 4

[profiles.debugging.rules.same_error]
same_error_threshold = 9

[profiles.quick.rules.no_progress]
no_progress_threshold = 2
`
	p, err := Parse([]byte(text), "mine.toml")
	if err != nil {
		t.Fatal(err)
	}
	ralph := mustBuiltin(t, "ralph")
	def := mustBuiltin(t, "default")

	want := ralph.Clone()
	want.Name = "mine"
	want.Rules.PermissionDenied.PermissionDeniedThreshold = 4
	got := p.Clone()
	got.Phases, got.Profiles = nil, nil
	want.Phases, want.Profiles = nil, nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy mismatch (-ralph with the file's changes +got):\n%s", diff)
	}
	// From default, through ralph.
	if got, want := p.Rules.SameError.SameErrorThreshold, def.Rules.SameError.SameErrorThreshold; got != want {
		t.Errorf("got same_error_threshold %d, want default's %d", got, want)
	}
	// From ralph.
	if p.Breaker.Cooldown.D != 30*time.Minute || p.Rules.SameError.SameErrorMode != SameErrorAny {
		t.Errorf("got cooldown %v mode %q, want ralph's 30m and any", p.Breaker.Cooldown, p.Rules.SameError.SameErrorMode)
	}

	green := p.WithPhase("GREEN")
	if diff := cmp.Diff([]Signal{SignalTests}, green.Progress.Signals); diff != "" {
		t.Errorf("GREEN lost default's progress rule (-want +got):\n%s", diff)
	}
	if green.Rules.NoProgress.NoProgressThreshold != 4 {
		t.Errorf("GREEN: got threshold %d, want 4", green.Rules.NoProgress.NoProgressThreshold)
	}
	dbg, err := p.WithProfile("debugging")
	if err != nil {
		t.Fatal(err)
	}
	if dbg.Rules.SameError.SameErrorThreshold != 9 || dbg.Rules.NoProgress.NoProgressThreshold != 5 || dbg.Progress.StagnationPercent != 2 {
		t.Errorf("debugging: got same_error %d threshold %d stagnation %v, want 9, default's 5 and 2",
			dbg.Rules.SameError.SameErrorThreshold, dbg.Rules.NoProgress.NoProgressThreshold, dbg.Progress.StagnationPercent)
	}
	quick, err := p.WithProfile("quick")
	if err != nil {
		t.Fatal(err)
	}
	if quick.Rules.NoProgress.NoProgressThreshold != 2 {
		t.Errorf("quick: got threshold %d, want 2", quick.Rules.NoProgress.NoProgressThreshold)
	}
	if _, err := p.WithProfile("research_task"); err != nil {
		t.Errorf("profiles of the base must stay: %v", err)
	}
	// The base must not be changed by the merge.
	if g := mustBuiltin(t, "ralph").WithPhase("GREEN"); g.Rules.NoProgress.NoProgressThreshold != 3 {
		t.Errorf("parsing a file changed ralph's GREEN phase: threshold %d", g.Rules.NoProgress.NoProgressThreshold)
	}
}

// TestParseCompleteFile loads a file without extends that gives every key
// (what `policy default` prints, edited).
func TestParseCompleteFile(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := mustBuiltin(t, "default").Encode(&buf); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(buf.String(), `name = "default"`, `name = "own"`, 1)
	text = strings.Replace(text, "max_iterations = 20", "max_iterations = 30", 1)
	p, err := Parse([]byte(text), "own.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "own" || p.Rules.MaxIterations.MaxIterations != 30 {
		t.Errorf("got name %q max %d, want own and 30", p.Name, p.Rules.MaxIterations.MaxIterations)
	}
	// Dropping one key from a file without extends is an error naming it.
	text = strings.Replace(text, "    enabled = true\n    max_iterations_per_hour = 100", "    max_iterations_per_hour = 100", 1)
	_, err = Parse([]byte(text), "own.toml")
	if err == nil || !strings.Contains(err.Error(), `missing key "rules.rate.enabled"`) {
		t.Errorf("got %v, want missing key rules.rate.enabled", err)
	}
}

func TestLoadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.toml", []byte("extends = \"strict\"\nname = \"team\"\n[rules.max_iterations]\nmax_iterations = 50\n"))
	p, err := Load(good)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if p.Name != "team" || p.Rules.MaxIterations.MaxIterations != 50 || p.Rules.Score.ScoreAction != ScoreOpen {
		t.Errorf("got %q max %d score %q, want team, 50, open", p.Name, p.Rules.MaxIterations.MaxIterations, p.Rules.Score.ScoreAction)
	}

	big := bytes.Repeat([]byte("# padding padding padding padding\n"), MaxFileBytes/34+10)
	tests := []struct {
		name string
		arg  string
		want []string
	}{
		{"missing", filepath.Join(dir, "nope.toml"), []string{"nope.toml", "not a built-in policy", "no such file"}},
		{"unknown name", "lenient", []string{`"lenient"`, "default, profiles, ralph, strict, tdd"}},
		{"directory", dir, []string{dir, "not a regular file (a directory)"}},
		{"binary", write("bin.toml", []byte{0x7f, 'E', 'L', 'F', 0, 0, 1}), []string{"bin.toml", "binary file"}},
		{"too large", write("big.toml", append([]byte("extends = \"default\"\n"), big...)), []string{"big.toml", "larger than 1048576 bytes"}},
		{"bad utf8", write("latin1.toml", []byte("extends = \"default\"\ndescription = \"caf\xe9\"\n")), []string{"latin1.toml"}},
		{"invalid", write("bad.toml", []byte("extends = \"default\"\n[rules.rate]\nmax_iterations_per_hour = 0\n")), []string{"bad.toml: line 3", "max_iterations_per_hour = 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Load(tc.arg)
			if err == nil {
				t.Fatalf("Load(%q): got policy %q, want an error", tc.arg, p.Name)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestParseAcceptsAnchoredPatterns checks that the validator accepts what
// the path matcher accepts.
func TestParseAcceptsAnchoredPatterns(t *testing.T) {
	t.Parallel()
	text := "extends = \"default\"\n[rules.protected_path]\nprotected_paths = [\"/Makefile\", \"docs/**/*.md\", \"!keep.md\"]\n"
	if _, err := Parse([]byte(text), "p.toml"); err != nil {
		t.Errorf("Parse: %v", err)
	}
}

func TestKeyLine(t *testing.T) {
	t.Parallel()
	text := []byte(`# comment
name = "x"
[rules.no_progress]  # trailing comment
enabled = true
  half_open_after = 2
[rules."same_error"]
same_error_threshold = 5
[profiles.fast.rules.no_progress]
no_progress_threshold = 2
`)
	tests := []struct {
		key  []string
		want int
	}{
		{[]string{"name"}, 2},
		{[]string{"rules", "no_progress"}, 3},
		{[]string{"rules", "no_progress", "half_open_after"}, 5},
		{[]string{"rules", "same_error", "same_error_threshold"}, 7},
		{[]string{"profiles", "fast", "rules", "no_progress", "no_progress_threshold"}, 9},
		{[]string{"rules", "rate"}, 0},
	}
	for _, tc := range tests {
		if got := keyLine(text, tc.key); got != tc.want {
			t.Errorf("keyLine(%v): got %d, want %d", tc.key, got, tc.want)
		}
	}
}
