package loop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

// agentLoop is a loop's repository, made commit by commit as an agent
// makes it, with the reports and log of each iteration.
type agentLoop struct {
	t      *testing.T
	dir    string
	base   string
	wt     *git.Worktree
	at     time.Time // the newest commit's time
	ticked int       // tasks ticked in fix_plan.md
	flip   bool
}

const planTasks = 8

func newAgentLoop(t *testing.T) *agentLoop {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	l := &agentLoop{t: t, dir: dir, wt: wt, at: t0}
	l.write("main.go", "package main\n\nfunc main() {}\n")
	l.write("AGENTS.md", "# How to work here\n")
	l.writePlan()
	l.base = l.commit("start")
	return l
}

func (l *agentLoop) write(name, content string) {
	l.t.Helper()
	path := filepath.Join(l.dir, name)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		l.t.Fatal(err)
	}
	if _, err := l.wt.Add(name); err != nil {
		l.t.Fatal(err)
	}
}

func (l *agentLoop) writePlan() {
	var b strings.Builder
	b.WriteString("# Plan\n\n")
	for i := range planTasks {
		box := " "
		if i < l.ticked {
			box = "x"
		}
		fmt.Fprintf(&b, "- [%s] task number %d\n", box, i+1)
	}
	l.write("fix_plan.md", b.String())
}

func (l *agentLoop) commit(msg string) string {
	l.t.Helper()
	sig := &object.Signature{Name: "agent", Email: "agent@example.com", When: l.at}
	h, err := l.wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		l.t.Fatal(err)
	}
	return h.String()
}

// step makes iteration i's change, as kind says: P a change of code, S
// none (an empty commit), T a task ticked, U the last task unticked, R the
// tree flipped back to an earlier one, D AGENTS.md deleted, E a change
// marked for the phase RED, X no commit at all. It moves the clock ten
// minutes.
func (l *agentLoop) step(i int, kind byte) {
	l.t.Helper()
	l.at = l.at.Add(10 * time.Minute)
	msg := fmt.Sprintf("iteration %d", i)
	switch kind {
	case 'P':
		l.write(fmt.Sprintf("src/f%d.go", i%3), fmt.Sprintf("package src\n\n// step %d\nvar V%d = %d\n", i, i, i))
	case 'T':
		l.ticked = min(l.ticked+1, planTasks)
		l.writePlan()
	case 'U':
		l.ticked = max(l.ticked-1, 0)
		l.writePlan()
	case 'R':
		l.flip = !l.flip
		content := "package main\n\nfunc main() {}\n"
		if l.flip {
			content = "package main\n\nfunc main() { println(1) }\n"
		}
		l.write("main.go", content)
	case 'D':
		if _, err := l.wt.Remove("AGENTS.md"); err != nil {
			l.t.Fatal(err)
		}
	case 'E':
		l.write("src/x_test.go", fmt.Sprintf("package src\n\n// test %d\n", i))
		msg += "\n\nLoop-Phase: RED"
	case 'X':
		return
	}
	l.commit(msg)
}

