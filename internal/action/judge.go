package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/render"
)

// The agent's job holds no write token: it hands its commits to the judge
// as a git bundle artifact, which the judge applies (fast-forwards only),
// pushes with its own token, and decides on.

// applyBundle applies the bundle input: the agent's new commits become the
// loop branch's head, locally and, unless this is a dry run, on GitHub.
func (r *run) applyBundle(ctx context.Context) error {
	path := r.inWorkspace([]string{r.in.Bundle})[0]
	if err := noLinks(r.ws, "bundle", path); err != nil {
		return err
	}
	// The agent's job writes no bundle when it made no commit: the
	// iteration is judged on the branch as it is.
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		r.note(fmt.Sprintf("no bundle at %s: the agent made no commit this iteration", r.in.Bundle))
		return nil
	}
	cl, err := checkout.Open(r.ws)
	if err != nil {
		return fmt.Errorf("input bundle: the workspace is not a clone of the loop's branch: %w", err)
	}
	defer cl.Close()
	head, err := cl.Head()
	if err != nil {
		return fmt.Errorf("input bundle: the checkout has no HEAD: %w", err)
	}
	branch := r.ev.HeadRef
	if branch == "" {
		return fmt.Errorf("input bundle: the run names no branch to push the agent's commits to (set the branch input)")
	}
	// The judge holds a write token: the workflow file it runs must be
	// one the agent cannot change, the default branch's. GitHub runs the
	// file of the event's ref (GITHUB_REF).
	def := r.ev.DefaultBranch
	if ref := r.getenv("GITHUB_REF"); def == "" || ref != "refs/heads/"+def {
		return fmt.Errorf("input bundle: this run's workflow file is the one at %q, which the agent's commits can change, not the default branch's (%q): dispatch the loop on the default branch with the loop's branch as the branch input (gh workflow run --ref %s -f branch=%s)", ref, def, orDefault(def, "main"), branch)
	}
	if branch == def {
		return fmt.Errorf("input bundle: the loop's branch is the default branch %s, where the judge never pushes the agent's commits (set the branch input)", def)
	}
	tip, err := cl.ApplyBundle(path, head)
	if err != nil {
		return fmt.Errorf("input bundle: %w", err)
	}
	if tip == head {
		r.note("the agent's bundle adds no commit")
		return nil
	}
	// Nothing below .github/ comes from the agent: its workflows would run
	// with the repository's secrets, its CODEOWNERS and dependabot steer
	// reviews and updates. A merge of the default branch brings that
	// branch's own files.
	trusted, _ := cl.Ref("refs/remotes/origin/" + def)
	if trusted == "" {
		trusted, _ = cl.Ref("refs/heads/" + def)
	}
	at, changed, err := cl.Changed(tip, head, ".github", trusted)
	if err != nil {
		return fmt.Errorf("input bundle: %w", err)
	}
	if at != "" {
		r.hold = fmt.Sprintf("the agent's commit %.12s changes %s: nothing below .github/ is pushed from the agent's handover (workflows, actions, CODEOWNERS, dependabot, the policy), so its commits were not pushed; a person reviews the handover and resumes the loop (/loopbreaker resume)", at, changed)
		return nil
	}
	if err := cl.SetRef("HEAD", tip); err != nil {
		return fmt.Errorf("input bundle: move HEAD to %s: %w", tip, err)
	}
	r.ev.HeadSHA = tip
	if r.in.DryRun {
		r.note(fmt.Sprintf("dry run: the agent's commits up to %.12s were checked and not pushed to %s", tip, branch))
		return nil
	}
	token := orDefault(r.in.PushToken, r.in.Token)
	if token == "" {
		return fmt.Errorf("input bundle: no token to push the agent's commits to %s", branch)
	}
	if err := cl.Push(ctx, r.cloneURL(cl), token, tip, branch); err != nil {
		return err
	}
	r.note(fmt.Sprintf("pushed the agent's commits %.12s..%.12s to %s", head, tip, branch))
	return nil
}

// gate reports whether the agent may start (the proceed output); nothing is
// written to GitHub and the step never fails. A fork's pull request has no
// loop here.
func (r *run) gate(res *loop.Result) (int, error) {
	d := res.Final()
	out, err := outputs(d, r.notes, "")
	if err != nil {
		return 0, err
	}
	// The agent may start when the breaker lets the loop go on and the
	// work is not done.
	ok := d.State != breaker.Open && d.AllowContinue && !d.Complete && !r.ev.Fork
	out["proceed"] = fmt.Sprint(ok)
	out["head-ref"] = r.ev.HeadRef
	out["artifact-name"] = r.artifactName(r.ev.HeadRef)
	r.setOutputs(out)
	why := d.State.String()
	switch {
	case ok:
		r.gha.Noticef("loopbreaker gate: %s at iteration %d: the agent may start", d.State, d.Iteration)
		return exitContinue, nil
	case r.ev.Fork:
		r.gha.Noticef("loopbreaker gate: the agent is not started: pull request #%d's head is a fork's branch (%s), and an agent loop runs on a branch of this repository only", r.ev.Number, render.Clean(orDefault(r.ev.HeadRepo, "another repository")))
		return exitContinue, nil
	case d.Complete:
		why = "complete"
	case d.Reason != nil:
		why += ": " + *d.Reason
	}
	r.gha.Noticef("loopbreaker gate: %s: the agent is not started (a person resumes the loop with /loopbreaker resume or by removing the label)", render.Clean(why))
	return exitContinue, nil
}
