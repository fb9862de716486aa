package action

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// AuditInputs are the inputs of mode: audit.
type AuditInputs struct {
	// Repository is the audited repository ("owner/name"); "" is the
	// workflow's own (an organisation's matrix audits others).
	Repository string
	Filters    audit.Filters
	// Budget is operations-per-run: the API calls the run may make.
	Budget  int
	Reserve audit.Reserve
	Shard   audit.Shard
}

// readAuditInputs reads and validates the audit's inputs.
func readAuditInputs(get func(string) string) (*AuditInputs, error) {
	a := &AuditInputs{Reserve: audit.DefaultReserve, Repository: strings.TrimSpace(get("repository"))}
	if o, n, ok := strings.Cut(a.Repository, "/"); a.Repository != "" && (!ok || o == "" || n == "" || strings.Contains(n, "/")) {
		return nil, fmt.Errorf("input repository: %q is not owner/name", a.Repository)
	}
	a.Filters.OnlyLabels = list(get("only-labels"))
	a.Filters.AnyOfLabels = list(get("any-of-labels"))
	a.Filters.ExemptLabels = list(get("exempt-labels"))
	a.Filters.Authors = list(get("authors"))
	var err error
	if a.Filters.ExemptDraft, err = parseBool("exempt-draft", get("exempt-draft"), false); err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(get("start-date")); v != "" {
		if a.Filters.StartDate, err = audit.ParseDate(v); err != nil {
			return nil, fmt.Errorf("input start-date: %w", err)
		}
	}
	ints := []struct {
		name     string
		def, min int
		dst      *int
	}{
		{"operations-per-run", audit.DefaultBudget, 1, &a.Budget},
		{"shard-index", 0, 0, &a.Shard.Index},
		{"shard-count", 1, 1, &a.Shard.Count},
	}
	for _, x := range ints {
		v := strings.TrimSpace(get(x.name))
		if v == "" {
			*x.dst = x.def
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < x.min {
			return nil, fmt.Errorf("input %s: %q is not a whole number of at least %d", x.name, v, x.min)
		}
		*x.dst = n
	}
	if a.Shard.Index >= a.Shard.Count {
		return nil, fmt.Errorf("input shard-index: %d must be below shard-count %d (shards count from 0)", a.Shard.Index, a.Shard.Count)
	}
	if a.Reserve, err = audit.ParseReserve(get("rate-limit-reserve")); err != nil {
		return nil, fmt.Errorf("input %w", err)
	}
	return a, nil
}

// audit runs mode: audit over the repository's open pull requests and
// reports: outputs, the job summary, and a warning annotation (never a
// silent success) when the run stopped early.
func (r *run) audit(ctx context.Context, pol *policy.Policy, protect []string) (int, error) {
	if r.client == nil {
		return 0, fmt.Errorf("mode audit needs a token and GITHUB_REPOSITORY: it lists, reads and labels the repository's pull requests")
	}
	in, ai := r.in, r.in.Audit
	client, owner, repo := r.client, r.owner, r.repo
	if ai.Repository != "" && !strings.EqualFold(ai.Repository, r.owner+"/"+r.repo) {
		owner, repo, _ = strings.Cut(ai.Repository, "/")
		var err error
		client, err = r.connect(owner, repo)
		if err != nil {
			return 0, fmt.Errorf("input repository: %w", err)
		}
	}
	opts := audit.Options{
		Owner: owner, Repo: repo, Policy: pol, Profile: in.Profile, ProtectPaths: protect,
		Filters: ai.Filters, Shard: ai.Shard, Budget: ai.Budget, Reserve: ai.Reserve, DryRun: in.DryRun, Now: r.env.Now().UTC(),
		ManageLabels: in.Labels, OnOpen: without(in.OnOpen, "fail"), OnHalfOpen: in.OnHalfOpen, MaxArtifactBytes: MaxArtifactBytes,
		Log: func(format string, args ...any) { r.gha.Debugf(format, args...) },
	}
	if in.UseArtifact {
		opts.Artifact = in.Artifact
		if client == r.client {
			opts.DefaultBranch = r.ev.DefaultBranch // another repository's: each pull request's base
		}
	}
	server := strings.TrimSuffix(orDefault(r.getenv("GITHUB_SERVER_URL"), "https://github.com"), "/")
	clone, err := audit.OpenClone(r.ws, server+"/"+owner+"/"+repo+".git", in.Token)
	if err != nil {
		r.gha.Noticef("loopbreaker audit: the workspace is not a clone (%s): commits come from the API; check out the repository with fetch-depth: 0 to read them from git", render.Clean(err.Error()))
	} else {
		defer clone.Close()
		opts.Clone = clone
	}
	res, err := audit.Run(ctx, client, opts)
	if err != nil {
		return 0, err
	}
	r.setOutputs(auditOutputs(res))
	r.summary(present.AuditSummary(res))
	r.annotate(present.AuditAnnotations(res))
	// As for a check run, only an abort fails the step: a paused loop
	// waits, an alert or an escalation goes on.
	if slices.Contains(in.OnOpen, "fail") && !in.DryRun && len(res.Aborted()) > 0 {
		return exitOpen, nil
	}
	return exitContinue, nil
}

// without returns list without s.
func without(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// auditOutputs are the action's outputs for an audit.
func auditOutputs(res *present.AuditResult) map[string]string {
	js := func(v any) string {
		data, err := json.Marshal(v)
		if err != nil {
			return "null"
		}
		return string(data)
	}
	return map[string]string{
		"tripped":              js(res.Tripped()),
		"half-open":            js(res.HalfOpen()),
		"recovered":            js(res.Recovered()),
		"skipped":              js(res.SkippedNumbers()),
		"not-reached":          js(res.NotReached),
		"operations-used":      strconv.Itoa(res.Operations.Used),
		"operations-remaining": strconv.Itoa(res.Operations.Remaining),
		"stopped-early":        strconv.FormatBool(res.StoppedEarly),
		"report":               js(res),
	}
}
