package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/control"
)

// defaultLabelColor is GitHub's grey: the colour of a label created by
// adding it.
const defaultLabelColor = "ededed"

// LabelEvent is one labeled or unlabeled event of an issue or pull
// request, as the trust rule reads it.
type LabelEvent = control.LabelEvent

// LabelSpec is a label loopbreaker puts on: its name, colour (six
// lowercase hex digits; none keeps GitHub's grey) and description (at most
// 100 characters).
type LabelSpec struct {
	Name, Color, Description string
}

// AddLabel puts l on number. A label GitHub creates on the way is grey and
// bare; AddLabel then gives it l's colour and description (one more call,
// once per repository), leaving a label a person recoloured as it is.
func (c *Client) AddLabel(ctx context.Context, number int, l LabelSpec) error {
	if err := validNumber(number); err != nil {
		return fmt.Errorf("add label: %w", err)
	}
	if c.opts.DryRun {
		c.plan("add label %q to #%d (created with colour #%s when the repository lacks it)", l.Name, number, l.Color)
		return nil
	}
	call := "POST " + c.path("/issues/%d/labels", number)
	got, _, err := c.gh.Issues.AddLabelsToIssue(ctx, c.owner, c.repo, number, []string{l.Name})
	if err != nil {
		return c.fail(call, err)
	}
	for _, g := range got {
		if g == nil || !strings.EqualFold(g.GetName(), l.Name) {
			continue
		}
		if l.Color == "" || !strings.EqualFold(g.GetColor(), defaultLabelColor) || g.GetDescription() != "" {
			return nil // no colour to give, or not just made: a person's colour stays
		}
		editCall := "PATCH " + c.path("/labels/%s", url.PathEscape(g.GetName()))
		_, _, err := c.gh.Issues.EditLabel(ctx, c.owner, c.repo, url.PathEscape(g.GetName()),
			&gh.Label{Color: gh.String(l.Color), Description: gh.String(l.Description)})
		if err = c.fail(editCall, err); err != nil && !errors.Is(err, ErrForbidden) {
			return fmt.Errorf("label %q was added to #%d, but its colour was not set: %w", l.Name, number, err)
		}
	}
	return nil
}

// RemoveLabel removes label from issue or pull request number. A label
// that is already absent (404) is not an error.
func (c *Client) RemoveLabel(ctx context.Context, number int, label string) error {
	if err := validNumber(number); err != nil {
		return fmt.Errorf("remove label: %w", err)
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
	return labelEvents(events, number), err
}

// RepoLabelEvents returns one page (100, newest first) of the label events
// of every issue and pull request in the repository, and the next page (0
// on the last): one call, where an audit would ask once per pull request.
func (c *Client) RepoLabelEvents(ctx context.Context, page int) ([]LabelEvent, int, error) {
	page = max(page, 1)
	events, resp, err := c.gh.Issues.ListRepositoryEvents(ctx, c.owner, c.repo, &gh.ListOptions{Page: page, PerPage: perPage})
	if err != nil {
		return nil, 0, c.fail("GET "+c.path("/issues/events"), err)
	}
	return labelEvents(events, 0), nextPage(resp, page), nil
}

// labelEvents keeps the labeled and unlabeled events, of pull request
// number (0: of the issue each names).
func labelEvents(events []*gh.IssueEvent, number int) []LabelEvent {
	var out []LabelEvent
	for _, e := range events {
		if e == nil || (e.GetEvent() != "labeled" && e.GetEvent() != "unlabeled") || number == 0 && e.Issue == nil {
			continue
		}
		out = append(out, LabelEvent{Number: cmp.Or(number, e.GetIssue().GetNumber()), Event: e.GetEvent(), Label: e.GetLabel().GetName(), Actor: e.GetActor().GetLogin(),
			ActorType: e.GetActor().GetType(), At: e.GetCreatedAt().Time, ViaApp: e.GetPerformedViaGithubApp().GetSlug()})
	}
	return out
}
