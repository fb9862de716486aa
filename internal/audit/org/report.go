package org

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

const (
	// maxJobBytes bounds one job result file.
	maxJobBytes = 16 << 20
	// maxJobFiles bounds the files a report reads.
	maxJobFiles = 10000
	// maxSummaryRows bounds the table of the job summary (GitHub keeps a
	// summary of at most 1 MiB); the JSON report lists every pull request.
	maxSummaryRows = 500
)

// Report is the organisation's view: every stuck or OPEN pull request the
// audit jobs found, once, sorted by waste, and how far the jobs got.
type Report struct {
	Version int `json:"version"`
	// At is the newest job's time.
	At           time.Time `json:"at"`
	Jobs         int       `json:"jobs"`
	Repositories int       `json:"repositories"`
	Evaluated    int       `json:"evaluated"`
	NotReached   int       `json:"not_reached"`
	Charged      int       `json:"charged"`
	NotModified  int       `json:"not_modified"`
	// Stopped are the jobs that stopped early.
	Stopped []Stopped `json:"stopped"`
	// Pulls are the stuck and OPEN pull requests, most waste first.
	Pulls []Pull `json:"pulls"`
	// Problems are job result files that could not be read.
	Problems []string `json:"problems"`
}

// Stopped is an audit job that stopped before it reached every pull
// request.
type Stopped struct {
	Repository string `json:"repository"`
	Shard      string `json:"shard,omitempty"`
	Reason     string `json:"reason"`
	NotReached int    `json:"not_reached"`
}

// ReadJobs reads the job results under paths: files, or directories
// searched for *.json (downloaded artifacts are a directory each). A file
// that is not a job result is a problem, not an error: the others are
// still reported.
func ReadJobs(paths []string) (jobs []*Job, problems []string, err error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("read audit job results: %w", err)
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".json") {
				files = append(files, path)
			}
			if len(files) > maxJobFiles {
				return fmt.Errorf("more than %d files", maxJobFiles)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("read audit job results under %s: %w", p, err)
		}
	}
	sort.Strings(files)
	for _, f := range files {
		j, err := readJob(f)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		jobs = append(jobs, j)
	}
	return jobs, problems, nil
}

func readJob(path string) (*Job, error) {
	data, err := regularfile.Read(path, maxJobBytes, "audit job result")
	if err != nil {
		return nil, err
	}
	var j Job
	if err := strictJSON(data, &j); err != nil {
		return nil, fmt.Errorf("%s: not an audit job result: %v", path, err)
	}
	if err := j.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &j, nil
}

// check validates what Fold relies on: names that make a link, numbers.
func (j *Job) check() error {
	owner, name, _ := strings.Cut(j.Repository, "/")
	var errs []error
	if j.Version != JobVersion {
		errs = append(errs, fmt.Errorf("version %d, want %d", j.Version, JobVersion))
	}
	if !github.ValidRepo(owner, name) {
		errs = append(errs, fmt.Errorf("repository %q is not owner/name", render.Clean(j.Repository)))
	}
	if j.Evaluated < 0 || j.NotReached < 0 || j.Charged < 0 || j.NotModified < 0 {
		errs = append(errs, errors.New("a negative count"))
	}
	for _, p := range j.Pulls {
		if p.Repository != j.Repository || p.Number <= 0 || p.SinceProgress < 0 || p.WhileOpen < 0 {
			errs = append(errs, fmt.Errorf("pull request %d of %q does not belong to the job or has a negative count", p.Number, render.Clean(p.Repository)))
			break
		}
	}
	return errors.Join(errs...)
}

