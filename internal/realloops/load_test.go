package realloops

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hash40 makes a 40-hex hash from a short label.
func hash40(label string) string {
	return strings.Repeat("0", 40-len(label)) + label
}

func intp(n int) *int { return &n }

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.FixedZone("", 2*3600))

// sampleFacts is a small history that uses every kind of fact.
func sampleFacts() *Facts {
	tasks := func(spec string) []Task {
		var out []Task
		for _, f := range strings.Fields(spec) {
			out = append(out, Task{Key: TaskKey("task " + strings.TrimSuffix(f, "+")), Checked: strings.HasSuffix(f, "+")})
		}
		return out
	}
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * 10 * time.Minute) }
	f := &Facts{
		Repo: "example/loop",
		Base: &Base{
			Hash: hash40("b0"),
			Files: []File{
				{Path: "fix_plan.md", Lines: 6},
				{Path: "gen/api.go", Lines: 20, Generated: true},
				{Path: "img/logo.png", Binary: true},
				{Path: "run.sh", Lines: 3, Exec: true},
				{Path: "src/a.go", Lines: 40},
				{Path: "src/b.go", Lines: 12},
				{Path: "vendor/lib", Submodule: true},
			},
			Tasks: map[string][]Task{"fix_plan.md": tasks("one two three")},
		},
	}
	commits := []Commit{
		{Changes: []Change{ // a plain edit and a tick
			{Path: "fix_plan.md", Status: StatusModified, Added: 1, Deleted: 1},
			{Path: "src/a.go", Status: StatusModified, Added: 7, Deleted: 2},
		}, Tasks: map[string][]Task{"fix_plan.md": tasks("one+ two three")},
			Trailers: map[string][]string{TrailerPhase: {"GREEN"}, TrailerProgress: {"40%"}}},
		{Changes: []Change{ // whitespace only, both ways
			{Path: "src/a.go", Status: StatusModified, Added: 2, Deleted: 5, WhitespaceOnly: true},
			{Path: "src/b.go", Status: StatusModified, Deleted: 2, WhitespaceOnly: true},
		}},
		{Changes: []Change{ // a timestamp rewrite, a binary, a submodule
			{Path: "img/logo.png", Status: StatusModified, Binary: true},
			{Path: "src/b.go", Status: StatusModified, Added: 3, Deleted: 3, DigitsOnly: true},
			{Path: "vendor/lib", Status: StatusModified, Submodule: true},
		}},
		{Changes: []Change{ // a rename with edits, a mode change, a generated file loses its header
			{Path: "gen/api.go", Status: StatusModified, Added: 4, Deleted: 6},
			{Path: "run.sh", Status: StatusModified},
			{Path: "src/c.go", From: "src/a.go", Status: StatusRenamed, Added: 3, Deleted: 1},
		}},
		{}, // an empty commit
		{Changes: []Change{ // plan rewrite, a new file, a binary turned text
			{Path: "fix_plan.md", Status: StatusModified, Added: 4, Deleted: 5},
			{Path: "img/logo.png", Status: StatusModified, Binary: true, Lines: intp(9)},
			{Path: "notes/TODO.md", Status: StatusAdded, Added: 5, Written: []string{"e0123456789ab", "r", "cba9876543210"}},
			{Path: "src/c.go", Status: StatusModified, Added: 3, Deleted: 1},
		}, Tasks: map[string][]Task{
			"fix_plan.md":   tasks("alpha+ beta"),
			"notes/TODO.md": tasks("write+ docs"),
		}, Completion: true, Claim: "cafe00000001"},
		{Changes: []Change{ // back to an earlier version of one file
			{Path: "src/c.go", Status: StatusModified, Added: 1, Deleted: 3},
		}},
		{Changes: []Change{ // a merge with new code
			{Path: "src/d.go", Status: StatusAdded, Added: 30},
		}},
		{Changes: []Change{ // the merge reverted: the tree of commit 7 again
			{Path: "src/d.go", Status: StatusDeleted, Deleted: 30},
		}, Revert: true},
	}
	for i := range commits {
		c := &commits[i]
		c.Hash = hash40(fmt.Sprintf("c%d", i))
		c.Time = at(i)
		parent := f.Base.Hash
		if i > 0 {
			parent = commits[i-1].Hash
		}
		c.Parents = []string{parent}
	}
	commits[7].Parents = append(commits[7].Parents, hash40("5e"))
	commits[6].FileRestores = map[string]string{"src/c.go": commits[3].Hash}
	commits[8].Restores = commits[6].Hash
	commits[8].Reverts = commits[7].Hash
	f.Commits = commits
	f.Head = commits[len(commits)-1].Hash
	return f
}

