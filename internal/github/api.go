package github

import (
	"context"
	"time"
)

// API is loopbreaker's GitHub seam: exactly the calls the Action
// (internal/action) and the audit (internal/audit) make. *Client
// implements it over the REST API; tests of their logic use the in-memory
// githubtest.Memory instead.
type API interface {
	// Pull requests an audit walks, and the one a run is about when its
	// payload does not say enough (issue_comment, a fork's workflow_run).
	ListPulls(ctx context.Context, q PullQuery) (PullPage, error)
	GetPull(ctx context.Context, number int) (AuditPull, error)
	PullsByHead(ctx context.Context, owner, branch string) ([]AuditPull, error)
	PullCommits(ctx context.Context, number int) ([]PullCommit, bool, error)
	PullFiles(ctx context.Context, number, maxPages int) (PullFiles, error)

	// The sticky comment and the /loopbreaker commands.
	Comments(ctx context.Context, number int, since time.Time) ([]Comment, error)
	UpsertComment(ctx context.Context, number int, knownID int64, sticky Sticky, body string) (int64, error)

	// Labels, their events and who may control the breaker.
	AddLabel(ctx context.Context, number int, l LabelSpec) error
	RemoveLabel(ctx context.Context, number int, label string) error
	LabelEvents(ctx context.Context, number int) ([]LabelEvent, error)
	RepoLabelEvents(ctx context.Context, page int) ([]LabelEvent, int, error)
	Permission(ctx context.Context, login string) (string, error)

	// Record artifacts of earlier runs.
	LatestArtifact(ctx context.Context, name string, excludeRunID int64, belongs func(Artifact) bool) (*Artifact, error)
	ListArtifacts(ctx context.Context, name string, page int) ([]Artifact, int, error)
	DownloadArtifact(ctx context.Context, a *Artifact, maxBytes int64) ([]byte, error)

	// The commit status or check run, and the policy file on the base
	// branch.
	SetStatus(ctx context.Context, sha, state, description, targetURL string) error
	CreateCheckRun(ctx context.Context, sha, conclusion, title, summary string) error
	FileAt(ctx context.Context, ref, path string) ([]byte, error)

	// Accounting: calls made, the rate limit last reported, and the writes
	// a dry run skipped.
	Calls() int
	RateRemaining() (remaining, limit int, known bool)
	Planned() []string
}

var _ API = (*Client)(nil)
