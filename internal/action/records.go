package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
	"github.com/loopbreaker/loopbreaker/internal/note"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// seal is the digest's authentication for this pull request, written by
// this run.
func (r *run) seal() present.Seal {
	return present.Seal{Key: r.in.DigestKey, Scope: fmt.Sprintf("%s/%s#%d", r.owner, r.repo, r.ev.Number), Run: r.runID, Attempt: r.try}
}

// runAttempt is an attempt of a workflow run; runs are ordered by id, then
// attempt.
type runAttempt struct {
	run     int64
	attempt int
}

func (a runAttempt) after(b runAttempt) bool {
	return a.run > b.run || a.run == b.run && a.attempt > b.attempt
}

// sealer seals and verifies this workflow's records in the file (the
// artifact) of run run with the digest key.
func (r *run) sealer(run int64) ledger.Sealer {
	return ledger.Sealer{Key: r.in.DigestKey, Repository: r.owner + "/" + r.repo, Workflow: r.workflowPath(), Run: run}
}

// sealedOnly keeps the records of l, read from where (the file of run
// run), that carry a seal the digest key verifies, noting how many did
// not; nil when none do. Without a key every record is kept.
func (r *run) sealedOnly(l *ledger.Ledger, run int64, where string) *ledger.Ledger {
	if r.in.DigestKey == "" || l == nil {
		return l
	}
	s := r.sealer(run)
	kept := slices.DeleteFunc(slices.Clone(l.Records), func(rec ledger.Record) bool { return !s.Verify(&rec) })
	if n := len(l.Records) - len(kept); n > 0 {
		r.notes = append(r.notes, note.New(note.RecordUnsealed, "%d of the %d records in %s carry no seal that verifies with the digest key (written without it, forged or changed): ignored", n, len(l.Records), where))
	}
	if len(kept) == 0 {
		return nil
	}
	c := *l
	c.Records = kept
	return &c
}

// gather reads the controls of trusted people and the earlier records: the
// sticky comment's digest when it holds every record, else the newest
// record artifact; records of another loop's commits are dropped.
func (r *run) gather(ctx context.Context, cfg *loop.Config, g *gitState) error {
	if r.ev.HasLabel(present.LabelForceOpen) {
		if by, ok := r.labelledBy(ctx, present.LabelForceOpen); ok {
			cfg.Controls = append(cfg.Controls, loop.Control{At: cfg.Now, Kind: loop.ControlForceOpen, Reason: "held open by the " + present.LabelForceOpen + " label, added by " + by})
		}
	}
	if r.client == nil {
		r.note("git-only evidence: no token to read earlier records")
		return nil
	}
	var digest *ledger.Ledger
	var wrote runAttempt // the run that wrote a sealed digest
	partial := false
	// The comments are listed even when the payload counts none: a run
	// waits in its concurrency group, and a person's command or another
	// run's sticky comment may have come since its event.
	if r.ev.Number > 0 {
		comments, err := r.client.Comments(ctx, r.ev.Number)
		if err := r.apiError("list PR comments", err); err != nil {
			return err
		}
		r.listed = err == nil
		r.commands(ctx, comments, cfg)
		if r.sticky != nil {
			d, err := present.ReadDigest(r.sticky.Body, r.seal())
			switch {
			case err != nil && r.in.DigestKey != "":
				r.note(fmt.Sprintf("the sticky comment's digest was not used: %s", err))
			case err == nil && len(d.Ledger.Records) > 0:
				digest, partial, wrote = d.Ledger, !d.Complete, runAttempt{d.Run, d.Attempt}
			}
		}
	}
	// A digest stands for the artifacts only when the key sealed it and no
	// later run left a record artifact that holds; a dry run never updates it.
	sealed := digest != nil && r.in.DigestKey != "" && !r.in.DryRun
	after := runAttempt{run: -1}
	if sealed && !partial {
		after = wrote
		for _, rec := range digest.Records {
			if w := (runAttempt{rec.RunID, rec.RunAttempt}); w.after(after) {
				after = w
			}
		}
	}
	branch := cmp.Or(r.ev.HeadRef, strings.TrimPrefix(r.getenv("GITHUB_REF"), "refs/heads/"))
	current := false
	if r.in.UseArtifact && branch != "" {
		l, cur, err := r.artifactLedger(ctx, g, branch, after)
		if err := r.apiError("read the previous record artifact", err); err != nil {
			return err
		}
		if current = cur; current && after.run >= 0 {
			cfg.Ledger = r.ownRecords(g, digest)
			r.note(fmt.Sprintf("earlier records came from the sticky comment's sealed digest (%d records, up to run %d, the loop's newest)", len(digest.Records), after.run))
			return nil
		}
		if l != nil && after.run >= 0 {
			r.notes = append(r.notes, note.New(note.RecordStale, "the sticky comment's sealed digest ends at run %d (attempt %d), and a later run's record artifact holds: the digest was not used", after.run, after.attempt))
		}
		cfg.Ledger = r.ownRecords(g, l)
	}
	if cfg.Ledger == nil && digest != nil {
		cfg.Ledger = r.ownRecords(g, digest)
		switch {
		case r.in.DigestKey == "":
			r.looseSource = "the sticky comment's unsealed digest (set digest-key to seal it)"
		case !sealed || !current:
			r.looseSource = "the sticky comment's sealed digest, which could not be checked against the loop's record artifacts"
			r.notes = append(r.notes, note.New(note.RecordStale, "the sticky comment's sealed digest could not be checked against the loop's record artifacts: it may add records, never loosen the decision"))
		}
		r.note(fmt.Sprintf("earlier records came from the sticky comment's digest (%d records)", len(digest.Records)))
	}
	if cfg.Ledger == nil {
		r.note("no earlier records (artifact missing or expired, no digest): iterations are the commits since the base")
	}
	return nil
}

