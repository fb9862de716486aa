package githubtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/github"
)

// Login is the user behind the repository's token: a bot, like the
// workflow token.
const Login = "github-actions[bot]"

// RepoOwner owns the repository in memory: a pull request whose HeadRepo
// is empty has its head there.
const RepoOwner = "octo"

const perPage = 100

// Pull is a pull request with the commits and files its lists return.
type Pull struct {
	github.AuditPull
	Commits []github.PullCommit
	Files   []github.PullFile
}

// Status is a commit status that was set.
type Status struct {
	SHA, State, Description, TargetURL string
}

// Label is a repository label.
type Label struct {
	Name, Color, Description string
}

// CheckRun is a check run that was created.
type CheckRun struct {
	SHA, Conclusion, Title, Summary string
}

type artifact struct {
	github.Artifact
	zip []byte
}

type fault struct {
	call string
	left int // hits left; negative: every call
	err  error
}

// Memory is one repository in memory. Its zero value is not usable: make
// one with New. It is safe for concurrent use.
type Memory struct {
	dryRun bool

	mu         sync.Mutex
	now        func() time.Time
	pulls      map[int]*Pull
	labels     map[int][]string // on issues and pull requests
	repoLabels map[string]Label // by lower-case name
	comments   map[int][]github.Comment
	events     []github.LabelEvent // oldest first
	perms      map[string]string   // lower-case login
	artifacts  []artifact
	files      map[string][]byte // "ref:path"
	statuses   []Status
	checkRuns  []CheckRun
	nextID     int64
	readOnly   bool
	rate       [2]int
	rateKnown  bool
	faults     []*fault
	log        []string
	planned    []string
}

var _ github.API = (*Memory)(nil)

// New returns an empty repository.
func New() *Memory {
	return &Memory{now: time.Now, pulls: map[int]*Pull{}, labels: map[int][]string{}, repoLabels: map[string]Label{},
		comments: map[int][]github.Comment{}, perms: map[string]string{}, files: map[string][]byte{}, nextID: 1}
}

// SetDryRun makes writes planned instead of made, as github.Options.DryRun
// does.
func (m *Memory) SetDryRun(on bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dryRun = on
}

// SetClock sets the clock that dates comments and label events made
// through the API (default time.Now).
func (m *Memory) SetClock(now func() time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = now
}

// AddPull adds or replaces a pull request; its labels go on it.
func (m *Memory) AddPull(p Pull) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pulls[p.Number] = &p
	m.labels[p.Number] = append([]string(nil), p.Labels...)
}

// AddComment adds a comment on issue or pull request n and returns its id.
func (m *Memory) AddComment(n int, login, userType, body string, at time.Time) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	m.comments[n] = append(m.comments[n], github.Comment{ID: m.nextID, Login: login, UserType: userType, Body: body, CreatedAt: at.UTC(), UpdatedAt: at.UTC()})
	return m.nextID
}

// AddLabelEvent records a past labeled or unlabeled event; the labels on
// the pull request do not change.
func (m *Memory) AddLabelEvent(n int, event, label, login, userType string, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events = append(m.events, github.LabelEvent{Number: n, Event: event, Label: label, Actor: login, ActorType: userType, At: at.UTC()})
	sort.SliceStable(m.events, func(i, j int) bool { return m.events[i].At.Before(m.events[j].At) })
}

// SetPermission sets a login's permission (admin, maintain, write, triage,
// read or none).
func (m *Memory) SetPermission(login, permission string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.perms[strings.ToLower(login)] = permission
}

// AddArtifact adds a record artifact holding zip and returns its id (a.ID
// when set).
func (m *Memory) AddArtifact(a github.Artifact, zip []byte) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if a.ID == 0 {
		m.nextID++
		a.ID = m.nextID
	}
	a.Size = int64(len(zip))
	m.artifacts = append(m.artifacts, artifact{Artifact: a, zip: zip})
	return a.ID
}

