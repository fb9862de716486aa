package fakegithub

import (
	"time"
)

// Pull is a pull request to seed with AddPull. User and UserType name its
// author (UserType "User" or "Bot"); Commits and Files list what the commits
// and files endpoints return, Trees the tree of each commit (optional; the
// parents are the chain from BaseSHA). State is "open" (the default when
// empty) or "closed"; Merged and ClosedAt describe a closed one. Fork marks
// a head repository that is a fork owned by User. MergeSHA is the test
// merge commit GitHub keeps at refs/pull/N/merge, the commit a pull_request
// workflow runs on. Labels are put on the pull request (and created in the
// repository when missing).
type Pull struct {
	Number    int       `json:"number"`
	Title     string    `json:"title,omitempty"`
	Body      string    `json:"body,omitempty"`
	State     string    `json:"state,omitempty"`
	User      string    `json:"user,omitempty"`
	UserType  string    `json:"user_type,omitempty"`
	HeadSHA   string    `json:"head_sha,omitempty"`
	HeadRef   string    `json:"head_ref,omitempty"`
	BaseRef   string    `json:"base_ref,omitempty"`
	BaseSHA   string    `json:"base_sha,omitempty"`
	Draft     bool      `json:"draft,omitempty"`
	Labels    []string  `json:"labels,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	ClosedAt  time.Time `json:"closed_at,omitzero"`
	Merged    bool      `json:"merged,omitempty"`
	Fork      bool      `json:"fork,omitempty"`
	Commits   []string  `json:"commits,omitempty"`
	Trees     []string  `json:"trees,omitempty"`
	Files     []string  `json:"files,omitempty"`
	MergeSHA  string    `json:"merge_sha,omitempty"`
}

// Run is a workflow run to seed with AddRun: its artifacts report its head
// branch and commit (and are dated by it when they have no date), and
// WorkflowRunEvent builds the workflow_run payload of a run that follows
// it. HeadRepo is the "owner/name" its head branch is in, when that is a
// fork ("" for the repository itself). No endpoint lists runs; the other
// fields are kept as given, so that seeds and dumps that carry them still
// load.
type Run struct {
	ID          int64     `json:"id"`
	WorkflowID  int64     `json:"workflow_id,omitempty"`
	Name        string    `json:"name,omitempty"`
	Path        string    `json:"path,omitempty"`
	HeadBranch  string    `json:"head_branch,omitempty"`
	HeadSHA     string    `json:"head_sha,omitempty"`
	HeadRepo    string    `json:"head_repo,omitempty"`
	Event       string    `json:"event,omitempty"`
	Status      string    `json:"status,omitempty"`
	Conclusion  string    `json:"conclusion,omitempty"`
	RunAttempt  int       `json:"run_attempt,omitempty"`
	RunNumber   int       `json:"run_number,omitempty"`
	CreatedAt   time.Time `json:"created_at,omitzero"`
	PullNumbers []int     `json:"pull_numbers,omitempty"`
	Actor       string    `json:"actor,omitempty"`
}

// Comment is an issue comment as stored by the server.
type Comment struct {
	ID        int64     `json:"id"`
	Login     string    `json:"login"`
	UserType  string    `json:"user_type"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	// App is the slug of the GitHub App that wrote it on the author's
	// behalf (performed_via_github_app), "" for none.
	App string `json:"app,omitempty"`
}

// Status is a commit status as stored by the server; Creator is the login
// of the token that posted it.
type Status struct {
	State       string `json:"state"`
	Context     string `json:"context"`
	Description string `json:"description,omitempty"`
	TargetURL   string `json:"target_url,omitempty"`
	Creator     string `json:"creator,omitempty"`
}

// CheckRun is a check run as stored by the server; Title and Summary come
// from its output.
type CheckRun struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	Title      string `json:"title,omitempty"`
	Summary    string `json:"summary,omitempty"`
}

// Label is a repository label.
type Label struct {
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
}

// Fault makes matching requests fail or answer slowly; see Server.Inject.
type Fault struct {
	// Status is the HTTP status to answer with: 500, 502, 404, 429, or 403
	// for a primary rate limit (X-RateLimit-Remaining: 0) unless Secondary
	// is set. Zero answers normally after Delay, or 200 with Body if set.
	Status int
	// Secondary makes a 403 (or a zero Status) a secondary rate limit:
	// GitHub's message, its documentation URL and a Retry-After header.
	Secondary bool
	// RetryAfter is the Retry-After header in seconds, for Secondary and
	// 429; for a primary 403 the reset header is now plus RetryAfter.
	RetryAfter int
	// Times is how many matching requests the fault hits; 0 means all.
	Times int
	// Delay makes the answer wait, or stop early when the request's
	// context ends.
	Delay time.Duration
	// Body replaces the answer's body (for example a corrupt zip).
	Body []byte
}