// Fold folds the jobs' results into one report. A pull request found by
// two jobs (a job run twice) is listed once, from the newer job; serverURL
// (https://github.com when empty) makes the links.
func Fold(jobs []*Job, problems []string, serverURL string) *Report {
	serverURL = cmp.Or(strings.TrimSuffix(serverURL, "/"), "https://github.com")
	sort.SliceStable(jobs, func(i, k int) bool { return jobs[i].At.Before(jobs[k].At) })
	r := &Report{Version: JobVersion, Jobs: len(jobs), Stopped: []Stopped{}, Pulls: []Pull{}, Problems: append([]string{}, problems...)}
	repos := map[string]bool{}
	at := map[string]int{} // repository#number -> index in r.Pulls
	for _, j := range jobs {
		if j.At.After(r.At) {
			r.At = j.At
		}
		repos[j.Repository] = true
		r.Evaluated += j.Evaluated
		r.NotReached += j.NotReached
		r.Charged += j.Charged
		r.NotModified += j.NotModified
		if j.StoppedEarly {
			r.Stopped = append(r.Stopped, Stopped{Repository: j.Repository, Shard: j.Shard, Reason: j.StopReason, NotReached: j.NotReached})
		}
		for _, p := range j.Pulls {
			p.Waste = p.SinceProgress + p.WhileOpen
			p.URL = serverURL + "/" + j.Repository + "/pull/" + strconv.Itoa(p.Number)
			key := j.Repository + "#" + strconv.Itoa(p.Number)
			if i, ok := at[key]; ok {
				r.Pulls[i] = p // the newer job's
				continue
			}
			at[key] = len(r.Pulls)
			r.Pulls = append(r.Pulls, p)
		}
	}
	r.Repositories = len(repos)
	sortPulls(r.Pulls)
	return r
}

// Markdown is the report as a job summary. Everything that came from a
// pull request (titles, authors) or a job file (stop reasons) is escaped.
func (r *Report) Markdown() string {
	var b strings.Builder
	open := 0
	for _, p := range r.Pulls {
		if p.State == "OPEN" {
			open++
		}
	}
	fmt.Fprintf(&b, "## loopbreaker: stuck agent pull requests across the organisation\n\n")
	fmt.Fprintf(&b, "%d OPEN and %d stuck (HALF_OPEN) pull requests in %d repositories; %d pull requests evaluated by %d audit jobs, %d not reached. API: %d calls charged, %d answered 304 Not Modified (free).\n\n",
		open, len(r.Pulls)-open, r.Repositories, r.Evaluated, r.Jobs, r.NotReached, r.Charged, r.NotModified)
	if len(r.Pulls) > 0 {
		b.WriteString("Sorted by waste: money the agent reported spending since the last progress, where it is known, then iterations since the last progress plus iterations run while OPEN.\n\n")
		b.WriteString("| Waste | Pull request | State | Trigger | Since progress | While OPEN | Spent since progress |\n")
		b.WriteString("|---:|---|---|---|---:|---:|---:|\n")
		for i, p := range r.Pulls {
			if i == maxSummaryRows {
				fmt.Fprintf(&b, "\n%d more in the JSON report.\n", len(r.Pulls)-maxSummaryRows)
				break
			}
			title := ""
			if t := strings.TrimSpace(p.Title); t != "" {
				title = " " + render.Markdown(textcut.Runes(t, 60, textcut.Ellipsis))
			}
			fmt.Fprintf(&b, "| %d | [%s#%d](%s)%s | %s | %s | %d | %d | %s |\n", p.Waste, p.Repository, p.Number, p.URL, title,
				render.Markdown(p.State), cmp.Or(render.Markdown(p.Trigger), "-"), p.SinceProgress, p.WhileOpen, cmp.Or(render.Markdown(present.Waste(p.WastedUSD, p.WastedTokens)), "-"))
		}
	}
	if len(r.Stopped) > 0 {
		b.WriteString("\n### Audits that stopped early\n\nThe next run of each starts with the pull requests it did not reach.\n\n")
		for _, s := range r.Stopped {
			shard := ""
			if s.Shard != "" {
				shard = " (shard " + render.Markdown(s.Shard) + ")"
			}
			fmt.Fprintf(&b, "- %s%s: %d not reached; %s\n", s.Repository, shard, s.NotReached, render.Markdown(s.Reason))
		}
	}
	if len(r.Problems) > 0 {
		b.WriteString("\n### Results that could not be read\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", render.Markdown(p))
		}
	}
	return b.String()
}
