package fakegithub

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxSeedBytes bounds what LoadSeed reads.
const MaxSeedBytes = 16 << 20

// State is the JSON document LoadSeed reads and Dump writes. A dump loads
// back into an empty Server as the same state (its calls are ignored).
type State struct {
	Tokens    []TokenState `json:"tokens,omitempty"`
	RateLimit *RateState   `json:"rate_limit,omitempty"`
	PageSize  int          `json:"page_size,omitempty"`
	Repos     []RepoState  `json:"repos"`
	Calls     *CallStats   `json:"calls,omitempty"`
}

// TokenState is a token and the user it authenticates as: Type "Bot" is
// an installation token (the workflow's GITHUB_TOKEN), anything else a
// user's. Permissions are its job's permissions: block (scope -> read,
// write or none; the scopes not named are none); absent means every scope
// writable. ReadOnly gives read access to every scope (a fork's pull
// request) and is not combined with Permissions.
type TokenState struct {
	Token       string            `json:"token"`
	Login       string            `json:"login"`
	Type        string            `json:"type,omitempty"`
	ReadOnly    bool              `json:"read_only,omitempty"`
	Permissions map[string]string `json:"permissions,omitempty"`
}

// RateState is the primary rate limit.
type RateState struct {
	Limit     int       `json:"limit"`
	Remaining int       `json:"remaining"`
	Reset     time.Time `json:"reset,omitzero"`
}

// RepoState is one repository and everything in it. Pull labels are the
// labels currently on the pull request.
type RepoState struct {
	Owner         string            `json:"owner"`
	Name          string            `json:"name"`
	Private       bool              `json:"private,omitempty"`
	DefaultBranch string            `json:"default_branch,omitempty"`
	Labels        []Label           `json:"labels,omitempty"`
	Pulls         []Pull            `json:"pulls,omitempty"`
	Issues        []IssueState      `json:"issues,omitempty"`
	Runs          []Run             `json:"runs,omitempty"`
	Artifacts     []ArtifactState   `json:"artifacts,omitempty"`
	Permissions   map[string]string `json:"permissions,omitempty"`
	Files         []FileState       `json:"files,omitempty"`
	Comments      []CommentState    `json:"comments,omitempty"`
	Events        []EventState      `json:"events,omitempty"`
	Statuses      []StatusState     `json:"statuses,omitempty"`
	CheckRuns     []CheckRunState   `json:"check_runs,omitempty"`
	Dispatches    []Dispatch        `json:"dispatches,omitempty"`
}

// IssueState is a plain issue (not a pull request).
type IssueState struct {
	Number int      `json:"number"`
	Title  string   `json:"title,omitempty"`
	Labels []string `json:"labels,omitempty"`
}

// ArtifactState is a workflow run artifact. Zip is the archive (base64 in
// JSON); a seed may give ZipFiles (name -> text) instead and the server
// builds the archive.
type ArtifactState struct {
	ID        int64             `json:"id,omitempty"`
	RunID     int64             `json:"run_id"`
	Name      string            `json:"name"`
	Zip       []byte            `json:"zip,omitempty"`
	ZipFiles  map[string]string `json:"zip_files,omitempty"`
	Expired   bool              `json:"expired,omitempty"`
	CreatedAt time.Time         `json:"created_at,omitzero"`
}

// FileState is a file of the contents endpoint: Content as text, or
// ContentBase64 for binary files (base64 in JSON).
type FileState struct {
	Ref           string `json:"ref,omitempty"`
	Path          string `json:"path"`
	Content       string `json:"content,omitempty"`
	ContentBase64 []byte `json:"content_base64,omitempty"`
}

// CommentState is an issue comment on issue Number.
type CommentState struct {
	Number int `json:"number"`
	Comment
}

