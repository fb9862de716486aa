package cli

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strings"
	"time"
	"unicode"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/localstate"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/notify"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// MaxReason bounds the bytes of a reset reason kept in the state file; a
// longer one is cut and marked.
const MaxReason = 1024

// stateFlags are the flags every state-file command takes.
type stateFlags struct {
	state, policy, profile, format string
	at                             timeFlag
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.state, "state", "", "the loop's JSON state file (a missing file is a fresh CLOSED breaker; status and reset without it use the repository's local loops)")
	fs.StringVar(&f.policy, "policy", "", "built-in policy name or TOML file (default: the one the state file was created with, else $"+policy.EnvConfig+", else default)")
	fs.StringVar(&f.profile, "profile", "", "policy profile (default: the state file's, else $"+policy.EnvProfile+", else $"+policy.EnvProjectType+")")
	fs.StringVar(&f.format, "format", "text", "output format: text, json, markdown or agent (the block for the agent's next prompt)")
	fs.Var(&f.at, "at", "the time of this call, RFC 3339 (default: now; at most 5 minutes ahead of this machine's clock)")
}

// checkLocal checks the flags but --state.
func (f *stateFlags) checkLocal(env Env) error {
	if err := render.CheckFormat(f.format); err != nil {
		return err
	}
	return f.at.notAfter("at", env.Now())
}

// session is an open store, under its lock, with the policy it is folded
// under.
type session struct {
	store   *localstate.Store
	file    *localstate.File // never nil
	policy  *policy.Policy
	profile string
	hint    string // how a person resets it
	notes   []note.Note
}

// openSession reads the policy and profile of an open store: the flags',
// else those it was created with, else the environment's.
func openSession(st *localstate.Store, f *stateFlags, env Env, s start, hint string) (*session, error) {
	file := st.File
	if file == nil {
		file = &localstate.File{}
	}
	polName := cmp.Or(f.policy, file.Policy)
	polName = cmp.Or(policyFrom(polName, polName != "", env, ""), "default")
	p, err := loadNamedPolicy(polName)
	if err != nil {
		return nil, err
	}
	out := &session{store: st, file: file, hint: hint}
	if c := file.Carried; c != nil && c.Iterations > 0 {
		out.notes = append(out.notes, note.New(note.LoopStarted, "this state file was written by an earlier version, which kept no records: its %d iterations are not folded again (it was %s)", c.Iterations, c.State))
	}
	if file.Policy != "" && f.policy != "" && file.Policy != f.policy {
		out.notes = append(out.notes, note.New(note.PolicyChanged, "policy changed from %s to %s for this state file", file.Policy, f.policy))
	}
	out.profile = profileFrom(cmp.Or(f.profile, file.Profile), env)
	if _, err := p.WithProfile(out.profile); err != nil {
		return nil, err
	}
	file.Policy, file.Profile = polName, out.profile
	out.policy = forStart(p, s)
	return out, nil
}

// now is the time of this call, read under the store's lock so that
// serialised calls see increasing times; a clock behind the newest event
// takes that event's time, with a note.
func (s *session) now(f *stateFlags, env Env) time.Time {
	if f.at.set {
		return f.at.t
	}
	at := env.Now().UTC()
	if last := s.file.Last(); at.Before(last) {
		s.notes = append(s.notes, note.New(note.ClockBehind, "this machine's clock (%s) is behind the newest event in the state file (%s): the call was taken at that event's time",
			at.Format(time.RFC3339), last.Format(time.RFC3339)))
		at = last
	}
	return at
}

// fold folds the records, one decision each, and decides at time at (with
// status, the status then); prev is the decision before (nil: none).
func (s *session) fold(at time.Time, status bool) (d breaker.Decision, prev *breaker.Decision, err error) {
	its := make([]breaker.Iteration, len(s.file.Records))
	for i := range s.file.Records {
		s.file.Records[i].Apply(&its[i])
		s.file.Records[i].ApplyLocal(&its[i])
	}
	out, err := loop.Fold(loop.FoldInput{Policy: s.policy, Profile: s.profile, Iterations: its, Controls: controlsOf(s.file), Now: at, Status: status})
	if err != nil {
		return d, nil, fmt.Errorf("state file %s: %w", s.store.Name, err)
	}
	ds := out.Decisions
	if n := len(ds); n > 1 {
		prev = &ds[n-2]
	}
	return ds[len(ds)-1], prev, nil
}

