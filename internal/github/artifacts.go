package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"time"

	gh "github.com/google/go-github/v60/github"
)

// Artifact is a workflow-run artifact as GitHub lists it: its run's id,
// head branch and commit, whether it expired (then it cannot be
// downloaded), its zip's size in bytes and its upload time.
type Artifact struct {
	ID, RunID                 int64
	Name, HeadBranch, HeadSHA string
	Expired                   bool
	Size                      int64
	CreatedAt                 time.Time
}

// ArtifactName is an artifact-name with {branch} replaced by the loop's
// branch, escaped: the records of loops whose runs are all on the default
// branch kept apart by name.
func ArtifactName(template, branch string) string {
	return strings.ReplaceAll(template, "{branch}", url.PathEscape(branch))
}

// maxArtifactPages bounds LatestArtifact's listing (5,000 artifacts of one
// name).
const maxArtifactPages = 50

// LatestArtifact finds the newest artifact called name that belongs (and
// is not run excludeRunID's). GitHub documents no order, so every page is
// read. When only expired ones belong it returns the newest with Expired
// set; nil when none belongs.
func (c *Client) LatestArtifact(ctx context.Context, name string, excludeRunID int64, belongs func(Artifact) bool) (*Artifact, error) {
	var all []Artifact
	for page, n := 1, 0; page != 0; n++ {
		if n == maxArtifactPages {
			return nil, fmt.Errorf("latest artifact %s: %w: more than %d pages of artifacts of that name", name, ErrTruncated, maxArtifactPages)
		}
		list, next, err := c.ListArtifacts(ctx, name, page)
		if err != nil {
			return nil, err
		}
		all, page = append(all, list...), next
	}
	live, expired := Newest(all, func(a Artifact) bool { return (excludeRunID == 0 || a.RunID != excludeRunID) && belongs(a) })
	if live != nil {
		return live, nil
	}
	return expired, nil
}

// Newest returns the newest unexpired artifact of list that belongs, and
// the newest expired one: the one created last, the higher id on a tie.
func Newest(list []Artifact, belongs func(Artifact) bool) (live, expired *Artifact) {
	for i := range list {
		a := &list[i]
		if !belongs(*a) {
			continue
		}
		best := &live
		if a.Expired {
			best = &expired
		}
		if *best == nil || a.CreatedAt.After((*best).CreatedAt) || a.CreatedAt.Equal((*best).CreatedAt) && a.ID > (*best).ID {
			*best = a
		}
	}
	return live, expired
}

// DownloadArtifact downloads a's zip, at most maxBytes: one API call
// redirecting to storage, fetched without the token. An expired artifact
// is an error wrapping ErrExpired.
func (c *Client) DownloadArtifact(ctx context.Context, a *Artifact, maxBytes int64) ([]byte, error) {
	if a == nil || a.ID <= 0 {
		return nil, errors.New("download artifact: no artifact given")
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("download artifact %d: size bound %d is not positive", a.ID, maxBytes)
	}
	if a.Expired {
		return nil, fmt.Errorf("download artifact %d (%s): %w", a.ID, a.Name, ErrExpired)
	}
	if a.Size > maxBytes {
		return nil, fmt.Errorf("download artifact %d (%s): %d bytes, larger than the %d allowed", a.ID, a.Name, a.Size, maxBytes)
	}
	call := "GET " + c.path("/actions/artifacts/%d/zip", a.ID)
	req, err := c.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/actions/artifacts/%d/zip", c.owner, c.repo, a.ID), nil)
	if err != nil {
		return nil, c.fail(call, err)
	}
	resp, err := c.noRedirect.Do(req.WithContext(ctx))
	if err != nil {
		return nil, c.fail(call, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return readBounded(resp, call, a, maxBytes)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		discard(resp)
	default:
		return nil, &APIError{Call: call, Status: resp.StatusCode, Message: readMessage(resp), Attempts: 1}
	}
	loc, err := resp.Location()
	if err != nil || (loc.Scheme != "https" && loc.Scheme != "http") {
		return nil, &APIError{Call: call, Status: resp.StatusCode, Message: "redirect without a usable Location"}
	}
	sreq, err := http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
	if err != nil {
		return nil, &APIError{Call: call, Message: "storage link: " + err.Error(), Err: err}
	}
	sresp, err := c.storage.Do(sreq)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, &APIError{Call: "GET " + loc.Host + loc.EscapedPath(), Message: err.Error(), Err: err, storage: true}
	}
	if sresp.StatusCode != http.StatusOK {
		return nil, &APIError{
			Call:    "GET " + loc.Host + loc.EscapedPath(),
			Status:  sresp.StatusCode,
			Message: fmt.Sprintf("artifact %d download link refused: %s", a.ID, readMessage(sresp)),
			storage: true,
		}
	}
	return readBounded(sresp, "GET "+loc.Host+loc.EscapedPath(), a, maxBytes)
}