// EventState is an issue event of any type EventTypes lists: Label names
// the label of a labeled or unlabeled event, CommitID the commit of one
// that has one (referenced, closed, merged, ...).
type EventState struct {
	ID        int64     `json:"id,omitempty"`
	Number    int       `json:"number"`
	Event     string    `json:"event"`
	Label     string    `json:"label,omitempty"`
	Login     string    `json:"login"`
	UserType  string    `json:"user_type,omitempty"`
	CommitID  string    `json:"commit_id,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	// App is the slug of the GitHub App that acted for Login
	// (performed_via_github_app), "" for none.
	App string `json:"app,omitempty"`
}

// EventTypes are the event types of the issue events API
// (https://docs.github.com/en/rest/using-the-rest-api/issue-event-types);
// the timeline's own (commented, committed, reviewed, cross-referenced) are
// not among them.
var EventTypes = []string{
	"added_to_project", "assigned", "automatic_base_change_failed", "automatic_base_change_succeeded",
	"base_ref_changed", "closed", "connected", "convert_to_draft", "converted_note_to_issue",
	"converted_to_discussion", "demilestoned", "deployed", "deployment_environment_changed", "disconnected",
	"head_ref_deleted", "head_ref_force_pushed", "head_ref_restored", "labeled", "locked", "marked_as_duplicate",
	"mentioned", "merged", "milestoned", "moved_columns_in_project", "pinned", "ready_for_review", "referenced",
	"removed_from_project", "renamed", "reopened", "review_dismissed", "review_request_removed",
	"review_requested", "subscribed", "transferred", "unassigned", "unlabeled", "unlocked",
	"unmarked_as_duplicate", "unpinned", "unsubscribed", "user_blocked",
}

// checkEvent validates an event to seed.
func checkEvent(e EventState) error {
	known := false
	for _, t := range EventTypes {
		known = known || t == e.Event
	}
	switch {
	case e.Number <= 0 || e.ID < 0:
		return fmt.Errorf("event %q: needs a positive number (got %d)", e.Event, e.Number)
	case !known:
		return fmt.Errorf("event %q is not a type of GitHub's issue events", e.Event)
	case (e.Event == "labeled" || e.Event == "unlabeled") && e.Label == "":
		return fmt.Errorf("event %q on #%d: needs a label", e.Event, e.Number)
	}
	return nil
}

func eventOfState(e EventState) event {
	return event(e)
}

// StatusState is a commit status posted for SHA.
type StatusState struct {
	ID          int64     `json:"id,omitempty"`
	SHA         string    `json:"sha"`
	CreatorType string    `json:"creator_type,omitempty"`
	CreatedAt   time.Time `json:"created_at,omitzero"`
	Status
}

// CheckRunState is a check run with the fields the inspection type omits.
type CheckRunState struct {
	CheckRun
	DetailsURL  string    `json:"details_url,omitempty"`
	ExternalID  string    `json:"external_id,omitempty"`
	Text        string    `json:"text,omitempty"`
	Annotations int       `json:"annotations,omitempty"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

// CallStats is the call accounting in a dump.
type CallStats struct {
	Total   int            `json:"total"`
	ByRoute map[string]int `json:"by_route"`
	Log     []string       `json:"log"`
}

var permissions = map[string]bool{"admin": true, "maintain": true, "write": true, "triage": true, "read": true, "none": true}

// LoadSeed reads a State document (at most MaxSeedBytes) and adds it to
// the server's state. It checks the whole document before changing
// anything and names the first bad entry.
func (s *Server) LoadSeed(r io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(r, MaxSeedBytes+1))
	if err != nil {
		return fmt.Errorf("read seed: %w", err)
	}
	if len(data) > MaxSeedBytes {
		return fmt.Errorf("read seed: larger than %d bytes", MaxSeedBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		return fmt.Errorf("decode seed: %w", err)
	}
	if dec.More() {
		return errors.New("decode seed: more than one JSON value")
	}
	zips, err := checkState(&st)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applyLocked(&st, zips)
	return nil
}

// checkState validates a seed and builds the archives given as ZipFiles,
// keyed by repository index and artifact index.
func checkState(st *State) (map[[2]int][]byte, error) {
	for i, t := range st.Tokens {
		if t.Token == "" || t.Login == "" {
			return nil, fmt.Errorf("tokens[%d]: token and login are required", i)
		}
		if t.ReadOnly && t.Permissions != nil {
			return nil, fmt.Errorf("tokens[%d]: give read_only or permissions, not both", i)
		}
		for scope, level := range t.Permissions {
			if level != "read" && level != "write" && level != "none" {
				return nil, fmt.Errorf("tokens[%d]: permissions[%q]: %q is not read, write or none", i, scope, level)
			}
		}
	}
	if rl := st.RateLimit; rl != nil && (rl.Limit < 0 || rl.Remaining < 0 || rl.Remaining > rl.Limit) {
		return nil, fmt.Errorf("rate_limit: remaining %d must be within 0..limit %d", rl.Remaining, rl.Limit)
	}
	if st.PageSize < 0 || st.PageSize > maxPerPage {
		return nil, fmt.Errorf("page_size: %d is outside 0..%d", st.PageSize, maxPerPage)
	}
	zips := map[[2]int][]byte{}
	for i := range st.Repos {
		rs := &st.Repos[i]
		if rs.Owner == "" || rs.Name == "" || strings.Contains(rs.Owner+rs.Name, "/") {
			return nil, fmt.Errorf("repos[%d]: owner %q and name %q must be non-empty and hold no slash", i, rs.Owner, rs.Name)
		}
		where := fmt.Sprintf("repos[%d] (%s/%s)", i, rs.Owner, rs.Name)
		for j, l := range rs.Labels {
			if strings.TrimSpace(l.Name) == "" || utf8.RuneCountInString(l.Name) > maxLabelName {
				return nil, fmt.Errorf("%s: labels[%d]: name %q must have 1..%d characters", where, j, l.Name, maxLabelName)
			}
			if l.Color != "" && !validColor(strings.TrimPrefix(l.Color, "#")) {
				return nil, fmt.Errorf("%s: labels[%d]: color %q is not 6 hex digits", where, j, l.Color)
			}
		}
		for j, p := range rs.Pulls {
			if p.Number <= 0 {
				return nil, fmt.Errorf("%s: pulls[%d]: number %d must be positive", where, j, p.Number)
			}
			if p.State != "" && p.State != "open" && p.State != "closed" {
				return nil, fmt.Errorf("%s: pulls[%d]: state %q must be open or closed", where, j, p.State)
			}
		}
		for j, is := range rs.Issues {
			if is.Number <= 0 {
				return nil, fmt.Errorf("%s: issues[%d]: number %d must be positive", where, j, is.Number)
			}
		}
		for j, r := range rs.Runs {
			if r.ID < 0 {
				return nil, fmt.Errorf("%s: runs[%d]: id %d must not be negative", where, j, r.ID)
			}
		}
		for j, a := range rs.Artifacts {
			if a.Name == "" || a.ID < 0 {
				return nil, fmt.Errorf("%s: artifacts[%d]: name is required and id must not be negative", where, j)
			}
			if a.ZipFiles != nil {
				if a.Zip != nil {
					return nil, fmt.Errorf("%s: artifacts[%d]: give zip or zip_files, not both", where, j)
				}
				z, err := buildZip(a.ZipFiles)
				if err != nil {
					return nil, fmt.Errorf("%s: artifacts[%d]: %w", where, j, err)
				}
				zips[[2]int{i, j}] = z
			}
		}
		for login, p := range rs.Permissions {
			if !permissions[p] {
				return nil, fmt.Errorf("%s: permissions[%q]: %q is not admin, maintain, write, triage, read or none", where, login, p)
			}
		}
		for j, f := range rs.Files {
			if strings.Trim(f.Path, "/") == "" {
				return nil, fmt.Errorf("%s: files[%d]: path is required", where, j)
			}
			if f.Content != "" && f.ContentBase64 != nil {
				return nil, fmt.Errorf("%s: files[%d]: give content or content_base64, not both", where, j)
			}
		}
		for j, c := range rs.Comments {
			if c.Number <= 0 || c.ID < 0 {
				return nil, fmt.Errorf("%s: comments[%d]: number %d must be positive", where, j, c.Number)
			}
		}
		for j, e := range rs.Events {
			if err := checkEvent(e); err != nil {
				return nil, fmt.Errorf("%s: events[%d]: %w", where, j, err)
			}
		}
		for j, st := range rs.Statuses {
			if st.SHA == "" || !statusStates[st.State] {
				return nil, fmt.Errorf("%s: statuses[%d]: needs a sha and a state of error, failure, pending or success (got %q)", where, j, st.State)
			}
		}
		for j, cr := range rs.CheckRuns {
			if cr.Name == "" || cr.HeadSHA == "" || !checkStatuses[cr.Status] || (cr.Conclusion != "" && !checkConclusions[cr.Conclusion]) {
				return nil, fmt.Errorf("%s: check_runs[%d]: needs a name, a head_sha and a valid status and conclusion", where, j)
			}
		}
	}
	return zips, nil
}

func buildZip(files map[string]string) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Deflate, Modified: time.Unix(0, 0).UTC()})
		if err != nil {
			return nil, fmt.Errorf("zip_files %q: %w", n, err)
		}
		if _, err := io.WriteString(w, files[n]); err != nil {
			return nil, fmt.Errorf("zip_files %q: %w", n, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("zip_files: %w", err)
	}
	return buf.Bytes(), nil
}

