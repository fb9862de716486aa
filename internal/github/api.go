package github

import (
	"context"
)

// The seam is cut by role, so that a side effect's code and tests need only
// that role's calls; *Client implements every role.

// PullService reads pull requests: those an audit walks, and the one a run
// is about when its payload does not say enough (issue_comment, a fork's
// workflow_run).
type PullService interface {
	ListPulls(ctx context.Context, q PullQuery) (PullPage, error)
	GetPull(ctx context.Context, number int) (Pull, error)
	PullsByHead(ctx context.Context, owner, branch string) ([]Pull, error)
	PullCommits(ctx context.Context, number int) ([]PullCommit, bool, error)
	PullFiles(ctx context.Context, number, maxPages int) (PullFiles, error)
}

// CommentService reads a pull request's comments (the /loopbreaker
// commands) and writes the sticky comment.
type CommentService interface {
	Comments(ctx context.Context, number int) ([]Comment, error)
	UpsertComment(ctx context.Context, number int, knownID int64, sticky Sticky, body string) (int64, error)
}

// LabelService puts labels on a pull request and takes them off.
type LabelService interface {
	AddLabel(ctx context.Context, number int, l LabelSpec) error
	RemoveLabel(ctx context.Context, number int, label string) error
}

// EventService reads who added and removed labels, and whether a person
// may control the breaker (a collaborator's permission, a team's members).
type EventService interface {
	LabelEvents(ctx context.Context, number int) ([]LabelEvent, error)
	RepoLabelEvents(ctx context.Context, page int) ([]LabelEvent, int, error)
	Permission(ctx context.Context, login string) (string, error)
	TeamMember(ctx context.Context, org, slug, login string) (bool, error)
}

// ArtifactService finds and downloads the record artifacts of earlier
// runs: by name across the repository, or among a workflow's runs.
type ArtifactService interface {
	LatestArtifact(ctx context.Context, name string, excludeRunID int64, belongs func(Artifact) bool) (*Artifact, error)
	ListArtifacts(ctx context.Context, name string, page int) ([]Artifact, int, error)
	WorkflowRuns(ctx context.Context, workflowPath, branch string, n int) ([]WorkflowRun, error)
	RunArtifacts(ctx context.Context, runID int64, name string) ([]Artifact, error)
	DownloadArtifact(ctx context.Context, a *Artifact, maxBytes int64) ([]byte, error)
}

// StatusService sets the commit status or creates the check run.
type StatusService interface {
	SetStatus(ctx context.Context, sha, state, description, targetURL string) error
	CreateCheckRun(ctx context.Context, sha, conclusion, title, summary string) error
}

// ContentService reads a file at a ref (the policy file on the base
// branch).
type ContentService interface {
	FileAt(ctx context.Context, ref, path string) ([]byte, error)
}

// Accounting reports the calls made (Charged: those counted against the
// primary rate limit, which a 304 Not Modified is not), the rate limit last
// reported, and the writes a dry run skipped.
type Accounting interface {
	Calls() int
	Charged() int
	RateRemaining() (remaining, limit int, known bool)
	Planned() []string
}

// API is every role: what the Action's run holds, since it both checks and
// audits.
type API interface {
	PullService
	CommentService
	LabelService
	EventService
	ArtifactService
	StatusService
	ContentService
	Accounting
}

var _ API = (*Client)(nil)