// add appends an iteration's record, refusing one older than the newest
// event, and folds at at.
func (s *session) add(r ledger.Record, at time.Time) (breaker.Decision, *breaker.Decision, error) {
	if last := s.file.Last(); r.At.Before(last) {
		return breaker.Decision{}, nil, usagef("state file %s: --at %s is earlier than the last recorded event (%s)", s.store.Name, r.At.Format(time.RFC3339), last.Format(time.RFC3339))
	}
	if err := r.Validate(); err != nil {
		return breaker.Decision{}, nil, fmt.Errorf("state file %s: the iteration's record: %w", s.store.Name, err)
	}
	s.file.Records = append(s.file.Records, r)
	return s.fold(at, false)
}

func (s *session) save(at time.Time) error {
	if s.file.CreatedAt.IsZero() {
		s.file.CreatedAt = at
	}
	s.file.UpdatedAt = at
	return s.store.Save(s.file)
}

func (s *session) print(env Env, format string, d *breaker.Decision) error {
	return render.Write(env.Stdout, format, d, render.Options{Local: true, ResetHint: s.hint, Notes: s.notes})
}

// stateHint is how a person resets a state file.
func stateHint(path string) string {
	return fmt.Sprintf("loopbreaker reset --state %s --reason \"...\"", path)
}

func runRecord(args []string, env Env) (int, error) {
	fs := newFlagSet("record", "--state FILE | --repo DIR [measurements]", env)
	var sf stateFlags
	sf.register(fs)
	var m measurementFlags
	m.register(fs)
	recordPath := fs.String("record", "", "also append this iteration's record to FILE (a JSON array of records, the ledger format)")
	repoDir := fs.String("repo", "", "measure the meaningful files changed in this git working tree since the previous record (committed or not), instead of --files-changed; without --state, the repository's own loop is the state")
	loopName := fs.String("loop", localstate.LoopRecord, "with --repo and without --state: the name of the repository's loop (the ralph drop-in's is ralph)")
	stateDir := fs.String("state-dir", "", stateDirUsage)
	disabled := registerDisabled(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if sf.state == "" && *repoDir == "" {
		return 0, usagef("--state FILE is required, or --repo DIR to keep the repository's own loop in the state directory")
	}
	if err := sf.checkLocal(env); err != nil {
		return 0, err
	}
	if off, why, err := disabledFrom(fs, *disabled, env); err != nil || off {
		return writeDisabled(env, sf.format, why, err)
	}
	if *repoDir != "" && m.filesChanged.set {
		return 0, usagef("--repo measures the files changed: give it or --files-changed, not both")
	}
	it, notes, err := m.iteration()
	if err != nil {
		return 0, err
	}
	st, begin, hint, err := openRecordStore(where(env, *stateDir), sf.state, *repoDir, *loopName)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	s, err := openSession(st, &sf, env, begin, hint)
	if err != nil {
		return 0, err
	}
	at := s.now(&sf, env)
	it.At = at
	s.notes = append(s.notes, notes...)
	rec := ledger.FromIteration(&it, 0, 0)
	rec.FilesModified = it.ClaimedFiles
	if m.filesChanged.set {
		rec.Work = &ledger.Work{Files: m.filesChanged.v}
	}
	if *repoDir != "" {
		if rec.Work, err = s.measureTree(*repoDir); err != nil {
			return 0, err
		}
	}
	d, _, err := s.add(rec, at)
	if err != nil {
		return 0, err
	}
	if *recordPath != "" {
		runID, attempt := runIdentity(env)
		more, err := appendRecord(*recordPath, ledger.FromIteration(&it, runID, attempt))
		if err != nil {
			return 0, err
		}
		s.notes = append(s.notes, more...)
	}
	if err := s.save(at); err != nil {
		return 0, err
	}
	err = s.print(env, sf.format, &d)
	postAlert(env, &d, s.policy, notify.Where{Repository: env.Getenv("GITHUB_REPOSITORY")})
	return exitFor(&d), err
}

// openRecordStore opens the state file named, else the repository's loop.
func openRecordStore(w localstate.Where, state, repoDir, name string) (*localstate.Store, start, string, error) {
	if state != "" {
		st, err := localstate.Open(state, false)
		return st, startRun, stateHint(state), err
	}
	if err := localstate.CheckLoopName(name); err != nil {
		return nil, 0, "", usagef("--loop: %v", err)
	}
	repo, err := w.ForRepo(repoDir)
	if err != nil {
		return nil, 0, "", usagef("--repo %s: %v", repoDir, err)
	}
	st, err := repo.Open(name, false)
	return st, startLoop, repoHint(repoDir, name), err
}

// repoHint is how a person resets a loop of a repository.
func repoHint(dir, name string) string {
	return fmt.Sprintf("loopbreaker reset --repo %s --loop %s --reason \"...\"", dir, name)
}

// recordFile is a ledger file --record writes, locked for the
// read-modify-write of one call.
type recordFile struct {
	path   string // as given
	target string // the file written: path, or the file its links name
	unlock func()
}

// lockRecordFile resolves and locks the ledger file at path.
func lockRecordFile(path string) (*recordFile, error) {
	target, err := regularfile.Target(path)
	if err != nil {
		return nil, fmt.Errorf("record file %w", err)
	}
	unlock, err := regularfile.Lock(target)
	if err != nil {
		return nil, fmt.Errorf("record file %s: %w", path, err)
	}
	return &recordFile{path: path, target: target, unlock: unlock}, nil
}

// read returns the records the file holds (nil: missing or blank); a
// file that holds anything else is an error, never overwritten.
func (rf *recordFile) read() ([]ledger.Record, error) {
	data, err := regularfile.Read(rf.target, ledger.MaxFileBytes, "record file")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case len(bytes.TrimSpace(data)) == 0:
		return nil, nil
	}
	l := ledger.Decode(data, rf.path)
	for _, p := range l.Problems {
		if !errors.Is(p.Err, ledger.ErrOverMaxRecords) {
			return nil, fmt.Errorf("record file %s: %s; not overwritten", rf.path, p.Err)
		}
	}
	return l.Records, nil
}

