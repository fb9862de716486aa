package audit

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/evidence"
	"github.com/loopbreaker/loopbreaker/internal/evidence/gitlog"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

const (
	owner = "octo"
	repo  = "loop"
	bot   = fakegithub.DefaultLogin
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// sha is a deterministic commit hash for pull request n, commit i.
func sha(n, i int) string { return fmt.Sprintf("%040x", n*10000+i) }

// env is the HTTP fake holding octo/loop, read through the REST client,
// and the options of an audit.
type env struct {
	t    testing.TB
	fake *fakegithub.Server
	opts Options
}

// newEnv is newHTTPEnv: one GitHub for every test.
func newEnv(t testing.TB) *env {
	t.Helper()
	return newHTTPEnv(t)
}

func newHTTPEnv(t testing.TB) *env {
	t.Helper()
	fake := fakegithub.New()
	t.Cleanup(fake.Close)
	fake.SetClock(func() time.Time { return t0.Add(72 * time.Hour) })
	fake.AddRepo(owner, repo)
	return &env{t: t, fake: fake, opts: defaultOptions(t)}
}

func defaultOptions(t testing.TB) Options {
	t.Helper()
	pol, err := policy.Builtin("default")
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Owner: owner, Repo: repo, Policy: pol, Budget: 10000, Reserve: Reserve{}, Now: t0.Add(72 * time.Hour),
		ManageLabels: true, OnOpen: []string{"label"}, OnHalfOpen: []string{"label"},
		Artifact: "loopbreaker-record", Filters: Filters{Authors: []string{"*"}},
	}
}

// client is a REST client on the fake that never sleeps.
func (e *env) client(dryRun bool) *github.Client {
	e.t.Helper()
	c, err := github.New(github.Options{Token: fakegithub.DefaultToken, BaseURL: e.fake.URL, Owner: owner, Repo: repo, DryRun: dryRun,
		Now: func() time.Time { return e.opts.Now }, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *env) run() *present.AuditResult {
	e.t.Helper()
	res, err := Run(context.Background(), e.client(e.opts.DryRun), e.opts)
	if err != nil {
		e.t.Fatalf("Run: %v", err)
	}
	return res
}

// pull adds pull request n with commits commits, updated at t0 plus n
// minutes (so the listing order is by number).
func (e *env) pull(n, commits int, edit ...func(*fakegithub.Pull)) fakegithub.Pull {
	var shas []string
	for i := 0; i < commits; i++ {
		shas = append(shas, sha(n, i))
	}
	p := fakegithub.Pull{Number: n, Title: fmt.Sprintf("agent task %d", n), User: "Copilot", UserType: "Bot",
		HeadRef: fmt.Sprintf("copilot/task-%d", n), BaseRef: "main", BaseSHA: sha(0, 0),
		CreatedAt: t0, UpdatedAt: t0.Add(time.Duration(n) * time.Minute), Commits: shas, Files: []string{"main.go"}}
	if commits > 0 {
		p.HeadSHA = shas[commits-1]
	}
	for _, f := range edit {
		f(&p)
	}
	e.fake.AddPull(owner, repo, p)
	return p
}

// artifact adds a record artifact of a run on branch at head.
func (e *env) artifact(runID int64, branch, head string, at time.Time, zip []byte, expired bool) {
	e.fake.AddRun(owner, repo, fakegithub.Run{ID: runID, HeadBranch: branch, HeadSHA: head, CreatedAt: at})
	e.fake.AddArtifact(owner, repo, runID, "loopbreaker-record", zip, expired)
}

// stuckRecords are the records of runs after the first that made no
// commit: the loop ran four times on the same head.
func stuckRecords(head string, runs int) []ledger.Record {
	var out []ledger.Record
	for i := 0; i < runs; i++ {
		out = append(out, ledger.Record{Version: 1, RunID: int64(1000 + i), RunAttempt: 1, Commit: head, At: t0.Add(time.Duration(i+1) * time.Hour), Errors: []ledger.Error{}})
	}
	return out
}

// stickyComment posts loopbreaker's sticky comment with a digest of recs.
func (e *env) stickyComment(n int, recs []ledger.Record, at time.Time) int64 {
	return e.fake.AddComment(owner, repo, n, bot, "Bot", stickyBody(recs), at)
}

// stickyBody is a sticky comment's body with a digest of recs.
func stickyBody(recs []ledger.Record) string {
	digest, _ := present.EncodeDigest(recs)
	return present.Marker + "\nreport\n" + digest
}

func (e *env) labels(n int) []string {
	return e.fake.IssueLabels(owner, repo, n)
}

// comment adds a comment by login on pull request n.
func (e *env) comment(n int, login, userType, body string, at time.Time) int64 {
	return e.fake.AddComment(owner, repo, n, login, userType, body, at)
}

// labelEvent records a past labeled or unlabeled event on pull request n.
func (e *env) labelEvent(n int, event, label, login, userType string, at time.Time) {
	e.fake.AddLabelEvent(owner, repo, n, event, label, login, userType, at)
}

// permission sets login's permission on the repository.
func (e *env) permission(login, perm string) { e.fake.SetPermission(owner, repo, login, perm) }

// calls counts the calls made to the repository whose method is method
// and whose path below /repos/octo/loop matches the regular expression
// path whole.
func (e *env) calls(method, path string) int {
	return e.fake.CallsMatching(method, regexp.MustCompile("^/repos/"+owner+"/"+repo+path+"$"))
}

func numbersOf(ps []present.PullResult) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.Number)
	}
	return out
}

func find(r *present.AuditResult, n int) *present.PullResult {
	for i := range r.Pulls {
		if r.Pulls[i].Number == n {
			return &r.Pulls[i]
		}
	}
	return nil
}

func stateOf(r *present.AuditResult, n int) string {
	if p := find(r, n); p != nil {
		return p.State.String()
	}
	return "not evaluated"
}

// recordsJSON is records as a record artifact's JSON array.
func recordsJSON(recs []ledger.Record) string {
	data, err := json.Marshal(recs)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// buildZip makes an artifact archive of name -> content.
func buildZip(files map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(content)); err != nil {
			return nil, err
		}
	}
	err := zw.Close()
	return buf.Bytes(), err
}

// time1 is an hour.
const time1 = time.Hour

// pathsFor compiles the default policy's path rules.
func (e *env) pathsFor(t *testing.T) gitlog.Options {
	t.Helper()
	o, err := evidence.GitOptions(e.opts.Policy, "")
	if err != nil {
		t.Fatal(err)
	}
	return o
}
