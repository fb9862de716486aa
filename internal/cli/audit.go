package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

// runAudit evaluates every open pull request of a GitHub repository that
// matches the filters, labels the stuck ones and prints one report. It
// exits 0 (also when the run stopped early: it warns on stderr), 1 with
// --fail-on-open when a pull request is OPEN with on_open abort, 2 on bad usage or when
// nothing could be audited.
func runAudit(args []string, env Env) (int, error) {
	fs := newFlagSet("audit", "--owner O --name R [flags]", env)
	repoDir := fs.String("repo", ".", "a clone of the repository: pull request heads are fetched into it with go-git (empty, or not a clone: commits come from the API)")
	owner := fs.String("owner", "", "the repository's owner (default: from $GITHUB_REPOSITORY)")
	name := fs.String("name", "", "the repository's name (default: from $GITHUB_REPOSITORY)")
	apiURL := fs.String("api-url", "", "the GitHub API (default: $GITHUB_API_URL, else "+github.DefaultBaseURL+")")
	gitURL := fs.String("git-url", "", "where refs/pull/N/head are fetched from (default: the clone's origin remote)")
	tokenEnv := fs.String("token-env", "GITHUB_TOKEN", "the environment variable holding the token (never pass a token on the command line)")
	pol := fs.String("policy", "default", "built-in policy name or TOML file (default: $"+policy.EnvConfig+", else default)")
	profile := fs.String("profile", "", "policy profile (default: $"+policy.EnvProfile+", else $"+policy.EnvProjectType+")")
	var onlyLabels, anyOfLabels, authors, exemptLabels csvList
	fs.Var(&onlyLabels, "only-labels", "audit only pull requests carrying all of these labels (comma-separated, repeatable)")
	fs.Var(&anyOfLabels, "any-of-labels", "audit only pull requests carrying one of these labels (comma-separated, repeatable)")
	fs.Var(&authors, "authors", "audit these authors' pull requests (comma-separated, repeatable; default: the known coding-agent accounts; * for anyone)")
	fs.Var(&exemptLabels, "exempt-labels", "skip pull requests carrying any of these labels (comma-separated, repeatable)")
	exemptDraft := fs.Bool("exempt-draft", false, "skip draft pull requests")
	var startDate dateFlag
	fs.Var(&startDate, "start-date", "skip pull requests created before this date (2026-03-01) or RFC 3339 time")
	budget := fs.Int("operations-per-run", audit.DefaultBudget, "the most GitHub API calls the run may make")
	reserve := fs.String("rate-limit-reserve", "10%", "stop when X-RateLimit-Remaining falls below this share of the limit (10%) or number of calls (500)")
	shardIndex := fs.Int("shard-index", 0, "this run's shard, from 0 to shard-count - 1")
	shardCount := fs.Int("shard-count", 1, "how many shards the pull requests are split into")
	dryRun := fs.Bool("dry-run", false, "compute and report, write nothing to GitHub")
	labels := fs.Bool("labels", true, "manage the loopbreaker:open and loopbreaker:half-open labels")
	onOpen := fs.String("on-open", "label", "what to do for an OPEN pull request: label, comment (comma-separated) or none")
	onHalfOpen := fs.String("on-half-open", "label", "what to do for a HALF_OPEN pull request: label, comment (comma-separated) or none")
	artifact := fs.String("artifact-name", "loopbreaker-record", "the record artifact's name (empty: read no artifacts)")
	format := fs.String("format", "text", "output format: text, json or markdown")
	statePath := fs.String("state", "", "the audit's state file, read and written: the answers for conditional requests (a 304 costs no rate limit) and where a run cut by the quota stopped (the next run starts there)")
	resultPath := fs.String("result", "", "write this job's small JSON result for org-report")
	failOnOpen := fs.Bool("fail-on-open", false, "exit 1 when any audited pull request is OPEN with on_open abort (a paused loop waits, an alert or an escalation goes on)")
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if f := *format; f != "text" && f != "json" && f != "markdown" {
		return 0, usagef("unknown format for the audit: --format %s (want text, json or markdown; agent is a decision's block for the agent's prompt: check, record, status)", f)
	}
	if *owner == "" || *name == "" {
		o, n, _ := strings.Cut(env.Getenv("GITHUB_REPOSITORY"), "/")
		*owner, *name = cmp.Or(*owner, o), cmp.Or(*name, n)
	}
	if *owner == "" || *name == "" {
		return 0, usagef("audit: --owner and --name are required (or GITHUB_REPOSITORY=owner/name)")
	}
	openActs, err := auditActions("on-open", *onOpen)
	if err != nil {
		return 0, err
	}
	halfOpenActs, err := auditActions("on-half-open", *onHalfOpen)
	if err != nil {
		return 0, err
	}
	res, err := audit.ParseReserve(*reserve)
	if err != nil {
		return 0, usagef("audit: --%v", err)
	}
	token := env.Getenv(*tokenEnv)
	if token == "" && !*dryRun {
		return 0, usagef("audit: no token in $%s: it lists and labels pull requests (set it, name another variable with --token-env, or use --dry-run on a public repository)", *tokenEnv)
	}
	p, err := policy.Load(policyFrom(*pol, given(fs, "policy"), env, *pol))
	if err != nil {
		return 0, err
	}
	opts := audit.Options{
		Owner: *owner, Repo: *name, Policy: p, Profile: profileFrom(*profile, env),
		Filters: audit.Filters{OnlyLabels: onlyLabels, AnyOfLabels: anyOfLabels, Authors: authors,
			ExemptLabels: exemptLabels, ExemptDraft: *exemptDraft, StartDate: startDate.t},
		Shard: audit.Shard{Index: *shardIndex, Count: *shardCount}, Budget: *budget, Reserve: res, DryRun: *dryRun,
		Now: env.Now().UTC(), ManageLabels: *labels,
		OnOpen: openActs, OnHalfOpen: halfOpenActs, Artifact: *artifact,
	}
	if *shardCount < 1 || *shardIndex < 0 || *shardIndex >= *shardCount {
		return 0, usagef("audit: --shard-index %d must be from 0 to --shard-count %d minus 1", *shardIndex, *shardCount)
	}
	opts.ProtectPaths = policyInRepo(*repoDir, *pol)
	if *repoDir != "" {
		clone, err := audit.OpenClone(*repoDir, *gitURL, token)
		if err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: %s: commits come from the API\n", oneLine(err.Error()))
		} else {
			defer clone.Close()
			opts.Clone = clone
		}
	}
	co := github.Options{Token: token, BaseURL: cmp.Or(*apiURL, env.Getenv("GITHUB_API_URL")), Owner: *owner, Repo: *name,
		DryRun: *dryRun, Now: env.Now, Sleep: env.Sleep}
	st := &auditState{statePath: *statePath, resultPath: *resultPath, repository: *owner + "/" + *name, shard: opts.Shard.String()}
	result, err := auditReport(env, co, opts, st, *format)
	if err != nil {
		return 0, err
	}
	if *failOnOpen && !*dryRun && len(result.Aborted()) > 0 {
		return ExitOpen, nil
	}
	return ExitContinue, nil
}