// keep keeps the newest ledger.MaxRecords records, as a reader would.
func (rf *recordFile) keep(recs []ledger.Record) ([]ledger.Record, []note.Note) {
	dropped := len(recs) - ledger.MaxRecords
	if dropped <= 0 {
		return recs, nil
	}
	return recs[dropped:], []note.Note{note.New(note.RecordsDropped, "record file %s: more than %d records; the %d oldest were dropped from it", rf.path, ledger.MaxRecords, dropped)}
}

// write replaces the file atomically (a new one is 0644, an artifact).
func (rf *recordFile) write(recs []ledger.Record) error {
	var buf bytes.Buffer
	if err := ledger.Encode(&buf, recs); err != nil {
		return err
	}
	return regularfile.WriteAtomic(rf.target, buf.Bytes(), 0o644)
}

// appendRecord adds a record to a ledger file under its lock.
func appendRecord(path string, r ledger.Record) ([]note.Note, error) {
	rf, err := lockRecordFile(path)
	if err != nil {
		return nil, err
	}
	defer rf.unlock()
	recs, err := rf.read()
	if err != nil {
		return nil, err
	}
	r.Iteration = ledger.NextIteration(recs, r.RunID, r.RunAttempt)
	recs, notes := rf.keep(append(recs, r))
	return notes, rf.write(recs)
}

