package policy

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// namedSetting is one typed setting: its key, its allowed names and how to
// parse one.
type namedSetting struct {
	key   string
	names []string
	parse func(string) (string, error)
}

func parsed[K setting](s string) (string, error) {
	var v Choice[K]
	err := v.UnmarshalText([]byte(s))
	return string(v), err
}

func namedSettings() []namedSetting {
	return []namedSetting{
		{"on_shallow", []string{"decide", "fail"}, parsed[onShallow]},
		{"progress.signals", []string{"files", "tests", "tests_added", "tasks", "errors", "percent", "refactor", "docs", "claims"}, parsed[signal]},
		{"rules.same_error.same_error_mode", []string{"consecutive", "total", "any"}, parsed[sameErrorMode]},
		{"rules.score.score_action", []string{"watch", "open"}, parsed[scoreAction]},
		{"rules.protected_path.protected_mode", []string{"delete", "deny", "warn"}, parsed[protectedMode]},
		{"rules.completion_claim.completion_claim", []string{"off", "warn", "trip"}, parsed[claimMode]},
	}
}

// TestNamedSettingsParse: every allowed name parses to itself; anything
// else is refused with the key, the value and the allowed names.
func TestNamedSettingsParse(t *testing.T) {
	t.Parallel()
	for _, ns := range namedSettings() {
		for _, n := range ns.names {
			if got, err := ns.parse(n); err != nil || got != n {
				t.Errorf("%s: parse(%q) = %q, %v; want it back", ns.key, n, got, err)
			}
		}
		for _, bad := range []string{"", "foo", strings.ToUpper(ns.names[0]), " " + ns.names[0]} {
			_, err := ns.parse(bad)
			if err == nil {
				t.Errorf("%s: parse(%q) was accepted", ns.key, bad)
				continue
			}
			want := ns.key + " = " + `"` + bad + `" is not allowed: want one of ` + strings.Join(ns.names, ", ")
			if err.Error() != want {
				t.Errorf("%s: got error %q, want %q", ns.key, err, want)
			}
		}
	}
}

// TestNamedSettingsRoundTrip: each built-in policy prints its named
// settings by name and loads back unchanged.
func TestNamedSettingsRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		p := mustBuiltin(t, name)
		var buf bytes.Buffer
		if err := p.Encode(&buf); err != nil {
			t.Fatalf("%s: Encode: %v", name, err)
		}
		text := buf.String()
		for _, line := range []string{
			"on_shallow = \"" + p.OnShallow.String() + "\"",
			"same_error_mode = \"" + p.Rules.SameError.SameErrorMode.String() + "\"",
			"protected_mode = \"" + p.Rules.ProtectedPath.ProtectedMode.String() + "\"",
		} {
			if !strings.Contains(text, line) {
				t.Errorf("%s: printed policy lacks %s", name, line)
			}
		}
		q, err := Parse(buf.Bytes(), "printed")
		if err != nil {
			t.Fatalf("%s: printed policy does not load: %v", name, err)
		}
		if q.Rules.Score.ScoreAction != p.Rules.Score.ScoreAction || q.Rules.CompletionClaim != p.Rules.CompletionClaim ||
			!slices.Equal(q.Progress.Signals, p.Progress.Signals) {
			t.Errorf("%s: named settings changed on the way back", name)
		}
	}
}

// TestNamedSettingsValidate: a policy changed in code to a value no file
// could load (an unset one included) is refused by Validate with the key,
// and is never printed.
func TestNamedSettingsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key    string
		change func(*Policy)
	}{
		{"on_shallow", func(p *Policy) { p.OnShallow = "" }},
		{"progress.signals", func(p *Policy) { p.Progress.Signals = append(p.Progress.Signals, "vibes") }},
		{"rules.same_error.same_error_mode", func(p *Policy) { p.Rules.SameError.SameErrorMode = "sometimes" }},
		{"rules.score.score_action", func(p *Policy) { p.Rules.Score.ScoreAction = "" }},
		{"rules.protected_path.protected_mode", func(p *Policy) { p.Rules.ProtectedPath.ProtectedMode = "hide" }},
		{"rules.completion_claim.completion_claim", func(p *Policy) { p.Rules.CompletionClaim.CompletionClaim = "yes" }},
	} {
		p := mustBuiltin(t, "default")
		tc.change(p)
		err := p.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tc.key+" = ") {
			t.Errorf("%s: Validate got %v, want an error naming the key", tc.key, err)
		}
		if err := p.Encode(&bytes.Buffer{}); err == nil {
			t.Errorf("%s: a policy with a bad value was printed", tc.key)
		}
	}
}
