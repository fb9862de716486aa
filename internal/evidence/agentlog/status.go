package agentlog

import (
	"math"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// Ralph's status block markers.
const (
	statusStart = "---RALPH_STATUS---"
	statusEnd   = "---END_RALPH_STATUS---"
	// maxStatusLines bounds a block: one that runs longer is not a block.
	maxStatusLines = 40
	// maxNoteValue bounds agent text quoted in a note.
	maxNoteValue = 64
)

// statusField reads one "KEY: value" line of an open status block. Unknown
// keys and lines without a colon are ignored.
func (a *analyzer) statusField(b *StatusBlock, line string) {
	line = strings.TrimLeft(line, "-*+> \t")
	key, value, ok := strings.Cut(line, ":")
	if !ok {
		return
	}
	key = strings.ToUpper(strings.Trim(key, "*_` \t"))
	value = textcut.Bytes(strings.Trim(value, "*_` \t"), MaxErrorLen, "")
	switch key {
	case "STATUS":
		b.Status = upper(value)
	case "TASKS_COMPLETED_THIS_LOOP":
		b.TasksCompleted = a.count(key, value)
	case "FILES_MODIFIED":
		b.FilesModified = a.count(key, value)
	case "TESTS_STATUS":
		b.TestsStatus = upper(value)
	case "WORK_TYPE":
		b.WorkType = upper(value)
	case "EXIT_SIGNAL":
		switch strings.ToLower(value) {
		case "true", "yes":
			t := true
			b.ExitSignal = &t
		case "false", "no":
			f := false
			b.ExitSignal = &f
		default:
			b.ExitSignal = nil
			a.note("status block on line %d: EXIT_SIGNAL %q is not true or false; ignored", a.lines, textcut.Bytes(value, maxNoteValue, ""))
		}
	case "PROGRESS", "PROGRESS_PERCENT":
		b.ProgressPercent = a.percent(key, value)
	case "PHASE":
		b.Phase = value
	case "RECOMMENDATION":
		b.Recommendation = value
	case "CURRENT_TASK":
		b.CurrentTask = value
	}
}

// upper upper-cases an enumerated value within MaxErrorLen: upper-casing
// turns each invalid byte into a three-byte replacement character, so the
// bound is applied again after it.
func upper(value string) string {
	return textcut.Bytes(strings.ToUpper(value), MaxErrorLen, "")
}

// count parses a non-negative count, or notes why it cannot.
func (a *analyzer) count(key, value string) *int {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		a.note("status block on line %d: %s %q is not a count; ignored", a.lines, key, textcut.Bytes(value, maxNoteValue, ""))
		return nil
	}
	return &n
}

// percent parses "45", "45%" or "45.5 %" in [0, 100], or notes why it cannot.
func (a *analyzer) percent(key, value string) *float64 {
	v := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(value), "%"))
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 100 {
		a.note("status block on line %d: %s %q is not a percentage from 0 to 100; ignored", a.lines, key, textcut.Bytes(value, maxNoteValue, ""))
		return nil
	}
	return &f
}

// AdmitsNoProgress reports whether the block admits that the iteration made
// no progress: STATUS BLOCKED, or EXIT_SIGNAL false with no file modified
// and no task completed. A BLOCKED status names its blocker by the current
// task (or "status blocked").
func (b *StatusBlock) AdmitsNoProgress() (bool, string) {
	if b.Status == "BLOCKED" {
		blocker := "status blocked"
		if t := strings.Join(strings.Fields(strings.ToLower(b.CurrentTask)), " "); t != "" {
			blocker = "blocked: " + textcut.Bytes(t, 120, "")
		}
		return true, blocker
	}
	noFiles := b.FilesModified != nil && *b.FilesModified == 0
	noTasks := b.TasksCompleted == nil || *b.TasksCompleted == 0
	if b.ExitSignal != nil && !*b.ExitSignal && noFiles && noTasks {
		return true, ""
	}
	return false, ""
}
