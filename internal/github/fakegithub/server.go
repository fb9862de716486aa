package fakegithub

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// DefaultToken is the token every Server knows from the start; it belongs
// to DefaultLogin, a bot, like the GITHUB_TOKEN of a workflow.
const DefaultToken = "test-token"

// DefaultLogin is the user behind DefaultToken.
const DefaultLogin = "github-actions[bot]"

// DefaultLabelColor is the colour GitHub gives a label created implicitly
// by adding it to an issue.
const DefaultLabelColor = "ededed"

// MaxCommentLength is the longest comment body GitHub accepts, in characters.
const MaxCommentLength = 65536

const (
	maxPullCommits  = 250
	maxPullFiles    = 3000
	maxPerPage      = 100
	maxBodyBytes    = 4 << 20
	maxIssueLabels  = 100
	maxLabelName    = 50
	maxLabelDesc    = 100
	maxStatusDesc   = 140
	maxStatusesEach = 1000
	maxCheckOutput  = 65535
	maxAnnotations  = 50
	maxCallLog      = 100000
	maxRoutes       = 10000
	defaultPageSize = 30
	defaultLimit    = 5000
	searchLimit     = 30
	contentsMaxSize = 1 << 20
)

// Server is a fake GitHub REST API. The zero value is not usable: create
// one with New (listening) or NewHandler (handler only). All methods are
// safe for concurrent use.
type Server struct {
	// URL is the base URL of the API without a trailing slash, for example
	// http://127.0.0.1:PORT. New sets it; with NewHandler the caller may set
	// it before serving, otherwise URLs in answers are built from the
	// request's Host.
	URL string

	ts      *httptest.Server
	handler http.Handler
	mux     *http.ServeMux
	done    chan struct{}
	once    sync.Once

	mu     sync.Mutex
	now    func() time.Time
	repos  map[string]*repo
	tokens map[string]*token
	// runtime are the runners' ACTIONS_RUNTIME_TOKENs: the run each may
	// upload artifacts into.
	runtime   map[string]runRef
	artifacts map[int64]*artifact
	nextID    int64
	// core is the primary rate limit of the REST API, search the search
	// API's own (see bucket).
	core, search bucket
	pageSize     int
	faults       []*faultRule
	calls        int
	charged      int
	callLog      []string
	byRoute      map[string]int
	// teams are the active members of each "org/slug" team (lower case).
	teams map[string]map[string]bool
}

// token is what a token authenticates as. An installation token (app:
// the workflow's GITHUB_TOKEN, a GitHub App's) has no user of its own, so
// GET /user refuses it, and only it may create check runs; a user's token
// (a PAT) is the opposite. perms are its permissions by scope, as a job's
// permissions: block grants them; nil is the permissive default (every
// scope writable).
type token struct {
	login    string
	userType string
	app      bool
	perms    map[string]string
}

type faultRule struct {
	method string
	prefix string
	fault  Fault
	left   int // remaining hits when fault.Times > 0
}

type repo struct {
	owner, name   string
	id            int64
	defaultBranch string
	labels        []*label
	issues        map[int]*issue
	runs          []*Run
	artifacts     []*artifact
	private       bool
	perms         map[string]perm // lower-case login -> permission
	files         map[string]map[string][]byte
	statuses      []*status
	checkRuns     []*checkRun
	dispatches    []Dispatch
}

type perm struct {
	login      string
	permission string
}

type label struct {
	id int64
	Label
}

// touch moves a pull request's updated_at to at when that is later: GitHub
// updates it when a comment is added or edited, a label is added or
// removed, or its branch is pushed to (what the pulls list's sort=updated
// orders by), not for a commit status, a check run or an artifact.
func (is *issue) touch(at time.Time) {
	if p := is.pull; p != nil && at.After(p.UpdatedAt) {
		p.UpdatedAt = at.UTC().Truncate(time.Second)
	}
}

type issue struct {
	number   int
	title    string
	pull     *Pull
	labels   []string
	comments []*Comment
	events   []*event
}

