package breaker_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

var update = flag.Bool("update", false, "rewrite the golden decision streams in testdata/streams")

// stream is one golden scenario: testdata/streams/NAME.json. Its decisions
// are in NAME.golden, one JSON decision per line (history only on the last
// line, the status log never, to keep them readable).
type stream struct {
	Description string `json:"description"`
	// Policy is a built-in name or a file under testdata/policies.
	Policy  string       `json:"policy"`
	Profile string       `json:"profile,omitempty"`
	Phase   string       `json:"phase,omitempty"`
	Start   time.Time    `json:"start"`
	Steps   []streamStep `json:"steps"`
}

// streamStep is an iteration, or a reset, force-open or status query.
type streamStep struct {
	// After is the time since the previous step (default 10m); Repeat
	// folds the step that many times, After apart.
	After  string `json:"after,omitempty"`
	Repeat int    `json:"repeat,omitempty"`

	Reset     *string `json:"reset,omitempty"`
	ForceOpen *string `json:"force_open,omitempty"`
	Status    bool    `json:"status,omitempty"`

	Commit string `json:"commit,omitempty"`
	// CommitAge puts the commit's time this long before the run's.
	CommitAge         string          `json:"commit_age,omitempty"`
	Phase             string          `json:"phase,omitempty"`
	Change            *breaker.Change `json:"change,omitempty"`
	Tests             *breaker.Tests  `json:"tests,omitempty"`
	Errors            []string        `json:"errors,omitempty"`
	ErrorsUnknown     bool            `json:"errors_unknown,omitempty"`
	Output            *int            `json:"output,omitempty"`
	PermissionDenials int             `json:"permission_denials,omitempty"`
	CompletionClaimed bool            `json:"completion_claimed,omitempty"`
	FilesModified     *int            `json:"files_modified,omitempty"`
	QuestionsAsked    bool            `json:"questions_asked,omitempty"`
	ProgressPercent   *float64        `json:"progress_percent,omitempty"`
	Tasks             *breaker.Tasks  `json:"tasks,omitempty"`
	TasksBefore       *int            `json:"tasks_before,omitempty"`
	Cost              *breaker.Cost   `json:"cost,omitempty"`

	// Want and WantTrigger are what the documented rules say of the
	// decision after the step (checked before the golden comparison; "-"
	// for no trigger).
	Want        string `json:"want,omitempty"`
	WantTrigger string `json:"want_trigger,omitempty"`
}

func loadStream(t *testing.T, path string) stream {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s stream
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if s.Start.IsZero() {
		s.Start = t0
	}
	return s
}