func (s *Server) applyLocked(st *State, zips map[[2]int][]byte) {
	for _, t := range st.Tokens {
		typ := t.Type
		if typ == "" {
			typ = "User"
		}
		tok := &token{login: t.Login, userType: typ, app: typ == "Bot", perms: normalPerms(t.Permissions)}
		if t.ReadOnly {
			tok.perms = map[string]string{}
			for _, scope := range Scopes {
				tok.perms[scope] = "read"
			}
		}
		s.tokens[t.Token] = tok
	}
	if rl := st.RateLimit; rl != nil {
		s.core.limit, s.core.remaining, s.core.reset = rl.Limit, rl.Remaining, rl.Reset.Truncate(time.Second)
	}
	if st.PageSize > 0 {
		s.pageSize = st.PageSize
	}
	for i := range st.Repos {
		rs := &st.Repos[i]
		rp := s.repoLocked(rs.Owner, rs.Name, true)
		rp.private = rp.private || rs.Private
		if rs.DefaultBranch != "" {
			rp.defaultBranch = rs.DefaultBranch
		}
		for _, l := range rs.Labels {
			color := strings.ToLower(strings.TrimPrefix(l.Color, "#"))
			if color == "" {
				color = DefaultLabelColor
			}
			if old := rp.findLabel(l.Name); old != nil {
				old.Color, old.Description = color, l.Description
				continue
			}
			rp.labels = append(rp.labels, &label{id: s.id(), Label: Label{Name: l.Name, Color: color, Description: l.Description}})
		}
		for _, p := range rs.Pulls {
			s.addPullLocked(rs.Owner, rs.Name, p)
		}
		for _, is := range rs.Issues {
			x := rp.issueLocked(is.Number, true)
			if is.Title != "" {
				x.title = is.Title
			}
			for _, n := range is.Labels {
				l := s.ensureLabel(rp, n)
				if !containsFold(x.labels, l.Name) {
					x.labels = append(x.labels, l.Name)
				}
			}
		}
		for _, r := range rs.Runs {
			s.addRunLocked(rs.Owner, rs.Name, r)
		}
		for j, a := range rs.Artifacts {
			z := a.Zip
			if built, ok := zips[[2]int{i, j}]; ok {
				z = built
			}
			s.addArtifactLocked(rs.Owner, rs.Name, a.ID, a.RunID, a.Name, z, a.Expired, a.CreatedAt)
		}
		for login, p := range rs.Permissions {
			rp.perms[strings.ToLower(login)] = perm{login: login, permission: p}
		}
		for _, f := range rs.Files {
			ref := f.Ref
			if ref == "" {
				ref = rp.defaultBranch
			}
			content := []byte(f.Content)
			if f.ContentBase64 != nil {
				content = f.ContentBase64
			}
			if rp.files[ref] == nil {
				rp.files[ref] = map[string][]byte{}
			}
			rp.files[ref][strings.Trim(f.Path, "/")] = content
		}
		for _, c := range rs.Comments {
			s.addCommentLocked(rs.Owner, rs.Name, c.Number, c.Comment)
		}
		for _, e := range rs.Events {
			s.addEventLocked(rs.Owner, rs.Name, e.Number, eventOfState(e))
		}
		for _, x := range rs.Statuses {
			st := &status{ID: x.ID, SHA: x.SHA, CreatorType: x.CreatorType, CreatedAt: x.CreatedAt.UTC().Truncate(time.Second), Status: x.Status}
			if st.ID == 0 {
				st.ID = s.id()
			}
			s.seenID(st.ID)
			rp.statuses = append(rp.statuses, st)
		}
		sort.SliceStable(rp.statuses, func(a, b int) bool { return rp.statuses[a].ID < rp.statuses[b].ID })
		for _, x := range rs.CheckRuns {
			cr := &checkRun{CheckRun: x.CheckRun, DetailsURL: x.DetailsURL, ExternalID: x.ExternalID, Text: x.Text,
				Annotations: x.Annotations, StartedAt: x.StartedAt, CompletedAt: x.CompletedAt}
			if cr.ID == 0 {
				cr.ID = s.id()
			}
			s.seenID(cr.ID)
			replaced := false
			for k, old := range rp.checkRuns {
				if old.ID == cr.ID {
					rp.checkRuns[k], replaced = cr, true
				}
			}
			if !replaced {
				rp.checkRuns = append(rp.checkRuns, cr)
			}
		}
		sort.SliceStable(rp.checkRuns, func(a, b int) bool { return rp.checkRuns[a].ID < rp.checkRuns[b].ID })
		rp.dispatches = append(rp.dispatches, rs.Dispatches...)
	}
}