// jobRecords takes up the records earlier iterations of this job left in
// the record file, and reports whether there were any. A file with no
// record of this run attempt is another job's.
func (r *run) jobRecords(cfg *loop.Config) bool {
	if r.runID <= 0 {
		return false
	}
	data, err := regularfile.Read(r.record, ledger.MaxFileBytes, "record file")
	if err != nil {
		return false // none yet (a fault in it is the write's to report)
	}
	l := ledger.Decode(data, r.record)
	ofRun := func() (out []ledger.Record) {
		for _, rec := range l.Records {
			if rec.RunID == r.runID && rec.RunAttempt == r.try {
				out = append(out, rec)
			}
		}
		return out
	}
	if len(ofRun()) == 0 {
		return false
	}
	// With the key, this run sealed what it wrote.
	if l = r.sealedOnly(l, r.runID, r.record); l == nil {
		return false
	}
	mine := ofRun()
	switch {
	case len(mine) == 0:
	case cfg.Ledger == nil:
		cfg.Ledger = l
	default:
		cfg.Ledger.Add(mine)
	}
	if len(mine) > 0 {
		r.note(fmt.Sprintf("%d records of earlier iterations of this job came from %s", len(mine), r.record))
	}
	return len(mine) > 0
}

// artifactLedger reads the newest record artifact of the loop's earlier
// runs that holds records (with the digest key, sealed for that run: a
// planted or replayed artifact is skipped for the next older one). It stops
// at a run no newer than after and then reports current.
func (r *run) artifactLedger(ctx context.Context, g *gitState, branch string, after runAttempt) (l *ledger.Ledger, current bool, err error) {
	current, err = r.recordArtifacts(ctx, g, branch, after, func(a *github.Artifact) (bool, error) {
		l, err = r.readArtifact(ctx, a)
		return l != nil, err
	})
	return l, current && l == nil, err
}

