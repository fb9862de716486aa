package github

import (
	"context"
	"fmt"
	"net/url"
	"path"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// WorkflowRun is a run of one workflow, as the runs listing gives it.
type WorkflowRun struct {
	ID int64
	// Attempt is the run's latest attempt (1 until it is re-run).
	Attempt int
	// HeadBranch and HeadSHA are the run's head; HeadRepo is the head
	// repository's "owner/name" (a fork's for a fork's pull request).
	HeadBranch, HeadSHA, HeadRepo string
}

// WorkflowRuns returns the newest runs (at most n, one call) of the
// workflow file (its path in the repository, as GITHUB_WORKFLOW_REF names
// it) on branch, newest first.
func (c *Client) WorkflowRuns(ctx context.Context, workflowPath, branch string, n int) ([]WorkflowRun, error) {
	file := path.Base(workflowPath)
	if !strings.HasPrefix(workflowPath, ".github/workflows/") || file == "" || strings.TrimSpace(branch) == "" {
		return nil, fmt.Errorf("workflow runs: %q on %q is not a workflow file and a branch", bounded(workflowPath, 100), bounded(branch, 100))
	}
	call := "GET " + c.path("/actions/workflows/%s/runs", file)
	runs, _, err := c.gh.Actions.ListWorkflowRunsByFileName(ctx, c.owner, c.repo, file,
		&gh.ListWorkflowRunsOptions{Branch: branch, ListOptions: gh.ListOptions{PerPage: max(1, min(n, perPage))}})
	if err != nil {
		return nil, c.fail(call, err)
	}
	var out []WorkflowRun
	for _, r := range runs.WorkflowRuns {
		if r == nil {
			continue
		}
		out = append(out, WorkflowRun{ID: r.GetID(), Attempt: r.GetRunAttempt(), HeadBranch: r.GetHeadBranch(), HeadSHA: r.GetHeadSHA(),
			HeadRepo: r.GetHeadRepository().GetFullName()})
	}
	return out, nil
}

// RunArtifacts returns run runID's artifacts called name (one call: a run
// holds few).
func (c *Client) RunArtifacts(ctx context.Context, runID int64, name string) ([]Artifact, error) {
	call := "GET " + c.path("/actions/runs/%d/artifacts", runID)
	req, err := c.gh.NewRequest("GET", strings.TrimPrefix(call, "GET /")+"?per_page=100&name="+url.QueryEscape(name), nil)
	if err != nil {
		return nil, c.fail(call, err)
	}
	var list gh.ArtifactList
	if _, err := c.gh.Do(ctx, req, &list); err != nil {
		return nil, c.fail(call, err)
	}
	var out []Artifact
	for _, a := range list.Artifacts {
		if a != nil && a.GetName() == name {
			out = append(out, artifactOf(a))
		}
	}
	return out, nil
}
