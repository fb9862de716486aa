package loop

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/note"
)

// incremental goes on from a verified checkpoint, the ledger's or the
// local cache's, and returns the result; nil means the whole loop is to be
// folded, and when a checkpoint was there a note says why it was not used.
func (rn *runner) incremental() *Result {
	if rn.reach == 0 {
		return nil
	}
	var done *Result
	var why string
	switch {
	case rn.cfg.Ledger != nil:
		done, why = rn.fromRecords()
	case rn.cfg.Cache:
		done, why = rn.fromCache()
	}
	if why != "" {
		rn.res.Notes = append(rn.res.Notes, note.New(note.CheckpointUnused, "%s: the whole loop was folded", why))
	}
	return done
}

// baseNow is the loop's start as a checkpoint's key says it, found without
// walking the history, and the commit a walk back from HEAD must not pass
// (""): the base given, or the merge base a checkpoint recorded for the
// default branch's tip (prefix then ends the key, the merge base not
// known yet).
func (rn *runner) baseNow() (key string, prefix bool, err error) {
	if rn.cfg.Base != "" {
		h, err := rn.repo.Resolve(rn.cfg.Base)
		if err != nil {
			return "", false, err
		}
		return "rev " + h, false, nil
	}
	name, tip, ok, err := rn.repo.DefaultBranch()
	if err != nil || !ok {
		return "root", false, err
	}
	return "default " + name + " " + tip + " ", true, nil
}

// baseKey is the key of the loop's start after a full fold found base
// (its hash, "" for the root).
func baseKey(repo *gitlog.Repo, given, base string) string {
	if given != "" {
		return "rev " + base
	}
	if name, tip, ok, err := repo.DefaultBranch(); err == nil && ok {
		return "default " + name + " " + tip + " " + base
	}
	return "root"
}

// sameBase compares a checkpoint's base with this run's, and returns the
// commit a walk back from HEAD stops at (its base, "" for the root).
func sameBase(now string, prefix bool, written string) (bool, string) {
	switch {
	case prefix && strings.HasPrefix(written, now):
		return true, strings.TrimPrefix(written, now)
	case !prefix && written == now:
		return true, strings.TrimPrefix(now, "rev ")
	}
	return false, ""
}

// staticHistoryNotes are the codes of the git history's notes that depend
// only on the base: a history with others (shallow, cut, unreadable
// objects) leaves no checkpoint.
var staticHistoryNotes = []note.Code{note.NoDefaultBranch, note.UnrelatedHistory, note.BaseOffChain}

// checkpointable reports whether a fold over the history h may leave
// checkpoints.
func checkpointable(h *gitlog.History) bool {
	if h.Shallow || h.Truncated || h.Head == "" {
		return false
	}
	for _, n := range gitNotes(h.Notes) {
		if !slices.Contains(staticHistoryNotes, n.Code) {
			return false
		}
	}
	return true
}

// evidenceNotesOf codes the notes of reading ledger iterations (nil for
// none).
func evidenceNotesOf(ev *evidence.Evidence) *evidenceNotes {
	if ev == nil {
		return nil
	}
	return &evidenceNotes{notes: gitNotes(ev.Notes), after: ev.NotesAfter}
}

// findRestore returns the newest record whose checkpoint the run can go
// on from: one written with this run's key (same says how another
// differs, "" for none), with a state, and with at least reach records
// after it. It returns -1 when there is none, and why when the ledger has
// checkpoints of another key.
func findRestore(recs []ledger.Record, same func(*ledger.Checkpoint) string, reach int) (int, string) {
	why := ""
	for j := len(recs) - 1; j >= 0; j-- {
		cp := recs[j].Checkpoint
		if cp == nil {
			continue
		}
		if d := same(cp); d != "" {
			if why == "" {
				why = "the ledger's checkpoints were written with " + d
			}
			continue
		}
		if cp.State != nil && len(recs)-1-j >= reach {
			return j, ""
		}
	}
	return -1, why
}

// sameKey says how a checkpoint's key differs from this run's ("" when it
// does not), its base compared with baseNow's.
func (rn *runner) sameKey(base string, prefix bool) func(*ledger.Checkpoint) string {
	return func(cp *ledger.Checkpoint) string {
		if d := rn.key.differs(Key{Program: cp.Program, Policy: cp.Policy, Base: rn.key.Base}); d != "" {
			return d
		}
		if ok, _ := sameBase(base, prefix, cp.Base); !ok {
			return "another base"
		}
		return ""
	}
}

