//go:build unix

package cli_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHookRefusesATranscriptThatIsNotAFile: a transcript_path that is a
// named pipe (no writer will ever come) is refused at once: the stop is
// answered, naming it, and the session's store is not left locked.
func TestHookRefusesATranscriptThatIsNotAFile(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.runHook("s", "SessionStart", s.dir)
	s.transcript = filepath.Join(t.TempDir(), "pipe.jsonl")
	if err := syscall.Mkfifo(s.transcript, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan hookAnswer, 1)
	go func() { done <- s.runHook("s", "Stop", s.dir) }()
	select {
	case a := <-done:
		if !a.stops() || !strings.Contains(a.StopReason, "not a regular file (a named pipe)") || !strings.Contains(a.StopReason, s.transcript) {
			t.Fatalf("a named pipe for a transcript: got %s, want the stop answered naming it", a.raw)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the hook is still waiting on the named pipe after 30 s")
	}
	if a := s.runHook("s", "UserPromptSubmit", s.dir); a.raw != "" {
		t.Fatalf("after the refusal: got %s", a.raw)
	}
	s.transcript = filepath.Join(t.TempDir(), "t.jsonl")
	if a := s.runHook("s", "Stop", s.dir); a.stops() {
		t.Fatalf("the next stop with a transcript that is a file: got %s, want the session's store usable", a.raw)
	}
}