// State returns the server's state and call accounting, as Dump writes it.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked()
}

func (s *Server) stateLocked() State {
	st := State{
		RateLimit: &RateState{Limit: s.core.limit, Remaining: s.core.remaining, Reset: s.core.reset.UTC()},
		PageSize:  s.pageSize,
		Repos:     []RepoState{},
		Calls:     &CallStats{Total: s.calls, ByRoute: map[string]int{}, Log: append([]string{}, s.callLog...)},
	}
	for k, v := range s.byRoute {
		st.Calls.ByRoute[k] = v
	}
	for tok, t := range s.tokens {
		ts := TokenState{Token: tok, Login: t.login, Type: t.userType}
		if t.perms != nil {
			ts.Permissions = map[string]string{}
			for _, scope := range Scopes {
				if level, ok := t.perms[scope]; ok {
					ts.Permissions[scope] = level
				} else {
					ts.Permissions[scope] = "none"
				}
			}
		}
		st.Tokens = append(st.Tokens, ts)
	}
	sort.Slice(st.Tokens, func(i, j int) bool { return st.Tokens[i].Token < st.Tokens[j].Token })
	keys := make([]string, 0, len(s.repos))
	for k := range s.repos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		st.Repos = append(st.Repos, s.repoStateLocked(s.repos[k]))
	}
	return st
}