// PutFile stores a file at a ref for FileAt.
func (m *Memory) PutFile(ref, path string, content []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[ref+":"+path] = content
}

// SetReadOnly makes every write fail as a read-only token's does (403).
func (m *Memory) SetReadOnly() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.readOnly = true
}

// SetRate sets what RateRemaining reports.
func (m *Memory) SetRate(remaining, limit int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rate, m.rateKnown = [2]int{remaining, limit}, true
}

// Fail makes the next times calls whose log entry (see CallLog) starts with
// call fail with err (every one when times is 0). An *github.APIError
// without a Call gets the entry as its Call.
func (m *Memory) Fail(call string, times int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	left := times
	if times == 0 {
		left = -1
	}
	m.faults = append(m.faults, &fault{call: call, left: left, err: err})
}

// IssueLabels returns the labels on issue or pull request n.
func (m *Memory) IssueLabels(n int) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.labels[n]...)
}

// RepoLabels returns the repository's labels, by name.
func (m *Memory) RepoLabels() []Label {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Label
	for _, l := range m.repoLabels {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// IssueComments returns the comments of issue or pull request n, oldest
// first.
func (m *Memory) IssueComments(n int) []github.Comment {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]github.Comment(nil), m.comments[n]...)
}

// Statuses returns the commit statuses set on sha, oldest first.
func (m *Memory) Statuses(sha string) []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return onSHA(m.statuses, sha, func(s Status) string { return s.SHA })
}

// CheckRuns returns the check runs created on sha, oldest first.
func (m *Memory) CheckRuns(sha string) []CheckRun {
	m.mu.Lock()
	defer m.mu.Unlock()
	return onSHA(m.checkRuns, sha, func(c CheckRun) string { return c.SHA })
}

// onSHA returns the items of list on commit sha.
func onSHA[T any](list []T, sha string, of func(T) string) []T {
	var out []T
	for _, x := range list {
		if of(x) == sha {
			out = append(out, x)
		}
	}
	return out
}

// CallLog returns the calls made, in order, each as "Method argument"
// (for example "Permission alice" or "PullFiles 3"), one entry a request.
func (m *Memory) CallLog() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.log...)
}

// CallsTo counts the calls whose log entry starts with prefix.
func (m *Memory) CallsTo(prefix string) int {
	n := 0
	for _, c := range m.CallLog() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// ResetCalls forgets the calls made so far.
func (m *Memory) ResetCalls() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = nil
}

// Calls returns how many calls were made.
func (m *Memory) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.log)
}

// RateRemaining returns what SetRate set.
func (m *Memory) RateRemaining() (remaining, limit int, known bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rate[0], m.rate[1], m.rateKnown
}

// Planned returns the writes a dry run skipped.
func (m *Memory) Planned() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.planned...)
}

// call counts one request with m.mu held and returns the error a fault or
// a read-only token gives it.
func (m *Memory) call(ctx context.Context, write bool, format string, args ...any) error {
	entry := fmt.Sprintf(format, args...)
	if err := ctx.Err(); err != nil {
		return &github.APIError{Call: entry, Message: err.Error(), Err: err}
	}
	m.log = append(m.log, entry)
	for _, f := range m.faults {
		if f.left == 0 || !strings.HasPrefix(entry, f.call) {
			continue
		}
		if f.left > 0 {
			f.left--
		}
		var ae *github.APIError
		if errors.As(f.err, &ae) && ae.Call == "" {
			cp := *ae
			cp.Call = entry
			return &cp
		}
		return f.err
	}
	if write && m.readOnly {
		return &github.APIError{Call: entry, Status: http.StatusForbidden, Message: "Resource not accessible by integration"}
	}
	return nil
}

// write starts a write with m.mu held: a dry run plans it (ok is false),
// otherwise it is one call (ok is true when it may be made).
func (m *Memory) write(ctx context.Context, format string, args ...any) (ok bool, err error) {
	if m.dryRun {
		m.planned = append(m.planned, fmt.Sprintf(format, args...))
		return false, nil
	}
	if err := m.call(ctx, true, format, args...); err != nil {
		return false, err
	}
	return true, nil
}

