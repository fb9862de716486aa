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

func (s *Server) routes() {
	const repo = "/repos/{o}/{r}"
	s.handle("GET /user", s.getUser)
	s.handle("GET /rate_limit", s.getRateLimit)
	s.handle("GET "+repo, s.getRepo)

	s.handle("GET "+repo+"/pulls", s.listPulls)
	s.handle("GET "+repo+"/pulls/{n}", s.getPull)
	s.handle("GET "+repo+"/pulls/{n}/commits", s.listPullCommits)
	s.handle("GET "+repo+"/pulls/{n}/files", s.listPullFiles)

	s.handle("GET "+repo+"/labels", s.listLabels)
	s.handle("POST "+repo+"/labels", s.createLabel)
	s.handle("GET "+repo+"/labels/{name}", s.getLabel)
	s.handle("PATCH "+repo+"/labels/{name}", s.updateLabel)
	s.handle("DELETE "+repo+"/labels/{name}", s.deleteLabel)

	s.handle("GET "+repo+"/issues/{n}", s.getIssue)
	s.handle("GET "+repo+"/issues/{n}/labels", s.listIssueLabels)
	s.handle("POST "+repo+"/issues/{n}/labels", s.addIssueLabels)
	s.handle("PUT "+repo+"/issues/{n}/labels", s.replaceIssueLabels)
	s.handle("DELETE "+repo+"/issues/{n}/labels", s.clearIssueLabels)
	s.handle("DELETE "+repo+"/issues/{n}/labels/{name}", s.removeIssueLabel)
	s.handle("GET "+repo+"/issues/{n}/events", s.listIssueEvents)
	s.handle("GET "+repo+"/issues/events", s.listRepoIssueEvents)
	s.handle("GET "+repo+"/issues/{n}/comments", s.listComments)
	s.handle("POST "+repo+"/issues/{n}/comments", s.createComment)
	// /issues/comments/{id} would clash with /issues/{n}/labels in the
	// mux, so it is matched as /issues/{n}/{sub} with n == "comments".
	s.handle("GET "+repo+"/issues/{n}/{sub}", commentRoute(s.getComment))
	s.handle("PATCH "+repo+"/issues/{n}/{sub}", commentRoute(s.updateComment))
	s.handle("DELETE "+repo+"/issues/{n}/{sub}", commentRoute(s.deleteComment))

	s.handle("POST "+repo+"/statuses/{sha}", s.createStatus)
	s.handle("GET "+repo+"/commits/{ref}/statuses", s.listStatuses)
	s.handle("GET "+repo+"/commits/{ref}/status", s.combinedStatus)
	s.handle("POST "+repo+"/check-runs", s.createCheckRun)
	s.handle("PATCH "+repo+"/check-runs/{id}", s.updateCheckRun)
	s.handle("GET "+repo+"/check-runs/{id}", s.getCheckRun)
	s.handle("GET "+repo+"/commits/{ref}/check-runs", s.listCheckRuns)

	s.handle("GET "+repo+"/actions/runs", s.listRuns)
	s.handle("GET "+repo+"/actions/workflows/{wf}/runs", s.listRuns)
	s.handle("GET "+repo+"/actions/runs/{id}", s.getRun)
	s.handle("GET "+repo+"/actions/runs/{id}/artifacts", s.listArtifacts)
	s.handle("GET "+repo+"/actions/artifacts", s.listArtifacts)
	s.handle("GET "+repo+"/actions/artifacts/{id}", s.getArtifact)
	s.handle("GET "+repo+"/actions/artifacts/{id}/zip", s.downloadArtifact)

	s.handle("GET "+repo+"/collaborators/{user}/permission", s.getPermission)
	s.handle("GET "+repo+"/contents/{path...}", s.getContents)
	s.handle("GET "+repo+"/contents", s.getContents)

	s.handle("/", func(c *call) { c.notFound() })
}

