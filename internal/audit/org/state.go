package org

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// StateVersion is the version of the state file this build writes.
const StateVersion = 1

// maxStateBytes bounds the state file read: the answers of a large shard
// are a few megabytes.
const maxStateBytes = 128 << 20

// State is what one audit job keeps for its next run: the GET answers for
// conditional requests, the cursor of a run that stopped early, and what
// each pull request looked like when it was last read.
type State struct {
	Version int `json:"version"`
	// Repository and Shard name the job the state belongs to; a state of
	// another job is not used.
	Repository string `json:"repository"`
	Shard      string `json:"shard"`
	// At is the run's time.
	At time.Time `json:"at"`
	// Pending are the pull requests the run did not reach, in its order:
	// the next run starts with them.
	Pending []int `json:"pending"`
	// Answers are the GET answers by request, for If-None-Match.
	Answers map[string]github.Answer `json:"answers"`
	// Marks are the pull requests' heads and updated_at when last read
	// (after the run's own writes), by number: one listed as it was is
	// read from Answers. Ledgers are the records of the record artifacts
	// read, by artifact id. An entry that is not valid is left out (its
	// pull request is read again).
	Marks   map[int]present.Mark      `json:"marks,omitempty"`
	Ledgers map[int64][]ledger.Record `json:"ledgers,omitempty"`
}

// ReadState reads the state file at path for the job repository/shard. A
// missing file is a first run (no state, no problem); a file that cannot
// be used (corrupt, another version or another job's) is ignored, and
// problem says why, so that the run starts from the top with full-price
// requests rather than not at all.
func ReadState(path, repository, shard string) (st *State, problem string, err error) {
	data, err := regularfile.Read(path, maxStateBytes, "audit state")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, err.Error() + ": ignored", nil
	}
	var s State
	if err := strictJSON(data, &s); err != nil {
		return nil, fmt.Sprintf("audit state %s is not a state file (%v): ignored", path, err), nil
	}
	switch {
	case s.Version != StateVersion:
		return nil, fmt.Sprintf("audit state %s has version %d, not %d: ignored", path, s.Version, StateVersion), nil
	case s.Repository != repository || s.Shard != shard:
		return nil, fmt.Sprintf("audit state %s is for %s shard %q, not %s shard %q: ignored", path, s.Repository, s.Shard, repository, shard), nil
	}
	for _, n := range s.Pending {
		if n <= 0 {
			return nil, fmt.Sprintf("audit state %s: pending pull request %d is not a number: ignored", path, n), nil
		}
	}
	maps.DeleteFunc(s.Marks, func(n int, m present.Mark) bool {
		return n <= 0 || m.Updated.IsZero() || !validHead(m.Head)
	})
	maps.DeleteFunc(s.Ledgers, func(_ int64, recs []ledger.Record) bool {
		return len(recs) == 0 || slices.ContainsFunc(recs, func(r ledger.Record) bool { return r.Validate() != nil })
	})
	return &s, "", nil
}

// validHead reports whether h is a commit's 40-hex name.
func validHead(h string) bool {
	if len(h) != 40 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil
}

// WriteState writes st to path atomically (a file beside it, renamed).
func WriteState(path string, st *State) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("write audit state %s: %w", path, err)
	}
	return writeAtomic(path, data)
}

// writeAtomic writes data to path through a temporary file in the same
// directory (made when missing), so that a reader never sees half a file.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return regularfile.WriteAtomic(path, data, 0o644)
}

// strictJSON decodes one JSON value, refusing unknown fields and trailing
// data.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
