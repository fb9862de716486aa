package policy

import (
	"strings"
	"testing"
)

// TestOverrideMustBeATable: a phase or profile given as a plain value used
// to load as a phase with no overrides, which printed as nothing (found by
// FuzzParse); it is refused with its line.
func TestOverrideMustBeATable(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"extends = \"tdd\"\n[phases]\nBLUE = 10\n",
		"extends = \"default\"\n[profiles]\nquick = \"fast\"\n",
		"extends = \"default\"\nphases.BLUE = [1, 2]\n",
	} {
		_, err := Parse([]byte(src), "p.toml")
		if err == nil || !strings.Contains(err.Error(), "p.toml: line") || !strings.Contains(err.Error(), "not a table") {
			t.Errorf("%q: got %v, want an error naming the line and the fault", src, err)
		}
	}
	if _, err := Parse([]byte("extends = \"tdd\"\n[phases.BLUE]\n"), "p.toml"); err != nil {
		t.Errorf("an empty phase table: got %v, want it accepted", err)
	}
}
