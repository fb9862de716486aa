package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/control"
)

// MaxCommentLength is the longest comment body GitHub accepts, in
// characters; UpsertComment refuses longer bodies (the caller sizes what it
// posts).
const MaxCommentLength = 65536

// Comment is an issue or pull-request comment, as the trust rule reads it.
type Comment = control.Comment

// appComment is an issue comment with performed_via_github_app, which
// go-github's IssueComment does not decode.
type appComment struct {
	gh.IssueComment
	PerformedViaGithubApp *gh.App `json:"performed_via_github_app,omitempty"`
}

// Comments returns the comments of issue or pull request number, oldest
// first (all pages).
func (c *Client) Comments(ctx context.Context, number int) ([]Comment, error) {
	if err := validNumber(number); err != nil {
		return nil, fmt.Errorf("comments: %w", err)
	}
	call := "GET " + c.path("/issues/%d/comments", number)
	list, err := listAll(ctx, c, call, func(o gh.ListOptions) (list []*appComment, resp *gh.Response, err error) {
		req, err := c.gh.NewRequest(http.MethodGet, fmt.Sprintf("%s?page=%d&per_page=%d", call[len("GET /"):], o.Page, o.PerPage), nil)
		if err == nil {
			resp, err = c.gh.Do(ctx, req, &list)
		}
		return list, resp, err
	})
	out := make([]Comment, 0, len(list))
	for _, ac := range list {
		if ac != nil {
			out = append(out, Comment{ID: ac.GetID(), Login: ac.GetUser().GetLogin(), UserType: ac.GetUser().GetType(), Body: ac.GetBody(),
				CreatedAt: ac.GetCreatedAt().Time, UpdatedAt: ac.GetUpdatedAt().Time, ViaApp: ac.PerformedViaGithubApp.GetSlug()})
		}
	}
	return out, err
}

// Sticky names a sticky comment: its marker and the pull request's author,
// whose comments are never taken for it (an agent App is a bot too).
type Sticky struct {
	Marker string
	Author string
	// Absent says the caller listed the comments just before and found no
	// sticky one: UpsertComment creates one without listing them again.
	Absent bool
}

// FindComment returns the newest comment of number carrying the sticky
// marker whose author may own it (a bot or the token's own user, never the
// pull request's author); nil when there is none.
func (c *Client) FindComment(ctx context.Context, number int, sticky Sticky) (*Comment, error) {
	if strings.TrimSpace(sticky.Marker) == "" {
		return nil, errors.New("find comment: marker is empty")
	}
	list, err := c.Comments(ctx, number)
	if err != nil && !errors.Is(err, ErrTruncated) {
		return nil, err
	}
	var best *Comment
	for i := range list {
		cm := &list[i]
		if !strings.Contains(cm.Body, sticky.Marker) || (sticky.Author != "" && strings.EqualFold(cm.Login, sticky.Author)) ||
			best != nil && (cm.CreatedAt.Before(best.CreatedAt) || cm.CreatedAt.Equal(best.CreatedAt) && cm.ID <= best.ID) {
			continue
		}
		if !strings.EqualFold(cm.UserType, "Bot") {
			self, err := c.selfLogin(ctx)
			if err != nil {
				return nil, err
			}
			if self == "" || !strings.EqualFold(self, cm.Login) {
				continue
			}
		}
		best = cm
	}
	return best, nil
}

// selfLogin returns the token's own login (GET /user, once). A token that
// may not ask (the workflow token answers 403) has no login: "".
func (c *Client) selfLogin(ctx context.Context) (string, error) {
	c.mu.Lock()
	self, known := c.self, c.selfKnown
	c.mu.Unlock()
	if known {
		return self, nil
	}
	u, _, err := c.gh.Users.Get(ctx, "")
	if err != nil {
		err = c.fail("GET /user", err)
		var ae *APIError
		if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 && !ae.RateLimited {
			u = nil
		} else {
			return "", err
		}
	}
	self = u.GetLogin()
	c.mu.Lock()
	c.self, c.selfKnown = self, true
	c.mu.Unlock()
	return self, nil
}

