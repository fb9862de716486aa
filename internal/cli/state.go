package cli

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/notify"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/statefile"
	"github.com/loopbreaker/loopbreaker/policy"
)

// MaxReason bounds the bytes of a reset reason kept in the state file; a
// longer one is cut and marked, so that what a person typed can never make
// the state file too large to read back.
const MaxReason = 1024

// stateFlags are the flags every state-file command takes.
type stateFlags struct {
	state   string
	policy  string
	profile string
	format  string
	at      timeFlag
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.state, "state", "", "the breaker's JSON state file (a missing file is a fresh CLOSED breaker; status and reset without it use the repository's local loop state)")
	fs.StringVar(&f.policy, "policy", "", "built-in policy name or TOML file (default: the one the state file was created with, else $"+policy.EnvConfig+", else default)")
	fs.StringVar(&f.profile, "profile", "", "policy profile (default: the state file's, else $"+policy.EnvProfile+", else $"+policy.EnvProjectType+")")
	fs.StringVar(&f.format, "format", "text", "output format: text, json, markdown or agent (the block for the agent's next prompt)")
	fs.Var(&f.at, "at", "the time of this call, RFC 3339 (default: now; at most 5 minutes ahead of this machine's clock)")
}

func (f *stateFlags) check(env Env) error {
	if f.state == "" {
		return usagef("--state FILE is required")
	}
	return f.checkLocal(env)
}

// checkLocal checks the flags but the state file, which status and reset
// may find by themselves.
func (f *stateFlags) checkLocal(env Env) error {
	if err := render.CheckFormat(f.format); err != nil {
		return err
	}
	return f.at.notAfter("at", env.Now())
}

// session is an open state file with its breaker, under the file lock.
type session struct {
	path   string // as given
	target string // the file written: path, or the file its links name
	file   *statefile.File
	b      *breaker.Breaker
	unlock func()
	notes  []note.Note
	// readOnly is set for a status of a state file that does not exist:
	// nothing is locked, created or written.
	readOnly bool
}

// openState locks and loads the state file and restores its breaker. A
// state file given through symbolic links is the file they name: it is
// locked and written there, and the links stay. With readOnly, a missing
// state file is a fresh breaker that is neither locked nor created.
func openState(f *stateFlags, env Env, readOnly bool) (*session, error) {
	target, err := statefile.Target(f.state)
	if err != nil {
		return nil, fmt.Errorf("state file %w", err)
	}
	s := &session{path: f.state, target: target, unlock: func() {}}
	if _, err := os.Lstat(target); readOnly && errors.Is(err, fs.ErrNotExist) {
		s.readOnly = true
	} else {
		if s.unlock, err = statefile.Lock(target); err != nil {
			return nil, fmt.Errorf("state file %s: %w", f.state, err)
		}
	}
	ok := false
	defer func() {
		if !ok {
			s.unlock()
		}
	}()
	sf, err := statefile.Load(target)
	if err != nil {
		return nil, err
	}
	if sf == nil {
		sf = &statefile.File{}
	}
	polName := cmp.Or(f.policy, sf.Policy)
	polName = cmp.Or(policyFrom(polName, polName != "", env, ""), "default")
	p, err := loadNamedPolicy(polName)
	if err != nil {
		return nil, err
	}
	if sf.Policy != "" && f.policy != "" && sf.Policy != f.policy {
		s.notes = append(s.notes, note.New(note.PolicyChanged, "policy changed from %s to %s for this state file", sf.Policy, f.policy))
	}
	profile := profileFrom(cmp.Or(f.profile, sf.Profile), env)
	b, err := breaker.Restore(p, breaker.Options{Profile: profile}, sf.Breaker)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", f.state, err)
	}
	sf.Policy = polName
	sf.Profile = profile
	s.file, s.b = sf, b
	ok = true
	return s, nil
}

// lastEvent is the time of the newest thing the state recorded.
func (s *session) lastEvent() time.Time {
	snap := s.b.Snapshot()
	if snap.LastTransitionAt.After(snap.LastAt) {
		return snap.LastTransitionAt
	}
	return snap.LastAt
}

// now is the time of this call, read once the state file is locked, so
// that calls the lock serialises see increasing times (a call that read
// the clock before waiting for the lock would otherwise be refused as
// earlier than the one it waited for). An --at time stays as given. A
// clock that went back behind the newest recorded event (a stepped clock,
// another machine's state file) takes that event's time, with a note,
// rather than refusing every call until it catches up.
func (s *session) now(f *stateFlags, env Env) time.Time {
	if f.at.set {
		return f.at.t
	}
	at := env.Now().UTC()
	if last := s.lastEvent(); at.Before(last) {
		s.notes = append(s.notes, note.New(note.ClockBehind, "this machine's clock (%s) is behind the newest event in the state file (%s): the call was taken at that event's time",
			at.Format(time.RFC3339), last.Format(time.RFC3339)))
		at = last
	}
	if s.file.CreatedAt.IsZero() {
		s.file.CreatedAt = at
	}
	return at
}