// pageOf is page (from 1) of all in pages of 100, and the next page (0 on
// the last).
func pageOf[T any](all []T, page int) ([]T, int) {
	start := (page - 1) * perPage
	if start >= len(all) {
		return nil, 0
	}
	end := min(len(all), start+perPage)
	if end < len(all) {
		return all[start:end], page + 1
	}
	return all[start:end], 0
}

func notFound(call string) error {
	return &github.APIError{Call: call, Status: http.StatusNotFound, Message: "Not Found"}
}

// missing makes a call for something that does not exist: 404.
func (m *Memory) missing(ctx context.Context, format string, args ...any) error {
	if err := m.call(ctx, false, format, args...); err != nil {
		return err
	}
	return notFound(fmt.Sprintf(format, args...))
}

// pages counts the calls a list of n items takes: one per 100, at least one.
func pages(n int) int { return max(1, (n+perPage-1)/perPage) }

// calls makes the calls of a list of n items; the first error stops it.
func (m *Memory) calls(ctx context.Context, n int, format string, args ...any) error {
	for i := 0; i < pages(n); i++ {
		if err := m.call(ctx, false, format, args...); err != nil {
			return err
		}
	}
	return nil
}

// ListPulls returns a page of the open pull requests, sorted as asked
// (created, newest first, by default) with their current labels.
func (m *Memory) ListPulls(ctx context.Context, q github.PullQuery) (github.PullPage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	page := max(q.Page, 1)
	if err := m.call(ctx, false, "ListPulls %d", page); err != nil {
		return github.PullPage{}, err
	}
	per := q.PerPage
	if per <= 0 || per > perPage {
		per = perPage
	}
	var list []github.AuditPull
	for _, p := range m.pulls {
		ap := p.AuditPull
		ap.Labels = append([]string(nil), m.labels[p.Number]...)
		list = append(list, ap)
	}
	key := func(p github.AuditPull) time.Time { return p.CreatedAt }
	if q.Sort == "updated" {
		key = func(p github.AuditPull) time.Time { return p.UpdatedAt }
	}
	desc := q.Direction == "desc" || (q.Direction == "" && q.Sort != "updated")
	sort.Slice(list, func(i, j int) bool {
		a, b := key(list[i]), key(list[j])
		if a.Equal(b) {
			return list[i].Number < list[j].Number != desc
		}
		return a.Before(b) != desc
	})
	out := github.PullPage{}
	if start := (page - 1) * per; start < len(list) {
		out.Pulls = list[start:min(len(list), start+per)]
	}
	if last := (len(list) + per - 1) / per; page < last {
		out.Next, out.Last = page+1, last
	}
	return out, nil
}

// GetPull returns pull request number with its current labels.
func (m *Memory) GetPull(ctx context.Context, number int) (github.AuditPull, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pulls[number]
	if p == nil {
		return github.AuditPull{}, m.missing(ctx, "GetPull %d", number)
	}
	if err := m.call(ctx, false, "GetPull %d", number); err != nil {
		return github.AuditPull{}, err
	}
	ap := p.AuditPull
	ap.Labels = append([]string(nil), m.labels[number]...)
	return ap, nil
}

// PullsByHead returns the pull requests whose head is branch in owner's
// repository: HeadRepo's owner, or RepoOwner when HeadRepo is empty.
func (m *Memory) PullsByHead(ctx context.Context, owner, branch string) ([]github.AuditPull, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.call(ctx, false, "PullsByHead %s:%s", owner, branch); err != nil {
		return nil, err
	}
	var out []github.AuditPull
	for _, n := range m.numbers() {
		p := m.pulls[n]
		headOwner, _, _ := strings.Cut(p.HeadRepo, "/")
		if p.HeadRepo == "" {
			headOwner = RepoOwner
		}
		if strings.EqualFold(headOwner, owner) && p.HeadRef == branch {
			ap := p.AuditPull
			ap.Labels = append([]string(nil), m.labels[n]...)
			out = append(out, ap)
		}
	}
	return out, nil
}

