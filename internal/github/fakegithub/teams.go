package fakegithub

import (
	"net/http"
	"strings"
)

// AddTeamMember makes login an active member of the team org/slug.
func (s *Server) AddTeamMember(org, slug, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.teams == nil {
		s.teams = map[string]map[string]bool{}
	}
	key := strings.ToLower(org + "/" + slug)
	if s.teams[key] == nil {
		s.teams[key] = map[string]bool{}
	}
	s.teams[key][strings.ToLower(login)] = true
}

// getTeamMembership answers a member's membership, 404 for anyone else
// (https://docs.github.com/en/rest/teams/members#get-team-membership-for-a-user).
func (s *Server) getTeamMembership(c *call) {
	key := strings.ToLower(c.r.PathValue("org") + "/" + c.r.PathValue("slug"))
	login := c.r.PathValue("user")
	if !s.teams[key][strings.ToLower(login)] {
		c.notFound()
		return
	}
	c.writeJSON(http.StatusOK, obj{"url": c.base + "/orgs/" + c.r.PathValue("org") + "/teams/" + c.r.PathValue("slug") + "/memberships/" + login,
		"role": "member", "state": "active"})
}