// UpsertComment keeps one sticky comment on number and returns its id: it
// edits knownID (searching when it is gone), creates one when sticky.Absent,
// else edits the one FindComment finds or creates one; never a second. The
// marker is prepended when missing; a body over MaxCommentLength is refused.
// In dry-run mode it returns the id it would edit, 0 for a create.
func (c *Client) UpsertComment(ctx context.Context, number int, knownID int64, sticky Sticky, body string) (id int64, err error) {
	marker := sticky.Marker
	if err := validNumber(number); err != nil {
		return 0, fmt.Errorf("upsert comment: %w", err)
	}
	if strings.TrimSpace(marker) == "" {
		return 0, fmt.Errorf("upsert comment on #%d: marker is empty", number)
	}
	body, err = fitComment(number, marker, body)
	if err != nil {
		return 0, err
	}
	if knownID > 0 {
		if c.opts.DryRun {
			c.plan("edit comment %d on #%d (%d characters)", knownID, number, utf8.RuneCountInString(body))
			return knownID, nil
		}
		id, err := c.editComment(ctx, knownID, body)
		if !errors.Is(err, ErrNotFound) {
			return id, err
		}
	}
	var found *Comment
	if knownID > 0 || !sticky.Absent {
		if found, err = c.FindComment(ctx, number, sticky); err != nil {
			return 0, err
		}
	}
	if found != nil {
		if c.opts.DryRun {
			c.plan("edit comment %d on #%d (%d characters)", found.ID, number, utf8.RuneCountInString(body))
			return found.ID, nil
		}
		return c.editComment(ctx, found.ID, body)
	}
	if c.opts.DryRun {
		c.plan("create a comment on #%d (%d characters)", number, utf8.RuneCountInString(body))
		return 0, nil
	}
	// A failed create may still have made the comment: look before
	// creating again, so that a retry never leaves two.
	id, err = c.createComment(withoutResend(ctx), number, body)
	if err == nil || !mayHaveWritten(err) {
		return id, err
	}
	found, ferr := c.FindComment(ctx, number, sticky)
	if ferr != nil {
		return 0, err
	}
	if found != nil {
		return c.editComment(ctx, found.ID, body)
	}
	return c.createComment(withoutResend(ctx), number, body)
}

func (c *Client) createComment(ctx context.Context, number int, body string) (int64, error) {
	call := "POST " + c.path("/issues/%d/comments", number)
	ic, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, number, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return 0, c.fail(call, err)
	}
	return ic.GetID(), nil
}

// mayHaveWritten reports a failure after which GitHub may have done the
// write anyway: a 5xx answer or a network error, not a refusal, a rate
// limit or the end of the context.
func mayHaveWritten(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) || ae.RateLimited {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return ae.Status >= 500 || (ae.Status == 0 && ae.Err != nil)
}

func (c *Client) editComment(ctx context.Context, id int64, body string) (int64, error) {
	call := "PATCH " + c.path("/issues/comments/%d", id)
	ic, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, id, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return 0, c.fail(call, err)
	}
	if got := ic.GetID(); got != 0 {
		return got, nil
	}
	return id, nil
}

// fitComment makes body carry marker and refuses a body longer than
// MaxCommentLength characters: cutting it here would cut the digest it
// ends with.
func fitComment(number int, marker, body string) (string, error) {
	if !strings.Contains(body, marker) {
		body = marker + "\n" + body
	}
	if n := utf8.RuneCountInString(body); n > MaxCommentLength {
		return "", fmt.Errorf("upsert comment on #%d: the body has %d characters, more than the %d GitHub allows", number, n, MaxCommentLength)
	}
	return body, nil
}

// Permission returns login's permission on the repository: admin,
// maintain, write, triage, read or none (also when GitHub answers 404, for
// a login that is not a collaborator or does not exist).
func (c *Client) Permission(ctx context.Context, login string) (string, error) {
	if !loginPattern().MatchString(login) {
		return "", fmt.Errorf("permission: %q is not a GitHub login", bounded(login, 60))
	}
	call := "GET " + c.path("/collaborators/%s/permission", login)
	req, err := c.gh.NewRequest("GET", strings.TrimPrefix(call, "GET /"), nil)
	if err != nil {
		return "", c.fail(call, err)
	}
	var v struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := c.gh.Do(ctx, req, &v); err != nil {
		if err = c.fail(call, err); errors.Is(err, ErrNotFound) {
			return "none", nil
		}
		return "", err
	}
	switch r := strings.ToLower(v.RoleName); r {
	case "admin", "maintain", "write", "triage", "read":
		return r, nil
	}
	switch p := strings.ToLower(v.Permission); p {
	case "admin", "maintain", "write", "triage", "read", "none":
		return p, nil
	case "":
		return "none", nil
	default:
		return "", fmt.Errorf("%s: unknown permission %q", call, bounded(p, 40))
	}
}
