package breaker

import (
	"bytes"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/policy"
)

// TestRuleTableIsSpecOrder: the table is walked in trigger priority,
// which is written out here as it is documented.
func TestRuleTableIsSpecOrder(t *testing.T) {
	t.Parallel()
	want := []string{"protected_path", "permission_denied", "same_error", "circular", "test_only", "output_decline",
		"completion_claim", "no_progress", "task_stuck", "spend", "score", "rate", "max_iterations"}
	var got []string
	for _, r := range rules {
		got = append(got, r.name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rule table order (-spec +table):\n%s", diff)
	}
	if diff := cmp.Diff(policy.RuleOrder, got); diff != "" {
		t.Errorf("rule table and policy.RuleOrder differ (-policy +table):\n%s", diff)
	}
}

// TestRuleSwitches: every rule is on in default but spend, which is off
// until a policy sets a limit; ralph turns off exactly the rules ralph's
// breaker does not have.
func TestRuleSwitches(t *testing.T) {
	t.Parallel()
	ralphOff := map[string]bool{"score": true, "output_decline": true, "circular": true, "test_only": true,
		"protected_path": true, "completion_claim": true, "rate": true, "max_iterations": true, "task_stuck": true}
	for _, name := range []string{"default", "ralph"} {
		p, err := policy.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			want := (name == "default" || !ralphOff[r.name]) && r.name != "spend"
			if got := r.on(&p.Rules); got != want {
				t.Errorf("%s: rule %s on = %v, want %v", name, r.name, got, want)
			}
		}
	}
}

// TestRuleTablesArePolicyTables: every rule is tuned by its own table
// rules.NAME of the effective default policy.
func TestRuleTablesArePolicyTables(t *testing.T) {
	t.Parallel()
	p, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rules map[string]map[string]any `toml:"rules"`
	}
	if _, err := toml.Decode(buf.String(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if len(doc.Rules[r.name]) == 0 {
			t.Errorf("%s: the policy has no table rules.%s", r.name, r.name)
		}
	}
}
