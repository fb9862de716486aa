package agentlog

import (
	"io"
	"strings"
	"testing"
)

// zeros is an endless reader of NUL bytes that counts what it gave.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

func TestBinaryLogStopsAtTheFirstNUL(t *testing.T) {
	t.Parallel()
	z := &zeros{}
	_, err := Read(io.MultiReader(strings.NewReader("Error: boom\n"), z), "sparse.log")
	if err == nil || !strings.Contains(err.Error(), "sparse.log") || !strings.Contains(err.Error(), "NUL byte") {
		t.Fatalf("got %v, want a binary-file error naming the log", err)
	}
	if z.n > 1<<20 {
		t.Errorf("read %d bytes of NULs before refusing, want at most one buffer", z.n)
	}
}