// fromRecords goes on from the newest checkpoint of the ledger's records
// that verifies (see verify.go).
func (rn *runner) fromRecords() (*Result, string) {
	cfg := rn.cfg
	base, prefix, err := rn.baseNow()
	if err != nil {
		return nil, ""
	}
	recs := cfg.Ledger.Records
	if n := len(recs); n > 0 && cfg.RunID > 0 && recs[n-1].RunID == cfg.RunID {
		recs = recs[:n-1]
	}
	same := rn.sameKey(base, prefix)
	r, st, w, why := rn.verifiedRecord(recs, same, base, prefix)
	if st == nil {
		return nil, why
	}
	res, files, err := rn.begin(st)
	if err != nil {
		return nil, ""
	}
	earlierRecords(cfg, res)
	ev, err := evidence.ContinueLedger(rn.repo, evidence.LedgerStart{Commit: recs[r].Commit, TasksBefore: st.TasksBefore},
		withRun(cfg, recs[r+1:], w.Head), rn.opts)
	if err != nil {
		return nil, ""
	}
	if carry := carried(ev.StartTasks, recs[r].Tasks); carry != nil && (st.TasksBefore == nil || *st.TasksBefore != *carry) {
		return nil, fmt.Sprintf("the checkpoint of iteration %d does not agree with git: its task count is not the commit's", r+1)
	}
	res.Notes = append(append(res.Notes, st.Evidence...), gitNotes(ev.Notes)...)
	its := ev.Iterations
	cps, err := rn.goOn(res, st, files, its, r+1)
	if err != nil {
		return nil, ""
	}
	cps.evidence, cps.ev = st.Evidence, evidenceNotesOf(ev)
	for j := r + 1; j < len(recs) && !cfg.anyDigest; j++ {
		if why := matches(cps, same, recs[j].Checkpoint, j+1); why != "" {
			return nil, why
		}
	}
	res.Visible, res.Skipped = len(recs)+1, r+1
	res.Records = records(cfg, its, recs)
	key := rn.key
	key.Base = recs[r].Checkpoint.Base
	rn.res, rn.key = res, key
	rn.keep(cps, nil)
	return res, ""
}

// verifiedRecord finds the newest checkpoint of the records written with
// this run's key (same) that agrees with the records up to it and with
// git: its record's index, its state, and the walk from HEAD back to its
// commit. The state is nil, and why says why when a checkpoint was there,
// when none does.
func (rn *runner) verifiedRecord(recs []ledger.Record, same func(*ledger.Checkpoint) string, base string, prefix bool) (int, *State, *gitlog.Walk, string) {
	r, why := findRestore(recs, same, rn.reach)
	if r < 0 {
		return 0, nil, nil, why
	}
	cp := recs[r].Checkpoint
	_, barrier := sameBase(base, prefix, cp.Base)
	st, err := decodeState(cp.State, cp.Digest)
	if err != nil {
		return 0, nil, nil, fmt.Sprintf("the checkpoint of iteration %d was not used: %v", r+1, err)
	}
	k, err := pastOfRecords(recs[:r+1], rn.cfg)
	if err == nil {
		err = verify(st, rn.pols, k)
	}
	if err != nil {
		return 0, nil, nil, fmt.Sprintf("the checkpoint of iteration %d does not agree with the ledger: %v", r+1, err)
	}
	w, why := rn.walkTo(recs[r].Commit, barrier, prefix)
	if w == nil {
		return 0, nil, nil, fmt.Sprintf("the checkpoint of iteration %d was not used: %s", r+1, why)
	}
	_, start, _, _ := k.applied(st.Breaker.LastAt)
	from := barrier
	for j := start - 1; j >= 0; j-- {
		if recs[j].Commit != "" {
			from = recs[j].Commit
			break
		}
	}
	if err := rn.verifyDeletions(st, from, recs[r].Commit); err != nil {
		return 0, nil, nil, fmt.Sprintf("the checkpoint of iteration %d does not agree with git: %v", r+1, err)
	}
	return r, st, w, ""
}

// begin starts the result of a fold that goes on from the verified state
// st: this run's notes so far and the state's history notes, and the
// run's reports and log read.
func (rn *runner) begin(st *State) (*Result, *evidence.Files, error) {
	res := &Result{Policy: rn.eff, Notes: slices.Clone(rn.res.Notes)}
	res.Notes = append(res.Notes, st.History...)
	files, err := readFiles(rn.cfg, res)
	return res, files, err
}