func (s stream) policy(t testing.TB) *policy.Policy {
	t.Helper()
	name := s.Policy
	if strings.HasSuffix(name, ".toml") {
		name = filepath.Join("testdata", "policies", name)
	}
	p, err := policy.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (s stream) options() breaker.Options {
	return breaker.Options{Profile: s.Profile, Phase: s.Phase}
}

// op is one expanded step: an iteration or a person's action at a time.
type op struct {
	step *streamStep
	at   time.Time
	it   breaker.Iteration
}

// expand turns the steps into timed operations.
func (s stream) expand(t testing.TB) []op {
	t.Helper()
	var ops []op
	at := s.Start
	first := true
	for i := range s.Steps {
		st := &s.Steps[i]
		gap := 10 * time.Minute
		if st.After != "" {
			d, err := time.ParseDuration(st.After)
			if err != nil {
				t.Fatalf("step %d: after: %v", i+1, err)
			}
			gap = d
		}
		for range max(1, st.Repeat) {
			if !first {
				at = at.Add(gap)
			}
			first = false
			ops = append(ops, op{step: st, at: at, it: st.iteration(t, at)})
		}
	}
	return ops
}

func (st *streamStep) iteration(t testing.TB, at time.Time) breaker.Iteration {
	it := breaker.Iteration{
		At: at, Commit: st.Commit, Phase: st.Phase, Tests: st.Tests, ErrorsKnown: !st.ErrorsUnknown,
		PermissionDenials: st.PermissionDenials, CompletionClaimed: st.CompletionClaimed, ClaimedFiles: st.FilesModified,
		QuestionsAsked: st.QuestionsAsked, ProgressPercent: st.ProgressPercent, Tasks: st.Tasks, TasksBefore: st.TasksBefore,
		Cost: st.Cost,
	}
	if st.Change != nil {
		c := *st.Change
		it.Change = &c
	}
	if st.CommitAge != "" {
		d, err := time.ParseDuration(st.CommitAge)
		if err != nil {
			t.Fatalf("commit_age: %v", err)
		}
		it.CommitAt = at.Add(-d)
	}
	for _, e := range st.Errors {
		h := sha256.Sum256([]byte(e))
		it.Errors = append(it.Errors, breaker.Signature{Hash: hex.EncodeToString(h[:]), Sample: e})
	}
	if st.Output != nil {
		it.Output = &breaker.Output{Lines: *st.Output, Bytes: int64(*st.Output) * 40}
	}
	return it
}

// apply runs one operation.
func (o op) apply(b *breaker.Breaker) (breaker.Decision, error) {
	switch {
	case o.step.Reset != nil:
		if err := b.Reset(o.at, *o.step.Reset); err != nil {
			return breaker.Decision{}, err
		}
		return b.Status(o.at)
	case o.step.ForceOpen != nil:
		if err := b.ForceOpen(o.at, *o.step.ForceOpen); err != nil {
			return breaker.Decision{}, err
		}
		return b.Status(o.at)
	case o.step.Status:
		return b.Status(o.at)
	}
	return b.Observe(o.it)
}

// fold runs ops on b and returns the decisions.
func fold(t testing.TB, b *breaker.Breaker, ops []op) []breaker.Decision {
	t.Helper()
	out := make([]breaker.Decision, 0, len(ops))
	for i, o := range ops {
		d, err := o.apply(b)
		if err != nil {
			t.Fatalf("step %d at %s: %v", i+1, o.at.Format(time.RFC3339), err)
		}
		checkInvariants(t, d)
		out = append(out, d)
	}
	return out
}

// goldenLines renders decisions as the golden file does.
func goldenLines(t testing.TB, ds []breaker.Decision) []byte {
	t.Helper()
	var buf bytes.Buffer
	for i, d := range ds {
		d.Recent = nil
		if i < len(ds)-1 {
			d.History = nil
		}
		line, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func streamFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 15 {
		t.Fatalf("found %d streams, want at least 15", len(files))
	}
	return files
}

// TestGoldenStreams folds every stream, checks the states and triggers the
// stream expects, and compares the decisions with the golden file.
func TestGoldenStreams(t *testing.T) {
	t.Parallel()
	for _, path := range streamFiles(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := loadStream(t, path)
			b, err := breaker.New(s.policy(t), s.options())
			if err != nil {
				t.Fatal(err)
			}
			ops := s.expand(t)
			ds := fold(t, b, ops)
			for i, d := range ds {
				st := ops[i].step
				if st.Want != "" && d.State.String() != st.Want {
					t.Errorf("step %d (iteration %d): got %s (%q), want %s", i+1, d.Iteration, d.State, str(d.Reason), st.Want)
				}
				if st.WantTrigger != "" {
					want := st.WantTrigger
					if want == "-" {
						want = ""
					}
					if got := str(d.Trigger); got != want {
						t.Errorf("step %d (iteration %d): got trigger %q (%q), want %q", i+1, d.Iteration, got, str(d.Reason), want)
					}
				}
			}
			got := goldenLines(t, ds)
			golden := strings.TrimSuffix(path, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
				t.Errorf("decisions differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestDeterminism: folding a stream twice gives the same decisions, and
// stopping anywhere, carrying the snapshot through JSON and restoring it
// gives the same decisions as one uninterrupted fold.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	for _, path := range streamFiles(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := loadStream(t, path)
			p := s.policy(t)
			ops := s.expand(t)
			whole := goldenLines(t, fold(t, mustNew(t, p, s.options()), ops))
			again := goldenLines(t, fold(t, mustNew(t, s.policy(t), s.options()), ops))
			if !bytes.Equal(whole, again) {
				t.Fatalf("two folds of the same stream differ:\n%s", cmp.Diff(string(whole), string(again)))
			}
			wantLines := strings.SplitAfter(string(whole), "\n")
			for cut := 1; cut < len(ops); cut++ {
				b := mustNew(t, p, s.options())
				first := fold(t, b, ops[:cut])
				data, err := json.Marshal(b.Snapshot())
				if err != nil {
					t.Fatal(err)
				}
				var snap breaker.Snapshot
				if err := json.Unmarshal(data, &snap); err != nil {
					t.Fatalf("cut %d: unmarshal snapshot: %v", cut, err)
				}
				r, err := breaker.Restore(s.policy(t), s.options(), snap)
				if err != nil {
					t.Fatalf("cut %d: Restore: %v", cut, err)
				}
				rest := fold(t, r, ops[cut:])
				got := goldenLines(t, append(first, rest...))
				if !bytes.Equal(got, whole) {
					gotLines := strings.SplitAfter(string(got), "\n")
					for i := range min(len(gotLines), len(wantLines)) {
						if gotLines[i] != wantLines[i] {
							t.Fatalf("restored after step %d: step %d differs:\n got  %s want %s", cut, i+1, gotLines[i], wantLines[i])
						}
					}
					t.Fatalf("restored after step %d: %d lines, want %d", cut, len(gotLines), len(wantLines))
				}
			}
		})
	}
}

func mustNew(t testing.TB, p *policy.Policy, o breaker.Options) *breaker.Breaker {
	t.Helper()
	b, err := breaker.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStreamFilesArePaired: every golden file has its stream.
func TestStreamFilesArePaired(t *testing.T) {
	t.Parallel()
	goldens, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.golden"))
	for _, g := range goldens {
		if _, err := os.Stat(strings.TrimSuffix(g, ".golden") + ".json"); err != nil {
			t.Errorf("%s has no stream: %v", g, err)
		}
	}
}