// writeFacts writes f as a facts file at path.
func writeFacts(t *testing.T, path string, f *Facts) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWriteLoadRoundTrip(t *testing.T) {
	t.Parallel()
	f := sampleFacts()
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), FileName(f.Repo))
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFacts(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("facts changed on the way through the file (-want +got):\n%s", diff)
	}
	// One commit a line: the file stays reviewable and diffable.
	if n := strings.Count(buf.String(), "\n"); n != len(f.Commits)+2 {
		t.Errorf("got %d lines, want %d (header, one per commit, end)", n, len(f.Commits)+2)
	}
}

func TestRebuildSample(t *testing.T) {
	t.Parallel()
	f := sampleFacts()
	if err := f.validate(); err != nil {
		t.Fatal(err)
	}
	diffs, restored := compareRebuilt(t, f)
	for _, d := range diffs {
		t.Errorf("commit #%d: %s", d.commit+1, d.what)
	}
	if restored != 0 {
		t.Errorf("%d file restores came back with other line counts, want 0", restored)
	}
}

func TestRebuildUpTo(t *testing.T) {
	t.Parallel()
	f := sampleFacts()
	dir := t.TempDir()
	if err := Rebuild(dir, f, f.Commits[3].Hash); err != nil {
		t.Fatal(err)
	}
	if _, err := Synthetic(dir, f.Commits[3].Hash); err != nil {
		t.Errorf("commit 4 was built but has no name: %v", err)
	}
	if _, err := Synthetic(dir, f.Commits[4].Hash); err == nil {
		t.Error("commit 5 has a name, want none: the rebuild stops at commit 4")
	}
	if err := Checkout(dir, f.Commits[1].Hash); err != nil {
		t.Fatal(err)
	}
	if err := Rebuild(dir, f, ""); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("rebuild into a used directory: got %v, want an error saying it is not empty", err)
	}
	if err := Rebuild(t.TempDir(), f, hash40("ff")); err == nil || !strings.Contains(err.Error(), "not a commit") {
		t.Errorf("rebuild up to an unknown commit: got %v, want an error naming it", err)
	}
}

func TestLoadFactsErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		edit  func(f *Facts)
		field string // a substring of the error
	}{
		{"bad repo", func(f *Facts) { f.Repo = "no-slash" }, "repo:"},
		{"head not last", func(f *Facts) { f.Head = f.Commits[0].Hash }, "head:"},
		{"short hash", func(f *Facts) { f.Commits[2].Hash = "abc" }, "commits[2].hash"},
		{"broken chain", func(f *Facts) { f.Commits[3].Parents[0] = hash40("99") }, "commits[3].parents"},
		{"bad status", func(f *Facts) { f.Commits[0].Changes[0].Status = "Q" }, "commits[0].changes[0].status"},
		{"negative count", func(f *Facts) { f.Commits[0].Changes[1].Added = -1 }, "commits[0].changes[1]: negative"},
		{"binary with lines", func(f *Facts) { f.Commits[2].Changes[0].Added = 3 }, "commits[2].changes[0]: a binary"},
		{"modify absent", func(f *Facts) { f.Commits[0].Changes[1].Path = "src/zz.go" }, "not present before"},
		{"unsorted", func(f *Facts) {
			c := f.Commits[0].Changes
			c[0], c[1] = c[1], c[0]
		}, "out of order"},
		{"restore of later", func(f *Facts) { f.Commits[8].Restores = hash40("77") }, "commits[8].restores"},
		{"file restore of unchanged path", func(f *Facts) {
			f.Commits[6].FileRestores = map[string]string{"src/b.go": f.Commits[0].Hash}
		}, `commits[6].file_restores["src/b.go"]`},
		{"tasks of a non task file", func(f *Facts) {
			f.Commits[3].Tasks = map[string][]Task{"run.sh": {{Key: "0123456789ab"}}}
		}, `commits[3].tasks["run.sh"]`},
		{"bad task key", func(f *Facts) { f.Commits[0].Tasks["fix_plan.md"][0].Key = "XYZ" }, ".key"},
		{"foreign trailer", func(f *Facts) { f.Commits[0].Trailers["Signed-Off-By"] = []string{"x"} }, "trailers"},
		{"both ws and digits", func(f *Facts) { f.Commits[1].Changes[0].DigitsOnly = true }, "not both"},
		{"dot segment", func(f *Facts) { f.Commits[7].Changes[0].Path = "src/../d.go" }, `".." segment`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := sampleFacts()
			tc.edit(f)
			path := filepath.Join(t.TempDir(), "x__y.json")
			writeFacts(t, path, f)
			_, err := LoadFacts(path)
			if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), path) {
				t.Errorf("got %v, want an error naming %s and %q", err, path, tc.field)
			}
		})
	}
}

func TestLoadFactsDecodeErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, text, want string }{
		{"not json", "{", "decode"},
		{"unknown field", `{"repo":"a/b","head":"x","commits":[],"extra":1}`, `unknown field "extra"`},
		{"bad time", `{"repo":"a/b","head":"x","commits":[{"hash":"x","parents":[],"time":"yesterday"}]}`, "commits[0].time"},
		{"bad task index", `{"repo":"a/b","head":"x","task_keys":["0123456789ab"],"commits":[{"hash":"x","parents":[],"time":"2026-01-01T00:00:00Z","tasks":{"fix_plan.md":[7]}}]}`, `commits[0].tasks["fix_plan.md"][0]`},
		{"trailing data", `{"repo":"a/b","head":"x","commits":[]} {}`, "data after"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "a__b.json")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadFacts(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestLoadLabelsErrors(t *testing.T) {
	t.Parallel()
	f := sampleFacts()
	c := f.Commits
	// stretch writes one label entry of the sample's loop.
	stretch := func(repo, from, to, votes, extra string) string {
		return `{"repo":"` + repo + `","from":"` + from + `","to":"` + to + `","labels":[` + votes + `]` + extra + `}`
	}
	vote := func(by, label, reason string) string {
		return `{"by":"` + by + `","label":"` + label + `","reason":"` + reason + `"}`
	}
	two := func(a, b string) string { return vote("A", a, "r") + "," + vote("B", b, "r") }
	ok := func(votes, extra string) string { return stretch("example/loop", c[1].Hash, c[4].Hash, votes, extra) }
	cases := []struct{ name, labels, want string }{
		{"unknown label", `[` + ok(two("progress", "stuck"), "") + `]`, `unknown label "stuck"`},
		{"unknown repo", `[` + stretch("other/repo", c[1].Hash, c[4].Hash, two("progress", "progress"), "") + `]`, "[0].repo"},
		{"too short", `[` + stretch("example/loop", c[1].Hash, c[2].Hash, two("progress", "progress"), "") + `]`, "has 2 commits"},
		{"backwards", `[` + stretch("example/loop", c[5].Hash, c[1].Hash, two("progress", "progress"), "") + `]`, "has -3 commits"},
		{"unknown commit", `[` + stretch("example/loop", hash40("42"), c[4].Hash, two("progress", "progress"), "") + `]`, "[0].from"},
		{"the first shape", `[{"repo":"example/loop","from":"` + c[1].Hash + `","to":"` + c[4].Hash + `","label":"progress","reason":"r"}]`, `unknown field "label"`},
		{"one labeller", `[` + ok(vote("A", "progress", "r"), "") + `]`, "[0].labels: 1 judgements, want 2"},
		{"three labellers", `[` + ok(two("progress", "progress")+","+vote("C", "progress", "r"), "") + `]`, "[0].labels: 3 judgements"},
		{"same labeller twice", `[` + ok(vote("A", "progress", "r")+","+vote("A", "unclear", "r"), "") + `]`, `[0].labels[1].by: "A" judges the stretch twice`},
		{"no labeller", `[` + ok(vote("A", "progress", "r")+","+vote("", "progress", "r"), "") + `]`, "[0].labels[1].by"},
		{"no label", `[` + ok(vote("A", "progress", "r")+`,{"by":"B","reason":"r"}`, "") + `]`, "[0].labels[1].label: missing"},
		{"no reason", `[` + ok(vote("A", "progress", " ")+","+vote("B", "progress", "r"), "") + `]`, "[0].labels[0].reason"},
		{"two-line reason", `[` + ok(vote("A", "progress", "r")+","+vote("B", "progress", `one\ntwo`), "") + `]`, "[0].labels[1].reason"},
		{"miss of a progress stretch", `[` + ok(two("progress", "progress"), `,"misses":{"ralph":"r"}`) + `]`, "only a stagnation stretch"},
		{"miss without consensus", `[` + ok(two("stagnation", "unclear"), `,"misses":{"ralph":"r"}`) + `]`, "consensus is unclear"},
		{"miss of an unknown policy", `[` + ok(two("stagnation", "stagnation"), `,"misses":{"lax":"r"}`) + `]`, `"lax" is not a built-in policy`},
		{"miss without a reason", `[` + ok(two("stagnation", "stagnation"), `,"misses":{"ralph":""}`) + `]`, `[0].misses["ralph"]`},
		{"twice", `[` + ok(two("progress", "progress"), "") + `,` + ok(two("unclear", "unclear"), "") + `]`, "[1]: the stretch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFacts(t, filepath.Join(dir, FileName(f.Repo)), f)
			if err := os.WriteFile(filepath.Join(dir, LabelsFile), []byte(tc.labels), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), LabelsFile) {
				t.Errorf("got %v, want an error naming %s and %q", err, LabelsFile, tc.want)
			}
		})
	}
}

