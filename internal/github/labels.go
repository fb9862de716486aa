package github

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	gh "github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/control"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// defaultLabelColor is GitHub's grey: the colour of a label created by
// adding it, and of a LabelSpec without one.
const defaultLabelColor = "ededed"

var hexColor = lazyre.New(`^[0-9a-fA-F]{6}$`)

// LabelEvent is one labeled or unlabeled event of an issue or pull
// request, as the trust rule reads it.
type LabelEvent = control.LabelEvent

func validLabel(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("label name is empty")
	}
	if len(name) > 200 {
		return fmt.Errorf("label name %q is too long", bounded(name, 60))
	}
	return nil
}

// LabelSpec is a label loopbreaker puts on: its name, colour (six hex
// digits, "#" allowed; GitHub's grey when empty) and description.
type LabelSpec struct {
	Name, Color, Description string
}

// AddLabel puts label l on issue or pull request number with one call.
// GitHub creates a label the repository lacks as it adds it, in its grey
// and without a description; AddLabel then gives it l's colour and
// description with one more call. That happens once per repository: the
// label exists from then on. Only a label with GitHub's grey and no
// description is taken for one just made, so a label a person recoloured
// is left as it is. Creating a label needs issues: write on the token; a
// token that may add labels but not edit them leaves a grey one grey.
func (c *Client) AddLabel(ctx context.Context, number int, l LabelSpec) error {
	if err := validNumber(number); err != nil {
		return fmt.Errorf("add label: %w", err)
	}
	if err := validLabel(l.Name); err != nil {
		return fmt.Errorf("add label to #%d: %w", number, err)
	}
	color := strings.ToLower(strings.TrimPrefix(l.Color, "#"))
	if color == "" {
		color = defaultLabelColor
	}
	if !hexColor().MatchString(color) {
		return fmt.Errorf("add label %q: colour %q is not six hex digits", l.Name, l.Color)
	}
	description := bounded(l.Description, 100)
	if c.opts.DryRun {
		c.plan("add label %q to #%d (created with colour #%s when the repository lacks it)", l.Name, number, color)
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
		fresh := strings.EqualFold(g.GetColor(), defaultLabelColor) && g.GetDescription() == ""
		if !fresh || (color == defaultLabelColor && description == "") {
			return nil
		}
		editCall := "PATCH " + c.path("/labels/%s", url.PathEscape(g.GetName()))
		_, _, err := c.gh.Issues.EditLabel(ctx, c.owner, c.repo, url.PathEscape(g.GetName()),
			&gh.Label{Color: gh.String(color), Description: gh.String(description)})
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
// request number, oldest first as GitHub lists them (all pages; the events
// of other types GitHub lists beside them are left out).
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
			ViaApp:    e.GetPerformedViaGithubApp().GetSlug(),
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
			ViaApp:    e.GetPerformedViaGithubApp().GetSlug(),
		})
	}
	return out, nextPage(resp, page), nil
}