func runStatus(args []string, env Env) (int, error) {
	fs := newFlagSet("status", "[--state FILE | --repo DIR [--loop NAME]]", env)
	var sf stateFlags
	sf.register(fs)
	var lf localFlags
	lf.register(fs, false)
	disabled := registerDisabled(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if err := sf.checkLocal(env); err != nil {
		return 0, err
	}
	if off, why, err := disabledFrom(fs, *disabled, env); err != nil || off {
		return writeDisabled(env, sf.format, why, err)
	}
	if sf.state == "" {
		return autoStatus(env, &sf, &lf)
	}
	st, err := localstate.Open(sf.state, true)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	r, err := storeStatus(env, &sf, st, startRun, stateHint(sf.state))
	if err != nil {
		return 0, err
	}
	return r.code, r.write()
}

// storeStatus folds a store as it stands, without an iteration.
func storeStatus(env Env, sf *stateFlags, st *localstate.Store, begin start, hint string) (loopResult, error) {
	s, err := openSession(st, sf, env, begin, hint)
	if err != nil {
		return loopResult{}, err
	}
	d, _, err := s.fold(s.now(sf, env), true)
	if err != nil {
		return loopResult{}, err
	}
	return loopResult{name: st.Name, code: exitFor(&d), write: func() error { return s.print(env, sf.format, &d) }}, nil
}

func runReset(args []string, env Env) (int, error) {
	fs := newFlagSet("reset", "[--state FILE | --ledger DIR | --repo DIR [--loop NAME]] --reason TEXT", env)
	var sf stateFlags
	sf.register(fs)
	var lf localFlags
	lf.register(fs, true)
	reason := fs.String("reason", "", fmt.Sprintf("why the loop may continue (required; recorded in the history; at most %d bytes are kept)", MaxReason))
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if err := sf.checkLocal(env); err != nil {
		return 0, err
	}
	if strings.TrimSpace(*reason) == "" {
		return 0, usagef("--reason TEXT is required: say why the loop may continue (it is kept in the state's history)")
	}
	if sf.state == "" {
		return autoReset(env, &sf, &lf, *reason)
	}
	st, err := localstate.Open(sf.state, false)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	r, err := resetStore(env, &sf, st, startRun, stateHint(sf.state), *reason, true)
	if err != nil {
		return 0, err
	}
	return r.code, r.write()
}

// resetStore adds a person's reset to a store and, with fold, folds it.
func resetStore(env Env, sf *stateFlags, st *localstate.Store, begin start, hint, reason string, fold bool) (loopResult, error) {
	s, err := openSession(st, sf, env, begin, hint)
	if err != nil {
		return loopResult{}, err
	}
	at := s.now(sf, env)
	// A person can always reset: just after the newest event (the fold
	// applies a reset before an iteration of the same time).
	if last := s.file.Last(); !last.IsZero() && !at.After(last) {
		if at.Before(last) {
			s.notes = append(s.notes, note.New(note.ResetTimeAdjusted, "reset at %s, the newest event in the state file, not at --at %s, which is before it",
				last.Format(time.RFC3339), at.Format(time.RFC3339)))
		}
		at = last.Add(time.Nanosecond)
	}
	s.file.AddReset(localstate.Reset{At: at, Reason: boundText(reason, MaxReason)})
	if err := s.save(at); err != nil || !fold {
		return loopResult{}, err
	}
	d, _, err := s.fold(at, true)
	if err != nil {
		return loopResult{}, err
	}
	return loopResult{name: st.Name, code: ExitContinue, write: func() error { return s.print(env, sf.format, &d) }}, nil
}

// boundText is text a person gave as valid UTF-8, control characters as
// spaces, at most max bytes.
func boundText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	return textcut.Bytes(s, max, fmt.Sprintf(" … [cut: %d bytes in all]", len(s)))
}

// loadNamedPolicy loads a built-in policy or a policy file (see
// nameFromFile).
func loadNamedPolicy(name string) (*policy.Policy, error) {
	p, err := policy.Load(name)
	if err != nil {
		return nil, err
	}
	nameFromFile(p, name)
	return p, nil
}

// nameFromFile names a policy read from the file at path after the file,
// unless the file names it with a name no built-in policy has (a file that
// extends default is not the default policy).
func nameFromFile(p *policy.Policy, path string) {
	if policy.IsBuiltin(path) {
		return
	}
	if p.Name == "" || policy.IsBuiltin(p.Name) {
		p.Name = path
	}
}
