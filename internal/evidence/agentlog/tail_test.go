package agentlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFileTail: a file larger than the tail is analysed from the first
// line that starts in its tail, and counted whole; binary content before
// the tail is still refused, at its offset in the file.
func TestReadFileTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	head := "Error: early\n" + strings.Repeat("filler line\n", 10)
	tail := "Error: late\n---RALPH_STATUS---\nSTATUS: COMPLETE\n---END_RALPH_STATUS---\n"
	for _, c := range []struct {
		name, content string
		tail          int64
		lines         int
		errors        []string
	}{
		{"whole file within the tail", head + tail, 1 << 20, 15, []string{"Error: early", "Error: late"}},
		{"tail starts on a line", head + tail, int64(len(tail)), 15, []string{"Error: late"}},
		{"tail starts inside a line", head + tail, int64(len(tail)) + 5, 15, []string{"Error: late"}},
		{"no line end in the tail", head + "Error: last line, no end", 10, 12, nil},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		os.WriteFile(path, []byte(c.content), 0o644)
		l, err := readFile(path, c.tail, 1<<30)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if l.Lines != c.lines || l.Bytes != int64(len(c.content)) || strings.Join(l.Errors, "|") != strings.Join(c.errors, "|") {
			t.Errorf("%s: got %d lines, %d bytes, errors %q; want %d, %d, %q", c.name, l.Lines, l.Bytes, l.Errors, c.lines, len(c.content), c.errors)
		}
		if c.tail < int64(len(c.content)) && (len(l.Notes) == 0 || !strings.Contains(l.Notes[0], "were analysed")) {
			t.Errorf("%s: got notes %q, want the tail said", c.name, l.Notes)
		}
		if c.name == "tail starts on a line" && !l.CompletionClaimed {
			t.Errorf("%s: the status block in the tail was not read", c.name)
		}
	}
	for _, c := range []struct{ name, content, want string }{
		{"NUL before the tail", "ok\nab\x00\n" + strings.Repeat("x\n", 20), "NUL byte at offset 5"},
		{"NUL in the tail", strings.Repeat("x\n", 20) + "ab\x00\n", "NUL byte at offset 42"},
		{"UTF-16", "\xff\xfeE\x00r\x00" + strings.Repeat("x\n", 20), "UTF-16"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		os.WriteFile(path, []byte(c.content), 0o644)
		if _, err := readFile(path, 8, 1<<30); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// Bytes further back than the counted span are not read.
	path := filepath.Join(dir, "far")
	os.WriteFile(path, []byte("\x00\n"+strings.Repeat("x\n", 20)), 0o644)
	l, err := readFile(path, 8, 10)
	if err != nil || l.Lines != 9 || !strings.Contains(l.Notes[0], "the first 24 bytes were not read") {
		t.Errorf("beyond the counted span: got %+v %v, want 9 lines and a note", l, err)
	}
}
