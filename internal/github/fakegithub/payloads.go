package fakegithub

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The event payloads of the workflows loopbreaker runs in, built from the
// server's state with the same JSON as its API answers: what a workflow
// finds at GITHUB_EVENT_PATH, and the GITHUB_REF and GITHUB_SHA GitHub sets
// for it (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows).

// PullRequestEvent is the payload of a pull_request event (action such as
// "synchronize") on pull request number, and the ref and commit of the run
// it starts: refs/pull/N/merge and the test merge commit (Pull.MergeSHA),
// "Last merge commit on the GITHUB_REF branch", which actions/checkout
// checks out by default; the payload's pull_request.head.sha is the head.
func (s *Server) PullRequestEvent(owner, repo string, number int, action string) (payload []byte, ref, sha string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.payloadCall()
	rp, is, err := s.pullLocked(owner, repo, number)
	if err != nil {
		return nil, "", "", err
	}
	p := is.pull
	data, err := json.Marshal(obj{
		"action":       action,
		"number":       p.Number,
		"pull_request": c.pullJSON(rp, is),
		"repository":   c.repoJSON(rp),
		"sender":       c.userJSON(p.User, p.UserType),
	})
	return data, fmt.Sprintf("refs/pull/%d/merge", number), p.MergeSHA, err
}

// IssueCommentEvent is the payload of the issue_comment event "created" of
// comment id on issue or pull request number, and the ref of its run: the
// default branch. The payload has no head or base of a pull request, only
// issue.pull_request (links) to say it is one.
func (s *Server) IssueCommentEvent(owner, repo string, number int, id int64) (payload []byte, ref string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.payloadCall()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil, "", fmt.Errorf("issue comment event: no repository %s/%s", owner, repo)
	}
	is := rp.issueLocked(number, false)
	if is == nil {
		return nil, "", fmt.Errorf("issue comment event: no issue #%d in %s/%s", number, owner, repo)
	}
	var cm *Comment
	for _, x := range is.comments {
		if x.ID == id {
			cm = x
		}
	}
	if cm == nil {
		return nil, "", fmt.Errorf("issue comment event: no comment %d on #%d", id, number)
	}
	data, err := json.Marshal(obj{
		"action":     "created",
		"issue":      c.issueJSON(rp, is),
		"comment":    c.commentJSON(rp, number, cm),
		"repository": c.repoJSON(rp),
		"sender":     c.userJSON(cm.Login, cm.UserType),
	})
	return data, "refs/heads/" + rp.defaultBranch, err
}

// WorkflowRunEvent is the payload of the workflow_run event "completed"
// for run id (seeded with AddRun), and the ref of the run it starts: the
// default branch. Its pull_requests lists the open pull requests of the
// repository whose head branch and commit are the run's; for a run on a
// fork's branch it is empty ("Pushes to a branch in a forked repository
// are not detected and return an empty pull_requests array",
// https://docs.github.com/en/rest/checks/runs, and
// https://github.com/actions/runner/issues/3444).
func (s *Server) WorkflowRunEvent(owner, repo string, id int64) (payload []byte, ref string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.payloadCall()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil, "", fmt.Errorf("workflow run event: no repository %s/%s", owner, repo)
	}
	r := rp.findRun(id)
	if r == nil {
		return nil, "", fmt.Errorf("workflow run event: no run %d in %s/%s", id, owner, repo)
	}
	head := c.repoJSON(rp)
	pulls := []any{}
	if r.HeadRepo != "" && !strings.EqualFold(r.HeadRepo, rp.owner+"/"+rp.name) {
		forkOwner, _, _ := strings.Cut(r.HeadRepo, "/")
		head = c.forkJSON(rp, forkOwner)
	} else {
		for _, n := range sortedNumbers(rp) {
			p := rp.issues[n].pull
			if p == nil || p.State != "open" || p.Fork || p.HeadRef != r.HeadBranch || p.HeadSHA != r.HeadSHA {
				continue
			}
			pulls = append(pulls, obj{
				"id":     stableID("pull", rp.owner, rp.name, fmt.Sprint(p.Number)),
				"number": p.Number,
				"url":    c.repoURL(rp) + "/pulls/" + fmt.Sprint(p.Number),
				"head":   obj{"ref": p.HeadRef, "sha": p.HeadSHA, "repo": obj{"id": rp.id, "url": c.repoURL(rp), "name": rp.name}},
				"base":   obj{"ref": p.BaseRef, "sha": p.BaseSHA, "repo": obj{"id": rp.id, "url": c.repoURL(rp), "name": rp.name}},
			})
		}
	}
	event := r.Event
	if event == "" {
		event = "pull_request"
	}
	run := obj{
		"id":              r.ID,
		"name":            r.Name,
		"node_id":         nodeID("WorkflowRun", r.ID),
		"head_branch":     r.HeadBranch,
		"head_sha":        r.HeadSHA,
		"run_number":      r.RunNumber,
		"run_attempt":     max(1, r.RunAttempt),
		"event":           event,
		"status":          "completed",
		"conclusion":      nullable(r.Conclusion),
		"workflow_id":     r.WorkflowID,
		"url":             c.repoURL(rp) + "/actions/runs/" + fmt.Sprint(r.ID),
		"html_url":        fmt.Sprintf("%s/%s/%s/actions/runs/%d", htmlBase, rp.owner, rp.name, r.ID),
		"pull_requests":   pulls,
		"created_at":      ts(r.CreatedAt),
		"updated_at":      ts(r.CreatedAt),
		"artifacts_url":   c.repoURL(rp) + "/actions/runs/" + fmt.Sprint(r.ID) + "/artifacts",
		"head_commit":     obj{"id": r.HeadSHA, "tree_id": nil, "message": "", "timestamp": ts(r.CreatedAt)},
		"repository":      c.repoJSON(rp),
		"head_repository": head,
	}
	data, err := json.Marshal(obj{
		"action":       "completed",
		"workflow_run": run,
		"repository":   c.repoJSON(rp),
		"sender":       c.userJSON(orDefault(r.Actor, rp.owner), "User"),
	})
	return data, "refs/heads/" + rp.defaultBranch, err
}

// payloadCall is a call for rendering payloads outside a request.
func (s *Server) payloadCall() *call {
	return &call{s: s, base: strings.TrimSuffix(s.URL, "/")}
}

func (s *Server) pullLocked(owner, repo string, number int) (*repo, *issue, error) {
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil, nil, fmt.Errorf("no repository %s/%s", owner, repo)
	}
	is := rp.issueLocked(number, false)
	if is == nil || is.pull == nil {
		return nil, nil, fmt.Errorf("no pull request #%d in %s/%s", number, owner, repo)
	}
	return rp, is, nil
}

func sortedNumbers(rp *repo) []int {
	var out []int
	for n := range rp.issues {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
