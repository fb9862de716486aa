package policy

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOnOpenKeysParse(t *testing.T) {
	t.Parallel()
	text := `extends = "default"
on_open = "alert"
advice = "ask before deleting"

[alert]
mentions = ["@alice", "octo-org/loop-owners"]
webhook_url = "$LOOP_HOOK"

[phases.GREEN]
on_open = "pause"
`
	p, err := Parse([]byte(text), "my.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.OnOpen != OnOpenAlert || p.Advice != "ask before deleting" || p.Alert.WebhookEnv() != "LOOP_HOOK" {
		t.Errorf("got on_open %q advice %q webhook env %q", p.OnOpen, p.Advice, p.Alert.WebhookEnv())
	}
	if diff := cmp.Diff([]string{"@alice", "octo-org/loop-owners"}, p.Alert.Mentions); diff != "" {
		t.Errorf("mentions (-want +got):\n%s", diff)
	}
	green := p.WithPhase("GREEN")
	if green.OnOpen != OnOpenPause || !strings.Contains(green.Advice, "split the feature") {
		t.Errorf("GREEN: got on_open %q advice %q, want pause and default's GREEN advice", green.OnOpen, green.Advice)
	}
	// A workflow input that names the action wins over the phases too.
	q, err := p.WithOnOpen(OnOpenAbort)
	if err != nil {
		t.Fatal(err)
	}
	if q.OnOpen != OnOpenAbort || q.WithPhase("GREEN").OnOpen != OnOpenAbort || p.WithPhase("GREEN").OnOpen != OnOpenPause {
		t.Errorf("WithOnOpen: got %q and GREEN %q; the original's GREEN %q", q.OnOpen, q.WithPhase("GREEN").OnOpen, p.WithPhase("GREEN").OnOpen)
	}
	if _, err := p.WithOnOpen("explode"); err == nil {
		t.Error("WithOnOpen(explode): got no error")
	}
	if _, err := p.WithOnOpen(OnOpenEscalate); err == nil || !strings.Contains(err.Error(), "model_progression") {
		t.Errorf("WithOnOpen(escalate) without models: got %v", err)
	}
}

func TestOnOpenKeysErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{"unknown action", "extends = \"default\"\non_open = \"panic\"\n", []string{"line 2", `on_open = "panic"`, "abort, pause, alert, escalate"}},
		{"escalate without models", "extends = \"default\"\non_open = \"escalate\"\n", []string{"line 2", "at least two models"}},
		{"escalate with one model", "extends = \"default\"\non_open = \"escalate\"\n[escalation]\nmodel_progression = [\"opus\"]\n", []string{"at least two models"}},
		{"mention with markdown", "extends = \"default\"\n[alert]\nmentions = [\"alice](http://x)\"]\n", []string{"line 3", "alert.mentions", "not a GitHub login"}},
		{"mention with a space", "extends = \"default\"\n[alert]\nmentions = [\"@alice @bob\"]\n", []string{"not a GitHub login"}},
		{"mention too long", "extends = \"default\"\n[alert]\nmentions = [\"" + strings.Repeat("a", 40) + "\"]\n", []string{"not a GitHub login"}},
		{"too many mentions", "extends = \"default\"\n[alert]\nmentions = [" + strings.Repeat("\"a\",", 21) + "]\n", []string{"21 people or teams", "at most 20"}},
		{"webhook scheme", "extends = \"default\"\n[alert]\nwebhook_url = \"ftp://hooks.example.com/x\"\n", []string{"line 3", `scheme "ftp"`}},
		{"webhook no host", "extends = \"default\"\n[alert]\nwebhook_url = \"https:///x\"\n", []string{"no host"}},
		{"webhook env name", "extends = \"default\"\n[alert]\nwebhook_url = \"$1BAD\"\n", []string{"environment variable"}},
		{"phase order unknown phase", "extends = \"default\"\nphase_order = [\"RED\", \"BLUE\"]\n", []string{"line 2", `"BLUE"`, "not a phase"}},
		{"phase order twice", "extends = \"default\"\nphase_order = [\"RED\", \"RED\"]\n", []string{`"RED" twice`}},
		{"phase order in a phase", "extends = \"default\"\n[phases.RED]\nphase_order = []\n", []string{`"phase_order" cannot be overridden`}},
		{"advice too long", "extends = \"default\"\nadvice = \"" + strings.Repeat("x", 1001) + "\"\n", []string{"advice is 1001 bytes"}},
		{"bad advice in a phase", "extends = \"default\"\n[phases.RED]\nadvice = 3\n", []string{"phases.RED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tt.text), "my.toml")
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestWebhookURLNeverInErrors: a webhook URL holds its secret in the
// path or the query; a bad one is refused without repeating it.
func TestWebhookURLNeverInErrors(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("extends = \"default\"\n[alert]\nwebhook_url = \"gopher://hooks.example.com/T0/B0/s3cr3t?token=s3cr3t\"\n"), "my.toml")
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("got %v, want an error without the URL's secret", err)
	}
}