func (s *session) save(at time.Time) error {
	s.file.Breaker = s.b.Snapshot()
	s.file.UpdatedAt = at
	return statefile.Save(s.target, s.file)
}

func (s *session) print(env Env, format string, d *breaker.Decision) error {
	return render.Write(env.Stdout, format, d, render.Options{
		Local:     true,
		ResetHint: fmt.Sprintf("loopbreaker reset --state %s --reason \"...\"", s.path),
		Notes:     s.notes,
	})
}

func runRecord(args []string, env Env) (int, error) {
	fs := newFlagSet("record", "--state FILE [measurements]", env)
	var sf stateFlags
	sf.register(fs)
	var m measurementFlags
	m.register(fs)
	recordPath := fs.String("record", "", "also append this iteration's record to FILE (a JSON array of records, the ledger format)")
	repoDir := fs.String("repo", "", "measure the meaningful files changed in this git working tree since the previous record (committed or not), instead of --files-changed")
	stateDir := fs.String("state-dir", "", stateDirUsage+"; with --repo, where the tree's snapshot is kept")
	disabled := registerDisabled(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if err := sf.check(env); err != nil {
		return 0, err
	}
	if off, why, err := disabledFrom(fs, *disabled, env); err != nil || off {
		return writeDisabled(env, sf.format, why, err)
	}
	at := env.Now().UTC()
	if sf.at.set {
		at = sf.at.t
	}
	if *repoDir != "" && m.filesChanged.set {
		return 0, usagef("--repo measures the files changed: give it or --files-changed, not both")
	}
	it, notes, err := m.iteration(at)
	if err != nil {
		return 0, err
	}
	s, err := openState(&sf, env, false)
	if err != nil {
		return 0, err
	}
	defer s.unlock()
	at = s.now(&sf, env)
	it.At = at
	s.notes = append(s.notes, notes...)
	var saveTree func() error
	if *repoDir != "" {
		if saveTree, err = s.measureTree(env, *repoDir, *stateDir, &it); err != nil {
			return 0, err
		}
	}
	d, err := s.b.Observe(it)
	if err != nil {
		return 0, fmt.Errorf("record in %s: %w", sf.state, err)
	}
	if err := loop.Settle(s.b, &d, at); err != nil {
		return 0, fmt.Errorf("record in %s: %w", sf.state, err)
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
	if saveTree != nil {
		if err := saveTree(); err != nil {
			return 0, internal(err)
		}
	}
	err = s.print(env, sf.format, &d)
	postAlert(env, &d, s.b.Policy(), notify.Where{Repository: env.Getenv("GITHUB_REPOSITORY")})
	return exitFor(&d), err
}

// recordFile is a ledger file this program writes (record's and check's
// --record), locked for the read-modify-write of one call, so that calls
// in parallel on one file each add their record.
type recordFile struct {
	path   string // as given
	target string // the file written: path, or the file its links name
	unlock func()
}

// lockRecordFile resolves and locks the ledger file at path, creating its
// directory (0700) when missing.
func lockRecordFile(path string) (*recordFile, error) {
	target, err := statefile.Target(path)
	if err != nil {
		return nil, fmt.Errorf("record file %w", err)
	}
	unlock, err := statefile.Lock(target)
	if err != nil {
		return nil, fmt.Errorf("record file %s: %w", path, err)
	}
	return &recordFile{path: path, target: target, unlock: unlock}, nil
}

// read returns the records the file holds: none (a nil ledger) when it
// is missing or blank. A file that is not a regular file, is larger than
// a ledger file may be, or holds anything but valid records is an error,
// and is never overwritten.
func (rf *recordFile) read() (*ledger.Ledger, error) {
	data, err := statefile.ReadRegular(rf.target, ledger.MaxFileBytes, "record file")
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
	return l, nil
}

// keep keeps the last ledger.MaxRecords of ordered records, as a reader
// of the file would; the note says how many older ones were left out,
// naming the file.
func (rf *recordFile) keep(recs []ledger.Record) ([]ledger.Record, []note.Note) {
	dropped := len(recs) - ledger.MaxRecords
	if dropped <= 0 {
		return recs, nil
	}
	return recs[dropped:], []note.Note{note.New(note.RecordsDropped, "record file %s: more than %d records; the %d oldest were dropped from it", rf.path, ledger.MaxRecords, dropped)}
}

// write replaces the file with the records, atomically (an existing file
// keeps its mode; a new one is 0644, an artifact to upload).
func (rf *recordFile) write(recs []ledger.Record) error {
	var buf bytes.Buffer
	if err := ledger.Encode(&buf, recs); err != nil {
		return err
	}
	return statefile.WriteAtomic(rf.target, buf.Bytes(), 0o644)
}

// appendRecord adds a record to a ledger file under its lock, atomically.
// It returns notes on what it dropped to stay within ledger.MaxRecords.
func appendRecord(path string, r ledger.Record) ([]note.Note, error) {
	rf, err := lockRecordFile(path)
	if err != nil {
		return nil, err
	}
	defer rf.unlock()
	l, err := rf.read()
	if err != nil {
		return nil, err
	}
	var recs []ledger.Record
	if l != nil {
		recs = l.Records
	}
	r.Iteration = ledger.NextIteration(recs, r.RunID, r.RunAttempt)
	recs, notes := rf.keep(append(recs, r))
	return notes, rf.write(recs)
}

func runStatus(args []string, env Env) (int, error) {
	fs := newFlagSet("status", "[--state FILE | --repo DIR]", env)
	var sf stateFlags
	sf.register(fs)
	var lf localFlags
	lf.register(fs, false)
	disabled := registerDisabled(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if sf.state == "" {
		if err := sf.checkLocal(env); err != nil {
			return 0, err
		}
		code, hookState, err := autoStatus(env, &sf, &lf)
		if err != nil || hookState == "" {
			return code, err
		}
		sf.state = hookState
	}
	if err := sf.check(env); err != nil {
		return 0, err
	}
	if off, why, err := disabledFrom(fs, *disabled, env); err != nil || off {
		return writeDisabled(env, sf.format, why, err)
	}
	s, err := openState(&sf, env, true)
	if err != nil {
		return 0, err
	}
	defer s.unlock()
	at := s.now(&sf, env)
	before := s.b.Snapshot().State
	d, err := s.b.Status(at)
	if err != nil {
		return 0, fmt.Errorf("status of %s: %w", sf.state, err)
	}
	if err := loop.Settle(s.b, &d, at); err != nil {
		return 0, fmt.Errorf("status of %s: %w", sf.state, err)
	}
	// A due cooldown, or an escalation of an opening a policy changed to
	// escalate since, changed the state: keep it.
	if s.b.Snapshot().State != before && !s.readOnly {
		if err := s.save(at); err != nil {
			return 0, err
		}
	}
	return exitFor(&d), s.print(env, sf.format, &d)
}

func runReset(args []string, env Env) (int, error) {
	fs := newFlagSet("reset", "[--state FILE | --ledger DIR | --repo DIR] --reason TEXT", env)
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
		code, hookState, err := autoReset(env, &sf, &lf, *reason)
		if err != nil || hookState == "" {
			return code, err
		}
		sf.state = hookState
	}
	if err := sf.check(env); err != nil {
		return 0, err
	}
	s, err := openState(&sf, env, false)
	if err != nil {
		return 0, err
	}
	defer s.unlock()
	at := s.now(&sf, env)
	// A person can always reset: a time before the newest recorded event
	// is taken as that event's time.
	if last := s.lastEvent(); at.Before(last) {
		s.notes = append(s.notes, note.New(note.ResetTimeAdjusted, "reset at %s, the newest event in the state file, not at --at %s, which is before it",
			last.Format(time.RFC3339), at.Format(time.RFC3339)))
		at = last
	}
	if err := s.b.Reset(at, boundText(*reason, MaxReason)); err != nil {
		return 0, fmt.Errorf("reset %s: %w", sf.state, err)
	}
	if err := s.save(at); err != nil {
		return 0, err
	}
	d, err := s.b.Status(at)
	if err != nil {
		return 0, err
	}
	if err := loop.Settle(s.b, &d, at); err != nil {
		return 0, err
	}
	return 0, s.print(env, sf.format, &d)
}

// boundText makes text a person or an agent gave fit to keep: valid
// UTF-8, control characters as spaces, and at most max bytes, cut on a
// character boundary with a marker that says how long it was.
func boundText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= max {
		return s
	}
	marker := fmt.Sprintf(" … [cut: %d bytes in all]", len(s))
	n := max - len(marker)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + marker
}

// loadNamedPolicy loads a built-in policy or a policy file; a file's
// policy is named after the file in decisions, unless the file gives it a
// name of its own that is not a built-in's (a file that extends default is
// not the default policy).
func loadNamedPolicy(name string) (*policy.Policy, error) {
	p, err := policy.Load(name)
	if err != nil {
		return nil, err
	}
	nameFromFile(p, name)
	return p, nil
}

// nameFromFile names a policy read from the file at path after the file,
// unless the file named it itself with a name no built-in policy has.
func nameFromFile(p *policy.Policy, path string) {
	if isBuiltinName(path) {
		return
	}
	if p.Name == "" || isBuiltinName(p.Name) {
		p.Name = path
	}
}
