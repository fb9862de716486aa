package gitlog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// entriesOf reads task files (path → content) into a task state's entries,
// in path order as the tracker gives them.
func entriesOf(t *testing.T, files map[string]string) []taskEntry {
	t.Helper()
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sortStrings(paths)
	var out []taskEntry
	for _, p := range paths {
		tl, err := readTaskList(strings.NewReader(files[p]), -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range tl.items {
			out = append(out, taskEntry{p, it})
		}
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func id(path, text string) string { return taskID(path, taskText([]byte(text))) }

func TestCompareTasks(t *testing.T) {
	t.Parallel()
	const plan = "fix_plan.md"
	tests := []struct {
		name     string
		old, cur map[string]string
		want     TaskChange
	}{
		{"tick", map[string]string{plan: "- [ ] a\n- [ ] b\n"}, map[string]string{plan: "- [x] a\n- [ ] b\n"},
			TaskChange{Checked: []string{id(plan, "a")}}},
		{"untick", map[string]string{plan: "- [x] a\n- [ ] b\n"}, map[string]string{plan: "- [ ] a\n- [ ] b\n"},
			TaskChange{Unchecked: 1}},
		{"case and spacing are the same task", map[string]string{plan: "- [ ] Write  Docs\n"}, map[string]string{plan: "- [X] write docs \n"},
			TaskChange{Checked: []string{id(plan, "write docs")}}},
		{"tick with its text edited", map[string]string{plan: "- [ ] a\n- [ ] b\n- [ ] c\n"}, map[string]string{plan: "- [ ] a\n- [x] b (done in 4f2c)\n- [ ] c\n"},
			TaskChange{Checked: []string{id(plan, "b (done in 4f2c)")}}},
		{"tick one, untick another with an edit", map[string]string{plan: "- [x] a (now)\n- [ ] b\n"}, map[string]string{plan: "- [ ] a\n- [x] b (now)\n"},
			TaskChange{Checked: []string{id(plan, "b (now)")}, Unchecked: 1}},
		{"added already checked", map[string]string{plan: "- [ ] a\n"}, map[string]string{plan: "- [ ] a\n- [x] done before\n"},
			TaskChange{Checked: []string{id(plan, "done before")}}},
		{"added open, checked removed", map[string]string{plan: "- [x] a\n- [ ] b\n"}, map[string]string{plan: "- [ ] b\n- [ ] c\n"},
			TaskChange{}},
		{"reordered", map[string]string{plan: "- [x] a\n- [ ] b\n- [ ] c\n"}, map[string]string{plan: "- [ ] c\n- [x] a\n- [ ] b\n"},
			TaskChange{}},
		{"moved to another task file", map[string]string{plan: "- [x] a\n- [ ] b\n"}, map[string]string{".ralph/" + plan: "- [x] a\n- [ ] b\n"},
			TaskChange{}},
		{"a new task file", nil, map[string]string{plan: "- [x] a\n- [ ] b\n"},
			TaskChange{Checked: []string{id(plan, "a")}}},
		{"a task file deleted", map[string]string{plan: "- [x] a\n"}, nil,
			TaskChange{}},
		{"plan rewritten: fewer, other tasks", map[string]string{plan: "- [x] a\n- [x] b\n- [x] c\n- [ ] d\n"},
			map[string]string{plan: "- [x] e\n- [ ] f\n"},
			TaskChange{Unchecked: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := compareTasks(entriesOf(t, tt.old), entriesOf(t, tt.cur))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("compareTasks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHistoryTaskChanges: each commit says which tasks it checked and how
// many it unchecked, and the base's checked tasks are listed.
func TestHistoryTaskChanges(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("fix_plan.md", "- [x] a\n- [ ] b\n- [ ] c\n").commit("plan\n")
	r.write("fix_plan.md", "- [x] a\n- [x] b\n- [ ] c\n").commit("b done\n")
	r.write("fix_plan.md", "- [x] a\n- [ ] b\n- [ ] c\n").commit("b reopened\n")
	r.write("main.go", "package main\n").commit("code\n")
	r.write("fix_plan.md", "- [x] a\n- [x] b\n- [x] c\n").commit("b and c done\n")
	h := history(t, r, defaultOpts(t, c1.String()))
	if diff := cmp.Diff([]string{id("fix_plan.md", "a")}, h.BaseChecked); diff != "" {
		t.Errorf("base checked (-want +got):\n%s", diff)
	}
	want := []TaskChange{
		{Checked: []string{id("fix_plan.md", "b")}},
		{Unchecked: 1},
		{},
		{Checked: []string{id("fix_plan.md", "b"), id("fix_plan.md", "c")}},
	}
	for i, c := range h.Commits {
		if c.TaskChange == nil {
			t.Fatalf("commit %d: no task change", i+1)
		}
		if diff := cmp.Diff(want[i], *c.TaskChange, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("commit %d (-want +got):\n%s", i+1, diff)
		}
	}
	if got := h.Commits[3].Tasks; got == nil || *got != (Tasks{Done: 3, Total: 3}) {
		t.Errorf("last commit: got tasks %v, want 3 of 3", got)
	}
}

// TestHistoryCurrentTask: the current task is the first unchecked task in
// plan order (the task files by path, then line by line), with its text
// for a person; none when every task is checked. Diff answers the same.
func TestHistoryCurrentTask(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	c1 := r.write("main.go", "package main\n").commit("init\n")
	r.write("b/fix_plan.md", "- [ ] later\n").write("a/fix_plan.md", "- [x] done\n- [ ]   Write   the *parser*\n- [ ] lexer\n").commit("plan\n")
	r.write("a/fix_plan.md", "- [x] done\n- [x] Write the *parser*\n- [ ] lexer\n").commit("parser done\n")
	r.write("a/fix_plan.md", "- [x] done\n- [x] Write the *parser*\n- [x] lexer\n").write("b/fix_plan.md", "- [x] later\n").commit("all done\n")
	r.write("b/fix_plan.md", "- [ ] "+strings.Repeat("x", 200)+"\n").commit("a long task\n")
	h := history(t, r, defaultOpts(t, c1.String()))
	want := []*CurrentTask{
		{ID: id("a/fix_plan.md", "Write the *parser*"), Text: "Write the *parser*"},
		{ID: id("a/fix_plan.md", "lexer"), Text: "lexer"},
		nil,
		{ID: id("b/fix_plan.md", strings.Repeat("x", 200)), Text: strings.Repeat("x", 120) + "…"},
	}
	for i, c := range h.Commits {
		if diff := cmp.Diff(want[i], c.CurrentTask); diff != "" {
			t.Errorf("commit %d (-want +got):\n%s", i+1, diff)
		}
	}
	rg, err := r.open().Diff(c1.String(), h.Commits[1].Hash, defaultOpts(t, c1.String()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want[1], rg.CurrentTask); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

// randomPlan writes a task list of random checkbox, fence and other lines,
// some longer than the part of a line that is looked at, with or without
// a last newline.
func randomPlan(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(40) {
		switch r.IntN(8) {
		case 0:
			b.WriteString([]string{"```", "~~~", "````", " ```md"}[r.IntN(4)])
		case 1:
			b.WriteString("text [ ] not a task")
		case 2:
			fmt.Fprintf(&b, "- [x] %s", strings.Repeat("long ", r.IntN(2000)))
		default:
			fmt.Fprintf(&b, "%s [%s] task %d", []string{"-", "*", "  +", "1."}[r.IntN(4)], []string{" ", "x", "X"}[r.IntN(3)], r.IntN(10))
		}
		b.WriteString([]string{"\n", "\r\n"}[r.IntN(2)])
	}
	if r.IntN(2) == 0 {
		b.WriteString("- [x] last, no newline")
	}
	return b.String()
}

// TestReadTaskListBytesIsStreamed: reading a task list in memory finds what
// streaming it finds, task by task.
func TestReadTaskListBytesIsStreamed(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		text := randomPlan(r)
		want, err := readTaskList(strings.NewReader(text), int64(len(text)))
		if err != nil {
			t.Fatal(err)
		}
		got := readTaskListBytes([]byte(text), taskTexts{})
		if !cmp.Equal(got, want, cmp.AllowUnexported(taskList{}, taskItem{}, openTask{}), cmpopts.EquateEmpty()) {
			t.Fatalf("round %d: in memory %+v, streamed %+v", round, got.counts, want.counts)
		}
	}
}

// TestTaskListHoldsRoomForItsBoxes: a long file of prose with one task is
// read into a list with room for its boxes, not for its lines: every
// version of it is cached, and the cache counts the room each holds.
func TestTaskListHoldsRoomForItsBoxes(t *testing.T) {
	t.Parallel()
	text := "# Plan\n\n- [ ] write the parser\n" + strings.Repeat("Some prose about the plan, with a [link](x).\n", 20000)
	tl := readTaskListBytes([]byte(text), taskTexts{})
	if len(tl.items) != 1 || cap(tl.items) > 20001 || cap(tl.items) < 1 {
		t.Fatalf("%d tasks in room for %d", len(tl.items), cap(tl.items))
	}
	prose := readTaskListBytes([]byte("- [ ] one\n"+strings.Repeat("no box here\n", 20000)), taskTexts{})
	if len(prose.items) != 1 || cap(prose.items) != 1 {
		t.Fatalf("%d tasks in room for %d, want room for 1", len(prose.items), cap(prose.items))
	}
}

// TestCompareStatesIsCompareTasks: comparing two task states file by file
// finds what comparing their tasks as one list finds, whether the files
// are the same or not, share blobs or not, and hold tasks or not.
func TestCompareStatesIsCompareTasks(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	paths := []string{".ralph/fix_plan.md", "IMPLEMENTATION_PLAN.md", "fix_plan.md"}
	list := func(n int) *taskList {
		tl := &taskList{}
		for range n {
			tl.items = append(tl.items, taskItem{text: taskText([]byte(fmt.Sprintf("task %d", r.IntN(6)))), checked: r.IntN(2) == 0})
		}
		return tl
	}
	edit := func(tl *taskList) *taskList {
		c := &taskList{items: append([]taskItem(nil), tl.items...)}
		for i := range c.items {
			if r.IntN(3) == 0 {
				c.items[i].checked = !c.items[i].checked
			}
		}
		if r.IntN(4) == 0 && len(c.items) > 0 {
			c.items[r.IntN(len(c.items))].text = taskText([]byte("edited"))
		}
		return c
	}
	for round := range 500 {
		old, cur := &taskState{}, &taskState{}
		for _, p := range paths {
			if r.IntN(4) == 0 {
				continue
			}
			o := list(r.IntN(5))
			old.files = append(old.files, stateFile{p, o})
			switch r.IntN(4) {
			case 0: // the same blob
				cur.files = append(cur.files, stateFile{p, o})
			case 1: // gone
			default:
				cur.files = append(cur.files, stateFile{p, edit(o)})
			}
		}
		want := compareTasks(old.entries(), cur.entries())
		if got := compareStates(old, cur); !cmp.Equal(got, want, cmpopts.EquateEmpty()) {
			t.Fatalf("round %d: by file %+v, as one list %+v", round, got, want)
		}
	}
}

// TestTaskIdentityIsStable: a task's identity is the hash of its text
// lowercased with its whitespace collapsed (strings.ToLower, Fields and
// Join), then of its file and that hash, whatever the text's bytes.
func TestTaskIdentityIsStable(t *testing.T) {
	t.Parallel()
	norm := func(text string) [16]byte {
		sum := sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(text)), " ")))
		return [16]byte(sum[:16])
	}
	ident := func(path string, text [16]byte) string {
		h := sha256.New()
		h.Write([]byte(path))
		h.Write([]byte{0})
		h.Write(text[:])
		return hex.EncodeToString(h.Sum(nil)[:8])
	}
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "Z", "Write", " ", "  ", "\t", "\r\n", "\v", "\f", "ß", "İ", "\u00a0", "\u2003", "\xff", "x1", "[", "É"}
	texts := []string{"", " ", "Write  Docs\n", "  lead and trail \r\n", strings.Repeat("long text ", 60)}
	for range 500 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		want := norm(text)
		if got := taskText([]byte(text)); got != want {
			t.Fatalf("taskText(%q): got %x, want %x", text, got, want)
		}
		for _, path := range []string{"fix_plan.md", strings.Repeat("d/", 200) + "TODO.md"} {
			if got, want := taskID(path, want), ident(path, want); got != want {
				t.Fatalf("taskID(%q, %q): got %s, want %s", path, text, got, want)
			}
		}
	}
}
