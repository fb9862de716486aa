package gitlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestTruncatedWhileMapped: a pack or an index that another process
// truncates while it is mapped makes the next read fault (SIGBUS); the
// fault is an error naming the pack and the file, not the end of the
// process, and the reader keeps answering with errors after it.
func TestTruncatedWhileMapped(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"pack", "index"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			r, base := packedEdit(t, "two\n")
			p := newPackObjects(filepath.Join(r.dir, ".git", "objects"))
			t.Cleanup(func() { _ = p.Close() })
			if _, ok, err := p.read(base, plumbing.CommitObject, DefaultMaxFileBytes); !ok || err != nil {
				t.Fatalf("read the base before the truncation: ok %v, %v", ok, err)
			}
			if len(p.packs) != 1 {
				t.Fatalf("%d packs mapped, want 1", len(p.packs))
			}
			name := p.packs[0].name
			path := name
			if file == "index" {
				path = strings.TrimSuffix(name, ".pack") + ".idx"
			}
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			for _, h := range []plumbing.Hash{r.head, r.head, r.files["a.txt"].hash} {
				_, ok, err := p.read(h, plumbing.AnyObject, DefaultMaxFileBytes)
				if ok || err == nil || !strings.Contains(err.Error(), filepath.Base(name)) || !strings.Contains(err.Error(), "the "+file+" file could not be read") {
					t.Errorf("read %s after the %s was truncated: ok %v, error %v; want an error naming %s and its %s", h, file, ok, err, filepath.Base(name), file)
				}
				if _, _, err := p.size(h, plumbing.BlobObject); err == nil || !strings.Contains(err.Error(), filepath.Base(name)) {
					t.Errorf("size of %s after the %s was truncated: %v; want an error naming %s", h, file, err, filepath.Base(name))
				}
			}
		})
	}
}

// TestTruncatedPackFailsHistory: History over a repository whose pack was
// truncated after it was mapped returns an error naming the pack.
func TestTruncatedPackFailsHistory(t *testing.T) {
	t.Parallel()
	r, base := packedEdit(t, "two\n")
	repo := r.open()
	if _, err := repo.Resolve(base.String()); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.dir, ".git", "objects", "pack", "pack-*.pack"))
	if len(packs) != 1 {
		t.Fatalf("%d packs, want 1", len(packs))
	}
	if err := os.Truncate(packs[0], 0); err != nil {
		t.Fatal(err)
	}
	_, err := repo.History(defaultOpts(t, base.String()))
	if err == nil || !strings.Contains(err.Error(), filepath.Base(packs[0])) {
		t.Errorf("History after the pack was truncated: got %v, want an error naming %s", err, filepath.Base(packs[0]))
	}
}
