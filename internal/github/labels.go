package github

import (
	"context"
	"errors"
	"fmt"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// defaultLabelColor is GitHub's grey, used when EnsureLabel gets no colour.
const defaultLabelColor = "ededed"

var hexColor = lazyre.New(`^[0-9a-fA-F]{6}$`)

// LabelEvent is one labeled or unlabeled event of an issue or pull request.
type LabelEvent struct {
	// Number is the issue or pull request it happened on.
	Number int
	// Event is "labeled" or "unlabeled".
	Event string
	// Label is the label's name.
	Label string
	// Actor is the login that added or removed the label, ActorType its
	// account type ("User", "Bot", "Organization").
	Actor, ActorType string
	// At is when it happened.
	At time.Time
}

func validLabel(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("label name is empty")
	}
	if len(name) > 200 {
		return fmt.Errorf("label name %q is too long", bounded(name, 60))
	}
	return nil
}

// EnsureLabel creates the repository label name with color (six hex
// digits, "#" allowed; GitHub's grey when empty) and description unless it
// exists: one GET, and a POST only when missing. A label created meanwhile
// by someone else (422 already_exists) is fine. An existing label keeps
// its colour and description.
func (c *Client) EnsureLabel(ctx context.Context, name, color, description string) error {
	if err := validLabel(name); err != nil {
		return fmt.Errorf("ensure label: %w", err)
	}
	color = strings.ToLower(strings.TrimPrefix(color, "#"))
	if color == "" {
		color = defaultLabelColor
	}
	if !hexColor().MatchString(color) {
		return fmt.Errorf("ensure label %q: colour %q is not six hex digits", name, color)
	}
	description = bounded(description, 100)
	getCall := "GET " + c.path("/labels/%s", url.PathEscape(name))
	_, _, err := c.gh.Issues.GetLabel(ctx, c.owner, c.repo, url.PathEscape(name))
	if err == nil {
		return nil
	}
	if err = c.fail(getCall, err); !errors.Is(err, ErrNotFound) {
		return err
	}
	if c.opts.DryRun {
		c.plan("create label %q (colour #%s, description %q) in %s/%s", name, color, description, c.owner, c.repo)
		return nil
	}
	postCall := "POST " + c.path("/labels")
	_, _, err = c.gh.Issues.CreateLabel(ctx, c.owner, c.repo, &gh.Label{
		Name:        gh.String(name),
		Color:       gh.String(color),
		Description: gh.String(description),
	})
	if err != nil && hasCode(err, "already_exists") {
		return nil
	}
	return c.fail(postCall, err)
}

// AddLabels adds labels to issue or pull request number (one POST; none
// when labels is empty). GitHub creates a missing label in grey: call
// EnsureLabel first for a colour.
func (c *Client) AddLabels(ctx context.Context, number int, labels ...string) error {
	if err := validNumber(number); err != nil {
		return fmt.Errorf("add labels: %w", err)
	}
	if len(labels) == 0 {
		return nil
	}
	for _, l := range labels {
		if err := validLabel(l); err != nil {
			return fmt.Errorf("add labels to #%d: %w", number, err)
		}
	}
	if c.opts.DryRun {
		c.plan("add labels %s to #%d", quoteList(labels), number)
		return nil
	}
	call := "POST " + c.path("/issues/%d/labels", number)
	_, _, err := c.gh.Issues.AddLabelsToIssue(ctx, c.owner, c.repo, number, labels)
	return c.fail(call, err)
}

// RemoveLabel removes label from issue or pull request number. A label
// that is already absent (404) is not an error.
func (c *Client) RemoveLabel(ctx context.Context, number int, label string) error {
	if err := validNumber(number); err != nil {
		return fmt.Errorf("remove label: %w", err)
	}
	if err := validLabel(label); err != nil {
		return fmt.Errorf("remove label from #%d: %w", number, err)
	}
	if c.opts.DryRun {
		c.plan("remove label %q from #%d", label, number)
		return nil
	}
	call := "DELETE " + c.path("/issues/%d/labels/%s", number, url.PathEscape(label))
	_, err := c.gh.Issues.RemoveLabelForIssue(ctx, c.owner, c.repo, number, url.PathEscape(label))
	if err = c.fail(call, err); errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// LabelEvents returns the labeled and unlabeled events of issue or pull
// request number, oldest first as GitHub lists them (all pages).
func (c *Client) LabelEvents(ctx context.Context, number int) ([]LabelEvent, error) {
	if err := validNumber(number); err != nil {
		return nil, fmt.Errorf("label events: %w", err)
	}
	call := "GET " + c.path("/issues/%d/events", number)
	events, err := listAll(ctx, c, call, func(o gh.ListOptions) ([]*gh.IssueEvent, *gh.Response, error) {
		return c.gh.Issues.ListIssueEvents(ctx, c.owner, c.repo, number, &o)
	})
	var out []LabelEvent
	for _, e := range events {
		if e == nil || (e.GetEvent() != "labeled" && e.GetEvent() != "unlabeled") {
			continue
		}
		out = append(out, LabelEvent{
			Number:    number,
			Event:     e.GetEvent(),
			Label:     e.GetLabel().GetName(),
			Actor:     e.GetActor().GetLogin(),
			ActorType: e.GetActor().GetType(),
			At:        e.GetCreatedAt().Time,
		})
	}
	return out, err
}

// RepoLabelEvents returns one page (100, newest first) of the label events
// of every issue and pull request in the repository, and the next page (0
// on the last): one call. An audit reads a few pages for all its pull
// requests instead of one call per pull request.
func (c *Client) RepoLabelEvents(ctx context.Context, page int) ([]LabelEvent, int, error) {
	page = max(page, 1)
	call := "GET " + c.path("/issues/events")
	events, resp, err := c.gh.Issues.ListRepositoryEvents(ctx, c.owner, c.repo, &gh.ListOptions{Page: page, PerPage: perPage})
	if err != nil {
		return nil, 0, c.fail(call, err)
	}
	var out []LabelEvent
	for _, e := range events {
		if e == nil || e.Issue == nil || (e.GetEvent() != "labeled" && e.GetEvent() != "unlabeled") {
			continue
		}
		out = append(out, LabelEvent{
			Number:    e.GetIssue().GetNumber(),
			Event:     e.GetEvent(),
			Label:     e.GetLabel().GetName(),
			Actor:     e.GetActor().GetLogin(),
			ActorType: e.GetActor().GetType(),
			At:        e.GetCreatedAt().Time,
		})
	}
	next := 0
	if resp != nil && resp.NextPage > page {
		next = resp.NextPage
	}
	return out, next, nil
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