type event struct {
	ID        int64     `json:"id"`
	Number    int       `json:"number"`
	Event     string    `json:"event"`
	Label     string    `json:"label"`
	Login     string    `json:"login"`
	UserType  string    `json:"user_type,omitempty"`
	CommitID  string    `json:"commit_id,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	App       string    `json:"app,omitempty"`
}

type status struct {
	ID          int64     `json:"id"`
	SHA         string    `json:"sha"`
	CreatorType string    `json:"creator_type,omitempty"`
	CreatedAt   time.Time `json:"created_at,omitzero"`
	Status
}

type checkRun struct {
	CheckRun
	DetailsURL  string    `json:"details_url,omitempty"`
	ExternalID  string    `json:"external_id,omitempty"`
	Text        string    `json:"text,omitempty"`
	Annotations int       `json:"annotations,omitempty"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

type artifact struct {
	id        int64
	owner     string
	repo      string
	runID     int64
	name      string
	zip       []byte
	expired   bool
	createdAt time.Time
}

// New starts a Server on a loopback httptest listener; Close stops it.
func New() *Server {
	s := NewHandler()
	s.ts = httptest.NewServer(s.handler)
	s.URL = s.ts.URL
	return s
}

// NewHandler returns a Server that does not listen: serve Handler()
// yourself (cmd/fakegithub does).
func NewHandler() *Server {
	s := &Server{
		done:      make(chan struct{}),
		now:       time.Now,
		repos:     map[string]*repo{},
		tokens:    map[string]*token{DefaultToken: {login: DefaultLogin, userType: "Bot", app: true}},
		runtime:   map[string]runRef{},
		artifacts: map[int64]*artifact{},
		nextID:    1,
		core:      bucket{name: "core", limit: defaultLimit, remaining: defaultLimit, window: time.Hour},
		search:    bucket{name: "search", limit: searchLimit, remaining: searchLimit, window: time.Minute},
		pageSize:  defaultPageSize,
		byRoute:   map[string]int{},
	}
	s.core.reset = s.now().Add(time.Hour).Truncate(time.Second)
	s.search.reset = s.now().Add(time.Minute).Truncate(time.Second)
	s.mux = http.NewServeMux()
	s.routes()
	s.handler = http.HandlerFunc(s.serve)
	return s
}

// Handler returns the http.Handler that answers API requests.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the listener started by New and ends pending Delay faults.
// It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() { close(s.done) })
	if s.ts != nil {
		s.ts.Close()
	}
}

// SetClock replaces the clock used for the timestamps of objects created
// through the API and for the rate-limit reset (default time.Now).
func (s *Server) SetClock(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now == nil {
		now = time.Now
	}
	s.now = now
}

func (s *Server) id() int64 {
	id := s.nextID
	s.nextID++
	return id
}

func (s *Server) seenID(id int64) {
	if id >= s.nextID {
		s.nextID = id + 1
	}
}

// stableID derives a positive, deterministic numeric id from a name.
func stableID(parts ...string) int64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(strings.ToLower(p)))
		_, _ = h.Write([]byte{0})
	}
	return int64(h.Sum64()>>34) + 1
}

func repoKey(owner, name string) string {
	return strings.ToLower(owner) + "/" + strings.ToLower(name)
}

// repoLocked returns the repository, creating it when create is set.
func (s *Server) repoLocked(owner, name string, create bool) *repo {
	k := repoKey(owner, name)
	if rp, ok := s.repos[k]; ok {
		return rp
	}
	if !create {
		return nil
	}
	rp := &repo{
		owner:         owner,
		name:          name,
		id:            stableID(owner, name),
		defaultBranch: "main",
		issues:        map[int]*issue{},
		perms:         map[string]perm{},
		files:         map[string]map[string][]byte{},
	}
	s.repos[k] = rp
	return rp
}

func (rp *repo) issueLocked(number int, create bool) *issue {
	if is, ok := rp.issues[number]; ok {
		return is
	}
	if !create || number <= 0 {
		return nil
	}
	is := &issue{number: number, title: "Issue"}
	rp.issues[number] = is
	return is
}

