package regularfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestLockSerialises: read-modify-write cycles under the lock, from many
// goroutines with their own descriptors, lose no update.
func TestLockSerialises(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "count")
	if err := WriteAtomic(path, []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				unlock, err := Lock(path)
				if err != nil {
					t.Error(err)
					return
				}
				data, _ := os.ReadFile(path)
				n, _ := strconv.Atoi(string(data))
				if err := WriteAtomic(path, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
					t.Error(err)
				}
				unlock()
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	if got := string(data); got != strconv.Itoa(workers*each) {
		t.Errorf("got count %s, want %d: updates interleaved", got, workers*each)
	}
}

// TestLockRemovesStaleTemporaryFiles: a writer killed between creating its
// temporary file and renaming it leaves the file behind; the next holder
// of the lock removes it, and only it.
func TestLockRemovesStaleTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s[1].json")
	for _, name := range []string{".s[1].json.tmp-123", ".s[1].json.tmp-9", ".other.json.tmp-1", "s[1].json"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)
	}
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != ".other.json.tmp-1 s[1].json s[1].json.lock" {
		t.Errorf("got files %s, want the stale temporary files of s[1].json gone and nothing else", got)
	}
}

func TestWriteAtomicFailureLeavesOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, []byte("old"), 0o644)
	// A rename over a directory fails after the temporary file was written.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "x"), nil, 0o644)
	if err := WriteAtomic(sub, []byte("new"), 0o644); err == nil {
		t.Fatalf("renaming over a non-empty directory: got no error")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("got %d entries, want the old file and the directory only", len(entries))
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("got %q, want the old content", data)
	}
}