// readArtifact downloads one record artifact and returns its records, nil
// (with a note) when it holds none that count.
func (r *run) readArtifact(ctx context.Context, a *github.Artifact) (*ledger.Ledger, error) {
	var data []byte
	err := github.ErrExpired
	if !a.Expired {
		data, err = r.client.DownloadArtifact(ctx, a, MaxArtifactBytes)
	}
	if errors.Is(err, github.ErrExpired) {
		r.note(fmt.Sprintf("the %s artifact of run %d has expired", a.Name, a.RunID))
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("run %d's %s artifact", a.RunID, a.Name)
	l := r.sealedOnly(ledger.ReadZip(data, where), a.RunID, where)
	if l == nil || len(l.Records) == 0 {
		// A corrupt or empty artifact must not stand for the history: an
		// older run's, the digest or git take its place.
		if l != nil {
			for _, p := range l.Problems {
				r.notes = append(r.notes, note.New(note.LedgerEntrySkipped, "artifact entry skipped: %s", p))
			}
		}
		r.note(fmt.Sprintf("%s holds no valid record and was not used", where))
		return nil, nil
	}
	r.note(fmt.Sprintf("earlier records from run %d's artifact (%d records)", a.RunID, len(l.Records)))
	return l, nil
}

// Bounds of the search for the previous record among this workflow's
// runs: the runs listed (one call) and those whose artifacts are listed
// (one call each).
const (
	runsListed = 20
	runsRead   = 3
)

// recordArtifacts hands the record artifacts of the loop's earlier runs to
// try, newest first, until try takes one, in a constant number of calls.
// Only this workflow's runs on the loop's branch and head repository count.
// It stops at a run no newer than after and reports whether it got there,
// or to the end of the runs, with none taken (current). Without the
// workflow's name, or with an artifact name per loop branch, the newest
// artifact of that name is the one candidate.
func (r *run) recordArtifacts(ctx context.Context, g *gitState, branch string, after runAttempt, try func(*github.Artifact) (bool, error)) (current bool, err error) {
	name := r.artifactName(branch)
	wf := r.workflowPath()
	if wf == "" || name != r.in.Artifact {
		belongs := g.belongs(branch)
		if name != r.in.Artifact {
			// The loop's runs are the default branch's, dispatched there for
			// the loop's branch: the name tells its records from other loops'.
			belongs = func(a github.Artifact) bool {
				return r.ev.DefaultBranch != "" && a.HeadBranch == r.ev.DefaultBranch
			}
		}
		a, err := r.client.LatestArtifact(ctx, name, r.runID, belongs)
		if err != nil || a == nil || a.RunID <= after.run {
			if err == nil && a == nil {
				r.note(fmt.Sprintf("no %s artifact from an earlier run on %s", name, branch))
			}
			return err == nil, err
		}
		_, err = try(a)
		return false, err
	}
	runs, err := r.client.WorkflowRuns(ctx, wf, branch, runsListed)
	if err != nil {
		return false, err
	}
	head := cmp.Or(r.ev.HeadRepo, r.owner+"/"+r.repo)
	read := 0
	for _, run := range runs {
		if run.ID == r.runID || (r.runID > 0 && run.ID > r.runID) || !strings.EqualFold(run.HeadRepo, head) ||
			!g.belongs(branch)(github.Artifact{HeadBranch: run.HeadBranch, HeadSHA: run.HeadSHA}) {
			continue
		}
		if !(runAttempt{run.ID, max(run.Attempt, 1)}).after(after) {
			return true, nil
		}
		if read == runsRead {
			return false, nil
		}
		read++
		arts, err := r.client.RunArtifacts(ctx, run.ID, r.in.Artifact)
		if err != nil {
			return false, err
		}
		for _, a := range arts {
			a.HeadBranch, a.HeadSHA = run.HeadBranch, run.HeadSHA
			if took, err := try(&a); took || err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// artifactName is the artifact-name input with {branch} replaced by the
// loop's branch, escaped: loops whose runs all run on the default branch
// keep their records apart.
func (r *run) artifactName(branch string) string {
	return github.ArtifactName(r.in.Artifact, branch)
}

// workflowPath is this workflow's file, from GITHUB_WORKFLOW_REF
// ("owner/repo/.github/workflows/loop.yml@refs/heads/main"); "" when unset.
func (r *run) workflowPath() string {
	ref, _, _ := strings.Cut(r.getenv("GITHUB_WORKFLOW_REF"), "@")
	i := strings.Index(ref, "/.github/workflows/")
	if i < 0 {
		return ""
	}
	return ref[i+1:]
}
