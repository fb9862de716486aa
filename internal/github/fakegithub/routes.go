package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Documentation pages of the endpoints: each one's errors name it, as
// GitHub's do, and its handler follows what the page says.
const (
	docUser           = "https://docs.github.com/rest/users/users#get-the-authenticated-user"
	docListPulls      = "https://docs.github.com/rest/pulls/pulls#list-pull-requests"
	docGetPull        = "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"
	docPullCommits    = "https://docs.github.com/rest/pulls/pulls#list-commits-on-a-pull-request"
	docPullFiles      = "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files"
	docCreateLabel    = "https://docs.github.com/rest/issues/labels#create-a-label"
	docGetLabel       = "https://docs.github.com/rest/issues/labels#get-a-label"
	docUpdateLabel    = "https://docs.github.com/rest/issues/labels#update-a-label"
	docAddLabels      = "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"
	docRemoveLabel    = "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue"
	docIssueEvents    = "https://docs.github.com/rest/issues/events#list-issue-events"
	docRepoEvents     = "https://docs.github.com/rest/issues/events#list-issue-events-for-a-repository"
	docListComments   = "https://docs.github.com/rest/issues/comments#list-issue-comments"
	docCreateComment  = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	docUpdateComment  = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	docStatus         = "https://docs.github.com/rest/commits/statuses#create-a-commit-status"
	docCheckRun       = "https://docs.github.com/rest/checks/runs#create-a-check-run"
	docArtifacts      = "https://docs.github.com/rest/actions/artifacts#list-artifacts-for-a-repository"
	docDownload       = "https://docs.github.com/rest/actions/artifacts#download-an-artifact"
	docPermission     = "https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user"
	docContents       = "https://docs.github.com/rest/repos/contents#get-repository-content"
	docSearch         = "https://docs.github.com/rest/search/search#search-issues-and-pull-requests"
	docWorkflowRuns   = "https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow"
	docRunArtifacts   = "https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts"
	docTeamMembership = "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user"
)

// routes registers the endpoints loopbreaker's client calls, and no
// others: an unknown route answers 404.
func (s *Server) routes() {
	const repo = "/repos/{o}/{r}"
	s.handle("GET /user", docUser, s.getUser)
	s.handle("GET /search/issues", docSearch, s.searchIssues)

	s.handle("GET "+repo+"/pulls", docListPulls, s.listPulls)
	s.handle("GET "+repo+"/pulls/{n}", docGetPull, s.getPull)
	s.handle("GET "+repo+"/pulls/{n}/commits", docPullCommits, s.listPullCommits)
	s.handle("GET "+repo+"/pulls/{n}/files", docPullFiles, s.listPullFiles)

	s.handle("POST "+repo+"/labels", docCreateLabel, s.createLabel)
	s.handle("GET "+repo+"/labels/{name}", docGetLabel, s.getLabel)
	s.handle("PATCH "+repo+"/labels/{name}", docUpdateLabel, s.updateLabel)

	s.handle("POST "+repo+"/issues/{n}/labels", docAddLabels, s.addIssueLabels)
	s.handle("DELETE "+repo+"/issues/{n}/labels/{name}", docRemoveLabel, s.removeIssueLabel)
	s.handle("GET "+repo+"/issues/{n}/events", docIssueEvents, s.listIssueEvents)
	s.handle("GET "+repo+"/issues/events", docRepoEvents, s.listRepoIssueEvents)
	s.handle("GET "+repo+"/issues/{n}/comments", docListComments, s.listComments)
	s.handle("POST "+repo+"/issues/{n}/comments", docCreateComment, s.createComment)
	s.handle("PATCH "+repo+"/issues/comments/{id}", docUpdateComment, s.updateComment)

	s.handle("POST "+repo+"/statuses/{sha}", docStatus, s.createStatus)
	s.handle("POST "+repo+"/check-runs", docCheckRun, s.createCheckRun)

	s.handle("GET "+repo+"/actions/artifacts", docArtifacts, s.listArtifacts)
	s.handle("GET "+repo+"/actions/artifacts/{id}/zip", docDownload, s.downloadArtifact)
	s.handle("GET "+repo+"/actions/workflows/{wf}/runs", docWorkflowRuns, s.listWorkflowRuns)
	s.handle("GET "+repo+"/actions/runs/{id}/artifacts", docRunArtifacts, s.listRunArtifacts)
	s.handle("POST "+repo+"/actions/workflows/{wf}/dispatches", docDispatch, s.createDispatch)

	s.handle("GET "+repo+"/collaborators/{user}/permission", docPermission, s.getPermission)
	s.handle("GET "+repo+"/contents/{path...}", docContents, s.getContents)

	s.handle("GET /orgs/{org}/teams/{slug}/memberships/{user}", docTeamMembership, s.getTeamMembership)

	s.handle("/", "", func(c *call) { c.notFound() })
}