func (rp *repo) findLabel(name string) *label {
	for _, l := range rp.labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

// ensureLabel returns the repository label, creating it with GitHub's
// default colour when missing.
func (s *Server) ensureLabel(rp *repo, name string) *label {
	if l := rp.findLabel(name); l != nil {
		return l
	}
	l := &label{id: s.id(), Label: Label{Name: name, Color: DefaultLabelColor}}
	rp.labels = append(rp.labels, l)
	return l
}

// headOwner is the owner of a pull request's head repository: the
// author's fork, or the repository's owner.
func (rp *repo) headOwner(p *Pull) string {
	if p.Fork {
		return p.User
	}
	return rp.owner
}

func (rp *repo) findRun(id int64) *Run {
	for _, r := range rp.runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// AddRepo creates an empty repository (seeding calls create repositories
// implicitly; an unknown repository answers 404).
func (s *Server) AddRepo(owner, repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(owner, repo, true)
}

// AddPull adds or replaces a pull request. Its labels are put on the issue
// and created in the repository when missing. Defaults: state "open", user
// "octocat" of type "User", base ref the default branch "main", updated_at
// the creation time.
func (s *Server) AddPull(owner, repo string, p Pull) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addPullLocked(owner, repo, p)
}

func (s *Server) addPullLocked(owner, repo string, p Pull) {
	rp := s.repoLocked(owner, repo, true)
	is := rp.issueLocked(p.Number, true)
	if is == nil {
		return
	}
	p.Labels = append([]string(nil), p.Labels...)
	p.Commits = append([]string(nil), p.Commits...)
	p.Files = append([]string(nil), p.Files...)
	if p.State == "" {
		p.State = "open"
	}
	if p.User == "" {
		p.User = "octocat"
	}
	if p.UserType == "" {
		p.UserType = "User"
	}
	if p.BaseRef == "" {
		p.BaseRef = rp.defaultBranch
	}
	if p.UpdatedAt.IsZero() {
		p.UpdatedAt = p.CreatedAt
	}
	is.pull = &p
	is.title = p.Title
	is.labels = nil
	for _, name := range p.Labels {
		l := s.ensureLabel(rp, name)
		if !containsFold(is.labels, l.Name) {
			is.labels = append(is.labels, l.Name)
		}
	}
}

// Push moves pull request number's head to head, as a push to its branch
// does, and its test merge commit (refs/pull/N/merge, which GitHub makes
// anew on every push) to merge; its labels and comments stay.
func (s *Server) Push(owner, repo string, number int, head, merge string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is, err := s.pullLocked(owner, repo, number)
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	is.pull.HeadSHA, is.pull.MergeSHA = head, merge
	is.pull.Commits = append(is.pull.Commits, head)
	is.pull.UpdatedAt = s.now().UTC().Truncate(time.Second)
	return nil
}

// AddRun adds or replaces a workflow run: the head branch and commit its
// artifacts report.
func (s *Server) AddRun(owner, repo string, r Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addRunLocked(owner, repo, r)
}

func (s *Server) addRunLocked(owner, repo string, r Run) {
	rp := s.repoLocked(owner, repo, true)
	r.PullNumbers = append([]int(nil), r.PullNumbers...)
	if r.ID == 0 {
		r.ID = s.id()
	}
	s.seenID(r.ID)
	for i, old := range rp.runs {
		if old.ID == r.ID {
			rp.runs[i] = &r
			return
		}
	}
	rp.runs = append(rp.runs, &r)
}

// AddArtifact adds an artifact of a workflow run holding zip as its archive
// and returns its ID. An expired artifact is listed with expired: true and
// its download answers 410 Gone.
func (s *Server) AddArtifact(owner, repo string, runID int64, name string, zip []byte, expired bool) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addArtifactLocked(owner, repo, 0, runID, name, zip, expired, time.Time{})
}

func (s *Server) addArtifactLocked(owner, repo string, id, runID int64, name string, zip []byte, expired bool, at time.Time) int64 {
	rp := s.repoLocked(owner, repo, true)
	if id == 0 {
		id = s.id()
	}
	s.seenID(id)
	if at.IsZero() {
		if r := rp.findRun(runID); r != nil && !r.CreatedAt.IsZero() {
			at = r.CreatedAt
		} else {
			at = s.now()
		}
	}
	a := &artifact{id: id, owner: rp.owner, repo: rp.name, runID: runID, name: name,
		zip: append([]byte(nil), zip...), expired: expired, createdAt: at.UTC().Truncate(time.Second)}
	if old, ok := s.artifacts[id]; ok {
		if orp := s.repoLocked(old.owner, old.repo, false); orp != nil {
			orp.artifacts = removeArtifact(orp.artifacts, id)
		}
	}
	s.artifacts[id] = a
	rp.artifacts = append(rp.artifacts, a)
	return id
}

// ErrArtifactExists is UploadArtifact's error for a second artifact of one
// name in one workflow run. upload-artifact v4 and later fails the step
// with "Failed to CreateArtifact: Received non-retryable error: Failed
// request: (409) Conflict: an artifact with this name already exists on
// the workflow run" (https://github.com/actions/upload-artifact#breaking-changes,
// https://github.com/actions/upload-artifact/issues/493); a re-run of a
// failed job keeps its run id and hits it too.
var ErrArtifactExists = errors.New("create artifact: (409) Conflict: an artifact with this name already exists on the workflow run")

