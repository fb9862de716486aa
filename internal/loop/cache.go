package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/statefile"
)

// The local fold cache: when the iterations are commits (no ledger), the
// checkpoints a fold leaves are kept in the repository's git directory,
// where no commit or work tree change touches them, keyed by commit.
const (
	cacheDir     = "loopbreaker"
	cacheName    = "fold-cache.json"
	cacheVersion = 1
	// maxCacheBytes bounds the cache file read; maxCacheEntries its
	// entries.
	maxCacheBytes   = 2 << 20
	maxCacheEntries = 256
)

// cache is the fold cache file: what its states depend on, and the
// checkpoint of each of the newest iterations.
type cache struct {
	Version int          `json:"version"`
	Key     Key          `json:"key"`
	Entries []cacheEntry `json:"entries"`
}

// cacheEntry is the checkpoint of one iteration, a commit: its state's
// digest, and for one of them the state.
type cacheEntry struct {
	Commit    string          `json:"commit"`
	Iteration int             `json:"iteration"`
	Digest    string          `json:"digest"`
	State     json.RawMessage `json:"state,omitempty"`
}

// cachePath is the fold cache's file in a git directory.
func cachePath(gitDir string) string { return filepath.Join(gitDir, cacheDir, cacheName) }

// readCache reads the fold cache of a git directory: nil, nil when there
// is none; an error when it is there and not a cache this program wrote,
// which the caller notes and ignores.
func readCache(gitDir string) (*cache, []byte, error) {
	if gitDir == "" {
		return nil, nil, nil
	}
	path := cachePath(gitDir)
	data, err := statefile.ReadRegular(path, maxCacheBytes, "fold cache")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c cache
	if err := dec.Decode(&c); err != nil {
		return nil, nil, fmt.Errorf("fold cache %s: %v", path, err)
	}
	if err := c.check(); err != nil {
		return nil, nil, fmt.Errorf("fold cache %s: %v", path, err)
	}
	return &c, data, nil
}

// check rejects a cache this program did not write.
func (c *cache) check() error {
	if c.Version != cacheVersion {
		return fmt.Errorf("version %d, not %d", c.Version, cacheVersion)
	}
	if len(c.Entries) > maxCacheEntries {
		return fmt.Errorf("%d entries, more than %d", len(c.Entries), maxCacheEntries)
	}
	for _, e := range c.Entries {
		if !isHexString(e.Commit, 40) || e.Iteration < 1 || !isHexString(e.Digest, 64) || len(e.State) > maxStateBytes {
			return fmt.Errorf("entry for %q is not valid", clip(e.Commit))
		}
	}
	return nil
}

// writeCache replaces the fold cache with entries, atomically; a cache it
// cannot write is left as it is (it only saves time).
func (rn *runner) writeCache(entries []cacheEntry) {
	dir := rn.repo.GitDir()
	if dir == "" || len(entries) == 0 {
		return
	}
	data, err := json.Marshal(cache{Version: cacheVersion, Key: rn.key, Entries: entries})
	if err != nil || bytes.Equal(data, rn.cached) {
		return
	}
	if err := os.MkdirAll(filepath.Join(dir, cacheDir), 0o755); err != nil {
		return
	}
	_ = statefile.WriteAtomic(cachePath(dir), data, 0o644)
}

// isHexString reports whether s is n lowercase hex digits.
func isHexString(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "0123456789abcdef") == ""
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