// TestFileWithoutNewKeysLoads: a complete policy written before on_open,
// advice, phase_order and the alert table existed still loads, with their
// defaults.
func TestFileWithoutNewKeysLoads(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := mustBuiltin(t, "default").Encode(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, re := range []string{`(?m)^on_open = .*\n`, `(?m)^advice = .*\n`, `(?m)^phase_order = .*\n`, `(?ms)^\[alert\]\n.*?\n\n`, `(?m)^\s*advice = .*\n`} {
		text = regexp.MustCompile(re).ReplaceAllString(text, "")
	}
	if strings.Contains(text, "on_open") || strings.Contains(text, "webhook_url") || strings.Contains(text, "phase_order") {
		t.Fatalf("the keys were not all removed:\n%s", text)
	}
	p, err := Parse([]byte(text), "old.toml")
	if err != nil {
		t.Fatal(err)
	}
	if p.OnOpen != OnOpenAbort || p.Advice != "" || len(p.PhaseOrder) != 0 || len(p.Alert.Mentions) != 0 || p.Alert.WebhookURL != "" {
		t.Errorf("got on_open %q advice %q order %v alert %+v, want the defaults", p.OnOpen, p.Advice, p.PhaseOrder, p.Alert)
	}
	if _, ok := p.NextPhase("RED"); ok {
		t.Error("no phase order: NextPhase(RED) found a next phase")
	}
}

func TestNextPhase(t *testing.T) {
	t.Parallel()
	p := mustBuiltin(t, "tdd")
	for cur, want := range map[string]string{"RED": "GREEN", "GREEN": "REFACTOR", "REFACTOR": "DOCUMENT", "DOCUMENT": "", "BLUE": "", "": ""} {
		got, ok := p.NextPhase(cur)
		if got != want || ok != (want != "") {
			t.Errorf("NextPhase(%q) = %q, %v; want %q", cur, got, ok, want)
		}
	}
	if p.PhaseIndex("GREEN") != 1 || p.PhaseIndex("BLUE") != -1 {
		t.Errorf("PhaseIndex: GREEN %d BLUE %d", p.PhaseIndex("GREEN"), p.PhaseIndex("BLUE"))
	}
}

// TestResearchTaskHasTheSeedsNumbers: seed 001's research_task (20
// iterations without progress, 5 %) under every built-in policy.
func TestResearchTaskHasTheSeedsNumbers(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		q, err := mustBuiltin(t, name).WithProfile("research_task")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := [2]float64{float64(q.Rules.NoProgress.NoProgressThreshold), q.Progress.StagnationPercent}; got != [2]float64{20, 5} {
			t.Errorf("%s: research_task gives [no_progress_threshold, stagnation_percent] %v, want [20 5]", name, got)
		}
		if _, err := mustBuiltin(t, name).WithProfile("generic"); err != nil {
			t.Errorf("%s: seed 001's generic project type: %v", name, err)
		}
	}
}

func TestMentionNames(t *testing.T) {
	t.Parallel()
	for m, want := range map[string]bool{
		"alice": true, "@alice": true, "a-b-c": true, "octo-org/loop_owners": true, "@octo/x.y": false,
		"-alice": false, "alice-": false, "al--ice": false, "": false, "@": false, "alice/": false, "a/b/c": false,
		"alice\u200d": false, "<b>": false,
	} {
		if got := validMention(m); got != want {
			t.Errorf("validMention(%q) = %v, want %v", m, got, want)
		}
	}
}
