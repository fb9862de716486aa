package hook

import (
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

func TestAnswer(t *testing.T) {
	t.Parallel()
	reason, trigger := "no progress in 3 consecutive iterations", "no_progress"
	open := breaker.Decision{State: breaker.Open, Reason: &reason, Trigger: &trigger}
	half := breaker.Decision{State: breaker.HalfOpen, Reason: &reason, Trigger: &trigger, Iteration: 2}
	alert := open
	alert.OpenAction, alert.AllowContinue = policy.OnOpenAlert, true
	tests := []struct {
		name   string
		d      breaker.Decision
		active bool
		check  func(o Output) bool
	}{
		{"closed", breaker.Decision{State: breaker.Closed}, true, func(o Output) bool { return o.Empty() }},
		{"open", open, false, func(o Output) bool {
			return o.Continue != nil && !*o.Continue && strings.Contains(o.StopReason, "OPEN: stop the loop (no_progress)") && o.Decision == ""
		}},
		{"half open in a loop", half, true, func(o Output) bool { return o.Decision == "block" && strings.Contains(o.Reason, "HALF_OPEN") }},
		{"half open, no loop", half, false, func(o Output) bool { return o.Decision == "" && strings.Contains(o.SystemMessage, "HALF_OPEN") }},
		{"open that alerts", alert, true, func(o Output) bool { return o.Continue == nil && o.Decision == "" && o.SystemMessage != "" }},
	}
	for _, tt := range tests {
		o := Answer(&tt.d, nil, &Input{StopHookActive: tt.active}, "loopbreaker reset")
		if !tt.check(o) {
			t.Errorf("%s: got %+v", tt.name, o)
		}
	}
}

func TestReadInput(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "  ", "[]", "{}", strings.Repeat(" ", MaxInputBytes+1)} {
		if _, err := ReadInput(strings.NewReader(bad)); err == nil {
			t.Errorf("%.40q: want an error", bad)
		}
	}
	if in, err := ReadInput(strings.NewReader(`{"hook_event_name":"UserPromptSubmit"}`)); err != nil || in.Answers() {
		t.Errorf("an event the breaker was not made for: got %+v %v, want it read and not answered", in, err)
	}
	in, err := ReadInput(strings.NewReader(`{"session_id":"s","hook_event_name":"Stop","stop_hook_active":true,"extra":1}`))
	if err != nil || !in.StopHookActive || in.SessionID != "s" {
		t.Errorf("got %+v %v", in, err)
	}
}

func TestLastPromise(t *testing.T) {
	t.Parallel()
	got := lastPromise([]byte(`{"text":"<promise>A</promise>"}` + "\n" + `{"text":"done\n<promise> ALL\n DONE </promise>"}` + "\n"))
	if got != "ALL DONE" {
		t.Errorf("got %q, want the last promise", got)
	}
	if got := lastPromise([]byte("no promise here")); got != "" {
		t.Errorf("got %q", got)
	}
}

func TestInstallShapes(t *testing.T) {
	t.Parallel()
	const lb = "/opt/bin/loopbreaker hook claude-code"
	for _, bad := range []string{"null", "[]", `{"hooks": null}`, `{"hooks": {"Stop": [1]}}`, `{"hooks": {"SessionStart": "x"}}`, `{} {}`} {
		if _, _, err := Install([]byte(bad), "s.json", lb); err == nil || !strings.Contains(err.Error(), "s.json") {
			t.Errorf("%s: got %v, want an error naming the file", bad, err)
		}
	}
	out, changed, err := Install(nil, "s.json", lb)
	if err != nil || !changed || !strings.Contains(string(out), `"command": "/opt/bin/loopbreaker hook claude-code"`) {
		t.Fatalf("new: %s %v %v", out, changed, err)
	}
	if again, changed, err := Install(out, "s.json", lb); err != nil || changed || string(again) != string(out) {
		t.Errorf("again: changed %v %v", changed, err)
	}
	// An earlier install (the bare name on PATH, a policy of its own) is
	// the breaker's hook: it gets the command, and no second one is added.
	old := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"loopbreaker hook claude-code --policy ralph","timeout":30}]}],"SessionStart":[{"hooks":[{"type":"command","command":"loopbreaker hook claude-code"}]}]}}`)
	out, changed, err = Install(old, "s.json", lb)
	if err != nil || !changed || strings.Count(string(out), "loopbreaker hook") != 2 || strings.Contains(string(out), "ralph") || !strings.Contains(string(out), `"timeout": 30`) {
		t.Errorf("an earlier install: changed %v %v\n%s", changed, err, out)
	}
}

// TestInstallKeepsTheFileAsItIs: the settings' keys keep their order, keys
// this program does not know stay, other hooks stay where they are.
func TestInstallKeepsTheFileAsItIs(t *testing.T) {
	t.Parallel()
	in := `{
  "zeta": 1,
  "permissions": {"allow": ["Bash(go test:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]
  },
  "alpha": {"nested": {"b": 2, "a": 1}}
}
`
	out, changed, err := Install([]byte(in), "s.json", "/opt/bin/loopbreaker hook claude-code")
	if err != nil || !changed {
		t.Fatalf("changed %v %v", changed, err)
	}
	got := string(out)
	order := []string{`"zeta"`, `"permissions"`, `"hooks"`, `"PreToolUse"`, `"guard.sh"`, `"Stop"`, `"notify.sh"`, `/opt/bin/loopbreaker`, `"SessionStart"`, `"alpha"`, `"b": 2`, `"a": 1`}
	at := 0
	for _, k := range order {
		i := strings.Index(got[at:], k)
		if i < 0 {
			t.Fatalf("%s is missing or out of order:\n%s", k, got)
		}
		at += i
	}
}
