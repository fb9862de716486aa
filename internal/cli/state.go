package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/statefile"
	"github.com/loopbreaker/loopbreaker/policy"
)

// stateFlags are the flags every state-file command takes.
type stateFlags struct {
	state   string
	policy  string
	profile string
	format  string
	at      timeFlag
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.state, "state", "", "the breaker's JSON state file (required; a missing file is a fresh CLOSED breaker)")
	fs.StringVar(&f.policy, "policy", "", "built-in policy name or TOML file (default: the one the state file was created with, else default)")
	fs.StringVar(&f.profile, "profile", "", "policy profile (default: the state file's, else $LOOPBREAKER_PROFILE)")
	fs.StringVar(&f.format, "format", "text", "output format: text, json or markdown")
	fs.Var(&f.at, "at", "the time of this call, RFC 3339 (default: now)")
}

func (f *stateFlags) check() error {
	if f.state == "" {
		return usagef("--state FILE is required")
	}
	return render.CheckFormat(f.format)
}

// lockedNow is the time of a call read again once the state file is
// locked, so that calls the lock serialises see increasing times (a call
// that read the clock before waiting for the lock would otherwise be
// refused as earlier than the one it waited for). An --at time stays.
func (f *stateFlags) lockedNow(env Env, at time.Time) time.Time {
	if f.at.set {
		return at
	}
	return env.Now().UTC()
}

// session is an open state file with its breaker, under the file lock.
type session struct {
	path   string
	file   *statefile.File
	b      *breaker.Breaker
	unlock func()
	notes  []string
}

// openState locks and loads the state file and restores its breaker.
func openState(f *stateFlags, env Env, at time.Time) (*session, error) {
	unlock, err := statefile.Lock(f.state)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			unlock()
		}
	}()
	sf, err := statefile.Load(f.state)
	if err != nil {
		return nil, err
	}
	s := &session{path: f.state, unlock: unlock}
	if sf == nil {
		sf = &statefile.File{CreatedAt: at}
	}
	polName := f.policy
	if polName == "" {
		polName = sf.Policy
	}
	p, err := policy.Load(orDefault(polName))
	if err != nil {
		return nil, err
	}
	if sf.Policy != "" && f.policy != "" && sf.Policy != f.policy {
		s.notes = append(s.notes, fmt.Sprintf("policy changed from %s to %s for this state file", sf.Policy, f.policy))
	}
	profile := f.profile
	if profile == "" {
		profile = sf.Profile
	}
	profile = profileFrom(profile, env)
	b, err := breaker.Restore(p, breaker.Options{Profile: profile}, sf.Breaker)
	if err != nil {
		return nil, fmt.Errorf("state file %s: %w", f.state, err)
	}
	sf.Policy = orDefault(polName)
	sf.Profile = profile
	s.file, s.b = sf, b
	ok = true
	return s, nil
}

func (s *session) save(at time.Time) error {
	s.file.Breaker = s.b.Snapshot()
	s.file.UpdatedAt = at
	return statefile.Save(s.path, s.file)
}

func (s *session) print(env Env, format string, d *breaker.Decision) error {
	return render.Write(env.Stdout, format, d, render.Options{
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
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if err := sf.check(); err != nil {
		return 0, err
	}
	at := env.Now().UTC()
	if sf.at.set {
		at = sf.at.t
	}
	it, notes, err := m.iteration(at)
	if err != nil {
		return 0, err
	}
	s, err := openState(&sf, env, at)
	if err != nil {
		return 0, err
	}
	defer s.unlock()
	at = sf.lockedNow(env, at)
	it.At = at
	s.notes = append(s.notes, notes...)
	d, err := s.b.Observe(it)
	if err != nil {
		return 0, fmt.Errorf("record in %s: %w", sf.state, err)
	}
	if *recordPath != "" {
		runID, attempt := runIdentity(env)
		if err := appendRecord(*recordPath, ledger.FromIteration(&it, runID, attempt)); err != nil {
			return 0, err
		}
	}
	if err := s.save(at); err != nil {
		return 0, err
	}
	return d.ExitCode(), s.print(env, sf.format, &d)
}

// appendRecord adds a record to a ledger file atomically. A ledger file
// that exists but holds anything other than valid records is an error,
// never overwritten.
func appendRecord(path string, r ledger.Record) error {
	var recs []ledger.Record
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("record file %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		l := ledger.Decode(data, path)
		if len(l.Problems) > 0 {
			return fmt.Errorf("record file %s: %s; not overwritten", path, l.Problems[0].Err)
		}
		recs = l.Records
	}
	var buf bytes.Buffer
	if err := ledger.Encode(&buf, append(recs, r)); err != nil {
		return err
	}
	return statefile.WriteAtomic(path, buf.Bytes(), 0o644)
}

func runStatus(args []string, env Env) (int, error) {
	fs := newFlagSet("status", "--state FILE", env)
	var sf stateFlags
	sf.register(fs)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if err := sf.check(); err != nil {
		return 0, err
	}
	at := env.Now().UTC()
	if sf.at.set {
		at = sf.at.t
	}
	s, err := openState(&sf, env, at)
	if err != nil {
		return 0, err
	}
	defer s.unlock()
	at = sf.lockedNow(env, at)
	before := s.b.Snapshot().State
	d, err := s.b.Status(at)
	if err != nil {
		return 0, fmt.Errorf("status of %s: %w", sf.state, err)
	}
	if d.State != before {
		if err := s.save(at); err != nil {
			return 0, err
		}
	}
	return d.ExitCode(), s.print(env, sf.format, &d)
}

func runReset(args []string, env Env) (int, error) {
	fs := newFlagSet("reset", "--state FILE --reason TEXT", env)
	var sf stateFlags
	sf.register(fs)
	reason := fs.String("reason", "", "why the loop may continue (recorded in the history)")
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if err := sf.check(); err != nil {
		return 0, err
	}
	at := env.Now().UTC()
	if sf.at.set {
		at = sf.at.t
	}
	s, err := openState(&sf, env, at)
	if err != nil {
		return 0, err
	}
	defer s.unlock()
	at = sf.lockedNow(env, at)
	if err := s.b.Reset(at, *reason); err != nil {
		return 0, fmt.Errorf("reset %s: %w", sf.state, err)
	}
	if err := s.save(at); err != nil {
		return 0, err
	}
	d, err := s.b.Status(at)
	if err != nil {
		return 0, err
	}
	return 0, s.print(env, sf.format, &d)
}