func TestConsensus(t *testing.T) {
	t.Parallel()
	votes := func(a, b Kind) Label { return Label{Votes: []Vote{{By: "A", Label: a}, {By: "B", Label: b}}} }
	cases := []struct {
		l    Label
		want Kind
	}{
		{votes(Progress, Progress), Progress},
		{votes(Stagnation, Stagnation), Stagnation},
		{votes(Unclear, Unclear), Unclear},
		{votes(Progress, Stagnation), Unclear},
		{votes(Stagnation, Unclear), Unclear},
		{votes(Progress, Unclear), Unclear},
	}
	for _, tc := range cases {
		if got := tc.l.Consensus(); got != tc.want {
			t.Errorf("Consensus of %v and %v = %v, want %v", tc.l.Votes[0].Label, tc.l.Votes[1].Label, got, tc.want)
		}
	}
}

func TestAgreements(t *testing.T) {
	t.Parallel()
	l := func(a, b string, x, y Kind) Label { return Label{Votes: []Vote{{By: a, Label: x}, {By: b, Label: y}}} }
	labels := []Label{
		// A/B: 4 of 5 agree; A gives 3 progress and 2 stagnation, B 2 and
		// 3: expected agreement (3*2 + 2*3) / 25 = 0.48, kappa (0.8 -
		// 0.48) / 0.52.
		l("A", "B", Progress, Progress),
		l("A", "B", Progress, Progress),
		l("A", "B", Progress, Stagnation),
		l("A", "B", Stagnation, Stagnation),
		l("A", "B", Stagnation, Stagnation),
		// B/C: both say unclear every time; chance explains it all.
		l("B", "C", Unclear, Unclear),
		l("B", "C", Unclear, Unclear),
	}
	got := Agreements(labels)
	if len(got) != 3 || got[0].Pair != "A/B" || got[1].Pair != "B/C" || got[2].Pair != "all" {
		t.Fatalf("got pairs %v, want A/B, B/C, all", got)
	}
	ab := got[0]
	if ab.Stretches != 5 || ab.Agreed != 4 || math.Abs(ab.Kappa-0.32/0.52) > 1e-9 {
		t.Errorf("A/B: got %d of %d, kappa %.4f; want 4 of 5, kappa %.4f", ab.Agreed, ab.Stretches, ab.Kappa, 0.32/0.52)
	}
	if s := ab.DisagreementText(); s != "1 progress/stagnation" {
		t.Errorf("A/B disagreements: got %q, want %q", s, "1 progress/stagnation")
	}
	if bc := got[1]; bc.Agreed != 2 || !math.IsNaN(bc.Kappa) {
		t.Errorf("B/C: got %d agreed, kappa %v; want 2, NaN", bc.Agreed, bc.Kappa)
	}
	// All 7: 6 agree; first labels 3 P, 2 S, 2 U; second 2 P, 3 S, 2 U:
	// expected (6 + 6 + 4) / 49.
	all, pe := got[2], 16.0/49
	if want := (6.0/7 - pe) / (1 - pe); all.Stretches != 7 || all.Agreed != 6 || math.Abs(all.Kappa-want) > 1e-9 {
		t.Errorf("all: got %d of %d, kappa %.4f; want 6 of 7, kappa %.4f", all.Agreed, all.Stretches, all.Kappa, want)
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	for _, k := range []Kind{Progress, Stagnation, Unclear} {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", k.String(), got, err, k)
		}
	}
	if _, err := Kind(9).MarshalJSON(); err == nil {
		t.Error("Kind(9) marshalled, want an error")
	}
}

