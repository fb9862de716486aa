package fakegithub

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"
)

const htmlBase = "https://github.com"

func ts(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func nodeID(kind string, id int64) string {
	return base64.RawStdEncoding.EncodeToString(fmt.Appendf(nil, "%s:%d", kind, id))
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (c *call) userJSON(login, userType string) obj {
	if userType == "" {
		userType = "User"
	}
	id := stableID("user", login)
	return obj{
		"login":      login,
		"id":         id,
		"node_id":    nodeID("User", id),
		"avatar_url": "https://avatars.githubusercontent.com/u/" + fmt.Sprint(id),
		"url":        c.base + "/users/" + url.PathEscape(login),
		"html_url":   htmlBase + "/" + url.PathEscape(login),
		"type":       userType,
		"site_admin": false,
	}
}

func (c *call) repoURL(rp *repo) string {
	return c.base + "/repos/" + url.PathEscape(rp.owner) + "/" + url.PathEscape(rp.name)
}

func (c *call) repoJSON(rp *repo) obj {
	return obj{
		"id":             rp.id,
		"node_id":        nodeID("Repository", rp.id),
		"name":           rp.name,
		"full_name":      rp.owner + "/" + rp.name,
		"private":        false,
		"owner":          c.userJSON(rp.owner, "Organization"),
		"html_url":       htmlBase + "/" + rp.owner + "/" + rp.name,
		"url":            c.repoURL(rp),
		"fork":           false,
		"default_branch": rp.defaultBranch,
		"visibility":     "public",
	}
}

// forkJSON is the head repository of a pull request from a fork.
func (c *call) forkJSON(rp *repo, owner string) obj {
	id := stableID("fork", owner, rp.name)
	return obj{
		"id":             id,
		"node_id":        nodeID("Repository", id),
		"name":           rp.name,
		"full_name":      owner + "/" + rp.name,
		"private":        false,
		"owner":          c.userJSON(owner, "User"),
		"html_url":       htmlBase + "/" + owner + "/" + rp.name,
		"url":            c.base + "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(rp.name),
		"fork":           true,
		"default_branch": rp.defaultBranch,
		"visibility":     "public",
	}
}

func (c *call) labelJSON(rp *repo, l *label) obj {
	return obj{
		"id":          l.id,
		"node_id":     nodeID("Label", l.id),
		"url":         c.repoURL(rp) + "/labels/" + url.PathEscape(l.Name),
		"name":        l.Name,
		"color":       l.Color,
		"default":     false,
		"description": nullable(l.Description),
	}
}

func (c *call) issueLabelsJSON(rp *repo, is *issue) []any {
	out := []any{}
	for _, name := range is.labels {
		l := rp.findLabel(name)
		if l == nil {
			l = &label{Label: Label{Name: name, Color: DefaultLabelColor}}
		}
		out = append(out, c.labelJSON(rp, l))
	}
	return out
}

func (c *call) pullJSON(rp *repo, is *issue) obj {
	p := is.pull
	id := stableID("pull", rp.owner, rp.name, fmt.Sprint(p.Number))
	u := c.repoURL(rp) + "/pulls/" + fmt.Sprint(p.Number)
	headRepo := c.repoJSON(rp)
	headOwner := rp.owner
	headUser := c.userJSON(rp.owner, "Organization")
	if p.Fork {
		headRepo = c.forkJSON(rp, p.User)
		headOwner = p.User
		headUser = c.userJSON(p.User, p.UserType)
	}
	var mergedAt any
	if p.Merged {
		mergedAt = ts(p.ClosedAt)
		if mergedAt == nil {
			mergedAt = ts(p.UpdatedAt)
		}
	}
	return obj{
		"url":                   u,
		"id":                    id,
		"node_id":               nodeID("PullRequest", id),
		"html_url":              fmt.Sprintf("%s/%s/%s/pull/%d", htmlBase, rp.owner, rp.name, p.Number),
		"diff_url":              fmt.Sprintf("%s/%s/%s/pull/%d.diff", htmlBase, rp.owner, rp.name, p.Number),
		"issue_url":             c.repoURL(rp) + "/issues/" + fmt.Sprint(p.Number),
		"commits_url":           u + "/commits",
		"comments_url":          c.repoURL(rp) + "/issues/" + fmt.Sprint(p.Number) + "/comments",
		"statuses_url":          c.repoURL(rp) + "/statuses/" + p.HeadSHA,
		"number":                p.Number,
		"state":                 p.State,
		"locked":                false,
		"title":                 p.Title,
		"body":                  nullable(p.Body),
		"user":                  c.userJSON(p.User, p.UserType),
		"labels":                c.issueLabelsJSON(rp, is),
		"draft":                 p.Draft,
		"created_at":            ts(p.CreatedAt),
		"updated_at":            ts(p.UpdatedAt),
		"closed_at":             ts(p.ClosedAt),
		"merged_at":             mergedAt,
		"merged":                p.Merged,
		"author_association":    "CONTRIBUTOR",
		"comments":              len(is.comments),
		"commits":               len(p.Commits),
		"changed_files":         len(p.Files),
		"maintainer_can_modify": false,
		"merge_commit_sha":      nullable(p.MergeSHA),
		"head": obj{
			"label": headOwner + ":" + p.HeadRef,
			"ref":   p.HeadRef,
			"sha":   p.HeadSHA,
			"user":  headUser,
			"repo":  headRepo,
		},
		"base": obj{
			"label": rp.owner + ":" + p.BaseRef,
			"ref":   p.BaseRef,
			"sha":   p.BaseSHA,
			"user":  c.userJSON(rp.owner, "Organization"),
			"repo":  c.repoJSON(rp),
		},
	}
}

// issueJSON is an issue as the issue_comment payload carries it; a pull
// request's has pull_request links and nothing of its head or base.
func (c *call) issueJSON(rp *repo, is *issue) obj {
	u := c.repoURL(rp) + "/issues/" + fmt.Sprint(is.number)
	user, userType, state := rp.owner, "User", "open"
	var created any
	if p := is.pull; p != nil {
		user, userType, state, created = p.User, p.UserType, p.State, ts(p.CreatedAt)
	}
	o := obj{
		"id":                 stableID("issue", rp.owner, rp.name, fmt.Sprint(is.number)),
		"node_id":            nodeID("Issue", stableID("issue", rp.owner, rp.name, fmt.Sprint(is.number))),
		"url":                u,
		"repository_url":     c.repoURL(rp),
		"labels_url":         u + "/labels{/name}",
		"comments_url":       u + "/comments",
		"events_url":         u + "/events",
		"html_url":           fmt.Sprintf("%s/%s/%s/issues/%d", htmlBase, rp.owner, rp.name, is.number),
		"number":             is.number,
		"state":              state,
		"title":              is.title,
		"user":               c.userJSON(user, userType),
		"labels":             c.issueLabelsJSON(rp, is),
		"locked":             false,
		"comments":           len(is.comments),
		"created_at":         created,
		"author_association": "CONTRIBUTOR",
	}
	if is.pull != nil {
		pu := c.repoURL(rp) + "/pulls/" + fmt.Sprint(is.number)
		html := fmt.Sprintf("%s/%s/%s/pull/%d", htmlBase, rp.owner, rp.name, is.number)
		o["pull_request"] = obj{"url": pu, "html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch"}
	}
	return o
}

func (c *call) commentJSON(rp *repo, number int, cm *Comment) obj {
	o := obj{
		"id":                 cm.ID,
		"node_id":            nodeID("IssueComment", cm.ID),
		"url":                c.repoURL(rp) + "/issues/comments/" + fmt.Sprint(cm.ID),
		"html_url":           fmt.Sprintf("%s/%s/%s/issues/%d#issuecomment-%d", htmlBase, rp.owner, rp.name, number, cm.ID),
		"issue_url":          c.repoURL(rp) + "/issues/" + fmt.Sprint(number),
		"body":               cm.Body,
		"user":               c.userJSON(cm.Login, cm.UserType),
		"created_at":         ts(cm.CreatedAt),
		"updated_at":         ts(cm.UpdatedAt),
		"author_association": "NONE",
	}
	// GitHub sends null when no App acted; go-github's IssueComment has no
	// such field, so the fake sends it only when one did.
	if cm.App != "" {
		o["performed_via_github_app"] = appJSON(cm.App)
	}
	return o
}

// appJSON is the performed_via_github_app of an object: null, or the App
// by its slug.
func appJSON(slug string) any {
	if slug == "" {
		return nil
	}
	return obj{"slug": slug, "name": slug, "owner": obj{"login": slug, "type": "Organization"}}
}

// eventJSON is an issue event with the common properties of every type
// and a label for labeled and unlabeled ones
// (https://docs.github.com/en/rest/using-the-rest-api/issue-event-types).
func (c *call) eventJSON(rp *repo, e *event) obj {
	o := obj{
		"id":                       e.ID,
		"url":                      c.repoURL(rp) + "/issues/events/" + fmt.Sprint(e.ID),
		"actor":                    c.userJSON(e.Login, e.UserType),
		"event":                    e.Event,
		"commit_id":                nullable(e.CommitID),
		"created_at":               ts(e.CreatedAt),
		"performed_via_github_app": appJSON(e.App),
	}
	if e.Event == "labeled" || e.Event == "unlabeled" {
		color := DefaultLabelColor
		if l := rp.findLabel(e.Label); l != nil {
			color = l.Color
		}
		o["label"] = obj{"name": e.Label, "color": color}
	}
	return o
}

func (c *call) statusJSON(rp *repo, st *status) obj {
	return obj{
		"url":         c.repoURL(rp) + "/statuses/" + st.SHA,
		"id":          st.ID,
		"node_id":     nodeID("StatusContext", st.ID),
		"state":       st.State,
		"description": nullable(st.Description),
		"target_url":  nullable(st.TargetURL),
		"context":     st.Context,
		"created_at":  ts(st.CreatedAt),
		"updated_at":  ts(st.CreatedAt),
		"creator":     c.userJSON(st.Creator, st.CreatorType),
	}
}

func (c *call) checkRunJSON(rp *repo, cr *checkRun) obj {
	return obj{
		"id":           cr.ID,
		"node_id":      nodeID("CheckRun", cr.ID),
		"head_sha":     cr.HeadSHA,
		"external_id":  cr.ExternalID,
		"url":          c.repoURL(rp) + "/check-runs/" + fmt.Sprint(cr.ID),
		"html_url":     fmt.Sprintf("%s/%s/%s/runs/%d", htmlBase, rp.owner, rp.name, cr.ID),
		"details_url":  nullable(cr.DetailsURL),
		"status":       cr.Status,
		"conclusion":   nullable(cr.Conclusion),
		"started_at":   ts(cr.StartedAt),
		"completed_at": ts(cr.CompletedAt),
		"name":         cr.Name,
		"output": obj{
			"title":             nullable(cr.Title),
			"summary":           nullable(cr.Summary),
			"text":              nullable(cr.Text),
			"annotations_count": cr.Annotations,
			"annotations_url":   c.repoURL(rp) + "/check-runs/" + fmt.Sprint(cr.ID) + "/annotations",
		},
		"check_suite":   obj{"id": stableID("suite", rp.owner, rp.name, cr.HeadSHA)},
		"app":           obj{"id": 15368, "slug": "github-actions", "name": "GitHub Actions"},
		"pull_requests": []any{},
	}
}

func (c *call) artifactJSON(rp *repo, a *artifact) obj {
	u := c.repoURL(rp) + "/actions/artifacts/" + fmt.Sprint(a.id)
	wr := obj{"id": a.runID, "repository_id": rp.id, "head_repository_id": rp.id}
	if r := rp.findRun(a.runID); r != nil {
		wr["head_branch"] = r.HeadBranch
		wr["head_sha"] = r.HeadSHA
	}
	return obj{
		"id":                   a.id,
		"node_id":              nodeID("Artifact", a.id),
		"name":                 a.name,
		"size_in_bytes":        len(a.zip),
		"url":                  u,
		"archive_download_url": u + "/zip",
		"expired":              a.expired,
		"created_at":           ts(a.createdAt),
		"updated_at":           ts(a.createdAt),
		"expires_at":           ts(a.createdAt.Add(90 * 24 * time.Hour)),
		"workflow_run":         wr,
	}
}

// blobSHA is the git blob SHA-1 of content, as the contents API reports.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// base64Lines encodes like GitHub's contents API: 60 characters a line.
func base64Lines(b []byte) string {
	enc := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	for len(enc) > 60 {
		sb.WriteString(enc[:60])
		sb.WriteByte('\n')
		enc = enc[60:]
	}
	sb.WriteString(enc)
	sb.WriteByte('\n')
	return sb.String()
}

func (c *call) contentJSON(rp *repo, ref, path string, content []byte, withContent bool) obj {
	u := c.repoURL(rp) + "/contents/" + escapePath(path) + "?ref=" + url.QueryEscape(ref)
	sha := blobSHA(content)
	o := obj{
		"type":         "file",
		"name":         baseName(path),
		"path":         path,
		"sha":          sha,
		"size":         len(content),
		"url":          u,
		"html_url":     fmt.Sprintf("%s/%s/%s/blob/%s/%s", htmlBase, rp.owner, rp.name, ref, path),
		"git_url":      c.repoURL(rp) + "/git/blobs/" + sha,
		"download_url": "https://raw.githubusercontent.com/" + rp.owner + "/" + rp.name + "/" + ref + "/" + path,
	}
	if withContent {
		if len(content) > contentsMaxSize {
			o["encoding"] = "none"
			o["content"] = ""
		} else {
			o["encoding"] = "base64"
			o["content"] = base64Lines(content)
		}
	}
	return o
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
