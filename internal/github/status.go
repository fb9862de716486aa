package github

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"

	gh "github.com/google/go-github/v60/github"
)

// StatusContext is the context of the commit status and the name of the
// check run this package writes.
const StatusContext = "loopbreaker"

const (
	maxStatusDescription = 140
	maxCheckTitle        = 1000
	maxCheckSummary      = 65535
)

var shaPattern = lazyre.New(`^[0-9a-fA-F]{7,64}$`)

// SetStatus sets the commit status "loopbreaker" of sha: state is success,
// failure, pending or error; description is cut to 140 characters;
// targetURL may be empty.
func (c *Client) SetStatus(ctx context.Context, sha, state, description, targetURL string) error {
	if !shaPattern().MatchString(sha) {
		return fmt.Errorf("set status: %q is not a commit hash", bounded(sha, 80))
	}
	if targetURL != "" {
		if u, err := url.Parse(targetURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("set status on %s: target URL %q is not an http(s) URL", sha, bounded(targetURL, 200))
		}
	}
	description = bounded(description, maxStatusDescription)
	if c.opts.DryRun {
		c.plan("set commit status %q of %s to %s: %q", StatusContext, sha, state, description)
		return nil
	}
	st := &gh.RepoStatus{
		State:       gh.String(state),
		Context:     gh.String(StatusContext),
		Description: gh.String(description),
	}
	if targetURL != "" {
		st.TargetURL = gh.String(targetURL)
	}
	call := "POST " + c.path("/statuses/%s", sha)
	_, _, err := c.gh.Repositories.CreateStatus(ctx, c.owner, c.repo, sha, st)
	return c.fail(call, err)
}

// CreateCheckRun creates a completed check run "loopbreaker" on sha; a
// summary over 65,535 characters is refused before any call.
func (c *Client) CreateCheckRun(ctx context.Context, sha, conclusion, title, summary string) error {
	if !shaPattern().MatchString(sha) {
		return fmt.Errorf("create check run: %q is not a commit hash", bounded(sha, 80))
	}
	title = bounded(cmp.Or(title, StatusContext), maxCheckTitle)
	if n := utf8.RuneCountInString(summary); n > maxCheckSummary {
		return fmt.Errorf("create check run on %s: the summary has %d characters, more than the %d GitHub allows", sha, n, maxCheckSummary)
	}
	if c.opts.DryRun {
		c.plan("create check run %q on %s: %s, %q", StatusContext, sha, conclusion, title)
		return nil
	}
	call := "POST " + c.path("/check-runs")
	_, _, err := c.gh.Checks.CreateCheckRun(ctx, c.owner, c.repo, gh.CreateCheckRunOptions{
		Name:        StatusContext,
		HeadSHA:     sha,
		Status:      gh.String("completed"),
		Conclusion:  gh.String(conclusion),
		CompletedAt: &gh.Timestamp{Time: c.now().UTC()},
		Output: &gh.CheckRunOutput{
			Title:   gh.String(title),
			Summary: gh.String(summary),
		},
	})
	return c.fail(call, err)
}