func TestParseTasks(t *testing.T) {
	t.Parallel()
	text := "# Plan\n- [x] Ship  the  Parser\n* [ ] write docs\n  1. [X] tick\n-[ ] not a box\n- [y] not a box\n" +
		"```\n- [ ] inside a fence\n```\n+ [ ]\tTabbed\n- [ ]"
	got := ParseTasks([]byte(text))
	want := []Task{
		{TaskKey("ship the parser"), true},
		{TaskKey("Write Docs"), false},
		{TaskKey("tick"), true},
		{TaskKey("tabbed"), false},
		{TaskKey(""), false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseTasks (-want +got):\n%s", diff)
	}
	if k := TaskKey("x"); len(k) != 12 {
		t.Errorf("TaskKey is %q, want 12 hex digits", k)
	}
}

func TestLoadCorpus(t *testing.T) {
	t.Parallel()
	if names, _ := filepath.Glob(filepath.Join(*factsDir, "*__*.json")); len(names) == 0 {
		t.Skipf("no facts files in %s", *factsDir)
	}
	c, err := Load(*factsDir)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Kind]int{}
	perRepo := map[string]int{}
	for _, l := range c.Labels {
		counts[l.Consensus()]++
		perRepo[l.Repo]++
	}
	if len(c.Repos) < 25 || len(c.Labels) < 150 || counts[Stagnation] < 40 {
		t.Errorf("corpus has %d repositories, %d stretches, %d stagnation; want at least 25, 150, 40", len(c.Repos), len(c.Labels), counts[Stagnation])
	}
	// A short window of a small repository may hold only three stretches.
	for _, f := range c.Repos {
		if perRepo[f.Repo] < 3 {
			t.Errorf("%s has %d labelled stretches, want at least 3", f.Repo, perRepo[f.Repo])
		}
	}
}

func TestDigitsOnly(t *testing.T) {
	t.Parallel()
	cases := []struct {
		old, new string
		want     bool
	}{
		{"run at 2026-01-02T10:00:00Z\n", "run at 2026-01-03T9:05:00Z\n", true},
		{"count: 7\n", "count: 12\n", true},
		{"count: 7\n", "count: 7\n", false},
		{"count: 7\n", "total: 7\n", false},
		{"a1\n", "a1\nb\n", false},
		{"12\n", "\n", true},
		{"", "", false},
	}
	for _, tc := range cases {
		if got := DigitsOnly([]byte(tc.old), []byte(tc.new)); got != tc.want {
			t.Errorf("DigitsOnly(%q, %q) = %t, want %t", tc.old, tc.new, got, tc.want)
		}
	}
}
