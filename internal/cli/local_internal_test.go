package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/policy"
)

// TestStartCapsAreDocumented: docs/integrations.md lists each start's
// iteration caps as the code has them, and the default policy's for a
// call a person makes.
func TestStartCapsAreDocumented(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "integrations.md"))
	if err != nil {
		t.Fatal(err)
	}
	def, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	row := func(c policy.MaxIterations) string {
		return fmt.Sprintf("| %d | %d | %d |", c.WarningIterations, c.CriticalIterations, c.MaxIterations)
	}
	for name, want := range map[string]string{
		"| the shell loop, `record --repo`": row(startCaps[startLoop]),
		"| the hook (":                      row(startCaps[startSession]),
		"| `record --state FILE`":           row(def.Rules.MaxIterations),
	} {
		found := false
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, name) {
				found = true
				if !strings.HasSuffix(line, want) {
					t.Errorf("docs/integrations.md: %q ends otherwise than %q", line, want)
				}
			}
		}
		if !found {
			t.Errorf("docs/integrations.md has no row %q", name)
		}
	}
	// A policy that sets its own cap keeps it.
	own := def.Clone()
	own.Rules.MaxIterations.MaxIterations = 40
	if got := forStart(own, startLoop); got.Rules.MaxIterations.MaxIterations != 40 {
		t.Errorf("a policy's own cap: got %d, want 40 kept", got.Rules.MaxIterations.MaxIterations)
	}
	if got := forStart(def, startRun); got.Rules.MaxIterations != def.Rules.MaxIterations {
		t.Errorf("a call a person makes: got %+v, want the policy's", got.Rules.MaxIterations)
	}
}