func commentRoute(fn func(c *call)) func(c *call) {
	return func(c *call) {
		if c.r.PathValue("n") != "comments" {
			c.notFound()
			return
		}
		c.r.SetPathValue("id", c.r.PathValue("sub"))
		fn(c)
	}
}

func (s *Server) getUser(c *call) {
	if c.user == nil {
		c.errorf(http.StatusUnauthorized, "Requires authentication")
		return
	}
	c.writeJSON(http.StatusOK, c.userJSON(c.user.login, c.user.userType))
}

func (s *Server) getRateLimit(c *call) {
	core := obj{"limit": s.limit, "remaining": s.remaining, "reset": s.reset.Unix(),
		"used": max(0, s.limit-s.remaining), "resource": "core"}
	other := func(name string, limit int) obj {
		return obj{"limit": limit, "remaining": limit, "reset": s.reset.Unix(), "used": 0, "resource": name}
	}
	c.writeJSON(http.StatusOK, obj{
		"resources": obj{
			"core":    core,
			"search":  other("search", 30),
			"graphql": other("graphql", 5000),
		},
		"rate": core,
	})
}

func (s *Server) getRepo(c *call) {
	if rp := c.repo(); rp != nil {
		c.writeJSON(http.StatusOK, c.repoJSON(rp))
	}
}

// ---- pulls

