package policy

import (
	"bytes"
	"strings"
	"testing"
)

// TestProfileSources: which policy of the extends chain gave each key of a
// profile, what it won over, and the phases that win over it.
func TestProfileSources(t *testing.T) {
	t.Parallel()
	src, err := Source("tdd")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ProfileSources(src, "builtin:tdd", "research_task", "")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteProfileSources(&buf, "research_task", keys)
	out := buf.String()
	for _, want := range []string{
		"rules.no_progress.no_progress_threshold = 20  profiles.research_task of builtin:default; the policy's own 3 gives way; phase DOCUMENT sets 3, phase GREEN sets 2, phase RED sets 3, phase REFACTOR sets 5, which wins in that phase\n",
		"progress.stagnation_percent = 5.0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A file that changes the profile: its value wins over default's.
	file := "extends = \"profiles\"\n[profiles.research_task.rules.no_progress]\nno_progress_threshold = 12\n"
	keys, err = ProfileSources([]byte(file), "my.toml", "research_task", "GREEN")
	if err != nil {
		t.Fatal(err)
	}
	var np *KeySource
	for i := range keys {
		if keys[i].Key == "rules.no_progress.no_progress_threshold" {
			np = &keys[i]
		}
	}
	if np == nil || np.From != "my.toml" || FormatValue(np.Value) != "12" || len(np.Over) != 2 ||
		np.Over[0].From != "builtin:default" || np.Over[1].From != "builtin:profiles" || FormatValue(np.Base) != "10" || len(np.Phases) != 0 {
		t.Errorf("got %+v", np)
	}
	if _, err := ProfileSources([]byte(file), "my.toml", "gaming", ""); err == nil || !strings.Contains(err.Error(), "research_task") {
		t.Errorf("unknown profile: got %v", err)
	}
	if _, err := ProfileSources([]byte(file), "my.toml", "research_task", "BLUE"); err == nil || !strings.Contains(err.Error(), "GREEN") {
		t.Errorf("unknown phase: got %v", err)
	}
}