func (s *Server) repoStateLocked(rp *repo) RepoState {
	rs := RepoState{Owner: rp.owner, Name: rp.name, Private: rp.private, DefaultBranch: rp.defaultBranch}
	for _, l := range rp.labels {
		rs.Labels = append(rs.Labels, l.Label)
	}
	nums := make([]int, 0, len(rp.issues))
	for n := range rp.issues {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		is := rp.issues[n]
		if is.pull != nil {
			p := *is.pull
			p.Labels = append([]string(nil), is.labels...)
			rs.Pulls = append(rs.Pulls, p)
		} else {
			rs.Issues = append(rs.Issues, IssueState{Number: n, Title: is.title, Labels: append([]string(nil), is.labels...)})
		}
		for _, c := range is.comments {
			rs.Comments = append(rs.Comments, CommentState{Number: n, Comment: *c})
		}
		for _, e := range is.events {
			rs.Events = append(rs.Events, EventState{ID: e.ID, Number: n, Event: e.Event, Label: e.Label,
				Login: e.Login, UserType: e.UserType, CommitID: e.CommitID, CreatedAt: e.CreatedAt})
		}
	}
	for _, r := range rp.runs {
		rs.Runs = append(rs.Runs, *r)
	}
	for _, a := range rp.artifacts {
		rs.Artifacts = append(rs.Artifacts, ArtifactState{ID: a.id, RunID: a.runID, Name: a.name,
			Zip: append([]byte{}, a.zip...), Expired: a.expired, CreatedAt: a.createdAt})
	}
	if len(rp.perms) > 0 {
		rs.Permissions = map[string]string{}
		for _, p := range rp.perms {
			rs.Permissions[p.login] = p.permission
		}
	}
	refs := make([]string, 0, len(rp.files))
	for ref := range rp.files {
		refs = append(refs, ref)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		paths := make([]string, 0, len(rp.files[ref]))
		for p := range rp.files[ref] {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			f := FileState{Ref: ref, Path: p}
			if b := rp.files[ref][p]; utf8.Valid(b) {
				f.Content = string(b)
			} else {
				f.ContentBase64 = append([]byte{}, b...)
			}
			rs.Files = append(rs.Files, f)
		}
	}
	for _, x := range rp.statuses {
		rs.Statuses = append(rs.Statuses, StatusState{ID: x.ID, SHA: x.SHA, CreatorType: x.CreatorType, CreatedAt: x.CreatedAt, Status: x.Status})
	}
	for _, x := range rp.checkRuns {
		rs.CheckRuns = append(rs.CheckRuns, CheckRunState{CheckRun: x.CheckRun, DetailsURL: x.DetailsURL,
			ExternalID: x.ExternalID, Text: x.Text, Annotations: x.Annotations, StartedAt: x.StartedAt, CompletedAt: x.CompletedAt})
	}
	rs.Dispatches = append(rs.Dispatches, rp.dispatches...)
	return rs
}

