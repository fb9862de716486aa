package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Which workflow file a run uses. "Each workflow run will use the version
// of the workflow that is present in the associated commit SHA or Git ref
// of the event"
// (https://docs.github.com/en/actions/writing-workflows/choosing-when-your-workflow-runs/triggering-a-workflow),
// and each event's row of
// https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows
// says which they are: the ref the event builders return is the run's
// GITHUB_REF, the ref whose workflow files run.
//
//   - workflow_dispatch: "Branch or tag that received dispatch" (#workflow_dispatch);
//   - pull_request: the merge branch refs/pull/N/merge, at "Last merge commit
//     on the GITHUB_REF branch" (#pull_request): the pull request's own
//     workflow files, merged;
//   - pull_request_target: "PR base branch", at "Last commit on the PR base
//     branch" (#pull_request_target);
//   - issue_comment, workflow_run and schedule: "Default branch", at "Last
//     commit on default branch" (#issue_comment, #workflow_run, #schedule);
//   - merge_group: "Ref of the merge group", at "SHA of the merge group"
//     (#merge_group): the queued pull requests' files, merged.

const docDispatch = "https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event"

// Dispatch is a workflow_dispatch event made through the API: the
// workflow file named, the ref its run uses, the inputs and who made it.
type Dispatch struct {
	Workflow string            `json:"workflow"`
	Ref      string            `json:"ref"`
	Inputs   map[string]string `json:"inputs,omitempty"`
	Actor    string            `json:"actor"`
}

// createDispatch records a workflow_dispatch event (gh workflow run). The
// ref is a branch or tag name; the run it starts uses that ref's workflow
// file. A token needs actions: write.
func (s *Server) createDispatch(c *call) {
	rp := c.repo()
	if rp == nil || !c.allowed(rp, "actions=write") {
		return
	}
	var b struct {
		Ref    string            `json:"ref"`
		Inputs map[string]string `json:"inputs"`
	}
	if !c.decode(&b) {
		return
	}
	if b.Ref == "" {
		c.invalid("Workflow", "ref", "missing_field", "ref is required")
		return
	}
	login, _ := c.login()
	rp.dispatches = append(rp.dispatches, Dispatch{Workflow: c.r.PathValue("wf"), Ref: b.Ref, Inputs: b.Inputs, Actor: login})
	c.w.WriteHeader(http.StatusNoContent)
}

// Dispatches are the workflow_dispatch events made on owner/repo, oldest
// first.
func (s *Server) Dispatches(owner, repo string) []Dispatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil
	}
	return append([]Dispatch(nil), rp.dispatches...)
}

// fullRef is a branch name as a ref (a ref stays as it is).
func fullRef(ref string) string {
	if strings.HasPrefix(ref, "refs/") {
		return ref
	}
	return "refs/heads/" + ref
}

// WorkflowDispatchEvent is the payload of the run that dispatch d starts
// and its ref: the ref given.
func (s *Server) WorkflowDispatchEvent(owner, repo string, d Dispatch) (payload []byte, ref string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.payloadCall()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil, "", fmt.Errorf("workflow dispatch event: no repository %s/%s", owner, repo)
	}
	inputs := d.Inputs
	if inputs == nil {
		inputs = map[string]string{}
	}
	ref = fullRef(d.Ref)
	data, err := json.Marshal(obj{
		"ref": ref, "inputs": inputs, "workflow": ".github/workflows/" + d.Workflow,
		"repository": c.repoJSON(rp), "sender": c.userJSON(orDefault(d.Actor, rp.owner), "User"),
	})
	return data, ref, err
}

// PullRequestTargetEvent is the payload of a pull_request_target event on
// pull request number and its run's ref and commit: the base branch and
// its commit (Pull.BaseSHA), whatever the pull request changed.
func (s *Server) PullRequestTargetEvent(owner, repo string, number int, action string) (payload []byte, ref, sha string, err error) {
	payload, _, _, err = s.PullRequestEvent(owner, repo, number, action)
	if err != nil {
		return nil, "", "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, is, err := s.pullLocked(owner, repo, number)
	if err != nil {
		return nil, "", "", err
	}
	return payload, fullRef(is.pull.BaseRef), is.pull.BaseSHA, nil
}

// MergeGroupEvent is the payload of the merge_group event
// "checks_requested" for a queue that tests pull request number at the
// group's commit groupSHA, and its run's ref and commit: the merge
// group's (refs/heads/gh-readonly-queue/<base>/pr-<number>-<head sha>), a
// merge of the queued pull request's changes, workflow files included.
func (s *Server) MergeGroupEvent(owner, repo string, number int, groupSHA string) (payload []byte, ref, sha string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.payloadCall()
	rp, is, err := s.pullLocked(owner, repo, number)
	if err != nil {
		return nil, "", "", err
	}
	p := is.pull
	ref = fmt.Sprintf("refs/heads/gh-readonly-queue/%s/pr-%d-%s", p.BaseRef, p.Number, p.HeadSHA)
	data, err := json.Marshal(obj{
		"action":      "checks_requested",
		"merge_group": obj{"head_sha": groupSHA, "head_ref": ref, "base_sha": p.BaseSHA, "base_ref": fullRef(p.BaseRef)},
		"repository":  c.repoJSON(rp), "sender": c.userJSON("github-merge-queue[bot]", "Bot"),
	})
	return data, ref, groupSHA, err
}

// ScheduleEvent is the payload of a schedule event and its run's ref: the
// default branch.
func (s *Server) ScheduleEvent(owner, repo, cron string) (payload []byte, ref string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repoLocked(owner, repo, false)
	if rp == nil {
		return nil, "", fmt.Errorf("schedule event: no repository %s/%s", owner, repo)
	}
	data, err := json.Marshal(obj{"schedule": cron, "repository": s.payloadCall().repoJSON(rp)})
	return data, "refs/heads/" + rp.defaultBranch, err
}