// goOn folds its, the iterations after the first offset, on from st, the
// state after those, into res with the run's files applied to the newest,
// and returns the checkpoints of the iterations it folded.
func (rn *runner) goOn(res *Result, st *State, files *evidence.Files, its []breaker.Iteration, offset int) (*checkpoints, error) {
	cfg := rn.cfg
	newest := applyFiles(its, files, res)
	folded, err := Fold(FoldInput{Policy: cfg.Policy, Profile: cfg.Profile, Phase: cfg.Phase, Iterations: its, Controls: cfg.Controls,
		Now: cfg.Now, DryRun: cfg.DryRun, Progress: cfg.Progress, From: st, Keep: len(its)})
	if err != nil {
		return nil, err
	}
	res.Decisions = folded.Decisions
	res.Notes = append(res.Notes, folded.Notes...)
	return &checkpoints{rn: rn, its: its, offset: offset, prior: st, states: folded.States, newest: newest, history: st.History}, nil
}

// matches compares the digest a checkpoint says for iteration g with the
// state this run's fold reached there ("" when they agree).
func matches(cps *checkpoints, same func(*ledger.Checkpoint) string, cp *ledger.Checkpoint, g int) string {
	if cp == nil || same(cp) != "" {
		return fmt.Sprintf("iteration %d has no checkpoint to check the fold from git against", g)
	}
	st, err := cps.stateAt(g)
	if err != nil {
		return fmt.Sprintf("iteration %d: %v", g, err)
	}
	if _, digest, err := encodeState(st); err != nil || digest != cp.Digest {
		return fmt.Sprintf("iteration %d folds from git and the records to another state than its checkpoint says", g)
	}
	return ""
}

// carried is the checked-task count an iteration at a commit leaves for
// the next: the commit's (git), else its record's; nil when neither says.
func carried(git *gitlog.Tasks, rec *ledger.Tasks) *int {
	switch {
	case git != nil:
		return &git.Done
	case rec != nil:
		return &rec.Done
	}
	return nil
}

// pastOfRecords is what the records up to a checkpoint's say for certain.
func pastOfRecords(recs []ledger.Record, cfg Config) (*past, error) {
	now := cfg.Now.UTC()
	k := &past{iteration: len(recs), commit: recs[len(recs)-1].Commit, now: now, controls: sortedControls(cfg.Controls),
		at: make([]time.Time, len(recs)), records: make([]recordFacts, len(recs))}
	var last time.Time
	for i := range recs {
		r := &recs[i]
		at := r.At.UTC()
		if at.After(now) {
			return nil, fmt.Errorf("record %d is dated after this run", i+1)
		}
		if at.Before(last) {
			at = last
		}
		last, k.at[i] = at, at
		if len(r.Errors) > 0 {
			k.records[i].primary = r.Errors[0].Hash
		}
		k.records[i].percent = r.ProgressPercent
	}
	if k.commit == "" {
		return nil, fmt.Errorf("its record names no commit")
	}
	return k, nil
}

// walkTo walks back from HEAD to commit, not past barrier; nil and why
// when it is not on HEAD's first-parent chain there, or when a merge on
// the way may have moved the merge base with the default branch (prefix).
func (rn *runner) walkTo(commit, barrier string, prefix bool) (*gitlog.Walk, string) {
	if rn.repo.IsShallow() {
		return nil, "the clone is shallow"
	}
	w, err := rn.repo.Since(func(h string, _ int) bool { return h == commit }, barrier, rn.opts.MaxCommits)
	switch {
	case err != nil:
		return nil, err.Error()
	case w.At == "":
		return nil, fmt.Sprintf("its commit %s is not on HEAD's first-parent chain", short(commit))
	case w.Merges && prefix:
		return nil, "a merge since its commit may have moved the merge base with the default branch"
	}
	return w, ""
}