// UploadArtifact stores an artifact of run runID as upload-artifact does
// (through the results service, not the REST API): a second one of the
// same name in the run is ErrArtifactExists, unless overwrite is set, which
// deletes the earlier one first so that the new one gets a new id (the
// action's overwrite: true).
func (s *Server) UploadArtifact(owner, repo string, runID int64, name string, zip []byte, overwrite bool) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, true)
	for _, a := range rp.artifacts {
		if a.runID != runID || a.name != name {
			continue
		}
		if !overwrite {
			return 0, ErrArtifactExists
		}
		rp.artifacts = removeArtifact(rp.artifacts, a.id)
		delete(s.artifacts, a.id)
		break
	}
	return s.addArtifactLocked(owner, repo, 0, runID, name, zip, false, s.now()), nil
}

// runRef names one workflow run.
type runRef struct {
	owner, repo string
	id          int64
}

// RuntimeToken returns the runtime token of run runID of owner/repo, the
// ACTIONS_RUNTIME_TOKEN the runner gives the steps of the run's jobs. It is
// not a GITHUB_TOKEN and has no permissions: block. Artifacts are uploaded
// with it (upload-artifact authenticates with it alone, never with the
// workflow token: https://github.com/actions/upload-artifact/issues/197),
// and any step can hold it: actions receive it, and a step can pass it on
// to later steps through $GITHUB_ENV
// (https://github.com/actions/toolkit/issues/1053). So every step of every
// job of the run, the agent's included, can upload an artifact into the
// run, and with overwrite replace one of the same name
// (https://github.com/actions/upload-artifact#overwriting-an-artifact).
// The REST API does not take it: it answers 401 "Bad credentials".
func (s *Server) RuntimeToken(owner, repo string, runID int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := fmt.Sprintf("runtime-%s-%s-%d", owner, repo, runID)
	s.runtime[tok] = runRef{owner, repo, runID}
	return tok
}

// UploadWithRuntimeToken is UploadArtifact into the run whose runtime
// token tok is (RuntimeToken): it reaches that run and no other.
func (s *Server) UploadWithRuntimeToken(tok, name string, zip []byte, overwrite bool) (int64, error) {
	s.mu.Lock()
	run, ok := s.runtime[tok]
	s.mu.Unlock()
	if !ok {
		return 0, errors.New("create artifact: (401) Unauthorized: not a runtime token of a run")
	}
	return s.UploadArtifact(run.owner, run.repo, run.id, name, zip, overwrite)
}

func removeArtifact(list []*artifact, id int64) []*artifact {
	out := list[:0]
	for _, a := range list {
		if a.id != id {
			out = append(out, a)
		}
	}
	return out
}

// AddComment adds an issue comment and returns its ID. The issue is
// created when missing.
func (s *Server) AddComment(owner, repo string, number int, login, userType, body string, at time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addCommentLocked(owner, repo, number, Comment{Login: login, UserType: userType, Body: body, CreatedAt: at})
}

// AddCommentAs is AddComment with every field of c given: an edited
// comment (UpdatedAt after CreatedAt) or one an App wrote (App).
func (s *Server) AddCommentAs(owner, repo string, number int, c Comment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addCommentLocked(owner, repo, number, c)
}

func (s *Server) addCommentLocked(owner, repo string, number int, c Comment) int64 {
	is := s.repoLocked(owner, repo, true).issueLocked(number, true)
	if is == nil {
		return 0
	}
	if c.ID == 0 {
		c.ID = s.id()
	}
	s.seenID(c.ID)
	if c.UserType == "" {
		c.UserType = "User"
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.now()
	}
	c.CreatedAt = c.CreatedAt.UTC().Truncate(time.Second)
	if c.UpdatedAt.IsZero() {
		c.UpdatedAt = c.CreatedAt
	}
	c.UpdatedAt = c.UpdatedAt.UTC().Truncate(time.Second)
	is.comments = append(is.comments, &c)
	sort.SliceStable(is.comments, func(i, j int) bool { return is.comments[i].ID < is.comments[j].ID })
	return c.ID
}

// AddLabelEvent records a past labeled or unlabeled event on an issue. It
// only adds to the event list: neither the issue's labels nor the
// repository's change.
func (s *Server) AddLabelEvent(owner, repo string, number int, kind, label, login, userType string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addEventLocked(owner, repo, number, event{Number: number, Event: kind, Label: label, Login: login, UserType: userType, CreatedAt: at})
}

