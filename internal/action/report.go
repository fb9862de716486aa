package action

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/notify"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// disabled reports a run the breaker is off for: a notice, no decision.
func (r *run) disabled(why string) (int, error) {
	r.gha.Noticef("loopbreaker is disabled (%s): no decision was made", why)
	js, _ := render.EncodeDisabled(why)
	r.setOutputs(map[string]string{"state": "DISABLED", "allow-continue": "true", "proceed": "true", "decision": string(js)})
	r.summary(present.DisabledSummary(why))
	return exitContinue, nil
}

// report writes outputs, the record, the summary, annotations and the
// GitHub side effects, and picks the exit code.
func (r *run) report(ctx context.Context, res *loop.Result, g *gitState) (int, error) {
	d := res.Final()
	recordPath := r.record
	if res.Records != nil {
		// With the key every record of the file is sealed for this run:
		// its own and the earlier ones, which came from a sealed source.
		if r.in.DigestKey != "" {
			s := r.sealer(r.runID)
			for i := range res.Records {
				s.Seal(&res.Records[i])
			}
		}
		var buf bytes.Buffer
		if err := ledger.Encode(&buf, res.Records); err != nil {
			return 0, err
		}
		if err := os.MkdirAll(filepath.Dir(recordPath), 0o755); err != nil {
			return 0, fmt.Errorf("record %s: %w", recordPath, err)
		}
		if err := regularfile.WriteAtomic(recordPath, buf.Bytes(), 0o644); err != nil {
			return 0, err
		}
		if err := checkout.Own(r.ws, recordTop(r.ws, recordPath)); err != nil {
			r.gha.Warningf("loopbreaker: %s", render.Clean(err.Error()))
		}
	}

	if g.shallow {
		r.gha.WithFieldsMap(map[string]string{"title": "loopbreaker: shallow clone"}).Warningf("%s", render.Clean(fmt.Sprintf(
			"the clone's history is cut before the loop's start and could not be deepened with the token: the decision rests on the %d iterations visible; check out with fetch-depth: 0 (%s)",
			d.Iteration, orDefault(r.deepenErr, "no fetch was possible"))))
		r.notes = append(r.notes, note.New(note.ShallowClone, "the clone is shallow and could not be deepened: %s", orDefault(r.deepenErr, "its history is cut")))
	}
	r.annotate(present.Annotations(res.Decisions, r.in.DryRun))
	if err := r.sideEffects(ctx, res, g); err != nil {
		return 0, err
	}
	out, err := outputs(d, r.notes, recordPath)
	if err != nil {
		return 0, err
	}
	out["shallow"] = strconv.FormatBool(g.shallow)
	out["artifact-name"] = r.artifactName(r.ev.HeadRef)
	r.setOutputs(out)
	o := present.SummaryOptions{Notes: r.notes}
	if r.client != nil {
		o.API, o.Calls, o.Planned = true, r.client.Calls(), r.client.Planned()
	}
	r.summary(present.Summary(res.Decisions, o))

	// An alert goes out once, from the iteration that opened the breaker.
	if !r.statusOnly {
		r.alert(ctx, res)
	}
	// Only an abort fails the step: a paused loop waits, an alert or an
	// escalation lets it go on.
	if d.ExitCode() == exitOpen && slices.Contains(r.in.OnOpen, "fail") && !r.in.DryRun {
		return exitOpen, nil
	}
	return exitContinue, nil
}

// alert posts the alert of on_open = "alert" to the policy's webhook when
// the breaker opened at this run's iteration, and says where it went (the
// host only) or why it was not posted; it never changes the decision.
func (r *run) alert(ctx context.Context, res *loop.Result) {
	d := res.Final()
	if !loop.AlertDue(d) {
		return
	}
	where := notify.Where{Repository: r.owner + "/" + r.repo, PullRequest: r.ev.Number, RunURL: r.runURL()}
	line, warn := notify.Send(ctx, res.Policy.WithPhase(d.Phase).Alert, r.getenv, notify.Webhook{Client: r.env.HTTPClient, Sleep: r.env.Sleep}, notify.NewPayload(d, where))
	switch {
	case line == "":
	case warn:
		r.gha.Warningf("loopbreaker: %s", render.Clean(line))
		r.note(line)
	default:
		r.gha.Noticef("loopbreaker: %s", render.Clean(line))
	}
}