// getUser answers the token's user. An installation token has none: the
// workflow's GITHUB_TOKEN gets 403 "Resource not accessible by
// integration" (https://github.com/actions/create-github-app-token/issues/258).
func (s *Server) getUser(c *call) {
	if c.user == nil {
		c.errorf(http.StatusUnauthorized, "Requires authentication")
		return
	}
	if c.user.app {
		c.errorf(http.StatusForbidden, "%s", msgIntegration)
		return
	}
	c.writeJSON(http.StatusOK, c.userJSON(c.user.login, c.user.userType))
}

// ---- pulls

// listPulls lists pull requests in the query's state and order; head
// ("owner:branch") keeps those whose head has that owner and branch, a
// fork's too (https://docs.github.com/en/rest/pulls/pulls#list-pull-requests).
func (s *Server) listPulls(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "pull_requests=read") {
		return
	}
	q := c.r.URL.Query()
	headOwner, headRef, byHead := strings.Cut(q.Get("head"), ":")
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		c.invalid("PullRequest", "state", "invalid", "")
		return
	}
	sortBy := q.Get("sort")
	if sortBy == "" {
		sortBy = "created"
	}
	dir := q.Get("direction")
	if dir == "" {
		dir = "asc"
		if sortBy == "created" {
			dir = "desc"
		}
	}
	var list []*issue
	for _, is := range rp.issues {
		p := is.pull
		if p == nil || (state != "all" && p.State != state) {
			continue
		}
		if byHead && (!strings.EqualFold(rp.headOwner(p), headOwner) || p.HeadRef != headRef) {
			continue
		}
		list = append(list, is)
	}
	key := func(is *issue) int64 {
		p := is.pull
		switch sortBy {
		case "updated":
			return p.UpdatedAt.Unix()
		case "popularity":
			return int64(len(is.comments))
		case "long-running":
			return -p.CreatedAt.Unix()
		default:
			return p.CreatedAt.Unix()
		}
	}
	sort.Slice(list, func(i, j int) bool {
		ki, kj := key(list[i]), key(list[j])
		if ki == kj {
			ki, kj = int64(list[i].number), int64(list[j].number)
		}
		if dir == "desc" {
			return ki > kj
		}
		return ki < kj
	})
	start, end := c.paginate(len(list))
	out := []any{}
	for _, is := range list[start:end] {
		out = append(out, c.pullJSON(rp, is))
	}
	c.writeJSON(http.StatusOK, out)
}

func (c *call) pull() (*repo, *issue) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "pull_requests=read") {
		return nil, nil
	}
	is := c.issue(rp)
	if is == nil {
		return nil, nil
	}
	if is.pull == nil {
		c.notFound()
		return nil, nil
	}
	return rp, is
}

// getPull answers one pull request, open or closed.
func (s *Server) getPull(c *call) {
	rp, is := c.pull()
	if is == nil {
		return
	}
	c.writeJSON(http.StatusOK, c.pullJSON(rp, is))
}

// listPullCommits lists a pull request's commits, oldest first, at most 250
// ("Lists a maximum of 250 commits for a pull request"), each with its tree
// and parents: the first parent of the first commit is the base, of each
// later one the commit before it.
func (s *Server) listPullCommits(c *call) {
	rp, is := c.pull()
	if is == nil {
		return
	}
	shas := is.pull.Commits
	if len(shas) > maxPullCommits {
		shas = shas[:maxPullCommits]
	}
	start, end := c.paginate(len(shas))
	out := []any{}
	for i := start; i < end; i++ {
		sha := shas[i]
		author := obj{"name": is.pull.User, "email": is.pull.User + "@users.noreply.github.com", "date": ts(is.pull.CreatedAt)}
		commit := obj{
			"message":   "commit " + sha,
			"author":    author,
			"committer": author,
			"url":       c.repoURL(rp) + "/git/commits/" + sha,
		}
		if i < len(is.pull.Trees) && is.pull.Trees[i] != "" {
			tree := is.pull.Trees[i]
			commit["tree"] = obj{"sha": tree}
		}
		parents := []any{}
		parent := is.pull.BaseSHA
		if i > 0 {
			parent = shas[i-1]
		}
		if parent != "" {
			parents = append(parents, obj{"sha": parent, "url": c.repoURL(rp) + "/commits/" + parent,
				"html_url": fmt.Sprintf("%s/%s/%s/commit/%s", htmlBase, rp.owner, rp.name, parent)})
		}
		out = append(out, obj{
			"sha":      sha,
			"node_id":  nodeID("Commit", stableID(sha)),
			"url":      c.repoURL(rp) + "/commits/" + sha,
			"html_url": fmt.Sprintf("%s/%s/%s/commit/%s", htmlBase, rp.owner, rp.name, sha),
			"commit":   commit,
			"author":   c.userJSON(is.pull.User, is.pull.UserType),
			"parents":  parents,
		})
	}
	c.writeJSON(http.StatusOK, out)
}