// AddIssueEvent records a past event of any type GitHub's issue events
// list (see EventTypes) on an issue or pull request: e.Number names it.
// Like AddLabelEvent it changes nothing else.
func (s *Server) AddIssueEvent(owner, repo string, e EventState) error {
	if err := checkEvent(e); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addEventLocked(owner, repo, e.Number, eventOfState(e))
	return nil
}

func (s *Server) addEventLocked(owner, repo string, number int, e event) {
	rp := s.repoLocked(owner, repo, true)
	is := rp.issueLocked(number, true)
	if is == nil {
		return
	}
	if e.ID == 0 {
		e.ID = s.id()
	}
	s.seenID(e.ID)
	if e.UserType == "" {
		e.UserType = "User"
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = s.now()
	}
	e.CreatedAt = e.CreatedAt.UTC().Truncate(time.Second)
	e.Number = number
	is.events = append(is.events, &e)
	sort.SliceStable(is.events, func(i, j int) bool { return is.events[i].ID < is.events[j].ID })
}

// SetPermission sets a user's permission on a repository: admin, maintain,
// write, triage, read or none. Users without one get 404 from the
// permission endpoint.
func (s *Server) SetPermission(owner, repo, login, permission string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, true)
	rp.perms[strings.ToLower(login)] = perm{login: login, permission: permission}
}

// PutFile stores a file at a ref (a branch, tag or commit SHA; "" means
// the default branch "main") for the contents endpoint.
func (s *Server) PutFile(owner, repo, ref, path string, content []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, true)
	if ref == "" {
		ref = rp.defaultBranch
	}
	path = strings.Trim(path, "/")
	if rp.files[ref] == nil {
		rp.files[ref] = map[string][]byte{}
	}
	rp.files[ref][path] = append([]byte(nil), content...)
}

// AddToken makes token authenticate as login of userType: "Bot" is an
// installation token (the workflow's GITHUB_TOKEN or a GitHub App's),
// anything else a user's token (a PAT). A token keeps the permissions it
// had; a new one gets the permissive default (every scope writable).
func (s *Server) AddToken(tok, login, userType string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if userType == "" {
		userType = "User"
	}
	var perms map[string]string
	if old, ok := s.tokens[tok]; ok {
		perms = old.perms
	}
	s.tokens[tok] = &token{login: login, userType: userType, app: userType == "Bot", perms: perms}
}

// SetReadOnly gives a token read access to every scope and write access
// to none, like the token of a workflow run for a pull request from a fork
// (https://docs.github.com/en/actions/reference/github_token-reference):
// writes answer 403 "Resource not accessible by integration". An unknown
// token is added as an installation token of DefaultLogin.
func (s *Server) SetReadOnly(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	perms := map[string]string{}
	for _, scope := range Scopes {
		perms[scope] = "read"
	}
	s.tokenLocked(tok).perms = perms
}

// SetPermissions gives a token the permissions of a job's permissions:
// block, scope -> "read", "write" or "none" (GitHub's spelling, such as
// "pull-requests", or the API's, "pull_requests"). As on GitHub, every
// scope not named is none and metadata is always readable
// (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions).
// nil restores the permissive default. An unknown token is added as an
// installation token of DefaultLogin.
func (s *Server) SetPermissions(tok string, perms map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenLocked(tok).perms = normalPerms(perms)
}

func (s *Server) tokenLocked(tok string) *token {
	t, ok := s.tokens[tok]
	if !ok {
		t = &token{login: DefaultLogin, userType: "Bot", app: true}
		s.tokens[tok] = t
	}
	return t
}

// SetPrivate makes a repository private or public. A public repository's
// reads need no permission; a private one's need the scope's read access
// (and are not found without a token).
func (s *Server) SetPrivate(owner, repo string, private bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repoLocked(owner, repo, true).private = private
}

// SetRateLimit sets the primary rate limit: every API call but GET
// /rate_limit uses one of remaining; at zero, calls answer 403 with
// X-RateLimit-Remaining: 0 until reset, when remaining returns to limit.
func (s *Server) SetRateLimit(limit, remaining int, reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.core.limit, s.core.remaining, s.core.reset = limit, remaining, reset.Truncate(time.Second)
}

// SetSearchRateLimit sets the search API's rate limit as SetRateLimit sets
// the primary one; at reset it renews for a minute.
func (s *Server) SetSearchRateLimit(limit, remaining int, reset time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.search.limit, s.search.remaining, s.search.reset = limit, remaining, reset.Truncate(time.Second)
}

