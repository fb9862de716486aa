package loop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/policy"
)

// foldFormat numbers what a checkpoint means: raise it whenever the fold,
// the evidence it reads or the state it keeps changes meaning, so that no
// run goes on from a state an older program wrote.
const foldFormat = 1

// State is a fold between two iterations: the breaker's snapshot, whole,
// and what the fold and the evidence reader carry from one iteration to
// the next. A later run of the same loop can go on from it (an incremental
// fold) instead of folding every iteration again; see verify for what it
// checks first.
type State struct {
	// Breaker is the breaker's complete state.
	Breaker breaker.Snapshot `json:"breaker"`
	// SkipTo is the phase a person's skip-phase moved the loop to.
	SkipTo string `json:"skip_to,omitempty"`
	// Backdated and Future count the iteration times the fold changed;
	// Notes are the notes it made so far (dates_clamped).
	Backdated int         `json:"backdated,omitempty"`
	Future    int         `json:"future,omitempty"`
	Notes     []note.Note `json:"notes,omitempty"`
	// Controls is the digest of the person controls applied so far, in
	// order (controlsDigest).
	Controls string `json:"controls,omitempty"`
	// TasksBefore is the checked-task count the next iteration starts
	// from, when known.
	TasksBefore *int `json:"tasks_before,omitempty"`
	// History are the notes of reading the git history, and Evidence
	// those of reading the iterations so far, in order: a run that goes on
	// from here repeats them.
	History  []note.Note `json:"history,omitempty"`
	Evidence []note.Note `json:"evidence,omitempty"`
}

// maxStateNotes bounds the notes a state carries: a fold that made more
// writes no checkpoint.
const maxStateNotes = 32

// maxStateBytes bounds one state's JSON: a larger one is not written as a
// checkpoint, and not read as one.
const maxStateBytes = 512 << 10

// encodeState returns a state's JSON and its digest (lowercase hex
// SHA-256 of that JSON).
func encodeState(st *State) ([]byte, string, error) {
	data, err := json.Marshal(st)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

// decodeState reads a state's JSON, which must match its digest (as
// compact JSON: a ledger file indents it) and hold nothing this program
// does not know.
func decodeState(raw []byte, digest string) (*State, error) {
	if len(raw) > maxStateBytes {
		return nil, fmt.Errorf("its state is larger than %d bytes", maxStateBytes)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("its state is not JSON: %v", err)
	}
	data := compact.Bytes()
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != digest {
		return nil, errors.New("its state does not match its digest")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("its state does not decode: %v", err)
	}
	return &st, nil
}

// controlsDigest adds one control to the digest of those before it.
func controlsDigest(prev string, c Control) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%q\x00%q\x00%q", prev, c.Kind, c.At.UTC().Format(time.RFC3339Nano), c.Reason, c.By, c.Text)
	return hex.EncodeToString(h.Sum(nil))
}

// Key says what a fold's states depend on besides the iterations: the
// program that folded, the effective policy with the fold's options, and
// the loop's start. A checkpoint is used only by a run with the same key.
type Key struct {
	// Program identifies the build and the fold's format.
	Program string `json:"program"`
	// Policy is a digest of the effective policy, the phase for
	// iterations that name none, the extra protected paths and whether
	// iterations are ledger records or commits.
	Policy string `json:"policy"`
	// Base is how the loop's start was found and where it is: the base
	// revision given and its commit, or the default branch, its tip and
	// the merge base.
	Base string `json:"base"`
}

// differs names the first part of k that is not other's ("" when none).
func (k Key) differs(other Key) string {
	switch {
	case k.Program != other.Program:
		return "another loopbreaker build"
	case k.Policy != other.Policy:
		return "another policy or other options"
	case k.Base != other.Base:
		return "another base"
	}
	return ""
}

// program is this build's identity: the fold's format, the main module's
// version and the version control revision it was built from.
var program = sync.OnceValue(func() string {
	parts := []string{fmt.Sprintf("fold/%d", foldFormat)}
	if bi, ok := debug.ReadBuildInfo(); ok {
		parts = append(parts, bi.GoVersion, bi.Main.Version)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision", "vcs.time", "vcs.modified":
				parts = append(parts, s.Value)
			}
		}
	}
	return strings.Join(parts, " ")
})

