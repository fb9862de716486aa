package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// Artifact is a workflow-run artifact as GitHub lists it.
type Artifact struct {
	// ID is the artifact's id, RunID its workflow run's.
	ID, RunID int64
	// Name is the artifact's name; HeadBranch and HeadSHA are its run's.
	Name, HeadBranch, HeadSHA string
	// Expired reports an artifact past its retention: it cannot be
	// downloaded.
	Expired bool
	// Size is the zip's size in bytes as GitHub reports it.
	Size int64
	// CreatedAt is when the artifact was uploaded.
	CreatedAt time.Time
}

func artifactOf(a *gh.Artifact) Artifact {
	return Artifact{
		ID:         a.GetID(),
		RunID:      a.GetWorkflowRun().GetID(),
		Name:       a.GetName(),
		HeadBranch: a.GetWorkflowRun().GetHeadBranch(),
		HeadSHA:    a.GetWorkflowRun().GetHeadSHA(),
		Expired:    a.GetExpired(),
		Size:       a.GetSizeInBytes(),
		CreatedAt:  timeOf(a.CreatedAt),
	}
}

// LatestArtifact finds the previous run's artifact called name on branch
// with one call (the newest 100 artifacts of that name): the newest one
// that has not expired, from a run other than excludeRunID (the current
// run). When only expired ones match it returns the newest of them with
// Expired set, so the caller can say the record has expired; nil when none
// matches.
func (c *Client) LatestArtifact(ctx context.Context, name, branch string, excludeRunID int64) (*Artifact, error) {
	if name == "" || branch == "" {
		return nil, fmt.Errorf("latest artifact: name %q and branch %q must both be given", name, branch)
	}
	call := "GET " + c.path("/actions/artifacts")
	q := url.Values{"name": {name}, "per_page": {fmt.Sprint(perPage)}}
	req, err := c.gh.NewRequest("GET", fmt.Sprintf("repos/%s/%s/actions/artifacts?%s", c.owner, c.repo, q.Encode()), nil)
	if err != nil {
		return nil, c.fail(call, err)
	}
	var list gh.ArtifactList
	if _, err := c.gh.Do(ctx, req, &list); err != nil {
		return nil, c.fail(call, err)
	}
	var live, expired *Artifact
	for _, ga := range list.Artifacts {
		if ga == nil {
			continue
		}
		a := artifactOf(ga)
		if a.Name != name || a.HeadBranch != branch || (excludeRunID != 0 && a.RunID == excludeRunID) {
			continue
		}
		best := &live
		if a.Expired {
			best = &expired
		}
		if *best == nil || newerArtifact(&a, *best) {
			*best = &a
		}
	}
	if live != nil {
		return live, nil
	}
	return expired, nil
}

func newerArtifact(a, b *Artifact) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	return a.ID > b.ID
}

// DownloadArtifact downloads artifact a's zip, at most maxBytes bytes: one
// API call that answers with a redirect to storage, then the download from
// storage without the token. An expired artifact (flagged, or 410 from the
// API, or a refused storage link) is an error wrapping ErrExpired; a larger
// zip is an error.
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