// outputs are the action's outputs for a decision; decision is the
// command line's --format json object, notes included.
func outputs(d *breaker.Decision, notes []note.Note, recordPath string) (map[string]string, error) {
	js, err := render.EncodeJSON(d, notes)
	if err != nil {
		return nil, err
	}
	o := map[string]string{
		"state":             d.State.String(),
		"allow-continue":    strconv.FormatBool(d.AllowContinue || d.DryRun),
		"reason":            "",
		"trigger":           "",
		"iteration":         strconv.Itoa(d.Iteration),
		"progress-score":    strconv.Itoa(d.ProgressScore),
		"decision":          string(js),
		"record-path":       recordPath,
		"escalate":          strconv.FormatBool(d.Escalate),
		"next-model":        "",
		"failure-context":   render.FailureContext(d),
		"window-score":      "",
		"ignored-open":      strconv.Itoa(d.IgnoredOpen),
		"consecutive-stuck": strconv.Itoa(d.ConsecutiveNoProgress),
		"open-action":       string(d.OpenAction),
		"signal":            d.Signal,
		"complete":          strconv.FormatBool(d.Complete),
	}
	if d.Reason != nil {
		o["reason"] = render.Clean(*d.Reason)
		o["trigger"] = *d.Trigger
	}
	if d.NextModel != nil {
		o["next-model"] = render.Clean(*d.NextModel)
	}
	if d.WindowScore != nil {
		o["window-score"] = strconv.Itoa(*d.WindowScore)
	}
	return o, nil
}

func (r *run) setOutputs(o map[string]string) {
	if err := r.files.SetOutputs(slices.Sorted(maps.Keys(o)), o); err != nil {
		r.gha.Warningf("loopbreaker: %s", err)
	}
}

func (r *run) summary(md string) {
	if err := r.files.AddSummary(md); err != nil {
		r.gha.Debugf("loopbreaker: %s", err)
	}
}

// annotate writes annotations to the log.
func (r *run) annotate(as []present.Annotation) {
	for _, a := range as {
		gha := r.gha
		if a.Title != "" {
			gha = gha.WithFieldsMap(map[string]string{"title": a.Title})
		}
		switch a.Level {
		case present.Error:
			gha.Errorf("%s", a.Message)
		case present.Warning:
			gha.Warningf("%s", a.Message)
		default:
			gha.Noticef("%s", a.Message)
		}
	}
}

// sideEffects sets labels, the sticky comment and the commit status.
func (r *run) sideEffects(ctx context.Context, res *loop.Result, g *gitState) error {
	if r.client == nil {
		return nil
	}
	d := res.Final()
	if r.ev.Number > 0 && r.in.Labels {
		if err := r.apiError("update labels", r.labels(ctx, d)); err != nil {
			return err
		}
	}
	if r.ev.Number > 0 {
		// An alert calls its people in the sticky comment, whatever
		// on-open says.
		alert := d.State == breaker.Open && d.OpenAction == policy.OnOpenAlert
		want := r.posts().Wants(d.State, "comment") || alert
		if want || r.sticky != nil {
			var known int64
			if r.sticky != nil {
				known = r.sticky.ID
			}
			o := present.CommentOptions{Seal: r.seal()}
			if alert {
				o.Mentions = res.Policy.WithPhase(d.Phase).Alert.Mentions
			}
			body := present.StickyComment(d, res.Records, o)
			sticky := github.Sticky{Marker: present.Marker, Author: r.ev.Author, Absent: r.listed && r.sticky == nil}
			_, err := r.client.UpsertComment(ctx, r.ev.Number, known, sticky, body)
			if err := r.apiError("update the sticky comment", err); err != nil {
				return err
			}
		}
	}
	// The commit evaluated: the merge queue's own, else the pull request's
	// head (or commits the run added on top of it), never GitHub's test
	// merge.
	sha := cmp.Or(r.ev.GroupSHA, g.head, r.ev.HeadSHA, r.getenv("GITHUB_SHA"))
	if sha != "" && r.in.Status != "none" {
		var err error
		if r.in.Status == "check-run" {
			conclusion, title, summary := present.CheckRun(d, r.in.DryRun)
			err = r.client.CreateCheckRun(ctx, sha, conclusion, title, summary)
		} else {
			state, desc := present.Status(d, r.in.DryRun)
			err = r.client.SetStatus(ctx, sha, state, desc, r.runURL())
		}
		if err := r.apiError("set the commit status", err); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) runURL() string {
	server := orDefault(r.getenv("GITHUB_SERVER_URL"), "https://github.com")
	if r.runID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", server, r.owner, r.repo, r.runID)
}

// labels moves the PR's loopbreaker labels to match the decision (the
// presenter's list), with calls only for labels that change (the event
// payload lists the current ones).
func (r *run) labels(ctx context.Context, d *breaker.Decision) error {
	add, remove := r.posts().LabelMoves(d, r.ev.HasLabel)
	var errs []error
	for _, l := range add {
		errs = append(errs, r.client.AddLabel(ctx, r.ev.Number, github.LabelSpec{Name: l.Name, Color: l.Color, Description: l.Description}))
	}
	for _, l := range remove {
		errs = append(errs, r.client.RemoveLabel(ctx, r.ev.Number, l.Name))
	}
	return errors.Join(errs...)
}

// posts is what the on-open and on-half-open inputs ask to post.
func (r *run) posts() present.Posts {
	return present.Posts{Open: r.in.OnOpen, HalfOpen: r.in.OnHalfOpen}
}