// readBounded reads a download of at most maxBytes bytes and closes it.
func readBounded(resp *http.Response, call string, a *Artifact, maxBytes int64) ([]byte, error) {
	defer resp.Body.Close()
	if resp.ContentLength > maxBytes {
		return nil, fmt.Errorf("download artifact %d (%s): %d bytes, larger than the %d allowed", a.ID, a.Name, resp.ContentLength, maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, &APIError{Call: call, Status: resp.StatusCode, Message: "reading the download: " + err.Error(), Err: err}
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("download artifact %d (%s): more than the %d bytes allowed", a.ID, a.Name, maxBytes)
	}
	return data, nil
}

// ListArtifacts returns one page (100) of the repository's artifacts
// called name, expired ones included, and the next page (0 on the last):
// one call. GitHub documents no order for this list.
func (c *Client) ListArtifacts(ctx context.Context, name string, page int) ([]Artifact, int, error) {
	if name == "" {
		return nil, 0, fmt.Errorf("list artifacts: no name given")
	}
	return c.artifacts(ctx, "GET "+c.path("/actions/artifacts"), name, max(page, 1))
}

// artifacts reads one page of the artifact list call names, of those
// called name, and the next page.
func (c *Client) artifacts(ctx context.Context, call, name string, page int) ([]Artifact, int, error) {
	q := url.Values{"name": {name}, "per_page": {strconv.Itoa(perPage)}, "page": {strconv.Itoa(page)}}
	var list gh.ArtifactList
	var resp *gh.Response
	req, err := c.gh.NewRequest("GET", call[len("GET /"):]+"?"+q.Encode(), nil)
	if err == nil {
		resp, err = c.gh.Do(ctx, req, &list)
	}
	if err != nil {
		return nil, 0, c.fail(call, err)
	}
	var out []Artifact
	for _, a := range list.Artifacts {
		if a.GetName() == name {
			out = append(out, Artifact{ID: a.GetID(), RunID: a.GetWorkflowRun().GetID(), Name: a.GetName(), HeadBranch: a.GetWorkflowRun().GetHeadBranch(),
				HeadSHA: a.GetWorkflowRun().GetHeadSHA(), Expired: a.GetExpired(), Size: a.GetSizeInBytes(), CreatedAt: a.GetCreatedAt().Time})
		}
	}
	return out, nextPage(resp, page), nil
}

// WorkflowRun is a run of one workflow: its latest attempt (1 until it
// is re-run), its head, and its head repository's "owner/name" (a fork's
// for a fork's pull request).
type WorkflowRun struct {
	ID                            int64
	Attempt                       int
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
		out = append(out, WorkflowRun{ID: r.GetID(), Attempt: r.GetRunAttempt(), HeadBranch: r.GetHeadBranch(), HeadSHA: r.GetHeadSHA(),
			HeadRepo: r.GetHeadRepository().GetFullName()})
	}
	return out, nil
}

// RunArtifacts returns run runID's artifacts called name (one call: a run
// holds few).
func (c *Client) RunArtifacts(ctx context.Context, runID int64, name string) ([]Artifact, error) {
	out, _, err := c.artifacts(ctx, "GET "+c.path("/actions/runs/%d/artifacts", runID), name, 1)
	return out, err
}