func (m *Memory) numbers() []int {
	var out []int
	for n := range m.pulls {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// PullCommits returns a pull request's commits, at most
// github.MaxPullCommits.
func (m *Memory) PullCommits(ctx context.Context, number int) ([]github.PullCommit, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pulls[number]
	if p == nil {
		return nil, false, m.missing(ctx, "PullCommits %d", number)
	}
	cs := p.Commits[:min(len(p.Commits), github.MaxPullCommits)]
	if err := m.calls(ctx, len(cs), "PullCommits %d", number); err != nil {
		return nil, false, err
	}
	return append([]github.PullCommit(nil), cs...), len(cs) >= github.MaxPullCommits, nil
}

// PullFiles returns a pull request's files, at most maxPages pages of 100.
func (m *Memory) PullFiles(ctx context.Context, number, maxPages int) (github.PullFiles, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.pulls[number]
	if p == nil {
		return github.PullFiles{}, m.missing(ctx, "PullFiles %d", number)
	}
	files := p.Files[:min(len(p.Files), github.MaxPullFiles)]
	n := min(pages(len(files)), max(maxPages, 1))
	for range n {
		if err := m.call(ctx, false, "PullFiles %d", number); err != nil {
			return github.PullFiles{}, err
		}
	}
	out := github.PullFiles{Files: append([]github.PullFile(nil), files[:min(len(files), n*perPage)]...), Pages: n,
		Complete: n*perPage >= len(files), Capped: len(files) >= github.MaxPullFiles}
	return out, nil
}

// Comments returns the comments of issue or pull request number updated
// at or after since.
func (m *Memory) Comments(ctx context.Context, number int, since time.Time) ([]github.Comment, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []github.Comment
	for _, c := range m.comments[number] {
		if since.IsZero() || !c.UpdatedAt.Before(since) {
			out = append(out, c)
		}
	}
	if err := m.calls(ctx, len(out), "Comments %d", number); err != nil {
		return nil, err
	}
	return out, nil
}

// UpsertComment keeps one sticky comment as the client does: it edits the
// comment knownID names, else the newest comment carrying the marker that
// a bot other than the pull request's author wrote, else it creates one.
// A body over github.MaxCommentLength characters is refused.
func (m *Memory) UpsertComment(ctx context.Context, number int, knownID int64, sticky github.Sticky, body string) (int64, error) {
	if !strings.Contains(body, sticky.Marker) {
		body = sticky.Marker + "\n" + body
	}
	if n := utf8.RuneCountInString(body); n > github.MaxCommentLength {
		return 0, fmt.Errorf("upsert comment on #%d: the body has %d characters, more than the %d GitHub allows", number, n, github.MaxCommentLength)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cs := m.comments[number]
	edit := func(i int) (int64, error) {
		ok, err := m.write(ctx, "EditComment %d", cs[i].ID)
		if ok {
			cs[i].Body, cs[i].UpdatedAt = body, m.now().UTC()
		}
		return cs[i].ID, err
	}
	if knownID > 0 {
		for i := range cs {
			if cs[i].ID == knownID {
				return edit(i)
			}
		}
		if !m.dryRun { // the edit answers 404: look for the comment
			if err := m.missing(ctx, "EditComment %d", knownID); !errors.Is(err, github.ErrNotFound) {
				return 0, err
			}
		}
	}
	if err := m.calls(ctx, len(cs), "Comments %d", number); err != nil {
		return 0, err
	}
	found := -1
	for i, c := range cs {
		mine := strings.EqualFold(c.UserType, "Bot") || strings.EqualFold(c.Login, Login)
		if strings.Contains(c.Body, sticky.Marker) && mine && !strings.EqualFold(c.Login, sticky.Author) && (found < 0 || c.CreatedAt.After(cs[found].CreatedAt)) {
			found = i
		}
	}
	if found >= 0 {
		return edit(found)
	}
	if ok, err := m.write(ctx, "CreateComment %d", number); !ok {
		return 0, err
	}
	m.nextID++
	now := m.now().UTC()
	m.comments[number] = append(cs, github.Comment{ID: m.nextID, Login: Login, UserType: "Bot", Body: body, CreatedAt: now, UpdatedAt: now})
	return m.nextID, nil
}

// AddLabel puts a label on issue or pull request number as the client
// does: one call, recording a labeled event by Login; a label the
// repository lacks is created in GitHub's grey and then, with one more
// call, given the label's colour and description.
func (m *Memory) AddLabel(ctx context.Context, number int, l github.LabelSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok, err := m.write(ctx, "AddLabels %d %s", number, l.Name); !ok {
		return err
	}
	key := strings.ToLower(l.Name)
	existing, known := m.repoLabels[key]
	if !known {
		existing = Label{Name: l.Name, Color: "ededed"}
		m.repoLabels[key] = existing
	}
	if !has(m.labels[number], l.Name) {
		m.labels[number] = append(m.labels[number], l.Name)
		m.events = append(m.events, github.LabelEvent{Number: number, Event: "labeled", Label: l.Name, Actor: Login, ActorType: "Bot", At: m.now().UTC()})
	}
	color := strings.ToLower(strings.TrimPrefix(l.Color, "#"))
	if existing.Color != "ededed" || existing.Description != "" || (color == "" || color == "ededed") && l.Description == "" {
		return nil
	}
	if err := m.call(ctx, true, "UpdateLabel %s", l.Name); err != nil {
		return err
	}
	m.repoLabels[key] = Label{Name: existing.Name, Color: color, Description: l.Description}
	return nil
}

// RemoveLabel takes label off issue or pull request number (absent: no
// error), recording an unlabeled event by Login.
func (m *Memory) RemoveLabel(ctx context.Context, number int, label string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok, err := m.write(ctx, "RemoveLabel %d %s", number, label); !ok {
		return err
	}
	var kept []string
	for _, l := range m.labels[number] {
		if !strings.EqualFold(l, label) {
			kept = append(kept, l)
		}
	}
	if len(kept) < len(m.labels[number]) {
		m.events = append(m.events, github.LabelEvent{Number: number, Event: "unlabeled", Label: label, Actor: Login, ActorType: "Bot", At: m.now().UTC()})
	}
	m.labels[number] = kept
	return nil
}

// LabelEvents returns the label events of issue or pull request number,
// oldest first.
func (m *Memory) LabelEvents(ctx context.Context, number int) ([]github.LabelEvent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []github.LabelEvent
	for _, e := range m.events {
		if e.Number == number {
			out = append(out, e)
		}
	}
	if err := m.calls(ctx, len(out), "LabelEvents %d", number); err != nil {
		return nil, err
	}
	return out, nil
}

// RepoLabelEvents returns a page of 100 of the repository's label events,
// newest first, and the next page (0 on the last).
func (m *Memory) RepoLabelEvents(ctx context.Context, page int) ([]github.LabelEvent, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	page = max(page, 1)
	if err := m.call(ctx, false, "RepoLabelEvents %d", page); err != nil {
		return nil, 0, err
	}
	var all []github.LabelEvent
	for i := len(m.events) - 1; i >= 0; i-- {
		all = append(all, m.events[i])
	}
	list, next := pageOf(all, page)
	return list, next, nil
}

// Permission returns login's permission, "none" when it has none.
func (m *Memory) Permission(ctx context.Context, login string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.call(ctx, false, "Permission %s", login); err != nil {
		return "", err
	}
	if p, ok := m.perms[strings.ToLower(login)]; ok {
		return p, nil
	}
	return "none", nil
}

// newest returns the artifacts called name, newest first.
func (m *Memory) newest(name string) []github.Artifact {
	var out []github.Artifact
	for i := len(m.artifacts) - 1; i >= 0; i-- {
		if a := m.artifacts[i].Artifact; a.Name == name {
			out = append(out, a)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

// LatestArtifact returns the newest unexpired artifact called name that
// belongs, from a run other than excludeRunID, else the newest expired
// one, else nil: one call per 100 artifacts of the name, as the client
// reads every page.
func (m *Memory) LatestArtifact(ctx context.Context, name string, excludeRunID int64, belongs func(github.Artifact) bool) (*github.Artifact, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	all := m.newest(name)
	if err := m.calls(ctx, len(all), "ListArtifacts %s", name); err != nil {
		return nil, err
	}
	var expired *github.Artifact
	for _, a := range all {
		if excludeRunID != 0 && a.RunID == excludeRunID || !belongs(a) {
			continue
		}
		if !a.Expired {
			return &a, nil
		}
		if expired == nil {
			expired = &a
		}
	}
	return expired, nil
}

// ListArtifacts returns a page of 100 of the artifacts called name, newest
// first, and the next page (0 on the last).
func (m *Memory) ListArtifacts(ctx context.Context, name string, page int) ([]github.Artifact, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	page = max(page, 1)
	if err := m.call(ctx, false, "ListArtifacts %s", name); err != nil {
		return nil, 0, err
	}
	list, next := pageOf(m.newest(name), page)
	return list, next, nil
}

// DownloadArtifact returns an artifact's zip: an expired one is an error
// wrapping github.ErrExpired, a larger one than maxBytes an error.
func (m *Memory) DownloadArtifact(ctx context.Context, a *github.Artifact, maxBytes int64) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.call(ctx, false, "DownloadArtifact %d", a.ID); err != nil {
		return nil, err
	}
	for _, x := range m.artifacts {
		switch {
		case x.ID != a.ID:
		case x.Expired:
			return nil, &github.APIError{Call: fmt.Sprintf("DownloadArtifact %d", a.ID), Status: http.StatusGone, Message: "Artifact has expired"}
		case int64(len(x.zip)) > maxBytes:
			return nil, fmt.Errorf("download artifact %d (%s): %d bytes, larger than the %d allowed", a.ID, a.Name, len(x.zip), maxBytes)
		default:
			return append([]byte(nil), x.zip...), nil
		}
	}
	return nil, notFound(fmt.Sprintf("DownloadArtifact %d", a.ID))
}

// SetStatus records a commit status.
func (m *Memory) SetStatus(ctx context.Context, sha, state, description, targetURL string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok, err := m.write(ctx, "SetStatus %s %s", sha, state); !ok {
		return err
	}
	m.statuses = append(m.statuses, Status{SHA: sha, State: state, Description: description, TargetURL: targetURL})
	return nil
}

// CreateCheckRun records a check run; a summary over 65,535 characters is
// refused, as the client refuses it.
func (m *Memory) CreateCheckRun(ctx context.Context, sha, conclusion, title, summary string) error {
	if n := utf8.RuneCountInString(summary); n > 65535 {
		return fmt.Errorf("create check run on %s: the summary has %d characters, more than the 65535 GitHub allows", sha, n)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok, err := m.write(ctx, "CreateCheckRun %s %s", sha, conclusion); !ok {
		return err
	}
	m.checkRuns = append(m.checkRuns, CheckRun{SHA: sha, Conclusion: conclusion, Title: title, Summary: summary})
	return nil
}

// FileAt returns a file PutFile stored; a missing one is an error wrapping
// github.ErrNotFound.
func (m *Memory) FileAt(ctx context.Context, ref, path string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.call(ctx, false, "FileAt %s %s", ref, path); err != nil {
		return nil, err
	}
	data, ok := m.files[ref+":"+path]
	if !ok {
		return nil, notFound(fmt.Sprintf("FileAt %s %s", ref, path))
	}
	return append([]byte(nil), data...), nil
}

func has(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
