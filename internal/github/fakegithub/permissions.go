package fakegithub

import (
	"net/http"
	"strings"
)

// Scopes are the permission scopes a token's permissions name, in the
// API's spelling (the x-accepted-github-permissions header's).
var Scopes = []string{"actions", "checks", "contents", "issues", "metadata", "packages", "pull_requests", "statuses"}

// Messages of a refused token
// (https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api#resource-not-accessible).
const (
	msgIntegration = "Resource not accessible by integration"
	msgUserToken   = "Resource not accessible by personal access token"
)

// normalPerms turns a permissions: block into the token's map: the API's
// scope names, "none" dropped, metadata always readable.
func normalPerms(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := map[string]string{"metadata": "read"}
	for scope, level := range in {
		scope = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(scope)), "-", "_")
		switch level = strings.ToLower(strings.TrimSpace(level)); level {
		case "read", "write":
			out[scope] = level
		}
	}
	return out
}

// grants reports whether perms hold scope at level ("write" includes
// "read"); nil perms hold everything.
func grants(perms map[string]string, scope, level string) bool {
	if perms == nil {
		return true
	}
	have := perms[scope]
	return have == "write" || (have == "read" && level == "read")
}

// allowed reports whether the call's token may use the endpoint, and
// answers it when not. Each of sets is one set of permissions GitHub
// accepts ("issues=write", or "a=read,b=read" for a set that needs both);
// any one set suffices, as the x-accepted-github-permissions header lists
// them, separated by ";"
// (https://github.blog/changelog/2023-08-10-x-accepted-github-permissions-header-for-fine-grained-permission-actors).
//
// A read of a public repository needs no permission, and works without a
// token ("can be used without authentication or the aforementioned
// permissions if only public resources are requested", as the endpoints'
// pages say); a private repository is not found without one. A token that
// lacks every set gets 403 with GitHub's message and the header.
func (c *call) allowed(rp *repo, sets ...string) bool {
	read := c.r.Method == http.MethodGet || c.r.Method == http.MethodHead
	if c.user == nil {
		if rp != nil && rp.private {
			c.notFound()
			return false
		}
		return true // writes without a token were refused before routing
	}
	if read && (rp == nil || !rp.private) {
		return true
	}
	for _, set := range sets {
		ok := true
		for _, g := range strings.Split(set, ",") {
			scope, level, _ := strings.Cut(strings.TrimSpace(g), "=")
			ok = ok && grants(c.user.perms, scope, level)
		}
		if ok {
			return true
		}
	}
	c.w.Header().Set("X-Accepted-GitHub-Permissions", strings.Join(sets, "; "))
	msg := msgIntegration
	if !c.user.app {
		msg = msgUserToken
	}
	c.errorf(http.StatusForbidden, "%s", msg)
	return false
}
