package github

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// TeamMember reports whether login is an active member of org/slug. A 404
// (not a member, or a team the token cannot see: GITHUB_TOKEN cannot read
// teams) means not known to be one.
func (c *Client) TeamMember(ctx context.Context, org, slug, login string) (bool, error) {
	if !loginPattern().MatchString(login) || !loginPattern().MatchString(org) || strings.TrimSpace(slug) == "" {
		return false, fmt.Errorf("team membership: %q in %s/%s is not a GitHub login and team", bounded(login, 60), bounded(org, 60), bounded(slug, 60))
	}
	call := "GET /orgs/" + url.PathEscape(org) + "/teams/" + url.PathEscape(slug) + "/memberships/" + url.PathEscape(login)
	req, err := c.gh.NewRequest("GET", strings.TrimPrefix(call, "GET /"), nil)
	if err != nil {
		return false, c.fail(call, err)
	}
	var v struct {
		State string `json:"state"`
	}
	if _, err := c.gh.Do(ctx, req, &v); err != nil {
		if err = c.fail(call, err); errors.Is(err, ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return v.State == "active", nil
}
