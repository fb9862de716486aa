package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// maxArtifactPages bounds the artifact listing of one run (10,000
// artifacts).
const maxArtifactPages = 100

// artifactIndex is the repository's record artifacts, listed once for all
// pull requests (every page: GitHub documents no order).
type artifactIndex struct {
	name  string
	list  []github.Artifact
	next  int // the next page to read; 0 when the listing is complete
	pages int
}

// findArtifact returns the pull request's newest artifact, reading the
// pages of the listing not read yet. With a name per loop branch
// ({branch}), as loops whose every run is on the default branch upload
// them, the name tells the loop's records and only runs on the default
// branch (else the pull request's base) count; a fork's pull request has
// none, since another loop's branch may bear its name.
func (a *auditor) findArtifact(ctx context.Context, p *github.Pull, src source, pr *present.PullResult) (*github.Artifact, error) {
	name := github.ArtifactName(a.o.Artifact, p.HeadRef)
	perLoop := name != a.o.Artifact
	if perLoop && p.Fork {
		return nil, nil
	}
	x := a.arts[name]
	if x == nil {
		x = &artifactIndex{name: name, next: 1}
		a.arts[name] = x
	}
	for x.next != 0 && x.pages < maxArtifactPages {
		if err := a.afford(ctx, 1); err != nil {
			return nil, err
		}
		before := a.used()
		list, next, err := a.c.ListArtifacts(ctx, x.name, x.next)
		if !perLoop {
			a.shared += a.used() - before
		}
		if err != nil {
			if errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil {
				return nil, err
			}
			pr.Notes = append(pr.Notes, "the record artifacts could not be listed: "+oneLine(err.Error()))
			x.next = 0
			break
		}
		x.pages++
		x.list = append(x.list, list...)
		x.next = next
	}
	if x.next != 0 {
		pr.Notes = append(pr.Notes, fmt.Sprintf("only the first %d pages of record artifacts were read: a newer one may be missed", maxArtifactPages))
	}
	belongs := func(ar github.Artifact) bool { return ar.HeadBranch == p.HeadRef && src.commits()[ar.HeadSHA] }
	if perLoop {
		def := cmp.Or(a.o.DefaultBranch, p.BaseRef)
		belongs = func(ar github.Artifact) bool { return ar.HeadBranch == def }
	}
	live, expired := github.Newest(x.list, belongs)
	if live != nil {
		return live, nil
	}
	return expired, nil
}

// ledger returns the earlier runs' records of a pull request: the sticky
// comment's digest, else the newest matching record artifact.
func (a *auditor) ledger(ctx context.Context, p *github.Pull, sticky *github.Comment, src source, pr *present.PullResult) (*ledger.Ledger, error) {
	if sticky != nil {
		d, err := present.ReadDigest(sticky.Body, present.Seal{})
		switch {
		case err == nil && len(d.Ledger.Records) > 0:
			pr.Ledger = fmt.Sprintf("sticky comment digest (%d records)", len(d.Ledger.Records))
			return d.Ledger, nil
		case err != nil:
			pr.Notes = append(pr.Notes, "the sticky comment holds no usable digest: "+oneLine(err.Error()))
		}
	}
	if a.o.Artifact == "" {
		return nil, nil
	}
	art, err := a.findArtifact(ctx, p, src, pr)
	if err != nil || art == nil {
		return nil, err
	}
	if art.Expired {
		pr.Notes = append(pr.Notes, fmt.Sprintf("the %s artifact of run %d has expired: iterations are the commits", art.Name, art.RunID))
		return nil, nil
	}
	// An artifact never changes (an upload makes a new one): the records
	// the last run read from it are its records.
	if recs, ok := a.o.Ledgers[art.ID]; ok && len(recs) > 0 {
		a.res.Ledgers[art.ID] = recs
		pr.Ledger = fmt.Sprintf("artifact of run %d (%d records, as the last run read it)", art.RunID, len(recs))
		return &ledger.Ledger{Records: recs}, nil
	}
	if err := a.afford(ctx, 1); err != nil {
		return nil, err
	}
	data, err := a.c.DownloadArtifact(ctx, art, a.o.MaxArtifactBytes)
	if err != nil {
		if errors.Is(err, github.ErrRateLimited) || ctx.Err() != nil {
			return nil, err
		}
		if errors.Is(err, github.ErrExpired) {
			pr.Notes = append(pr.Notes, fmt.Sprintf("the %s artifact of run %d has expired: iterations are the commits", art.Name, art.RunID))
		} else {
			pr.Notes = append(pr.Notes, fmt.Sprintf("the %s artifact of run %d could not be downloaded: %s", art.Name, art.RunID, oneLine(err.Error())))
		}
		return nil, nil
	}
	l := ledger.ReadZip(data, fmt.Sprintf("the %s artifact of run %d", art.Name, art.RunID))
	pr.Ledger = fmt.Sprintf("artifact of run %d (%d records)", art.RunID, len(l.Records))
	if len(l.Records) == 0 {
		return nil, nil
	}
	if len(l.Problems) == 0 {
		a.res.Ledgers[art.ID] = l.Records
	}
	return l, nil
}