// fromCache goes on from the local fold cache's newest state far enough
// back on HEAD's first-parent chain.
func (rn *runner) fromCache() (*Result, string) {
	c, raw, err := readCache(rn.repo.GitDir())
	if err != nil {
		rn.res.Notes = append(rn.res.Notes, note.New(note.FoldCacheIgnored, "%v; it was ignored", err))
		return nil, ""
	}
	rn.cached = raw
	if c == nil {
		return nil, ""
	}
	s, why := rn.verifiedCache(c)
	if s == nil {
		return nil, why
	}
	h, err := rn.repo.After(s.w, rn.opts)
	if err != nil || len(h.Notes) > 0 {
		return nil, ""
	}
	e, st := s.entry, s.st
	if h.BaseTasks != nil && (st.TasksBefore == nil || *st.TasksBefore != h.BaseTasks.Done) {
		return nil, fmt.Sprintf("the fold cache's checkpoint of commit %s does not agree with git: its task count is not the commit's", short(s.w.At))
	}
	res, files, err := rn.begin(st)
	if err != nil {
		return nil, ""
	}
	its := evidence.ContinueHistory(h, st.TasksBefore, rn.opts.TaskFiles)
	cps, err := rn.goOn(res, st, files, its, e.Iteration)
	if err != nil {
		return nil, ""
	}
	for i := range its[:len(its)-1] {
		g := e.Iteration + i + 1
		if x := s.entries[its[i].Commit]; x != nil {
			if x.Iteration != g {
				return nil, fmt.Sprintf("the fold cache numbers commit %s %d, the walk %d", short(its[i].Commit), x.Iteration, g)
			}
			if why := matches(cps, func(*ledger.Checkpoint) string { return "" }, &ledger.Checkpoint{Digest: x.Digest}, g); why != "" {
				return nil, why
			}
		}
	}
	res.Visible, res.Skipped = e.Iteration+len(its), e.Iteration
	rn.res, rn.key = res, s.key
	rn.keep(cps, func(g int) string {
		if g == e.Iteration {
			return s.w.At
		}
		return its[g-e.Iteration-1].Commit
	})
	return res, ""
}

// cacheStart is the fold cache's entry a run goes on from, verified.
type cacheStart struct {
	entries map[string]*cacheEntry // the cache's entries by commit
	entry   *cacheEntry
	st      *State
	w       *gitlog.Walk // from HEAD back to the entry's commit
	key     Key          // the run's key, with the cache's base when it is the same
}

// verifiedCache finds the cache's newest entry on HEAD's first-parent
// chain with at least the run's reach of commits after it, and checks its
// state against git. It returns nil, and why when there is a reason to
// tell, when there is none to go on from.
func (rn *runner) verifiedCache(c *cache) (*cacheStart, string) {
	base, prefix, err := rn.baseNow()
	if err != nil {
		return nil, ""
	}
	key := rn.key
	ok, barrier := sameBase(base, prefix, c.Key.Base)
	if key.Base = c.Key.Base; !ok {
		key.Base = base
	}
	if d := key.differs(c.Key); d != "" {
		return nil, "the fold cache was written with " + d
	}
	entries := make(map[string]*cacheEntry, len(c.Entries))
	for i := range c.Entries {
		entries[c.Entries[i].Commit] = &c.Entries[i]
	}
	if rn.repo.IsShallow() {
		return nil, ""
	}
	w, err := rn.repo.Since(func(h string, after int) bool {
		e := entries[h]
		return e != nil && e.State != nil && after >= rn.reach+1
	}, barrier, rn.opts.MaxCommits)
	if err != nil || w.At == "" {
		return nil, "" // another branch, or a history the cache does not reach
	}
	if w.Merges && prefix {
		return nil, "a merge since the fold cache's commit may have moved the merge base with the default branch"
	}
	e := entries[w.At]
	st, err := decodeState(e.State, e.Digest)
	if err != nil {
		rn.res.Notes = append(rn.res.Notes, note.New(note.FoldCacheIgnored, "fold cache %s: the state of commit %s: %v; it was ignored", cachePath(rn.repo.GitDir()), short(w.At), err))
		return nil, ""
	}
	at, err := rn.repo.Describe(w.At)
	if err != nil {
		return nil, ""
	}
	k := &past{iteration: e.Iteration, commit: w.At, commitAt: at.At.UTC(), controls: sortedControls(rn.cfg.Controls), now: rn.cfg.Now.UTC()}
	err = verify(st, rn.pols, k)
	if err == nil {
		err = rn.verifyDeletions(st, barrier, w.At)
	}
	if err != nil {
		return nil, fmt.Sprintf("the fold cache's checkpoint of commit %s does not agree: %v", short(w.At), err)
	}
	return &cacheStart{entries: entries, entry: e, st: st, w: w, key: key}, ""
}
