package ledger

import (
	"bytes"
	"testing"
	"time"
)

// TestSealSurvivesTheFileAndNothingElse: a sealed record read back from
// its file verifies; the same record in another repository, workflow or
// run's file, under another key, or with any field changed does not.
func TestSealSurvivesTheFileAndNothingElse(t *testing.T) {
	t.Parallel()
	pct := 42.5
	rec := Record{Version: Version, RunID: 7, RunAttempt: 2, Iteration: 3, Commit: "0123456789abcdef0123456789abcdef01234567",
		At: time.Date(2026, 3, 1, 9, 0, 0, 123456789, time.UTC), Phase: "GREEN", Tests: &Tests{Passed: 3, Failed: 1, Failing: []string{"TestX é"}},
		Errors: []Error{{Hash: "ab" + string(bytes.Repeat([]byte("0"), 62)), Sample: "boom"}}, ProgressPercent: &pct,
		LabelResets: []LabelReset{{At: time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC), By: "alice"}}}
	s := Sealer{Key: "judge-secret", Repository: "octo/loop", Workflow: ".github/workflows/loop.yml", Run: 9}
	s.Seal(&rec)
	var buf bytes.Buffer
	if err := Encode(&buf, []Record{rec}); err != nil {
		t.Fatal(err)
	}
	l := Decode(buf.Bytes(), "record.json")
	if len(l.Records) != 1 || !s.Verify(&l.Records[0]) {
		t.Fatalf("the sealed record does not verify once read back: %+v %v", l.Records, l.Problems)
	}
	for name, other := range map[string]Sealer{
		"another key":          {Key: "guess", Repository: s.Repository, Workflow: s.Workflow, Run: s.Run},
		"another repository":   {Key: s.Key, Repository: "octo/other", Workflow: s.Workflow, Run: s.Run},
		"another workflow":     {Key: s.Key, Repository: s.Repository, Workflow: ".github/workflows/other.yml", Run: s.Run},
		"another run's upload": {Key: s.Key, Repository: s.Repository, Workflow: s.Workflow, Run: 10},
	} {
		if other.Verify(&rec) {
			t.Errorf("%s: the record verifies", name)
		}
	}
	for name, edit := range map[string]func(r *Record){
		"run":       func(r *Record) { r.RunID++ },
		"attempt":   func(r *Record) { r.RunAttempt++ },
		"iteration": func(r *Record) { r.Iteration++ },
		"commit":    func(r *Record) { r.Commit = "1123456789abcdef0123456789abcdef01234567" },
		"tests":     func(r *Record) { r.Tests = &Tests{Passed: 4} },
		"time":      func(r *Record) { r.At = r.At.Add(time.Second) },
		"no seal":   func(r *Record) { r.Seal = "" },
	} {
		c := rec
		edit(&c)
		if s.Verify(&c) {
			t.Errorf("a record with its %s changed verifies", name)
		}
	}
}
