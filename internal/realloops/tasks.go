package realloops

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
)

// taskFileNames are the task lists the corpus records, in any directory.
var taskFileNames = map[string]bool{
	"fix_plan.md":            true,
	"@fix_plan.md":           true,
	"IMPLEMENTATION_PLAN.md": true,
	"TODO.md":                true,
}

// TaskFilePatterns are the task lists the corpus records, as path patterns
// (a name without a slash matches at any depth).
func TaskFilePatterns() []string {
	return []string{"fix_plan.md", "@fix_plan.md", "IMPLEMENTATION_PLAN.md", "TODO.md"}
}

// IsTaskFile reports whether p names a task list the corpus records.
func IsTaskFile(p string) bool { return taskFileNames[path.Base(p)] }

// TaskKey is the identity of a task's text: the first 12 hex digits of the
// SHA-256 of the text lowercased, with runs of whitespace collapsed to one
// space and none at either end.
func TaskKey(text string) string {
	norm := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:])[:12]
}

// ParseTasks returns the checkboxes of a markdown task list in order: list
// items ("-", "*", "+", "1." or "1)") whose text starts with "[ ]" (open) or
// "[x]" / "[X]" (checked), outside fenced code blocks. These are the
// checkboxes loopbreaker counts.
func ParseTasks(content []byte) []Task {
	var out []Task
	var fence byte
	var fenceLen int
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i+1], content[i+1:]
		} else {
			content = nil
		}
		if c, n := fenceMark(line); n > 0 {
			switch {
			case fence == 0:
				fence, fenceLen = c, n
			case c == fence && n >= fenceLen:
				fence = 0
			}
			continue
		}
		if fence != 0 {
			continue
		}
		if checked, text, ok := checkbox(line); ok {
			out = append(out, Task{Key: TaskKey(text), Checked: checked})
		}
	}
	return out
}

// fenceMark returns the fence character and run length when the line opens
// or closes a fenced code block (up to 3 spaces of indent, then 3 or more
// backticks or tildes).
func fenceMark(line []byte) (byte, int) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0
	}
	c, n := line[i], 0
	for i < len(line) && line[i] == c {
		i++
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return c, n
}

// checkbox reads one markdown line: ok when it is a checkbox item, with its
// state and the text after the box.
func checkbox(line []byte) (checked bool, text string, ok bool) {
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' }
	i := 0
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i >= len(line) {
		return false, "", false
	}
	switch c := line[i]; {
	case c == '-' || c == '*' || c == '+':
		i++
	case c >= '0' && c <= '9':
		j := i
		for i < len(line) && line[i] >= '0' && line[i] <= '9' && i-j < 9 {
			i++
		}
		if i >= len(line) || (line[i] != '.' && line[i] != ')') {
			return false, "", false
		}
		i++
	default:
		return false, "", false
	}
	if i >= len(line) || !isBlank(line[i]) {
		return false, "", false
	}
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i+3 > len(line) || line[i] != '[' || line[i+2] != ']' {
		return false, "", false
	}
	if i+3 < len(line) && !isBlank(line[i+3]) && line[i+3] != '\n' && line[i+3] != '\r' {
		return false, "", false
	}
	switch line[i+1] {
	case ' ':
	case 'x', 'X':
		checked = true
	default:
		return false, "", false
	}
	return checked, string(line[i+3:]), true
}