// policyDigest digests what the fold's states depend on in its options.
func policyDigest(eff *policy.Policy, phase string, protect []string, ledger bool) (string, error) {
	data, err := json.Marshal(eff)
	if err != nil {
		return "", fmt.Errorf("policy %s: %w", eff.Name, err)
	}
	h := sha256.New()
	h.Write(data)
	fmt.Fprintf(h, "\x00%q\x00%q\x00%t", phase, protect, ledger)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkpoints is what a fold leaves for a later run to go on from: its
// states, completed with what the evidence reader carries.
type checkpoints struct {
	rn *runner
	// its are the iterations folded, the newest with its reports and log;
	// offset the iterations before them, prior the state after those (nil
	// at the loop's start).
	its    []breaker.Iteration
	offset int
	prior  *State
	// states are the fold's states after its[first:].
	states []State
	first  int
	// newest is the newest iteration as a later run reads it: from git and
	// its record, without this run's reports and log.
	newest *breaker.Iteration
	// history are the git history's notes; evidence the notes of reading
	// the iterations before its, ev those of its (nil when they are
	// commits).
	history  []note.Note
	evidence []note.Note
	ev       *evidenceNotes
}

// evidenceNotes are the notes of reading ledger iterations: after[i] of
// them came with the iterations up to i.
type evidenceNotes struct {
	notes []note.Note
	after []int
}

// stateAt returns the state after iteration g (numbered from 1), complete:
// the newest one as a later run folds it.
func (cp *checkpoints) stateAt(g int) (*State, error) {
	i := g - cp.offset - 1
	switch {
	case i == -1 && cp.prior != nil:
		return cp.prior, nil
	case i < cp.first || i >= len(cp.its):
		return nil, fmt.Errorf("no state after iteration %d", g)
	}
	st := cp.states[i-cp.first]
	it := &cp.its[i]
	if i == len(cp.its)-1 && cp.newest != nil {
		var from *State
		if i > cp.first {
			from = &cp.states[i-cp.first-1]
		} else if i == 0 {
			from = cp.prior
		}
		if from == nil {
			return nil, fmt.Errorf("no state before iteration %d", g)
		}
		cfg := cp.rn.cfg
		later := *cp.newest
		f, err := Fold(FoldInput{Policy: cfg.Policy, Profile: cfg.Profile, Phase: cfg.Phase, Iterations: []breaker.Iteration{later},
			Controls: cfg.Controls, Now: cfg.Now, From: from, Keep: 1})
		if err != nil {
			return nil, err
		}
		st, it = f.States[0], &later
	}
	st.TasksBefore = it.TasksBefore
	if it.Tasks != nil {
		v := it.Tasks.Done
		st.TasksBefore = &v
	}
	st.History = cp.history
	st.Evidence = cp.evidence
	if cp.ev != nil {
		st.Evidence = append(slices.Clip(cp.evidence), cp.ev.notes[:cp.ev.after[i]]...)
	}
	return &st, nil
}

// keep leaves checkpoints for a later run: the state after the iteration
// reach+1 before the newest, and the digests of the states after it up to
// the newest's, on the ledger's records or in the local cache. A fold
// whose states depend on this run's time, or carry too many notes,
// leaves none.
func (rn *runner) keep(cp *checkpoints, commits func(g int) string) {
	m := cp.offset + len(cp.its)
	p0 := m - rn.reach - 1
	if rn.reach == 0 || p0 < 1 || (rn.cfg.Ledger == nil && !rn.cfg.Cache) {
		return
	}
	if rn.cfg.Ledger != nil && cp.newest != nil {
		// A later run reads this run's iteration from git and its record.
		later := *cp.newest
		rn.res.Records[len(rn.res.Records)-1].Apply(&later)
		cp.newest = &later
	}
	var list []ledger.Checkpoint
	for g := p0; g <= m; g++ {
		st, err := cp.stateAt(g)
		if err != nil || st.Future > 0 || len(st.Notes)+len(st.History)+len(st.Evidence) > maxStateNotes {
			return
		}
		data, digest, err := encodeState(st)
		if err != nil {
			return
		}
		c := ledger.Checkpoint{Program: rn.key.Program, Policy: rn.key.Policy, Base: rn.key.Base, Digest: digest}
		if g == p0 {
			// A state a later run would refuse for what it is (a cooldown
			// it cannot check) is not written: that run folds the whole
			// loop without a note, as when there is no checkpoint.
			if len(data) > maxStateBytes || verifyMachine(&st.Breaker, rn.pols) != nil {
				return
			}
			c.State = data
		}
		list = append(list, c)
	}
	if rn.cfg.Ledger != nil {
		for k := range list {
			rn.res.Records[p0+k-1].Checkpoint = &list[k]
		}
		return
	}
	entries := make([]cacheEntry, len(list))
	for k := range list {
		entries[k] = cacheEntry{Commit: commits(p0 + k), Iteration: p0 + k, Digest: list[k].Digest, State: list[k].State}
	}
	rn.writeCache(entries)
}