// auditActions reads --on-open or --on-half-open: label, comment or none.
func auditActions(flagName, v string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(v, ",") {
		switch a = strings.TrimSpace(a); a {
		case "label", "comment":
			out = append(out, a)
		case "none", "":
		default:
			return nil, usagef("audit: --%s %q: want label, comment or none (exit codes: --fail-on-open)", flagName, a)
		}
	}
	return out, nil
}

// auditReport runs the audit, keeps its state and result, and prints its
// report (with a warning when the run stopped early).
func auditReport(env Env, co github.Options, opts audit.Options, st *auditState, format string) (*present.AuditResult, error) {
	if err := st.load(env, &co, &opts); err != nil {
		return nil, err
	}
	client, err := github.New(co)
	if err != nil {
		return nil, usagef("audit: %v", err)
	}
	result, err := audit.Run(context.Background(), client, opts)
	if err != nil {
		return nil, err
	}
	if err := st.save(result); err != nil {
		return nil, err
	}
	switch format {
	case "json":
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(result); err != nil {
			return nil, err
		}
	case "markdown":
		fmt.Fprint(env.Stdout, present.AuditSummary(result))
	default:
		fmt.Fprint(env.Stdout, present.AuditText(result))
	}
	if s := present.AuditStop(result); s != "" {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", oneLine(s))
	}
	return result, nil
}

// dateFlag is a date (UTC midnight) or an RFC 3339 time.
type dateFlag struct{ t time.Time }

func (f *dateFlag) String() string {
	if f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339)
}

func (f *dateFlag) Set(s string) (err error) {
	f.t, err = audit.ParseDate(strings.TrimSpace(s))
	return err
}