// files writes iteration i's test report and agent log.
func (l *agentLoop) files(i int) (report, log string) {
	l.t.Helper()
	dir := filepath.Join(l.dir, ".iteration")
	os.MkdirAll(dir, 0o755)
	report, log = filepath.Join(dir, fmt.Sprintf("report%d.xml", i)), filepath.Join(dir, fmt.Sprintf("log%d.txt", i))
	passed, failed := 10+i/3, 0
	if i%4 == 2 {
		failed = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<testsuite name="s" tests="%d" failures="%d">`, passed+failed, failed)
	for k := range passed {
		fmt.Fprintf(&b, `<testcase name="ok%d"/>`, k)
	}
	for k := range failed {
		fmt.Fprintf(&b, `<testcase name="bad%d"><failure message="want %d, got 0"/></testcase>`, k, i)
	}
	b.WriteString("</testsuite>")
	os.WriteFile(report, []byte(b.String()), 0o644)
	lines := strings.Repeat("working on it\n", 5+i%4)
	if i%5 == 1 {
		lines += "main.go:3:1: undefined: handler\n"
	}
	os.WriteFile(log, []byte(lines), 0o644)
	return report, log
}

// runs is one way of running the breaker after each iteration.
type runs struct {
	policy   string
	script   string
	controls []Control
	ledger   bool // the Action: iterations are runs, with the previous run's records
	noFiles  bool // no test report or agent log
	reruns   bool // every fourth run is run again (a second attempt)
}

// decisionJSON is a decision as the command line prints it.
func decisionJSON(t *testing.T, res *Result) string {
	t.Helper()
	b, err := json.Marshal(res.Final())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func encodeRecords(t *testing.T, recs []ledger.Record) string {
	t.Helper()
	var b bytes.Buffer
	if err := ledger.Encode(&b, recs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// simulate runs the loop and, after each iteration, the breaker twice:
// folding every iteration, and going on from the checkpoints the previous
// runs left. The two must decide alike, note alike and leave the same
// records; it returns how many runs went on from a checkpoint.
func simulate(t *testing.T, r runs) int {
	t.Helper()
	p, err := policy.Builtin(r.policy)
	if err != nil {
		t.Fatal(err)
	}
	l := newAgentLoop(t)
	var recs []ledger.Record
	incremental := 0
	for i := 1; i <= len(r.script); i++ {
		l.step(i, r.script[i-1])
		report, log := l.files(i)
		now := l.at.Add(time.Minute)
		var controls []Control
		for _, c := range r.controls {
			if !c.At.After(now) {
				controls = append(controls, c)
			}
		}
		cfg := Config{Repo: l.dir, Base: l.base, Policy: p, Reports: []string{report}, Log: log, Now: now, Controls: controls}
		if r.noFiles {
			cfg.Reports, cfg.Log = nil, ""
		}
		if r.ledger {
			cfg.RunID = int64(i)
		} else {
			cfg.Cache = true
		}
		attempts := 1
		if r.reruns && r.ledger && i%4 == 0 {
			attempts = 2
		}
		for a := 1; a <= attempts; a++ {
			cfg.Attempt, cfg.Incremental = a, false
			if recs != nil {
				cfg.Ledger = &ledger.Ledger{Records: recs}
			}
			incremental += compareFolds(t, i, cfg, r.ledger, &recs)
		}
	}
	return incremental
}

// compareFolds runs cfg folding every iteration and going on from a
// checkpoint, compares what they decided, noted and recorded, and leaves
// the incremental run's records in recs. It returns 1 when the run went on
// from a checkpoint.
func compareFolds(t *testing.T, i int, cfg Config, ledgerMode bool, recs *[]ledger.Record) int {
	t.Helper()
	incremental := 0
	{
		full, err := Run(cfg)
		if err != nil {
			t.Fatalf("iteration %d, whole fold: %v", i, err)
		}
		cfg.Incremental = true
		inc, err := Run(cfg)
		if err != nil {
			t.Fatalf("iteration %d, incremental fold: %v", i, err)
		}
		if inc.Skipped > 0 {
			incremental++
		}
		if diff := cmp.Diff(decisionJSON(t, full), decisionJSON(t, inc)); diff != "" {
			t.Fatalf("iteration %d (from iteration %d): the decisions differ (-whole +incremental):\n%s", i, inc.Skipped, diff)
		}
		if diff := cmp.Diff(full.Notes, inc.Notes); diff != "" {
			t.Fatalf("iteration %d: the notes differ (-whole +incremental):\n%s", i, diff)
		}
		if inc.Visible != full.Visible {
			t.Fatalf("iteration %d: %d iterations, the whole fold %d", i, inc.Visible, full.Visible)
		}
		if ledgerMode {
			if diff := cmp.Diff(encodeRecords(t, full.Records), encodeRecords(t, inc.Records)); diff != "" {
				t.Fatalf("iteration %d: the records differ (-whole +incremental):\n%s", i, diff)
			}
			*recs = inc.Records
		}
	}
	return incremental
}

// TestIncrementalFoldDecidesAsTheWholeFold: a run that goes on from the
// checkpoints earlier runs left decides, notes and records exactly what
// folding every iteration does, under each built-in policy, through
// progress, stagnation, task ticks and unticks, returns to earlier trees,
// a deleted protected file, phases, errors, test reports, a person's
// reset and hold, in the Action (a ledger of runs, with runs that made no
// commit) and locally (commits, the fold cache).
func TestIncrementalFoldDecidesAsTheWholeFold(t *testing.T) {
	t.Parallel()
	reset := Control{At: t0.Add(185 * time.Minute), Kind: ControlReset, Reason: "try again", By: "maintainer"}
	hold := Control{At: t0.Add(395 * time.Minute), Kind: ControlForceOpen, Reason: "held", By: "maintainer"}
	guide := Control{At: t0.Add(285 * time.Minute), Kind: ControlGuide, Reason: "guided", By: "maintainer", Text: "use the cache"}
	tests := []struct {
		name string
		runs runs
		// least is how many runs must have gone on from a checkpoint.
		least int
	}{
		{"default, progress to max_iterations and past it", runs{policy: "default", script: strings.Repeat("PTPPS", 7), ledger: true}, 15},
		{"default, stagnation, a reset, a hold", runs{policy: "default", script: "PPTPSPPPPPPPPTPSSSSPPPTPPPPRPRPPPPPPPPPPPPP", ledger: true, controls: []Control{reset, hold}}, 10},
		{"default, runs without commits and a guide", runs{policy: "default", script: "PXPXPTPPXXPPUTPPPPXPPPPPPPPPPTP", ledger: true, controls: []Control{guide}}, 10},
		{"ralph, cooldowns and probes", runs{policy: "ralph", script: "PPPSSSSSSPPPSSSSSSSPPPPPPPPPPPPPPSSS", ledger: true}, 5},
		{"strict", runs{policy: "strict", script: "PTPPPPRPRPPPPPTPPPPPPPPPPPPPPP", ledger: true}, 5},
		{"tdd phases", runs{policy: "tdd", script: "EPEPPEPPPPEPPPPPPPPPPPPPPPPP", ledger: true}, 5},
		{"default, a protected file deleted", runs{policy: "default", script: "PPPPPPPPPPPPPPDPPPPPPP", ledger: true}, 5},
		{"default, commits and the fold cache", runs{policy: "default", script: strings.Repeat("PTPPS", 7)}, 15},
		{"default, no reports or log", runs{policy: "default", script: strings.Repeat("PTPPS", 6), ledger: true, noFiles: true}, 10},
		{"default, runs attempted twice", runs{policy: "default", script: strings.Repeat("PTPPS", 6), ledger: true, reruns: true}, 15},
		{"default, commits, no reports or log", runs{policy: "default", script: strings.Repeat("PTPPS", 6), noFiles: true}, 10},
		{"default, commits, stagnation and returns", runs{policy: "default", script: "PPTPPPPPPPPPPPRPRPRPPPPPSSSSPPPP"}, 10},
		{"ralph, commits", runs{policy: "ralph", script: "PPPSSSSSSPPPPPPPPPPPPPPPPPPP"}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if n := simulate(t, tt.runs); n < tt.least {
				t.Errorf("%d runs went on from a checkpoint, want at least %d", n, tt.least)
			}
		})
	}
}

// TestCheckpointNotUsedAcrossPrograms: a checkpoint of another build,
// policy or base is not used, and a note says so; a damaged fold cache is
// ignored with a note.
func TestCheckpointNotUsedAcrossPrograms(t *testing.T) {
	t.Parallel()
	p, _ := policy.Builtin("default")
	l, recs := honestLedger(t, p, strings.Repeat("P", 20), nil)
	forged := func(edit func(c *ledger.Checkpoint)) []ledger.Record {
		out := append([]ledger.Record(nil), recs...)
		for i := range out {
			if c := out[i].Checkpoint; c != nil {
				cc := *c
				edit(&cc)
				out[i].Checkpoint = &cc
			}
		}
		return out
	}
	strict, _ := policy.Builtin("strict")
	for _, tt := range []struct {
		name   string
		recs   []ledger.Record
		policy *policy.Policy
		want   string
	}{
		{"another build", forged(func(c *ledger.Checkpoint) { c.Program = "fold/0 an older one" }), p, "another loopbreaker build"},
		{"another policy", recs, strict, "another policy"},
		{"another base", forged(func(c *ledger.Checkpoint) { c.Base = "rev " + strings.Repeat("1", 40) }), p, "another base"},
		{"a damaged state", forged(func(c *ledger.Checkpoint) {
			if c.State != nil {
				c.State = json.RawMessage(`{"breaker":{"state":"CLOSED"}}`)
			}
		}), p, "does not match its digest"},
	} {
		l.step(21, 'P')
		res, err := Run(Config{Repo: l.dir, Base: l.base, Policy: tt.policy, Now: l.at.Add(time.Minute), RunID: 21, Attempt: 1,
			Ledger: &ledger.Ledger{Records: tt.recs}, Incremental: true})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		n, ok := note.Find(res.Notes, note.CheckpointUnused)
		if !ok || !strings.Contains(n.Text, tt.want) || res.Skipped != 0 {
			t.Errorf("%s: got notes %q (from iteration %d), want a checkpoint_unused note saying %q", tt.name, note.Texts(res.Notes), res.Skipped, tt.want)
		}
	}

	// The fold cache: written by a check, damaged, ignored with a note.
	cfg := Config{Repo: l.dir, Base: l.base, Policy: p, Now: l.at.Add(time.Minute), Incremental: true, Cache: true}
	if _, err := Run(cfg); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(l.dir, ".git", "loopbreaker", "fold-cache.json")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no fold cache after a check: %v", err)
	}
	res, err := Run(cfg)
	if err != nil || res.Skipped == 0 {
		t.Fatalf("the fold cache was not used: %v, notes %q", err, note.Texts(res.Notes))
	}
	os.WriteFile(path, []byte(`{"version":1,"entries":[`), 0o644)
	res, err = Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := note.Find(res.Notes, note.FoldCacheIgnored); !ok || res.Skipped != 0 {
		t.Errorf("a damaged fold cache: got notes %q, want fold_cache_ignored and the whole fold", note.Texts(res.Notes))
	}
	if res, err = Run(cfg); err != nil || res.Skipped == 0 {
		t.Errorf("the fold cache was not written anew: %v, notes %q", err, note.Texts(res.Notes))
	}
}

// honestLedger runs the loop of script in the Action, each run going on
// from the records (and checkpoints) of the one before, and returns the
// loop and the last run's records.
func honestLedger(t *testing.T, p *policy.Policy, script string, controls []Control) (*agentLoop, []ledger.Record) {
	t.Helper()
	l := newAgentLoop(t)
	var recs []ledger.Record
	for i := 1; i <= len(script); i++ {
		l.step(i, script[i-1])
		report, log := l.files(i)
		cfg := Config{Repo: l.dir, Base: l.base, Policy: p, Reports: []string{report}, Log: log, Now: l.at.Add(time.Minute),
			RunID: int64(i), Attempt: 1, Incremental: true}
		for _, c := range controls {
			if !c.At.After(cfg.Now) {
				cfg.Controls = append(cfg.Controls, c)
			}
		}
		if recs != nil {
			cfg.Ledger = &ledger.Ledger{Records: recs}
		}
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		recs = res.Records
	}
	return l, recs
}

// forge edits the state of the ledger's restore checkpoint as JSON (the
// breaker's snapshot under "breaker") and gives it its digest, as a
// forger who knows the format would.
func forge(t *testing.T, recs []ledger.Record, edit func(st, snap map[string]any)) ([]ledger.Record, bool) {
	t.Helper()
	out := append([]ledger.Record(nil), recs...)
	changed := false
	for i := range out {
		c := out[i].Checkpoint
		if c == nil || c.State == nil {
			continue
		}
		var st map[string]any
		if err := json.Unmarshal(c.State, &st); err != nil {
			t.Fatal(err)
		}
		edit(st, st["breaker"].(map[string]any))
		data, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		cc := *c
		cc.State = data
		_, cc.Digest, _ = encodeRaw(data)
		out[i].Checkpoint = &cc
		var before map[string]any
		json.Unmarshal(c.State, &before)
		was, _ := json.Marshal(before)
		changed = changed || !bytes.Equal(was, data)
	}
	return out, changed
}

// encodeRaw digests JSON as a checkpoint's state.
func encodeRaw(data []byte) ([]byte, string, error) {
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, "", err
	}
	var compact bytes.Buffer
	json.Compact(&compact, data)
	sum := sha256.Sum256(compact.Bytes())
	return compact.Bytes(), hex.EncodeToString(sum[:]), nil
}

func triggerOf(d *breaker.Decision) string {
	if d.Trigger == nil {
		return "(none)"
	}
	return *d.Trigger
}

// strictness orders states from the loosest: CLOSED, HALF_OPEN, OPEN.
func strictness(res *Result) int { return int(res.Final().State) }

// TestForgedCheckpointCannotLoosen: a checkpoint whose state a forger
// loosened, one field at a time — and who, in the harder case, also made
// every later digest agree with the forged state — is either refused (the
// whole loop is folded, with a note) or leads to the whole fold's state
// and trigger, or a stricter state: never a looser decision.
func TestForgedCheckpointCannotLoosen(t *testing.T) {
	t.Parallel()
	later := func(v any) any {
		s, _ := v.(string)
		at, _ := time.Parse(time.RFC3339Nano, s)
		return at.Add(-2 * time.Hour).Format(time.RFC3339Nano)
	}
	type forgery struct {
		name string
		edit func(st, snap map[string]any)
		// refused: the forgery must be found out even when every digest
		// agrees with it, because it contradicts the records or the state
		// itself.
		refused bool
	}
	forgeries := func(t *testing.T, records []ledger.Record, pol *policy.Policy) []forgery {
		// The forger of a clean past also makes the counts the records give
		// when every iteration since the start was measured.
		cleanCounts := func(s map[string]any) {
			n := int(s["iteration"].(float64))
			k, err := pastOfRecords(records[:n], Config{Now: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			c := k.counts(0, n, hourSize(policiesOf(pol)))
			s["error_counts"], s["hour"] = c.errors, c.hour
		}
		return []forgery{
			{"state CLOSED", func(_, s map[string]any) { s["state"] = "CLOSED" }, true},
			{"a closed history", func(_, s map[string]any) {
				s["state"], s["history"], s["opened_at"], s["trigger"], s["reason"] = "CLOSED", nil, nil, "", ""
				s["last_transition_at"] = "0001-01-01T00:00:00Z"
			}, false},
			{"a closed history and no ignored iteration", func(_, s map[string]any) {
				s["state"], s["history"], s["opened_at"], s["trigger"], s["reason"], s["ignored_open"] = "CLOSED", nil, nil, "", "", 0
				s["last_transition_at"] = "0001-01-01T00:00:00Z"
			}, false},
			{"a clean past: never opened, every iteration measured", func(_, s map[string]any) {
				s["state"], s["history"], s["opened_at"], s["trigger"], s["reason"] = "CLOSED", nil, nil, "", ""
				s["since_reset"], s["ignored_open"], s["last_transition_at"] = s["iteration"], 0, "0001-01-01T00:00:00Z"
				cleanCounts(s)
			}, false},
			{"since_reset 0", func(_, s map[string]any) { s["since_reset"] = 0 }, true},
			{"ignored_open 0", func(_, s map[string]any) { s["ignored_open"] = 0 }, true},
			{"iteration 3", func(_, s map[string]any) { s["iteration"] = 3 }, true},
			{"last_at two hours earlier", func(_, s map[string]any) { s["last_at"] = later(s["last_at"]) }, true},
			{"no error counts", func(_, s map[string]any) { s["error_counts"] = nil }, true},
			{"no hour of iteration times", func(_, s map[string]any) { s["hour"] = nil }, true},
			{"percent_high 0", func(_, s map[string]any) { s["percent_high"] = 0 }, false},
			{"held open", func(_, s map[string]any) { s["forced_open"] = true }, true},
			{"a cooldown due", func(_, s map[string]any) { s["cooldown_until"], s["cooldown"] = s["last_at"], 1 }, true},
			{"probing", func(_, s map[string]any) { s["probing"], s["probes_left"] = true, 1 }, true},
			{"another commit", func(_, s map[string]any) { s["last_commit"] = strings.Repeat("b", 40) }, true},
			{"no person control", func(st, _ map[string]any) { st["controls"] = "" }, false},
			{"consecutive_no_progress 0", func(_, s map[string]any) { s["consecutive_no_progress"] = 0 }, false},
			{"held 0", func(_, s map[string]any) { s["held"] = 0 }, false},
			{"streaks 0", func(_, s map[string]any) { s["primary_streak"], s["error_streak"], s["denial_streak"] = 0, 0, 0 }, false},
			{"no errors seen", func(_, s map[string]any) { s["errors_seen"] = nil }, false},
			{"no window", func(_, s map[string]any) { s["window"], s["output_base"] = nil, map[string]any{} }, false},
			{"no trees seen", func(_, s map[string]any) { s["trees"] = nil }, false},
			{"no tasks completed", func(_, s map[string]any) { s["tasks_completed"], s["task_high"] = nil, nil }, false},
			{"no previous iteration", func(_, s map[string]any) { s["prev"] = nil }, false},
			{"opens 0", func(_, s map[string]any) { s["opens"] = 0 }, false},
			{"no notes", func(st, _ map[string]any) { st["notes"], st["history"], st["evidence"] = nil, nil, nil }, false},
			{"another task count", func(st, _ map[string]any) { st["tasks_before"] = 0 }, false},
		}
	}
	hold := Control{At: t0.Add(75 * time.Minute), Kind: ControlForceOpen, Reason: "held", By: "maintainer"}
	reset := Control{At: t0.Add(95 * time.Minute), Kind: ControlReset, Reason: "again", By: "maintainer"}
	scenarios := []struct {
		name, policy, script string
		controls             []Control
		next                 byte
	}{
		{"OPEN on max_iterations, runs ignored since", "default", strings.Repeat("PTPPP", 6), nil, 'P'},
		{"CLOSED, tasks and errors", "default", "PTPPTPPTPPSP", nil, 'T'},
		{"OPEN on a deleted protected file", "default", "PPDPPPPPPPPPPPPPP", nil, 'P'},
		{"a hold, then a reset", "default", "PPPPPPPPPPPPPPPPP", []Control{hold, reset}, 'S'},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			p, _ := policy.Builtin(sc.policy)
			l, recs := honestLedger(t, p, sc.script, sc.controls)
			l.step(len(sc.script)+1, sc.next)
			report, log := l.files(len(sc.script) + 1)
			cfg := Config{Repo: l.dir, Base: l.base, Policy: p, Reports: []string{report}, Log: log, Now: l.at.Add(time.Minute),
				RunID: int64(len(sc.script) + 1), Attempt: 1, Controls: sc.controls, Ledger: &ledger.Ledger{Records: recs}}
			whole, err := Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Incremental = true
			if honest, err := Run(cfg); err != nil || honest.Skipped == 0 || decisionJSON(t, honest) != decisionJSON(t, whole) {
				t.Fatalf("the honest checkpoint was not used, or decided otherwise (%v, from %d, notes %q)", err, honest.Skipped, note.Texts(honest.Notes))
			}
			for _, f := range forgeries(t, recs, p) {
				for _, anyDigest := range []bool{false, true} {
					c := cfg
					c.anyDigest = anyDigest
					forged, changed := forge(t, recs, f.edit)
					if !changed {
						continue // the field already had the forged value
					}
					c.Ledger = &ledger.Ledger{Records: forged}
					res, err := Run(c)
					if err != nil {
						t.Fatalf("%s: %v", f.name, err)
					}
					_, noted := note.Find(res.Notes, note.CheckpointUnused)
					refused := res.Skipped == 0 && noted
					d, w := res.Final(), whole.Final()
					// Looser: a less severe state, or the same state letting the
					// loop go on where the whole fold stops it. The same OPEN
					// state under another rule's name is not: a forged past
					// older than the window can hide which rule opened a loop
					// that max_iterations holds OPEN anyway.
					looser := strictness(res) < strictness(whole) ||
						strictness(res) == strictness(whole) && (d.AllowContinue && !w.AllowContinue || d.State != breaker.Open && !cmp.Equal(d.Trigger, w.Trigger))
					switch {
					case anyDigest && f.refused && !refused:
						t.Errorf("%s: the forged checkpoint was used (from iteration %d), want it refused", f.name, res.Skipped)
					case !refused && looser:
						t.Errorf("%s (digests forged too: %v): decided %s %s, the whole fold %s %s: looser", f.name, anyDigest, d.State, triggerOf(d), w.State, triggerOf(w))
					}
				}
			}
		})
	}
}
