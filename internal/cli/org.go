package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/action"
	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/audit/org"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// runDiscover finds the repositories with open agent pull requests, by
// the search API in an organisation or by listing the repositories named,
// and prints the audit jobs' matrix as one line of JSON (for
// $GITHUB_OUTPUT). It exits 0, or 2 when the search or a listing fails.
func runDiscover(args []string, env Env) (int, error) {
	fs := newFlagSet("discover", "--org ORG | --repos OWNER/NAME,... [flags]", env)
	orgName := fs.String("org", "", "the organisation (or user) whose open pull requests are searched")
	var repos, authors, anyOfLabels, onlyLabels, exemptLabels csvList
	fs.Var(&repos, "repos", "list these repositories' open pull requests instead of searching (owner/name, comma-separated, repeatable)")
	fs.Var(&authors, "authors", "the authors whose pull requests are audited (comma-separated, repeatable; default: the known coding-agent accounts; * for anyone)")
	fs.Var(&anyOfLabels, "any-of-labels", "with --authors '*': pull requests carrying one of these labels (comma-separated, repeatable)")
	fs.Var(&onlyLabels, "only-labels", "with --repos: pull requests carrying all of these labels (comma-separated, repeatable)")
	fs.Var(&exemptLabels, "exempt-labels", "with --repos: skip pull requests carrying any of these labels (comma-separated, repeatable)")
	perShard := fs.Int("pulls-per-shard", org.DefaultPullsPerShard, "the pull requests one audit job takes: a repository with more is split into shards")
	apiURL := fs.String("api-url", "", "the GitHub API (default: $GITHUB_API_URL, else "+github.DefaultBaseURL+")")
	tokenEnv := fs.String("token-env", "GITHUB_TOKEN", "the environment variable holding the token (never pass a token on the command line)")
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	if (*orgName == "") == (len(repos) == 0) {
		return 0, usagef("discover: give --org or --repos, one of them")
	}
	if *perShard < 1 {
		return 0, usagef("discover: --pulls-per-shard %d: want at least 1", *perShard)
	}
	o := github.Options{Token: env.Getenv(*tokenEnv), BaseURL: cmp.Or(*apiURL, env.Getenv("GITHUB_API_URL")), Now: env.Now, Sleep: env.Sleep}
	do := org.DiscoverOptions{Org: *orgName, Repos: repos, PullsPerShard: *perShard,
		Filters: audit.Filters{Authors: authors, AnyOfLabels: anyOfLabels, OnlyLabels: onlyLabels, ExemptLabels: exemptLabels},
		Open: func(owner, name string) (github.PullService, error) {
			ro := o
			ro.Owner, ro.Repo = owner, name
			return github.New(ro)
		}}
	if *orgName != "" {
		o.Owner = *orgName
		c, err := github.NewOrg(o)
		if err != nil {
			return 0, usagef("discover: %v", err)
		}
		do.Search = c
	}
	d, err := org.Discover(context.Background(), do)
	if err != nil {
		return 0, err
	}
	data, err := json.Marshal(d.Matrix)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(env.Stdout, "%s\n", data)
	fmt.Fprintf(env.Stderr, "loopbreaker: discovered %d open pull requests in %d repositories: %d audit jobs\n", d.Pulls, d.Repositories, len(d.Matrix.Include))
	for _, n := range d.Notes {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", oneLine(n))
	}
	return 0, nil
}

// runOrgReport folds the audit jobs' results (files, or directories of
// them) into one report: markdown on stdout (and appended to --summary),
// the JSON to --json. It exits 0, or 2 when no result could be read.
func runOrgReport(args []string, env Env) (int, error) {
	fs := newFlagSet("org-report", "[flags] RESULT|DIR...", env)
	jsonPath := fs.String("json", "", "write the report as JSON to this file")
	summary := fs.String("summary", "", "append the markdown report to this file (default: $GITHUB_STEP_SUMMARY when set)")
	serverURL := fs.String("server-url", "", "the GitHub server the links point to (default: $GITHUB_SERVER_URL, else https://github.com)")
	paths, err := parsePositional(fs, args, math.MaxInt)
	if err != nil {
		return 0, err
	}
	if len(paths) == 0 {
		return 0, usagef("org-report: name the audit jobs' result files or the directories holding them")
	}
	jobs, problems, err := org.ReadJobs(paths)
	if err != nil {
		return 0, err
	}
	for _, p := range problems {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", oneLine(p))
	}
	if len(jobs) == 0 {
		return 0, fmt.Errorf("org-report: no audit job result could be read under %s", strings.Join(paths, ", "))
	}
	r := org.Fold(jobs, problems, cmp.Or(*serverURL, env.Getenv("GITHUB_SERVER_URL")))
	md := r.Markdown()
	fmt.Fprint(env.Stdout, md)
	if *jsonPath != "" {
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(*jsonPath, append(data, '\n'), 0o644); err != nil {
			return 0, fmt.Errorf("org-report: %w", err)
		}
	}
	if s := cmp.Or(*summary, env.Getenv("GITHUB_STEP_SUMMARY")); s != "" {
		if err := action.AppendFile(s, md); err != nil {
			return 0, fmt.Errorf("org-report: %w", err)
		}
	}
	return 0, nil
}

// auditState is an audit run's --state and --result: the conditional
// requests' answers and the cursor kept from run to run, and the job's
// result for the organisation report.
type auditState struct {
	statePath, resultPath string
	repository, shard     string
	cache                 *github.Cache
}

// load reads the state (a warning when it cannot be used) and sets the
// client's cache and the run's cursor.
func (s *auditState) load(env Env, co *github.Options, opts *audit.Options) error {
	if s.statePath == "" {
		return nil
	}
	st, problem, err := org.ReadState(s.statePath, s.repository, s.shard)
	if err != nil {
		return err
	}
	if problem != "" {
		fmt.Fprintf(env.Stderr, "loopbreaker: warning: %s\n", oneLine(problem))
	}
	var prev map[string]github.Answer
	if st != nil {
		prev, opts.Resume, opts.Marks, opts.Ledgers = st.Answers, st.Pending, st.Marks, st.Ledgers
	}
	opts.KeepMarks = true
	s.cache = github.NewCache(prev)
	co.Cache = s.cache
	return nil
}

// save writes the state and the result of a run.
func (s *auditState) save(res *present.AuditResult) error {
	if s.statePath != "" {
		st := &org.State{Version: org.StateVersion, Repository: s.repository, Shard: s.shard, At: res.At,
			Pending: append([]int{}, res.NotReached...), Answers: s.cache.Used(), Marks: res.Marks, Ledgers: res.Ledgers}
		if err := org.WriteState(s.statePath, st); err != nil {
			return err
		}
	}
	if s.resultPath != "" {
		return org.WriteJob(s.resultPath, org.Summarize(res))
	}
	return nil
}
