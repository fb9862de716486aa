package action

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github"
)

// pull completes from the API (one call) what the event's payload lacks of
// the run's pull request: issue_comment names no head or base; workflow_run
// names a fork's pull request by its head only; push, workflow_dispatch and
// schedule name none, and the loop's branch finds it by its head.
func (r *run) pull(ctx context.Context) error {
	ev := r.ev
	switch {
	case (ev.Name == "issue_comment" || ev.Name == "merge_group") && ev.Number > 0 && ev.HeadSHA == "":
	case ev.Name == "workflow_run" && ev.HeadSHA != "":
	case (ev.Name == "push" || ev.Name == "workflow_dispatch" || ev.Name == "schedule") && ev.Number == 0:
		if r.in.Branch != "" {
			// A run on the default branch for the loop's: GITHUB_REF and
			// GITHUB_SHA are the default branch's, the checkout the loop's.
			sha, err := r.branchHead(r.in.Branch)
			if err != nil {
				return err
			}
			ev.HeadRef, ev.HeadSHA = r.in.Branch, sha
		}
		ev.HeadRef = cmp.Or(ev.HeadRef, strings.TrimPrefix(r.getenv("GITHUB_REF"), "refs/heads/"))
		ev.HeadSHA = cmp.Or(ev.HeadSHA, r.getenv("GITHUB_SHA"))
		if ev.HeadRef == "" || strings.HasPrefix(ev.HeadRef, "refs/") || ev.HeadRef == ev.DefaultBranch {
			return nil
		}
		ev.HeadOwner, ev.HeadRepo = r.owner, r.owner+"/"+r.repo
	default:
		return nil
	}
	if r.client == nil {
		r.note("no token: the pull request's head and base could not be read from the API")
		return nil
	}
	var p *github.Pull
	if ev.Number > 0 {
		got, err := r.client.GetPull(ctx, ev.Number)
		if err := r.apiError(fmt.Sprintf("read pull request #%d", ev.Number), err); err != nil {
			return err
		}
		if err == nil {
			p = &got
		}
	} else if ev.HeadOwner != "" && ev.HeadRef != "" {
		found, err := r.client.PullsByHead(ctx, ev.HeadOwner, ev.HeadRef)
		if err := r.apiError("find the pull request of "+ev.HeadOwner+":"+ev.HeadRef, err); err != nil {
			return err
		}
		p = r.matchHead(found)
	}
	if p == nil {
		if ev.Name != "issue_comment" && ev.Name != "merge_group" {
			r.note(fmt.Sprintf("no open pull request has the head %s:%s at %.12s: no labels, comment or commands", ev.HeadOwner, ev.HeadRef, ev.HeadSHA))
		}
		return nil
	}
	if ev.Name == "issue_comment" || ev.Name == "merge_group" {
		ev.HeadSHA, ev.HeadRef = p.HeadSHA, p.HeadRef
	}
	ev.Number = p.Number
	ev.BaseSHA, ev.BaseRef = p.BaseSHA, p.BaseRef
	ev.Labels, ev.Author, ev.Fork = p.Labels, p.User, p.Fork
	ev.HeadRepo = p.HeadRepo
	return nil
}

// matchHead picks the pull request of a fork's workflow_run among those
// with its head branch: head repository and commit match, else the only one
// from the head repository.
func (r *run) matchHead(found []github.Pull) *github.Pull {
	var same []github.Pull
	for _, p := range found {
		if r.ev.HeadRepo == "" || strings.EqualFold(p.HeadRepo, r.ev.HeadRepo) {
			same = append(same, p)
		}
	}
	for i := range same {
		if same[i].HeadSHA == r.ev.HeadSHA {
			return &same[i]
		}
	}
	if len(same) == 1 {
		r.note(fmt.Sprintf("pull request #%d's head moved from %.12s (the run's) to %.12s: the run's commit is evaluated", same[0].Number, r.ev.HeadSHA, same[0].HeadSHA))
		return &same[0]
	}
	return nil
}

// branchHead is the commit the workspace has checked out as the loop's
// branch: HEAD, which must be the branch's head as the checkout fetched it
// (actions/checkout with ref: the branch).
func (r *run) branchHead(branch string) (string, error) {
	cl, err := checkout.Open(r.ws)
	if err != nil {
		return "", fmt.Errorf("input branch: the workspace is not a clone of %s: %w", branch, err)
	}
	defer cl.Close()
	head, err := cl.Head()
	if err != nil {
		return "", fmt.Errorf("input branch: the checkout has no HEAD: %w", err)
	}
	if at, err := cl.Ref("refs/remotes/origin/" + branch); err == nil && at != head {
		return "", fmt.Errorf("input branch: the workspace has %.12s checked out, not the head %.12s of %s (check it out: actions/checkout with ref: %s)", head, at, branch, branch)
	}
	return head, nil
}