func (s *Server) listPullFiles(c *call) {
	rp, is := c.pull()
	if is == nil {
		return
	}
	files := is.pull.Files
	if len(files) > maxPullFiles {
		files = files[:maxPullFiles]
	}
	start, end := c.paginate(len(files))
	out := []any{}
	for _, f := range files[start:end] {
		out = append(out, obj{
			"sha":       blobSHA([]byte(f)),
			"filename":  f,
			"status":    "modified",
			"additions": 1,
			"deletions": 1,
			"changes":   2,
			"blob_url":  fmt.Sprintf("%s/%s/%s/blob/%s/%s", htmlBase, rp.owner, rp.name, is.pull.HeadSHA, f),
			"raw_url":   fmt.Sprintf("%s/%s/%s/raw/%s/%s", htmlBase, rp.owner, rp.name, is.pull.HeadSHA, f),
		})
	}
	c.writeJSON(http.StatusOK, out)
}

// ---- labels

func (s *Server) getLabel(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "issues=read", "pull_requests=read") {
		return
	}
	l := rp.findLabel(c.r.PathValue("name"))
	if l == nil {
		c.notFound()
		return
	}
	c.writeJSON(http.StatusOK, c.labelJSON(rp, l))
}

type labelBody struct {
	Name        *string `json:"name"`
	Color       *string `json:"color"`
	Description *string `json:"description"`
}

// checkLabel validates a label's fields and answers 422 when one is bad.
func (c *call) checkLabel(name, color, desc string) bool {
	switch {
	case strings.TrimSpace(name) == "":
		c.invalid("Label", "name", "missing_field", "")
	case utf8.RuneCountInString(name) > maxLabelName:
		c.invalid("Label", "name", "custom", fmt.Sprintf("name is too long (maximum is %d characters)", maxLabelName))
	case !validColor(color):
		c.invalid("Label", "color", "invalid", "")
	case utf8.RuneCountInString(desc) > maxLabelDesc:
		c.invalid("Label", "description", "custom", fmt.Sprintf("description is too long (maximum is %d characters)", maxLabelDesc))
	default:
		return true
	}
	return false
}

func validColor(s string) bool {
	if len(s) != 6 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

func deref(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// createLabel creates a repository label. The page accepts issues or pull
// requests write, but since 2025 GitHub refuses pull requests write alone
// ("pull-request: write is no longer enough to create new labels",
// https://github.com/docker-library/official-images/pull/19241): the fake
// needs issues write.
func (s *Server) createLabel(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "issues=write") {
		return
	}
	var b labelBody
	if !c.decode(&b) {
		return
	}
	name := deref(b.Name, "")
	color := strings.TrimPrefix(deref(b.Color, DefaultLabelColor), "#")
	desc := deref(b.Description, "")
	if !c.checkLabel(name, color, desc) {
		return
	}
	if rp.findLabel(name) != nil {
		c.invalid("Label", "name", "already_exists", "")
		return
	}
	l := &label{id: s.id(), Label: Label{Name: name, Color: strings.ToLower(color), Description: desc}}
	rp.labels = append(rp.labels, l)
	c.writeJSON(http.StatusCreated, c.labelJSON(rp, l))
}

// updateLabel changes a label's colour or description (a new name is
// refused here: loopbreaker never renames). It needs issues write, as
// creating one does.
func (s *Server) updateLabel(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "issues=write") {
		return
	}
	l := rp.findLabel(c.r.PathValue("name"))
	if l == nil {
		c.notFound()
		return
	}
	var b labelBody
	if !c.decode(&b) {
		return
	}
	if b.Name != nil && !strings.EqualFold(*b.Name, l.Name) {
		c.invalid("Label", "name", "custom", "renaming is not served by this fake")
		return
	}
	color := strings.TrimPrefix(deref(b.Color, l.Color), "#")
	desc := deref(b.Description, l.Description)
	if !c.checkLabel(l.Name, color, desc) {
		return
	}
	l.Color, l.Description = strings.ToLower(color), desc
	c.writeJSON(http.StatusOK, c.labelJSON(rp, l))
}

func removeFold(list []string, name string) []string {
	var out []string
	for _, n := range list {
		if !strings.EqualFold(n, name) {
			out = append(out, n)
		}
	}
	return out
}

// ---- issues and issue labels

func (c *call) issueOf() (*repo, *issue) {
	rp := c.repo()
	if rp == nil {
		return nil, nil
	}
	return rp, c.issue(rp)
}

