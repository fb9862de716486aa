package fakegithub

import (
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
)

// listWorkflowRuns answers the runs of one workflow, by its file name (or
// id), newest first, filtered by branch when the query names one
// (https://docs.github.com/en/rest/actions/workflow-runs#list-workflow-runs-for-a-workflow).
// A run's workflow is its Path's file (".github/workflows/loop.yml").
func (s *Server) listWorkflowRuns(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "actions=read") {
		return
	}
	wf := c.r.PathValue("wf")
	branch := c.r.URL.Query().Get("branch")
	var list []*Run
	for _, r := range rp.runs {
		if path.Base(r.Path) != wf && strconv.FormatInt(r.WorkflowID, 10) != wf {
			continue
		}
		if branch != "" && r.HeadBranch != branch {
			continue
		}
		list = append(list, r)
	}
	sort.SliceStable(list, func(i, j int) bool {
		if !list[i].CreatedAt.Equal(list[j].CreatedAt) {
			return list[i].CreatedAt.After(list[j].CreatedAt)
		}
		return list[i].ID > list[j].ID
	})
	start, end := c.paginate(len(list))
	out := []any{}
	for _, r := range list[start:end] {
		out = append(out, c.runJSON(rp, r))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": len(list), "workflow_runs": out})
}

// runJSON is a workflow run with the fields loopbreaker reads.
func (c *call) runJSON(rp *repo, r *Run) obj {
	head := rp.owner + "/" + rp.name
	if r.HeadRepo != "" {
		head = r.HeadRepo
	}
	owner, name, _ := strings.Cut(head, "/")
	return obj{
		"id": r.ID, "name": r.Name, "path": r.Path, "workflow_id": r.WorkflowID,
		"head_branch": r.HeadBranch, "head_sha": r.HeadSHA, "event": r.Event,
		"status": orString(r.Status, "completed"), "conclusion": nullable(r.Conclusion),
		"run_attempt": max(r.RunAttempt, 1), "created_at": ts(r.CreatedAt),
		"url":             c.repoURL(rp) + "/actions/runs/" + strconv.FormatInt(r.ID, 10),
		"head_repository": obj{"full_name": head, "name": name, "owner": c.userJSON(owner, "User")},
		"repository":      obj{"full_name": rp.owner + "/" + rp.name},
	}
}

// listRunArtifacts answers one run's artifacts, filtered by name when the
// query names one
// (https://docs.github.com/en/rest/actions/artifacts#list-workflow-run-artifacts).
func (s *Server) listRunArtifacts(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "actions=read") {
		return
	}
	id, ok := c.intParam("id")
	if !ok {
		return
	}
	name := c.r.URL.Query().Get("name")
	var list []*artifact
	for _, a := range rp.artifacts {
		if a.runID == id && (name == "" || a.name == name) {
			list = append(list, a)
		}
	}
	start, end := c.paginate(len(list))
	out := []any{}
	for _, a := range list[start:end] {
		out = append(out, c.artifactJSON(rp, a))
	}
	c.writeJSON(http.StatusOK, obj{"total_count": len(list), "artifacts": out})
}

func orString(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
