package github

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	gh "github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

// TestRequestsDecodeIntoGoGithubTypes: every body the client sends is one
// GitHub's API takes: it decodes into go-github's request type of its
// endpoint with no unknown field. (The answers are held to go-github's
// types by the fake's own tests.)
func TestRequestsDecodeIntoGoGithubTypes(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	srv.AddPull(owner, repo, fakegithub.Pull{Number: 1, HeadSHA: head, HeadRef: "agent"})
	var mu sync.Mutex
	bodies := map[string][]byte{}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(data))
		if len(data) > 0 {
			mu.Lock()
			bodies[r.Method+" "+routeOf(r.URL.Path)] = data
			mu.Unlock()
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	srv.URL = front.URL
	c, _ := newClient(t, front.URL)
	ctx := context.Background()
	if err := c.AddLabel(ctx, 1, LabelSpec{Name: "loopbreaker:open", Color: "b60205", Description: "stuck"}); err != nil {
		t.Fatal(err)
	}
	id, err := c.UpsertComment(ctx, 1, 0, Sticky{Marker: marker, Absent: true}, "first")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpsertComment(ctx, 1, id, Sticky{Marker: marker}, "second"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetStatus(ctx, head, "failure", "OPEN", "https://github.com/acme/widget/actions/runs/1"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateCheckRun(ctx, head, "failure", "OPEN", "summary"); err != nil {
		t.Fatal(err)
	}
	decode := map[string]func([]byte) error{
		"POST /repos/acme/widget/issues/{n}/labels":     strictInto[[]string],
		"PATCH /repos/acme/widget/labels/{name}":        strictInto[gh.Label],
		"POST /repos/acme/widget/issues/{n}/comments":   strictInto[gh.IssueComment],
		"PATCH /repos/acme/widget/issues/comments/{id}": strictInto[gh.IssueComment],
		"POST /repos/acme/widget/statuses/{sha}":        strictInto[gh.RepoStatus],
		"POST /repos/acme/widget/check-runs":            strictInto[gh.CreateCheckRunOptions],
	}
	for route, dec := range decode {
		body, ok := bodies[route]
		if !ok {
			t.Errorf("%s: no request was made", route)
			continue
		}
		if err := dec(body); err != nil {
			t.Errorf("%s: %v\n%s", route, err, body)
		}
	}
	if len(bodies) != len(decode) {
		t.Errorf("got request bodies for %d routes, want %d: %v", len(bodies), len(decode), keys(bodies))
	}
}

// strictInto decodes data into a T, refusing unknown fields.
func strictInto[T any](data []byte) error {
	var v T
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(&v)
}

// routeOf names a path by its route, numbers and names as placeholders.
func routeOf(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		switch {
		case i > 0 && parts[i-1] == "statuses":
			parts[i] = "{sha}"
		case i > 0 && parts[i-1] == "labels" && parts[i-2] == "widget":
			parts[i] = "{name}"
		case i > 0 && parts[i-1] == "issues" && s != "comments":
			parts[i] = "{n}"
		case i > 0 && parts[i-1] == "comments" && s != "":
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