// labelsAllowed checks the token may change the labels of is. The page
// accepts issues or pull requests write; in the field a pull request's
// labels need pull requests write and issues write alone gets 403
// (https://github.com/NVIDIA/nvrc/pull/194,
// https://github.com/mavlink/qgroundcontrol/issues/14252), an issue's need
// issues write. Adding a label the repository lacks creates it in grey
// (https://www.github.com/open-mpi/pr-labeler/releases/tag/v1.0.0), which
// needs what creating a label needs: issues write.
func (c *call) labelsAllowed(rp *repo, is *issue, names ...string) bool {
	need := "issues=write"
	if is.pull != nil {
		need = "pull_requests=write"
	}
	for _, n := range names {
		if rp.findLabel(n) == nil {
			need += ",issues=write"
			break
		}
	}
	return c.allowed(rp, need)
}

// labelNames decodes the body of the add and replace endpoints: a JSON
// array of names, {"labels": [...]}, or either with {"name": ...} objects.
func (c *call) labelNames() ([]string, bool) {
	var raw json.RawMessage
	if !c.decode(&raw) {
		return nil, false
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		var wrap struct {
			Labels []json.RawMessage `json:"labels"`
		}
		if err := json.Unmarshal(raw, &wrap); err != nil {
			c.errorf(http.StatusBadRequest, "Problems parsing JSON")
			return nil, false
		}
		list = wrap.Labels
	}
	names := make([]string, 0, len(list))
	for _, item := range list {
		var name string
		if err := json.Unmarshal(item, &name); err != nil {
			var o struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(item, &o); err != nil {
				c.invalid("Label", "labels", "invalid", "")
				return nil, false
			}
			name = o.Name
		}
		if strings.TrimSpace(name) == "" {
			c.invalid("Label", "name", "missing_field", "")
			return nil, false
		}
		if utf8.RuneCountInString(name) > maxLabelName {
			c.invalid("Label", "name", "custom", fmt.Sprintf("name is too long (maximum is %d characters)", maxLabelName))
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// labelIssue puts a label on an issue, creating it in the repository when
// missing (in GitHub's grey), and records the labeled event.
func (c *call) labelIssue(rp *repo, is *issue, name string) {
	l := c.s.ensureLabel(rp, name)
	if containsFold(is.labels, l.Name) {
		return
	}
	is.labels = append(is.labels, l.Name)
	is.touch(c.now())
	login, typ := c.login()
	is.events = append(is.events, &event{ID: c.s.id(), Number: is.number, Event: "labeled",
		Label: l.Name, Login: login, UserType: typ, CreatedAt: c.now()})
}

func (c *call) unlabelIssue(is *issue, name string) bool {
	for _, n := range is.labels {
		if strings.EqualFold(n, name) {
			is.labels = removeFold(is.labels, name)
			is.touch(c.now())
			login, typ := c.login()
			is.events = append(is.events, &event{ID: c.s.id(), Number: is.number, Event: "unlabeled",
				Label: n, Login: login, UserType: typ, CreatedAt: c.now()})
			return true
		}
	}
	return false
}

func (s *Server) addIssueLabels(c *call) {
	rp, is := c.issueOf()
	if is == nil {
		return
	}
	names, ok := c.labelNames()
	if !ok || !c.labelsAllowed(rp, is, names...) {
		return
	}
	if len(is.labels)+len(names) > maxIssueLabels && len(uniqueNew(is.labels, names))+len(is.labels) > maxIssueLabels {
		c.invalid("Label", "labels", "custom", fmt.Sprintf("an issue can have at most %d labels", maxIssueLabels))
		return
	}
	for _, n := range names {
		c.labelIssue(rp, is, n)
	}
	c.writeJSON(http.StatusOK, c.issueLabelsJSON(rp, is))
}

func uniqueNew(have, add []string) []string {
	var out []string
	for _, n := range add {
		if !containsFold(have, n) && !containsFold(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func (s *Server) removeIssueLabel(c *call) {
	rp, is := c.issueOf()
	if is == nil || !c.labelsAllowed(rp, is) {
		return
	}
	if !c.unlabelIssue(is, c.r.PathValue("name")) {
		c.errorf(http.StatusNotFound, "Label does not exist")
		return
	}
	c.writeJSON(http.StatusOK, c.issueLabelsJSON(rp, is))
}

// listIssueEvents lists an issue's events of every type, oldest first,
// paged.
func (s *Server) listIssueEvents(c *call) {
	rp, is := c.issueOf()
	if is == nil || !c.allowed(rp, "issues=read", "pull_requests=read") {
		return
	}
	start, end := c.paginate(len(is.events))
	out := []any{}
	for _, e := range is.events[start:end] {
		out = append(out, c.eventJSON(rp, e))
	}
	c.writeJSON(http.StatusOK, out)
}

// listRepoIssueEvents lists the events of every issue of the repository,
// newest first, as GitHub does, each with its issue.
func (s *Server) listRepoIssueEvents(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "issues=read", "pull_requests=read") {
		return
	}
	type numbered struct {
		e  *event
		is *issue
	}
	var all []numbered
	for _, is := range rp.issues {
		for _, e := range is.events {
			all = append(all, numbered{e, is})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].e.CreatedAt.Equal(all[j].e.CreatedAt) {
			return all[i].e.CreatedAt.After(all[j].e.CreatedAt)
		}
		return all[i].e.ID > all[j].e.ID
	})
	start, end := c.paginate(len(all))
	out := []any{}
	for _, n := range all[start:end] {
		ev := c.eventJSON(rp, n.e)
		ev["issue"] = obj{"number": n.is.number, "state": "open"}
		out = append(out, ev)
	}
	c.writeJSON(http.StatusOK, out)
}

// ---- comments

// listComments lists an issue's comments "ordered by ascending ID".
func (s *Server) listComments(c *call) {
	rp, is := c.issueOf()
	if is == nil || !c.allowed(rp, "issues=read", "pull_requests=read") {
		return
	}
	var since time.Time
	if v := c.r.URL.Query().Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			c.invalid("IssueComment", "since", "invalid", "")
			return
		}
		since = t
	}
	var list []*Comment
	for _, cm := range is.comments {
		if since.IsZero() || !cm.UpdatedAt.Before(since) {
			list = append(list, cm)
		}
	}
	start, end := c.paginate(len(list))
	out := []any{}
	for _, cm := range list[start:end] {
		out = append(out, c.commentJSON(rp, is.number, cm))
	}
	c.writeJSON(http.StatusOK, out)
}

// commentBody decodes {"body": ...} and answers 422 for a missing, blank or
// too long body.
func (c *call) commentBody() (string, bool) {
	var b struct {
		Body *string `json:"body"`
	}
	if !c.decode(&b) {
		return "", false
	}
	switch {
	case b.Body == nil || strings.TrimSpace(*b.Body) == "":
		c.invalid("IssueComment", "body", "missing_field", "")
		return "", false
	case utf8.RuneCountInString(*b.Body) > MaxCommentLength:
		c.invalid("IssueComment", "body", "custom",
			fmt.Sprintf("body is too long (maximum is %d characters)", MaxCommentLength))
		return "", false
	}
	return *b.Body, true
}

func (s *Server) createComment(c *call) {
	rp, is := c.issueOf()
	if is == nil || !c.allowed(rp, "issues=write", "pull_requests=write") {
		return
	}
	body, ok := c.commentBody()
	if !ok {
		return
	}
	login, typ := c.login()
	now := c.now()
	cm := &Comment{ID: s.id(), Login: login, UserType: typ, Body: body, CreatedAt: now, UpdatedAt: now}
	is.comments = append(is.comments, cm)
	is.touch(now)
	c.w.Header().Set("Location", c.repoURL(rp)+"/issues/comments/"+strconv.FormatInt(cm.ID, 10))
	c.writeJSON(http.StatusCreated, c.commentJSON(rp, is.number, cm))
}

// comment finds {id} among the repository's issue comments.
func (c *call) comment() (*repo, *issue, int) {
	rp := c.repo()
	if rp == nil {
		return nil, nil, 0
	}
	id, ok := c.intParam("id")
	if !ok {
		return nil, nil, 0
	}
	for _, is := range rp.issues {
		for i, cm := range is.comments {
			if cm.ID == id {
				return rp, is, i
			}
		}
	}
	c.notFound()
	return nil, nil, 0
}

func (s *Server) updateComment(c *call) {
	rp, is, i := c.comment()
	if is == nil || !c.allowed(rp, "issues=write", "pull_requests=write") {
		return
	}
	body, ok := c.commentBody()
	if !ok {
		return
	}
	cm := is.comments[i]
	cm.Body = body
	cm.UpdatedAt = c.now()
	is.touch(cm.UpdatedAt)
	c.writeJSON(http.StatusOK, c.commentJSON(rp, is.number, cm))
}

// ---- statuses and check runs

// resolveRef turns a branch name into the head SHA of a pull request or
// run on it; anything else is taken as a SHA.
func (rp *repo) resolveRef(ref string) string {
	var best *Pull
	for _, is := range rp.issues {
		if p := is.pull; p != nil && p.HeadRef == ref && p.HeadSHA != "" {
			if best == nil || p.UpdatedAt.After(best.UpdatedAt) {
				best = p
			}
		}
	}
	if best != nil {
		return best.HeadSHA
	}
	var run *Run
	for _, r := range rp.runs {
		if r.HeadBranch == ref && r.HeadSHA != "" && (run == nil || r.CreatedAt.After(run.CreatedAt)) {
			run = r
		}
	}
	if run != nil {
		return run.HeadSHA
	}
	return ref
}

var statusStates = map[string]bool{"error": true, "failure": true, "pending": true, "success": true}

// createStatus needs statuses write; a user's token works too ("Users
// with push access in a repository can create commit statuses").
func (s *Server) createStatus(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "statuses=write") {
		return
	}
	var b struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if !c.decode(&b) {
		return
	}
	if !statusStates[b.State] {
		c.invalid("Status", "state", "custom", "state is not included in the list")
		return
	}
	if utf8.RuneCountInString(b.Description) > maxStatusDesc {
		c.invalid("Status", "description", "custom", fmt.Sprintf("description is too long (maximum is %d characters)", maxStatusDesc))
		return
	}
	if b.Context == "" {
		b.Context = "default"
	}
	sha := c.r.PathValue("sha")
	n := 0
	for _, st := range rp.statuses {
		if st.SHA == sha && st.Context == b.Context {
			n++
		}
	}
	if n >= maxStatusesEach {
		c.invalid("Status", "context", "custom", "This SHA and context has reached the maximum number of statuses.")
		return
	}
	login, typ := c.login()
	st := &status{ID: s.id(), SHA: sha, CreatorType: typ, CreatedAt: c.now(),
		Status: Status{State: b.State, Context: b.Context, Description: b.Description, TargetURL: b.TargetURL, Creator: login}}
	rp.statuses = append(rp.statuses, st)
	c.writeJSON(http.StatusCreated, c.statusJSON(rp, st))
}

var (
	checkStatuses    = map[string]bool{"queued": true, "in_progress": true, "completed": true, "waiting": true, "requested": true, "pending": true}
	checkConclusions = map[string]bool{"action_required": true, "cancelled": true, "failure": true, "neutral": true,
		"success": true, "skipped": true, "stale": true, "timed_out": true}
)

type checkBody struct {
	Name        *string    `json:"name"`
	HeadSHA     *string    `json:"head_sha"`
	DetailsURL  *string    `json:"details_url"`
	ExternalID  *string    `json:"external_id"`
	Status      *string    `json:"status"`
	Conclusion  *string    `json:"conclusion"`
	StartedAt   *time.Time `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	Output      *struct {
		Title       *string           `json:"title"`
		Summary     *string           `json:"summary"`
		Text        *string           `json:"text"`
		Annotations []json.RawMessage `json:"annotations"`
	} `json:"output"`
}

// applyCheck merges a request body into cr and answers 422 when the result
// is not a valid check run.
func (c *call) applyCheck(cr *checkRun, b *checkBody) bool {
	cr.Name = deref(b.Name, cr.Name)
	cr.HeadSHA = deref(b.HeadSHA, cr.HeadSHA)
	cr.DetailsURL = deref(b.DetailsURL, cr.DetailsURL)
	cr.ExternalID = deref(b.ExternalID, cr.ExternalID)
	cr.Status = deref(b.Status, cr.Status)
	cr.Conclusion = deref(b.Conclusion, cr.Conclusion)
	if b.StartedAt != nil {
		cr.StartedAt = b.StartedAt.UTC().Truncate(time.Second)
	}
	if b.CompletedAt != nil {
		cr.CompletedAt = b.CompletedAt.UTC().Truncate(time.Second)
	}
	if o := b.Output; o != nil {
		if o.Title == nil || o.Summary == nil {
			c.invalid("CheckRun", "output", "missing_field", "output needs a title and a summary")
			return false
		}
		cr.Title, cr.Summary, cr.Text = *o.Title, *o.Summary, deref(o.Text, "")
		if len(o.Annotations) > maxAnnotations {
			c.invalid("CheckRun", "annotations", "custom", fmt.Sprintf("at most %d annotations per request", maxAnnotations))
			return false
		}
		cr.Annotations += len(o.Annotations)
	}
	if b.Conclusion != nil && b.Status == nil {
		cr.Status = "completed"
	}
	if cr.Status == "completed" && cr.CompletedAt.IsZero() {
		cr.CompletedAt = c.now()
	}
	switch {
	case strings.TrimSpace(cr.Name) == "":
		c.invalid("CheckRun", "name", "missing_field", "")
	case cr.HeadSHA == "":
		c.invalid("CheckRun", "head_sha", "missing_field", "")
	case !checkStatuses[cr.Status]:
		c.invalid("CheckRun", "status", "invalid", "")
	case cr.Conclusion != "" && !checkConclusions[cr.Conclusion]:
		c.invalid("CheckRun", "conclusion", "invalid", "")
	case cr.Status == "completed" && cr.Conclusion == "":
		c.invalid("CheckRun", "conclusion", "missing_field", "conclusion is required when status is completed")
	case utf8.RuneCountInString(cr.Summary) > maxCheckOutput:
		c.invalid("CheckRun", "summary", "custom", fmt.Sprintf("summary is too long (maximum is %d characters)", maxCheckOutput))
	case utf8.RuneCountInString(cr.Text) > maxCheckOutput:
		c.invalid("CheckRun", "text", "custom", fmt.Sprintf("text is too long (maximum is %d characters)", maxCheckOutput))
	default:
		return true
	}
	return false
}

// createCheckRun needs checks write and a GitHub App's token ("To create
// a check run, you must use a GitHub App. OAuth apps and authenticated
// users are not able to create a check suite."): the workflow's
// GITHUB_TOKEN is one, a PAT gets 403 "You must authenticate via a GitHub
// App." (https://docs.github.com/rest/checks/runs#create-a-check-run).
func (s *Server) createCheckRun(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	if c.user != nil && !c.user.app {
		c.errorf(http.StatusForbidden, "You must authenticate via a GitHub App.")
		return
	}
	if !c.allowed(rp, "checks=write") {
		return
	}
	var b checkBody
	if !c.decode(&b) {
		return
	}
	cr := &checkRun{CheckRun: CheckRun{Status: "queued"}, StartedAt: c.now()}
	if !c.applyCheck(cr, &b) {
		return
	}
	cr.ID = s.id()
	rp.checkRuns = append(rp.checkRuns, cr)
	c.writeJSON(http.StatusCreated, c.checkRunJSON(rp, cr))
}

// ---- actions

// listArtifacts lists the repository's artifacts, those called name when
// the query says, paged. GitHub documents no order for this list (and no
// direction parameter), so the fake answers in an order that is neither
// by date nor by id: a client must read every page to find the newest.
func (s *Server) listArtifacts(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "actions=read") {
		return
	}
	name := c.r.URL.Query().Get("name")
	var list []*artifact
	for _, a := range rp.artifacts {
		if name == "" || a.name == name {
			list = append(list, a)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return scramble(list[i].id) < scramble(list[j].id) })
	start, end := c.paginate(len(list))
	out := []any{}
	for _, a := range list[start:end] {
		out = append(out, c.artifactJSON(rp, a))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": len(list), "artifacts": out})
}

// scramble orders artifacts neither by date nor by id, stably.
func scramble(id int64) uint64 {
	return uint64(stableID("artifact", strconv.FormatInt(id, 10)))
}

func (c *call) artifact() (*repo, *artifact) {
	rp := c.repo()
	if rp == nil {
		return nil, nil
	}
	id, ok := c.intParam("id")
	if !ok {
		return nil, nil
	}
	a := c.s.artifacts[id]
	if a == nil || repoKey(a.owner, a.repo) != repoKey(rp.owner, rp.name) {
		c.notFound()
		return nil, nil
	}
	return rp, a
}

func (s *Server) downloadArtifact(c *call) {
	if c.user == nil {
		c.errorf(http.StatusUnauthorized, "Requires authentication")
		return
	}
	rp, a := c.artifact()
	if a == nil || !c.allowed(rp, "actions=read") {
		return
	}
	if a.expired {
		c.errorf(http.StatusGone, "Artifact has expired")
		return
	}
	c.w.Header().Set("Location", c.base+"/_blobs/"+strconv.FormatInt(a.id, 10))
	c.w.WriteHeader(http.StatusFound)
}

// serveBlob answers /_blobs/{id} like signed storage: no authentication,
// no rate limit, not counted.
func (s *Server) serveBlob(c *call) {
	if c.r.Method != http.MethodGet && c.r.Method != http.MethodHead {
		c.errorf(http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(c.r.URL.Path, "/_blobs/"), 10, 64)
	s.mu.Lock()
	a := s.artifacts[id]
	var zip []byte
	expired := false
	if a != nil {
		zip, expired = a.zip, a.expired
	}
	s.mu.Unlock()
	switch {
	case err != nil || a == nil:
		c.errorf(http.StatusNotFound, "The specified blob does not exist.")
	case expired:
		c.errorf(http.StatusGone, "Artifact has expired")
	default:
		c.w.Header().Set("Content-Type", "application/zip")
		c.w.Header().Set("Content-Length", strconv.Itoa(len(zip)))
		c.w.WriteHeader(http.StatusOK)
		if c.r.Method == http.MethodGet {
			_, _ = c.w.Write(zip)
		}
	}
}

// ---- permissions and contents

// getPermission needs metadata read, which every token has.
func (s *Server) getPermission(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "metadata=read") {
		return
	}
	p, ok := rp.perms[strings.ToLower(c.r.PathValue("user"))]
	if !ok {
		c.notFound()
		return
	}
	legacy, role := p.permission, p.permission
	switch p.permission {
	case "maintain":
		legacy = "write"
	case "triage":
		legacy = "read"
	case "admin", "write", "read", "none":
	default:
		legacy, role = "none", "none"
	}
	rank := map[string]int{"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}[role]
	u := c.userJSON(p.login, "User")
	u["permissions"] = obj{"admin": rank >= 5, "maintain": rank >= 4, "push": rank >= 3, "triage": rank >= 2, "pull": rank >= 1}
	u["role_name"] = role
	c.writeJSON(http.StatusOK, obj{"permission": legacy, "role_name": role, "user": u})
}

func (s *Server) getContents(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "contents=read") {
		return
	}
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = rp.defaultBranch
	}
	files, ok := rp.files[ref]
	if !ok {
		if ref != rp.defaultBranch && rp.resolveRef(ref) != ref {
			files, ok = rp.files[rp.resolveRef(ref)]
		}
		if !ok {
			c.errorf(http.StatusNotFound, "No commit found for the ref %s", ref)
			return
		}
	}
	path := strings.Trim(c.r.PathValue("path"), "/")
	if content, ok := files[path]; ok {
		c.writeJSON(http.StatusOK, c.contentJSON(rp, ref, path, content, true))
		return
	}
	// A directory: list its direct entries.
	prefix := path + "/"
	if path == "" {
		prefix = ""
	}
	dirs := map[string]bool{}
	var names []string
	for p := range files {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if d, _, isDir := strings.Cut(rest, "/"); isDir {
			if !dirs[d] {
				dirs[d] = true
				names = append(names, d)
			}
			continue
		}
		names = append(names, rest)
	}
	if len(names) == 0 {
		c.notFound()
		return
	}
	sort.Strings(names)
	out := []any{}
	for _, n := range names {
		if dirs[n] {
			out = append(out, obj{"type": "dir", "name": n, "path": prefix + n, "size": 0,
				"url": c.repoURL(rp) + "/contents/" + escapePath(prefix+n) + "?ref=" + ref})
			continue
		}
		out = append(out, c.contentJSON(rp, ref, prefix+n, files[prefix+n], false))
	}
	c.writeJSON(http.StatusOK, out)
}

// searchIssues answers the issues search for the pull requests of the
// repositories the token may read, with the qualifiers loopbreaker's
// discovery sends: is:pr, is:open (state:open), org:, user:, repo:,
// author: (author:app/NAME is the app NAME[bot]) and label:, every one
// required. Results are sorted by creation, oldest first (sort=created),
// and like GitHub's at most 1,000 are listed whatever total_count says.
func (s *Server) searchIssues(c *call) {
	q := strings.Fields(c.r.URL.Query().Get("q"))
	if len(q) == 0 {
		c.invalid("Search", "q", "missing", "")
		return
	}
	type hit struct {
		rp *repo
		is *issue
	}
	var hits []hit
	keys := make([]string, 0, len(s.repos))
	for k := range s.repos {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rp := s.repos[k]
		if rp.private && c.user == nil {
			continue
		}
		for _, n := range sortedNumbers(rp) {
			is := rp.issues[n]
			if searchMatch(q, rp, is) {
				hits = append(hits, hit{rp, is})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i].is.pull, hits[j].is.pull
		return a != nil && b != nil && a.CreatedAt.Before(b.CreatedAt)
	})
	total := len(hits)
	listed := hits[:min(total, maxSearchResults)]
	start, end := c.paginate(len(listed))
	items := []any{}
	for _, h := range listed[start:end] {
		items = append(items, c.issueJSON(h.rp, h.is))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": total, "incomplete_results": false, "items": items})
}

// maxSearchResults is how many results GitHub's search lists.
const maxSearchResults = 1000

// searchMatch reports whether issue is meets every qualifier of q; a bare
// word or an unknown qualifier matches nothing, so a query the fake does
// not understand finds nothing rather than everything.
func searchMatch(q []string, rp *repo, is *issue) bool {
	for _, term := range q {
		k, v, _ := strings.Cut(term, ":")
		v = strings.Trim(v, `"`)
		ok := false
		switch strings.ToLower(k) {
		case "is", "type":
			switch strings.ToLower(v) {
			case "pr", "pull-request":
				ok = is.pull != nil
			case "open":
				ok = is.pull != nil && is.pull.State == "open"
			case "issue":
				ok = is.pull == nil
			}
		case "state":
			ok = is.pull != nil && strings.EqualFold(is.pull.State, v)
		case "org", "user":
			ok = strings.EqualFold(rp.owner, v)
		case "repo":
			ok = strings.EqualFold(rp.owner+"/"+rp.name, v)
		case "author":
			if app, isApp := strings.CutPrefix(v, "app/"); isApp {
				v = app + "[bot]"
			}
			ok = is.pull != nil && strings.EqualFold(is.pull.User, v)
		case "label":
			ok = containsFold(is.labels, v)
		}
		if !ok {
			return false
		}
	}
	return true
}