func (s *Server) listPulls(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	q := c.r.URL.Query()
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
	head, base := q.Get("head"), q.Get("base")
	var list []*issue
	for _, is := range rp.issues {
		p := is.pull
		if p == nil || (state != "all" && p.State != state) {
			continue
		}
		if base != "" && p.BaseRef != base {
			continue
		}
		if head != "" {
			owner := rp.owner
			if p.Fork {
				owner = p.User
			}
			if !strings.EqualFold(head, owner+":"+p.HeadRef) && head != p.HeadRef {
				continue
			}
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
	if rp == nil {
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

func (s *Server) getPull(c *call) {
	if rp, is := c.pull(); is != nil {
		c.writeJSON(http.StatusOK, c.pullJSON(rp, is))
	}
}

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
	for _, sha := range shas[start:end] {
		author := obj{"name": is.pull.User, "email": is.pull.User + "@users.noreply.github.com", "date": ts(is.pull.CreatedAt)}
		out = append(out, obj{
			"sha":     sha,
			"node_id": nodeID("Commit", stableID(sha)),
			"url":     c.repoURL(rp) + "/commits/" + sha,
			"commit": obj{
				"message":   "commit " + sha,
				"author":    author,
				"committer": author,
			},
			"author":  c.userJSON(is.pull.User, is.pull.UserType),
			"parents": []any{},
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

func (s *Server) listLabels(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	start, end := c.paginate(len(rp.labels))
	out := []any{}
	for _, l := range rp.labels[start:end] {
		out = append(out, c.labelJSON(rp, l))
	}
	c.writeJSON(http.StatusOK, out)
}

func (s *Server) getLabel(c *call) {
	rp := c.repo()
	if rp == nil {
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
	NewName     *string `json:"new_name"`
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

func (s *Server) createLabel(c *call) {
	rp := c.repo()
	if rp == nil {
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

func (s *Server) updateLabel(c *call) {
	rp := c.repo()
	if rp == nil {
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
	name := deref(b.NewName, l.Name)
	color := strings.TrimPrefix(deref(b.Color, l.Color), "#")
	desc := deref(b.Description, l.Description)
	if !c.checkLabel(name, color, desc) {
		return
	}
	if other := rp.findLabel(name); other != nil && other != l {
		c.invalid("Label", "name", "already_exists", "")
		return
	}
	if name != l.Name {
		for _, is := range rp.issues {
			for i, n := range is.labels {
				if strings.EqualFold(n, l.Name) {
					is.labels[i] = name
				}
			}
		}
	}
	l.Name, l.Color, l.Description = name, strings.ToLower(color), desc
	c.writeJSON(http.StatusOK, c.labelJSON(rp, l))
}

func (s *Server) deleteLabel(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	l := rp.findLabel(c.r.PathValue("name"))
	if l == nil {
		c.notFound()
		return
	}
	out := rp.labels[:0]
	for _, x := range rp.labels {
		if x != l {
			out = append(out, x)
		}
	}
	rp.labels = out
	for _, is := range rp.issues {
		is.labels = removeFold(is.labels, l.Name)
	}
	c.w.WriteHeader(http.StatusNoContent)
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

func (s *Server) getIssue(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	if is := c.issue(rp); is != nil {
		c.writeJSON(http.StatusOK, c.issueJSON(rp, is))
	}
}

func (c *call) issueOf() (*repo, *issue) {
	rp := c.repo()
	if rp == nil {
		return nil, nil
	}
	return rp, c.issue(rp)
}

func (s *Server) listIssueLabels(c *call) {
	rp, is := c.issueOf()
	if is == nil {
		return
	}
	labels := c.issueLabelsJSON(rp, is)
	start, end := c.paginate(len(labels))
	c.writeJSON(http.StatusOK, labels[start:end])
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
// missing, and records the labeled event.
func (c *call) labelIssue(rp *repo, is *issue, name string) {
	l := c.s.ensureLabel(rp, name)
	if containsFold(is.labels, l.Name) {
		return
	}
	is.labels = append(is.labels, l.Name)
	login, typ := c.login()
	is.events = append(is.events, &event{ID: c.s.id(), Number: is.number, Event: "labeled",
		Label: l.Name, Login: login, UserType: typ, CreatedAt: c.now()})
}

func (c *call) unlabelIssue(is *issue, name string) bool {
	for _, n := range is.labels {
		if strings.EqualFold(n, name) {
			is.labels = removeFold(is.labels, name)
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
	if !ok {
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

func (s *Server) replaceIssueLabels(c *call) {
	rp, is := c.issueOf()
	if is == nil {
		return
	}
	names, ok := c.labelNames()
	if !ok {
		return
	}
	if len(uniqueNew(nil, names)) > maxIssueLabels {
		c.invalid("Label", "labels", "custom", fmt.Sprintf("an issue can have at most %d labels", maxIssueLabels))
		return
	}
	for _, n := range append([]string(nil), is.labels...) {
		if !containsFold(names, n) {
			c.unlabelIssue(is, n)
		}
	}
	for _, n := range names {
		c.labelIssue(rp, is, n)
	}
	c.writeJSON(http.StatusOK, c.issueLabelsJSON(rp, is))
}

func (s *Server) clearIssueLabels(c *call) {
	_, is := c.issueOf()
	if is == nil {
		return
	}
	for _, n := range append([]string(nil), is.labels...) {
		c.unlabelIssue(is, n)
	}
	c.w.WriteHeader(http.StatusNoContent)
}

func (s *Server) removeIssueLabel(c *call) {
	rp, is := c.issueOf()
	if is == nil {
		return
	}
	if !c.unlabelIssue(is, c.r.PathValue("name")) {
		c.errorf(http.StatusNotFound, "Label does not exist")
		return
	}
	c.writeJSON(http.StatusOK, c.issueLabelsJSON(rp, is))
}

func (s *Server) listIssueEvents(c *call) {
	rp, is := c.issueOf()
	if is == nil {
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
	if rp == nil {
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

func (s *Server) listComments(c *call) {
	rp, is := c.issueOf()
	if is == nil {
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
	if is == nil {
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

func (s *Server) getComment(c *call) {
	if rp, is, i := c.comment(); is != nil {
		c.writeJSON(http.StatusOK, c.commentJSON(rp, is.number, is.comments[i]))
	}
}

func (s *Server) updateComment(c *call) {
	rp, is, i := c.comment()
	if is == nil {
		return
	}
	body, ok := c.commentBody()
	if !ok {
		return
	}
	cm := is.comments[i]
	cm.Body = body
	cm.UpdatedAt = c.now()
	c.writeJSON(http.StatusOK, c.commentJSON(rp, is.number, cm))
}

func (s *Server) deleteComment(c *call) {
	_, is, i := c.comment()
	if is == nil {
		return
	}
	is.comments = append(is.comments[:i], is.comments[i+1:]...)
	c.w.WriteHeader(http.StatusNoContent)
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

func (s *Server) createStatus(c *call) {
	rp := c.repo()
	if rp == nil {
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

func (rp *repo) statusesFor(sha string) []*status {
	var out []*status
	for i := len(rp.statuses) - 1; i >= 0; i-- {
		if rp.statuses[i].SHA == sha {
			out = append(out, rp.statuses[i])
		}
	}
	return out
}

func (s *Server) listStatuses(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	list := rp.statusesFor(rp.resolveRef(c.r.PathValue("ref")))
	start, end := c.paginate(len(list))
	out := []any{}
	for _, st := range list[start:end] {
		out = append(out, c.statusJSON(rp, st))
	}
	c.writeJSON(http.StatusOK, out)
}

func (s *Server) combinedStatus(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	sha := rp.resolveRef(c.r.PathValue("ref"))
	seen := map[string]bool{}
	latest := []any{}
	state := "success"
	rank := map[string]int{"success": 0, "pending": 1, "failure": 2, "error": 2}
	for _, st := range rp.statusesFor(sha) {
		if seen[st.Context] {
			continue
		}
		seen[st.Context] = true
		latest = append(latest, c.statusJSON(rp, st))
		if rank[st.State] > rank[state] {
			state = st.State
			if state == "error" {
				state = "failure"
			}
		}
	}
	if len(latest) == 0 {
		state = "pending"
	}
	c.writeJSON(http.StatusOK, obj{"state": state, "sha": sha, "total_count": len(latest),
		"statuses": latest, "repository": c.repoJSON(rp)})
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

func (s *Server) createCheckRun(c *call) {
	rp := c.repo()
	if rp == nil {
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

func (c *call) checkRun() (*repo, *checkRun) {
	rp := c.repo()
	if rp == nil {
		return nil, nil
	}
	id, ok := c.intParam("id")
	if !ok {
		return nil, nil
	}
	for _, cr := range rp.checkRuns {
		if cr.ID == id {
			return rp, cr
		}
	}
	c.notFound()
	return nil, nil
}

func (s *Server) updateCheckRun(c *call) {
	rp, cr := c.checkRun()
	if cr == nil {
		return
	}
	var b checkBody
	if !c.decode(&b) {
		return
	}
	next := *cr
	if !c.applyCheck(&next, &b) {
		return
	}
	*cr = next
	c.writeJSON(http.StatusOK, c.checkRunJSON(rp, cr))
}

func (s *Server) getCheckRun(c *call) {
	if rp, cr := c.checkRun(); cr != nil {
		c.writeJSON(http.StatusOK, c.checkRunJSON(rp, cr))
	}
}

func (s *Server) listCheckRuns(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	q := c.r.URL.Query()
	sha := rp.resolveRef(c.r.PathValue("ref"))
	name, st, filter := q.Get("check_name"), q.Get("status"), q.Get("filter")
	seen := map[string]bool{}
	var list []*checkRun
	for i := len(rp.checkRuns) - 1; i >= 0; i-- {
		cr := rp.checkRuns[i]
		if cr.HeadSHA != sha || (name != "" && cr.Name != name) || (st != "" && cr.Status != st) {
			continue
		}
		if filter != "all" {
			if seen[cr.Name] {
				continue
			}
			seen[cr.Name] = true
		}
		list = append(list, cr)
	}
	start, end := c.paginate(len(list))
	out := []any{}
	for _, cr := range list[start:end] {
		out = append(out, c.checkRunJSON(rp, cr))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": len(list), "check_runs": out})
}

// ---- actions

func (s *Server) listRuns(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	q := c.r.URL.Query()
	wf := c.r.PathValue("wf")
	branch, ev, st, sha := q.Get("branch"), q.Get("event"), q.Get("status"), q.Get("head_sha")
	var list []*Run
	known := wf == ""
	for _, r := range rp.runs {
		if wf != "" {
			if strconv.FormatInt(r.WorkflowID, 10) != wf && baseName(r.Path) != wf {
				continue
			}
			known = true
		}
		if (branch != "" && r.HeadBranch != branch) || (ev != "" && r.Event != ev) ||
			(sha != "" && r.HeadSHA != sha) || (st != "" && r.Status != st && r.Conclusion != st) {
			continue
		}
		list = append(list, r)
	}
	if !known {
		c.notFound()
		return
	}
	sort.SliceStable(list, func(i, j int) bool {
		if !list[i].CreatedAt.Equal(list[j].CreatedAt) {
			return list[i].CreatedAt.After(list[j].CreatedAt)
		}
		return list[i].ID > list[j].ID
	})
	withPulls := q.Get("exclude_pull_requests") != "true"
	start, end := c.paginate(len(list))
	out := []any{}
	for _, r := range list[start:end] {
		out = append(out, c.runJSON(rp, r, withPulls))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": len(list), "workflow_runs": out})
}

func (s *Server) getRun(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	id, ok := c.intParam("id")
	if !ok {
		return
	}
	r := rp.findRun(id)
	if r == nil {
		c.notFound()
		return
	}
	c.writeJSON(http.StatusOK, c.runJSON(rp, r, true))
}

func (s *Server) listArtifacts(c *call) {
	rp := c.repo()
	if rp == nil {
		return
	}
	var runID int64
	if c.r.PathValue("id") != "" {
		id, ok := c.intParam("id")
		if !ok {
			return
		}
		if rp.findRun(id) == nil {
			c.notFound()
			return
		}
		runID = id
	}
	name := c.r.URL.Query().Get("name")
	var list []*artifact
	for _, a := range rp.artifacts {
		if (runID != 0 && a.runID != runID) || (name != "" && a.name != name) {
			continue
		}
		list = append(list, a)
	}
	sort.SliceStable(list, func(i, j int) bool {
		if runID != 0 {
			return list[i].id < list[j].id
		}
		return list[i].id > list[j].id
	})
	start, end := c.paginate(len(list))
	out := []any{}
	for _, a := range list[start:end] {
		out = append(out, c.artifactJSON(rp, a))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": len(list), "artifacts": out})
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

func (s *Server) getArtifact(c *call) {
	if rp, a := c.artifact(); a != nil {
		c.writeJSON(http.StatusOK, c.artifactJSON(rp, a))
	}
}

func (s *Server) downloadArtifact(c *call) {
	if c.user == nil {
		c.errorf(http.StatusUnauthorized, "Requires authentication")
		return
	}
	_, a := c.artifact()
	if a == nil {
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

func (s *Server) getPermission(c *call) {
	rp := c.repo()
	if rp == nil {
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
	if rp == nil {
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

// serveRaw answers /_raw/{owner}/{repo}/{ref}/{path}, the download_url of
// the contents API: the file's bytes, unauthenticated and not counted.
func (s *Server) serveRaw(c *call) {
	parts := strings.SplitN(strings.TrimPrefix(c.r.URL.Path, "/_raw/"), "/", 4)
	if len(parts) != 4 || (c.r.Method != http.MethodGet && c.r.Method != http.MethodHead) {
		c.notFound()
		return
	}
	s.mu.Lock()
	var content []byte
	found := false
	if rp := s.repoLocked(parts[0], parts[1], false); rp != nil {
		content, found = rp.files[parts[2]][parts[3]]
	}
	s.mu.Unlock()
	if !found {
		c.notFound()
		return
	}
	c.w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	c.w.WriteHeader(http.StatusOK)
	if c.r.Method == http.MethodGet {
		_, _ = c.w.Write(content)
	}
}
