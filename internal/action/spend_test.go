package action

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSpendAcrossRuns: the loop's workflow runs on pull request 7 with
// Claude Code's JSON output as its agent-log. The first run lands code,
// the next two change nothing; each costs $2.50. Each run's record (its
// artifact) keeps the iteration's cost and the next run reads it, so the
// third run has $5.00 spent since the last progress, past
// max_usd_without_progress, and opens on spend: the outputs, the sticky
// comment and the job summary all say what was spent. A person's reset
// starts the sums afresh.
func TestSpendAcrossRuns(t *testing.T) {
	t.Parallel()
	loop := newLoopWithPolicy(t, "extends = \"default\"\n\n[rules.spend]\nmax_usd_without_progress = 4.0\n",
		map[string]string{"parse.go": "package main\n\nfunc parse() {}\n"})
	h := newHarness(t, loop)
	h.env["INPUT_POLICY"] = ".github/loopbreaker.toml"
	h.env["INPUT_AGENT-LOG"] = "claude.json"
	log := `{"type":"result","subtype":"success","is_error":false,"num_turns":6,"result":"Tried the parser again.","total_cost_usd":2.5,"usage":{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":200000,"output_tokens":3000}}` + "\n"
	if err := os.WriteFile(filepath.Join(loop.dir, "claude.json"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var states []string
	for i := 0; i < 3; i++ {
		if i > 0 {
			h.nextRun()
		}
		h.run()
		states = append(states, h.outputs()["state"])
		id := int64(100 + i)
		recs := h.uploadRecord(id, "agent/loop", loop.head)
		if c := recs[len(recs)-1].Cost; c == nil || c.USD == nil || *c.USD != 2.5 || c.Tokens == nil || *c.Tokens != 204000 {
			t.Fatalf("run %d: the record's cost is %+v, want $2.50 and 204,000 tokens", id, c)
		}
	}
	if got := strings.Join(states, " "); got != "CLOSED CLOSED OPEN" {
		t.Errorf("states %s, want CLOSED CLOSED OPEN\n%s", got, h.summaryText())
	}
	o := h.outputs()
	if o["trigger"] != "spend" {
		t.Errorf("trigger %q, want spend", o["trigger"])
	}
	var spent map[string]any
	if err := json.Unmarshal([]byte(o["decision"]), &spent); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]float64{"spent_usd": 7.5, "spent_since_progress_usd": 5, "spent_tokens": 612000, "spent_since_progress_tokens": 408000} {
		if spent[key] != want {
			t.Errorf("decision output %s = %v, want %v", key, spent[key], want)
		}
	}
	line := `**Spent:** \$7.50 since the last reset · \$5.00 since the last progress · 612,000 tokens \(408,000 since the last progress\).`
	if cs := h.comments(7); len(cs) != 1 || !strings.Contains(cs[0].Body, line) || !strings.Contains(cs[0].Body, `**Why:** \$5.00 spent since the last progress`) {
		t.Errorf("the sticky comment does not say what was spent:\n%+v", cs)
	}
	if s := h.summaryText(); !strings.Contains(s, line) || !strings.Contains(s, "| spent | why |") || !strings.Contains(s, `| \$2.50 \(204,000 tokens\) |`) {
		t.Errorf("the job summary does not say what was spent:\n%s", s)
	}

	// A person resets: the next run's sums hold only what came after.
	h.permission("maintainer", "write")
	h.comment(7, "maintainer", "User", "/loopbreaker reset", h.now.Add(time.Minute))
	h.nextRun()
	if code := h.run(); code != exitContinue {
		t.Fatalf("after the reset: exit %d\n%s", code, h.summaryText())
	}
	if err := json.Unmarshal([]byte(h.outputs()["decision"]), &spent); err != nil {
		t.Fatal(err)
	}
	if spent["spent_usd"] != 2.5 || spent["spent_since_progress_usd"] != 2.5 {
		t.Errorf("after the reset: spent %v, since progress %v; want $2.50 each (this run's alone)", spent["spent_usd"], spent["spent_since_progress_usd"])
	}
	if st := h.outputs()["state"]; st == "OPEN" {
		t.Errorf("still OPEN after the reset")
	}
}