// Dump writes the state and the call accounting as indented JSON.
func (s *Server) Dump(w io.Writer) error {
	st := s.State()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(st); err != nil {
		return fmt.Errorf("write dump: %w", err)
	}
	return nil
}

// serveUpload answers POST /_fake/upload?repo=owner/name&run_id=N&name=X
// [&overwrite=true] with the zip as the body (or, with file=NAME, the one
// file the archive holds): UploadArtifact, 201 with the new id, or 409
// with upload-artifact's message. With an Authorization header it is a
// step's upload, which needs the runtime token of that run (RuntimeToken):
// another run's, or any other token, answers 401; without one it stands
// for the workflow's own upload step.
func (s *Server) serveUpload(c *call) {
	q := c.r.URL.Query()
	owner, repo, ok := strings.Cut(q.Get("repo"), "/")
	runID, err := strconv.ParseInt(q.Get("run_id"), 10, 64)
	if !ok || owner == "" || repo == "" || err != nil || runID <= 0 || q.Get("name") == "" {
		c.errorf(http.StatusBadRequest, "upload needs repo=owner/name, a positive run_id and a name")
		return
	}
	if auth := c.r.Header.Get("Authorization"); auth != "" {
		_, tok, _ := strings.Cut(auth, " ")
		s.mu.Lock()
		run, ok := s.runtime[strings.TrimSpace(tok)]
		s.mu.Unlock()
		if !ok || run != (runRef{owner, repo, runID}) {
			c.errorf(http.StatusUnauthorized, "the token is not the runtime token of run %d of %s/%s", runID, owner, repo)
			return
		}
	}
	zip, err := io.ReadAll(c.r.Body)
	if err != nil {
		c.errorf(http.StatusBadRequest, "read the upload: %s", err)
		return
	}
	if name := q.Get("file"); name != "" {
		if zip, err = buildZip(map[string]string{name: string(zip)}); err != nil {
			c.errorf(http.StatusBadRequest, "zip the upload: %s", err)
			return
		}
	}
	id, err := s.UploadArtifact(owner, repo, runID, q.Get("name"), zip, q.Get("overwrite") == "true")
	if err != nil {
		c.errorf(http.StatusConflict, "%s", err)
		return
	}
	c.writeJSON(http.StatusCreated, obj{"id": id})
}