// SetPageSize sets the page size used when a request has no per_page
// (GitHub's is 30). Values outside 1..100 are clamped.
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = clamp(n, 1, maxPerPage)
}

func clamp(n, lo, hi int) int {
	return max(lo, min(n, hi))
}

// IssueLabels returns the names of the labels on an issue or pull request,
// in the order they were added.
func (s *Server) IssueLabels(owner, repo string, number int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil
	}
	is := rp.issueLocked(number, false)
	if is == nil {
		return nil
	}
	return append([]string(nil), is.labels...)
}

// RepoLabels returns the repository's labels in creation order.
func (s *Server) RepoLabels(owner, repo string) []Label {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil
	}
	out := make([]Label, 0, len(rp.labels))
	for _, l := range rp.labels {
		out = append(out, l.Label)
	}
	return out
}

// Comments returns the comments of an issue, oldest first.
func (s *Server) Comments(owner, repo string, number int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil
	}
	is := rp.issueLocked(number, false)
	if is == nil {
		return nil
	}
	out := make([]Comment, 0, len(is.comments))
	for _, c := range is.comments {
		out = append(out, *c)
	}
	return out
}

// Statuses returns the commit statuses posted for a SHA, oldest first.
func (s *Server) Statuses(owner, repo, sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil
	}
	var out []Status
	for _, st := range rp.statuses {
		if st.SHA == sha {
			out = append(out, st.Status)
		}
	}
	return out
}

// CheckRuns returns the check runs created for a SHA, oldest first.
func (s *Server) CheckRuns(owner, repo, sha string) []CheckRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil
	}
	var out []CheckRun
	for _, c := range rp.checkRuns {
		if c.HeadSHA == sha {
			out = append(out, c.CheckRun)
		}
	}
	return out
}

// Calls returns how many API calls were answered since the start or the
// last ResetCalls, faults included; /_blobs and /_fake are not counted.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Charged returns how many calls counted against the primary rate limit:
// every call that reached an endpoint but those answered 304 Not Modified
// (see conditional). Calls refused for the rate limit are not charged.
func (s *Server) Charged() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.charged
}

// CallsTo counts the calls whose method is method ("" matches any) and
// whose decoded path starts with pathPrefix.
func (s *Server) CallsTo(method, pathPrefix string) int {
	return s.countCalls(method, func(p string) bool { return strings.HasPrefix(p, pathPrefix) })
}

// CallsMatching counts the calls whose method is method ("" matches any)
// and whose decoded path, without the query, path matches (anchor it to
// match the whole path).
func (s *Server) CallsMatching(method string, path *regexp.Regexp) int {
	return s.countCalls(method, path.MatchString)
}

func (s *Server) countCalls(method string, match func(path string) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.callLog {
		m, rest, _ := strings.Cut(c, " ")
		p, _, _ := strings.Cut(rest, "?")
		if (method == "" || strings.EqualFold(m, method)) && match(p) {
			n++
		}
	}
	return n
}

// CallLog returns the calls in order as "METHOD /path?query" (the last
// 100000 are kept).
func (s *Server) CallLog() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.callLog...)
}

// ResetCalls forgets the calls counted so far (not the rate limit).
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = 0
	s.charged = 0
	s.callLog = nil
	s.byRoute = map[string]int{}
}

// Inject makes requests whose method is method ("" or "*" matches any) and
// whose path starts with pathPrefix fail as f says. Faults are tried in
// the order they were injected; the first one that still has hits left
// applies. Paths under /_blobs/ can be faulted too.
func (s *Server) Inject(method, pathPrefix string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if method == "*" {
		method = ""
	}
	s.faults = append(s.faults, &faultRule{method: strings.ToUpper(method), prefix: pathPrefix, fault: f, left: f.Times})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// matchFault returns the fault for a request and uses one of its hits.
func (s *Server) matchFault(method, path string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fr := range s.faults {
		if fr.method != "" && fr.method != method {
			continue
		}
		if !strings.HasPrefix(path, fr.prefix) {
			continue
		}
		if fr.fault.Times > 0 {
			if fr.left <= 0 {
				continue
			}
			fr.left--
		}
		return fr.fault, true
	}
	return Fault{}, false
}

// wait blocks for d or until the request or the server ends; it reports
// whether the full delay passed.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		return false
	}
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

func baseName(p string) string {
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[i+1:]
	}
	return p
}