// serveEvent answers GET /_fake/event?repo=owner/name&kind=K with the
// payload of an event and its run's ref (whose workflow files run) in the
// X-Fake-Ref header: kind=pull_request&number=N[&action=A] (and the merge
// commit in X-Fake-Sha), kind=pull_request_target&number=N[&action=A] (the
// base's commit in X-Fake-Sha), kind=issue_comment&number=N&comment_id=ID,
// kind=workflow_run&run_id=ID, kind=merge_group&number=N&sha=GROUP,
// kind=schedule, or kind=workflow_dispatch (the newest dispatch's run).
func (s *Server) serveEvent(c *call) {
	q := c.r.URL.Query()
	owner, repo, _ := strings.Cut(q.Get("repo"), "/")
	num := func(k string) int64 {
		n, _ := strconv.ParseInt(q.Get(k), 10, 64)
		return n
	}
	var payload []byte
	var ref, sha string
	var err error
	switch q.Get("kind") {
	case "pull_request":
		action := q.Get("action")
		if action == "" {
			action = "synchronize"
		}
		payload, ref, sha, err = s.PullRequestEvent(owner, repo, int(num("number")), action)
	case "issue_comment":
		payload, ref, err = s.IssueCommentEvent(owner, repo, int(num("number")), num("comment_id"))
	case "workflow_run":
		payload, ref, err = s.WorkflowRunEvent(owner, repo, num("run_id"))
	case "pull_request_target":
		payload, ref, sha, err = s.PullRequestTargetEvent(owner, repo, int(num("number")), orDefault(q.Get("action"), "synchronize"))
	case "merge_group":
		payload, ref, sha, err = s.MergeGroupEvent(owner, repo, int(num("number")), q.Get("sha"))
	case "schedule":
		payload, ref, err = s.ScheduleEvent(owner, repo, orDefault(q.Get("cron"), "0 * * * *"))
	case "workflow_dispatch":
		// The newest dispatch made through the API: the run it starts.
		d := s.Dispatches(owner, repo)
		if len(d) == 0 {
			err = fmt.Errorf("no workflow_dispatch was made on %s/%s", owner, repo)
			break
		}
		payload, ref, err = s.WorkflowDispatchEvent(owner, repo, d[len(d)-1])
	default:
		err = fmt.Errorf("kind %q is not pull_request, pull_request_target, issue_comment, workflow_run, workflow_dispatch, merge_group or schedule", q.Get("kind"))
	}
	if err != nil {
		c.errorf(http.StatusBadRequest, "event: %s", err)
		return
	}
	c.w.Header().Set("X-Fake-Ref", ref)
	c.w.Header().Set("X-Fake-Sha", sha)
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = c.w.Write(payload)
}

// serveFake answers the control endpoints: GET or POST /_fake/dump (the
// dump as the body), POST /_fake/seed (LoadSeed of the body), POST
// /_fake/reset-calls, POST /_fake/upload (serveUpload), GET /_fake/event
// (serveEvent) and POST /_fake/push?repo=owner/name&number=N&head=H&merge=M
// (Push).
func (s *Server) serveFake(c *call) {
	switch {
	case c.r.URL.Path == "/_fake/dump" && (c.r.Method == http.MethodGet || c.r.Method == http.MethodPost):
		var buf bytes.Buffer
		if err := s.Dump(&buf); err != nil {
			c.errorf(http.StatusInternalServerError, "%s", err)
			return
		}
		c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = c.w.Write(buf.Bytes())
	case c.r.URL.Path == "/_fake/seed" && c.r.Method == http.MethodPost:
		if err := s.LoadSeed(c.r.Body); err != nil {
			c.errorf(http.StatusBadRequest, "%s", err)
			return
		}
		c.w.WriteHeader(http.StatusNoContent)
	case c.r.URL.Path == "/_fake/reset-calls" && c.r.Method == http.MethodPost:
		s.ResetCalls()
		c.w.WriteHeader(http.StatusNoContent)
	case c.r.URL.Path == "/_fake/upload" && c.r.Method == http.MethodPost:
		s.serveUpload(c)
	case c.r.URL.Path == "/_fake/event" && c.r.Method == http.MethodGet:
		s.serveEvent(c)
	case c.r.URL.Path == "/_fake/push" && c.r.Method == http.MethodPost:
		q := c.r.URL.Query()
		owner, repo, _ := strings.Cut(q.Get("repo"), "/")
		n, _ := strconv.Atoi(q.Get("number"))
		if err := s.Push(owner, repo, n, q.Get("head"), q.Get("merge")); err != nil {
			c.errorf(http.StatusBadRequest, "%s", err)
			return
		}
		c.w.WriteHeader(http.StatusNoContent)
	default:
		c.notFound()
	}
}
