package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/audit/org"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

var orgT0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// orgAgents are the agent accounts the organisation's pull requests come
// from (the audit's default authors).
var orgAgents = []string{"Copilot", "devin-ai-integration[bot]", "claude[bot]", "google-labs-jules[bot]"}

// orgFake is the organisation acme: repos repositories of perRepo open
// agent pull requests each, every third one stuck (loopbreaker's sticky
// comment holds the records of runs that made no commit, more of them the
// higher the number, so that the waste differs), plus a person's pull
// request in every repository and a repository without agents. It returns
// the agent pull requests by repository and the stuck ones.
func orgFake(t *testing.T, repos, perRepo int) (fake *fakegithub.Server, pulls map[string][]int, stuck map[string]bool) {
	t.Helper()
	fake = fakegithub.New()
	t.Cleanup(fake.Close)
	fake.SetClock(func() time.Time { return orgT0.Add(72 * time.Hour) })
	pulls, stuck = map[string][]int{}, map[string]bool{}
	k := 0
	for r := 0; r < repos; r++ {
		name := fmt.Sprintf("repo-%03d", r)
		for i := 1; i <= perRepo; i++ {
			n := 10 + i
			head := fmt.Sprintf("%040x", r*1000+n)
			agent := orgAgents[k%len(orgAgents)]
			fake.AddPull("acme", name, fakegithub.Pull{Number: n, Title: fmt.Sprintf("agent task %d <b>@acme/admins</b>", n), User: agent, UserType: "Bot",
				HeadSHA: head, HeadRef: fmt.Sprintf("agent/task-%d", n), CreatedAt: orgT0.Add(time.Duration(k) * time.Minute),
				Commits: []string{head}, Files: []string{"main.go"}})
			if k%3 == 0 {
				var recs []ledger.Record
				for j := 0; j < 4+k%5; j++ {
					recs = append(recs, ledger.Record{Version: 1, RunID: int64(j + 1), RunAttempt: 1, Commit: head, At: orgT0.Add(time.Duration(j+1) * time.Hour), Errors: []ledger.Error{}})
				}
				digest, _ := present.EncodeDigest(recs)
				fake.AddComment("acme", name, n, fakegithub.DefaultLogin, "Bot", present.Marker+"\n"+digest, orgT0.Add(10*time.Hour))
				stuck[fmt.Sprintf("acme/%s#%d", name, n)] = true
			}
			pulls["acme/"+name] = append(pulls["acme/"+name], n)
			k++
		}
		fake.AddPull("acme", name, fakegithub.Pull{Number: 1, Title: "a person's change", User: "alice", CreatedAt: orgT0})
	}
	fake.AddPull("acme", "people-only", fakegithub.Pull{Number: 1, Title: "a person's change", User: "bob", CreatedAt: orgT0})
	return fake, pulls, stuck
}

// tickingClock makes GitHub's time go on from the organisation's, by a
// second each time the fake looks at it.
func tickingClock(fake *fakegithub.Server) {
	var tick atomic.Int64
	fake.SetClock(func() time.Time { return orgT0.Add(72*time.Hour + time.Duration(tick.Add(1))*time.Second) })
}

// orgRun runs a loopbreaker command against the fake.
func orgRun(t *testing.T, fake *fakegithub.Server, args ...string) (string, string) {
	t.Helper()
	return orgRunAs(t, fake, fakegithub.DefaultToken, args...)
}

// orgRunAs is orgRun with the token tok.
func orgRunAs(t *testing.T, fake *fakegithub.Server, tok string, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, Env{Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string {
			return map[string]string{"GITHUB_TOKEN": tok, "GITHUB_API_URL": fake.URL}[k]
		},
		Now: func() time.Time { return orgT0.Add(72 * time.Hour) }})
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String(), errOut.String()
}

// discover runs discovery and returns its matrix.
func discover(t *testing.T, fake *fakegithub.Server, args ...string) org.Matrix {
	t.Helper()
	out, _ := orgRun(t, fake, append([]string{"discover"}, args...)...)
	if strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Fatalf("the matrix is not one line (a $GITHUB_OUTPUT value):\n%s", out)
	}
	var m org.Matrix
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("the matrix is not JSON: %v\n%s", err, out)
	}
	return m
}

// auditJob runs one matrix entry's audit with its state and result files
// under dir, and returns the fake's charged calls it took.
func auditJob(t *testing.T, fake *fakegithub.Server, dir string, e org.Entry, extra ...string) int {
	t.Helper()
	return auditJobAs(t, fake, fakegithub.DefaultToken, dir, e, extra...)
}

// auditJobAs is auditJob with the token tok.
func auditJobAs(t *testing.T, fake *fakegithub.Server, tok, dir string, e org.Entry, extra ...string) int {
	t.Helper()
	base := strings.ReplaceAll(e.Repository, "/", "_") + fmt.Sprintf("-%d-of-%d", e.ShardIndex, e.ShardCount)
	before := fake.Charged()
	owner, name, _ := strings.Cut(e.Repository, "/")
	orgRunAs(t, fake, tok, append([]string{"audit", "--repo", "", "--owner", owner, "--name", name,
		"--shard-index", fmt.Sprint(e.ShardIndex), "--shard-count", fmt.Sprint(e.ShardCount),
		"--state", filepath.Join(dir, "state", base+".json"), "--result", filepath.Join(dir, "results", base, "result.json")}, extra...)...)
	return fake.Charged() - before
}

// TestOrganisationAudit: an organisation of 100 repositories and 1,000 open
// agent pull requests (30 and 300 without LOOPBREAKER_LONG_TESTS), through
// the commands a workflow runs: discovery
// covers every agent pull request exactly once, the audit jobs' report
// lists every OPEN one once (escaped, sorted by waste), and a second audit
// of the unchanged organisation is charged at most a tenth of the first.
func TestOrganisationAudit(t *testing.T) {
	t.Parallel()
	repos := 30
	if LongTests() {
		repos = 100
	}
	want := repos * 10
	fake, pulls, stuck := orgFake(t, repos, 10)
	tickingClock(fake)
	m := discover(t, fake, "--org", "acme")

	covered := map[string]int{}
	for _, e := range m.Include {
		for _, n := range pulls[e.Repository] {
			if audit.ShardOf(n, e.ShardCount) == e.ShardIndex {
				covered[fmt.Sprintf("%s#%d", e.Repository, n)]++
			}
		}
		if pulls[e.Repository] == nil {
			t.Errorf("the matrix lists %s, which has no agent pull request", e.Repository)
		}
	}
	total := 0
	for repo, ns := range pulls {
		for _, n := range ns {
			total++
			if c := covered[fmt.Sprintf("%s#%d", repo, n)]; c != 1 {
				t.Errorf("%s#%d is covered by %d matrix entries, want 1", repo, n, c)
			}
		}
	}
	if total != want || len(m.Include) != repos {
		t.Fatalf("got %d agent pull requests in %d matrix entries, want %d in %d", total, len(m.Include), want, repos)
	}

	dir := t.TempDir()
	first := 0
	for _, e := range m.Include {
		first += auditJob(t, fake, dir, e)
	}
	report := filepath.Join(dir, "org-report.json")
	md, _ := orgRun(t, fake, "org-report", "--json", report, filepath.Join(dir, "results"))
	var r org.Report
	data, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(data, &r) != nil {
		t.Fatalf("no JSON report: %v", err)
	}
	listed := map[string]int{}
	for i, p := range r.Pulls {
		key := fmt.Sprintf("%s#%d", p.Repository, p.Number)
		listed[key]++
		if p.State != "OPEN" || !stuck[key] {
			t.Errorf("%s is listed as %s; only the stuck ones are OPEN", key, p.State)
		}
		if p.URL != "https://github.com/"+p.Repository+"/pull/"+fmt.Sprint(p.Number) {
			t.Errorf("%s: link %q", key, p.URL)
		}
		if i > 0 && r.Pulls[i-1].Waste < p.Waste {
			t.Errorf("not sorted by waste: %d before %d", r.Pulls[i-1].Waste, p.Waste)
		}
	}
	for key := range stuck {
		if listed[key] != 1 {
			t.Errorf("OPEN pull request %s is listed %d times, want once", key, listed[key])
		}
	}
	if r.Evaluated != want || r.Jobs != repos || len(r.Stopped) != 0 {
		t.Errorf("got %d evaluated by %d jobs, %d stopped; want %d by %d, none", r.Evaluated, r.Jobs, len(r.Stopped), want, repos)
	}
	if strings.Contains(md, "<b>") || regexp.MustCompile(`@acme/`).MatchString(md) {
		t.Errorf("the summary carries the agent's markup or a live mention:\n%.600s", md)
	}
	if r.Pulls[0].Waste <= r.Pulls[len(r.Pulls)-1].Waste {
		t.Errorf("every stuck pull request has waste %d: the order says nothing", r.Pulls[0].Waste)
	}

	second, callsBefore := 0, fake.Calls()
	for _, e := range m.Include {
		second += auditJob(t, fake, dir, e)
	}
	repeatCalls := fake.Calls() - callsBefore
	third := 0
	for _, e := range m.Include {
		third += auditJob(t, fake, dir, e)
	}
	t.Logf("requests per pull request: first run %.2f, repeat run %.2f, third run %.2f", float64(callsBefore)/float64(want), float64(repeatCalls)/float64(want), float64(fake.Calls()-callsBefore-repeatCalls)/float64(want))
	t.Logf("calls charged per pull request: first run %.2f (%d), repeat run %.2f (%d), third run %.2f (%d)",
		float64(first)/float64(want), first, float64(second)/float64(want), second, float64(third)/float64(want), third)
	if third > second {
		t.Errorf("the third run was charged %d calls, more than the second's %d", third, second)
	}
	if second*10 > first {
		t.Errorf("the repeat audit was charged %d calls, more than a tenth of the first run's %d", second, first)
	}
	if fake.Charged() == fake.Calls() {
		t.Error("no call was answered 304 Not Modified")
	}
}

// TestAuditResumesWhereTheQuotaStopped: a run that reaches the rate-limit
// reserve stops, says how far it got in its result, and the next run
// (the quota renewed) starts with the pull requests it did not reach.
func TestAuditResumesWhereTheQuotaStopped(t *testing.T) {
	t.Parallel()
	fake, pulls, _ := orgFake(t, 1, 10)
	e := org.Entry{Repository: "acme/repo-000", ShardCount: 1}
	dir := t.TempDir()
	// 10 % of 5,000 is kept: room for the list, the artifacts and two
	// pull requests.
	fake.SetRateLimit(5000, 500+7, orgT0.Add(73*time.Hour))
	auditJob(t, fake, dir, e)
	st, problem, err := org.ReadState(filepath.Join(dir, "state", "acme_repo-000-0-of-1.json"), "acme/repo-000", "")
	if err != nil || problem != "" || st == nil {
		t.Fatalf("no state: %v %s", err, problem)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "results", "acme_repo-000-0-of-1", "result.json"))
	var job org.Job
	if err := json.Unmarshal(data, &job); err != nil {
		t.Fatal(err)
	}
	if !job.StoppedEarly || !strings.Contains(job.StopReason, "rate-limit reserve") || job.NotReached != len(st.Pending) || job.Evaluated+job.NotReached != len(pulls["acme/repo-000"]) {
		t.Fatalf("got result %+v with pending %v; want a stop at the reserve, the rest pending", job, st.Pending)
	}
	md, _ := orgRun(t, fake, "org-report", filepath.Join(dir, "results"))
	if !strings.Contains(md, "stopped early") || !strings.Contains(md, fmt.Sprintf("%d not reached", job.NotReached)) {
		t.Errorf("the report does not say how far the job got:\n%s", md)
	}

	fake.SetRateLimit(5000, 5000, orgT0.Add(73*time.Hour))
	fake.ResetCalls()
	auditJob(t, fake, dir, e)
	var firstPull string
	for _, c := range fake.CallLog() {
		if m := regexp.MustCompile(`^GET /repos/acme/repo-000/pulls/(\d+)/commits`).FindStringSubmatch(c); m != nil {
			firstPull = m[1]
			break
		}
	}
	if firstPull != fmt.Sprint(st.Pending[0]) {
		t.Errorf("the next run started with #%s, want #%d, the first the quota stopped", firstPull, st.Pending[0])
	}
	data, _ = os.ReadFile(filepath.Join(dir, "results", "acme_repo-000-0-of-1", "result.json"))
	job = org.Job{}
	if err := json.Unmarshal(data, &job); err != nil || job.StoppedEarly || job.Evaluated != 10 {
		t.Errorf("the resumed run: got %+v, want all 10 evaluated", job)
	}
}

// TestAuditOrgExampleUsesDiscoveryAndTheReport: the organisation example
// discovers its matrix, audits with a state and a result, folds the
// results, mints an App token pinned by commit, and every flag it passes
// is one the command has.
func TestAuditOrgExampleUsesDiscoveryAndTheReport(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../examples/audit-org.yml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	if !regexp.MustCompile(`uses: actions/create-github-app-token@[0-9a-f]{40} #`).MatchString(text) {
		t.Error("the App token action is not pinned by commit")
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`loopbreaker (discover|audit|org-report)\b([^\n]*)`).FindAllStringSubmatch(text, -1) {
		used[m[1]] = true
		var out bytes.Buffer
		Main([]string{m[1], "-h"}, Env{Stdout: &out, Stderr: &out})
		for _, f := range regexp.MustCompile(`--([a-z-]+)`).FindAllStringSubmatch(m[2], -1) {
			if !strings.Contains(out.String(), "  -"+f[1]+" ") && !strings.Contains(out.String(), "  -"+f[1]+"\n") {
				t.Errorf("loopbreaker %s has no flag --%s", m[1], f[1])
			}
		}
	}
	for _, c := range []string{"discover", "audit", "org-report"} {
		if !used[c] {
			t.Errorf("the example does not run loopbreaker %s", c)
		}
	}
	for _, want := range []string{"--state ", "--result ", "fromJSON(needs.discover.outputs.matrix)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the example lacks %q", want)
		}
	}
}

// TestDiscoverListedRepositories: with --repos, discovery lists each
// repository's open pull requests and keeps those the audit's filters
// take: a repository of people's pull requests makes no job.
func TestDiscoverListedRepositories(t *testing.T) {
	t.Parallel()
	fake, _, _ := orgFake(t, 2, 3)
	m := discover(t, fake, "--repos", "acme/repo-000,acme/people-only", "--repos", "acme/repo-001", "--pulls-per-shard", "2")
	var got []string
	for _, e := range m.Include {
		got = append(got, fmt.Sprintf("%s %d/%d %d", e.Repository, e.ShardIndex, e.ShardCount, e.Pulls))
	}
	want := "acme/repo-000 0/2 3,acme/repo-000 1/2 3,acme/repo-001 0/2 3,acme/repo-001 1/2 3"
	if strings.Join(got, ",") != want {
		t.Errorf("got %q, want %q", strings.Join(got, ","), want)
	}
	m = discover(t, fake, "--repos", "acme/people-only", "--authors", "*")
	if len(m.Include) != 1 || m.Include[0].Pulls != 1 {
		t.Errorf("anyone's pull requests: got %+v, want one job of one", m.Include)
	}
}

// TestOrgCommandsRefuseBadInput: usage faults and unreadable results exit
// 2 naming the fault; a state file that cannot be used is set aside with a
// warning, the run pays full price and writes a good one.
func TestOrgCommandsRefuseBadInput(t *testing.T) {
	t.Parallel()
	fake, _, _ := orgFake(t, 1, 2)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version":1,"repository":"acme/x",`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"discover"}, "give --org or --repos"},
		{[]string{"discover", "--org", "acme", "--repos", "acme/a"}, "give --org or --repos"},
		{[]string{"discover", "--repos", "acme/../x"}, "not owner/name"},
		{[]string{"discover", "--org", "acme", "--pulls-per-shard", "0"}, "--pulls-per-shard 0"},
		{[]string{"org-report"}, "name the audit jobs' result files"},
		{[]string{"org-report", bad}, "no audit job result could be read"},
	} {
		var out, errOut bytes.Buffer
		code := Main(c.args, Env{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
			return map[string]string{"GITHUB_API_URL": fake.URL}[k]
		}})
		if code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: got exit %d, %q; want 2 saying %q", c.args, code, errOut.String(), c.want)
		}
	}
	state := filepath.Join(dir, "state", "acme_repo-000-0-of-1.json")
	os.MkdirAll(filepath.Dir(state), 0o755)
	os.WriteFile(state, []byte("{not json"), 0o644)
	_, errOut := orgRun(t, fake, "audit", "--repo", "", "--owner", "acme", "--name", "repo-000", "--state", state)
	if !strings.Contains(errOut, "not a state file") {
		t.Errorf("a corrupt state: no warning in %q", errOut)
	}
	if st, problem, err := org.ReadState(state, "acme/repo-000", ""); st == nil || problem != "" || err != nil || len(st.Answers) == 0 {
		t.Errorf("the state was not rewritten: %v %q %v", st, problem, err)
	}
}

// TestDiscoveryWaitsForTheSearchReset: the search API allows 30 requests a
// minute. Discovery that spends them waits for the reset when it is under
// a minute away (by the clock it is given: the test never sleeps) and
// finds every pull request; a reset further away is a clear exit 3 naming
// the call, never an abort with a partial matrix.
func TestDiscoveryWaitsForTheSearchReset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		reset time.Duration
		want  int
	}{{"reset in 40s", 40 * time.Second, 0}, {"reset in 5m", 5 * time.Minute, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake, pulls, _ := orgFake(t, 3, 2)
			now := orgT0.Add(72 * time.Hour)
			var mu sync.Mutex
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			fake.SetClock(clock)
			// Two searches left this minute; discovery asks one per author.
			fake.SetSearchRateLimit(30, 2, now.Add(tc.reset))
			var slept []time.Duration
			var out, errOut bytes.Buffer
			code := Main([]string{"discover", "--org", "acme"}, Env{Stdout: &out, Stderr: &errOut,
				Getenv: func(k string) string {
					return map[string]string{"GITHUB_TOKEN": fakegithub.DefaultToken, "GITHUB_API_URL": fake.URL}[k]
				},
				Now: clock,
				Sleep: func(_ context.Context, d time.Duration) error {
					mu.Lock()
					defer mu.Unlock()
					slept, now = append(slept, d), now.Add(d)
					return nil
				}})
			if code != tc.want {
				t.Fatalf("got exit %d, want %d\n%s", code, tc.want, errOut.String())
			}
			if tc.want != 0 {
				if msg := errOut.String(); !strings.Contains(msg, "GET /search/issues") || !strings.Contains(msg, "rate limit") {
					t.Errorf("the error does not name the call and the limit:\n%s", msg)
				}
				if out.Len() != 0 {
					t.Errorf("a partial matrix was printed: %s", out.String())
				}
				return
			}
			if len(slept) != 1 || slept[0] != tc.reset {
				t.Errorf("got waits %v, want one of %s (until the reset)", slept, tc.reset)
			}
			var m org.Matrix
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				t.Fatalf("no matrix: %v\n%s", err, out.String())
			}
			found := 0
			for _, e := range m.Include {
				found += e.Pulls
			}
			if want := len(pulls["acme/repo-000"]) * 3; found != want {
				t.Errorf("discovery found %d pull requests, want %d", found, want)
			}
		})
	}
}

// TestRepeatAuditWithAFreshTokenReadsOnlyWhatChanged: each audit run
// mints a new App installation token, so no ETag of the last run matches
// (an ETag is its token's). The cursor in the audit state still makes the
// repeat cheap: the lists of pull requests are read (and the record
// artifacts' list), and only the pull requests whose head or updated_at
// moved; one pushed to and one commented on in between are read again.
// A state whose marks are forged or corrupt costs a full read, never a
// pull request that changed.
func TestRepeatAuditWithAFreshTokenReadsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	fake, pulls, stuck := orgFake(t, 20, 10)
	tickingClock(fake)
	dir := t.TempDir()
	var entries []org.Entry
	for repo := range pulls {
		entries = append(entries, org.Entry{Repository: repo, ShardCount: 1})
	}
	tokens := 0
	run := func(only ...string) (charged int, calls []string) {
		tokens++
		tok := fmt.Sprintf("ghs_installation%d", tokens)
		fake.AddToken(tok, fakegithub.DefaultLogin, "Bot")
		fake.ResetCalls()
		for _, e := range entries {
			if len(only) == 0 || slices.Contains(only, e.Repository) {
				charged += auditJobAs(t, fake, tok, dir, e)
			}
		}
		return charged, fake.CallLog()
	}
	first, _ := run()
	result := func(repo string) string {
		data, err := os.ReadFile(filepath.Join(dir, "results", strings.ReplaceAll(repo, "/", "_")+"-0-of-1", "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		var j org.Job
		if err := json.Unmarshal(data, &j); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(j.Pulls)
		return string(b)
	}
	before := map[string]string{}
	for repo := range pulls {
		before[repo] = result(repo)
	}

	// Between the runs: a push to one pull request and a person's comment
	// on another, both agent pull requests the first run read.
	pushed, commented := pulls["acme/repo-003"][0], pulls["acme/repo-007"][1]
	if err := fake.Push("acme", "repo-003", pushed, fmt.Sprintf("%040x", 999999), ""); err != nil {
		t.Fatal(err)
	}
	fake.AddToken("alice-token", "alice", "User")
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/repos/acme/repo-007/issues/%d/comments", fake.URL, commented), strings.NewReader(`{"body":"still looks stuck"}`))
	req.Header.Set("Authorization", "Bearer alice-token")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("a person's comment: %v %v", resp, err)
	}
	second, calls := run()
	t.Logf("charged calls: first run %d, repeat with a fresh token %d", first, second)
	if second*10 > first {
		t.Errorf("the repeat audit with a fresh token was charged %d calls, more than a tenth of the first run's %d", second, first)
	}
	read := func(calls []string, repo string, n int) bool {
		return slices.ContainsFunc(calls, func(c string) bool {
			return strings.HasPrefix(c, fmt.Sprintf("GET /repos/%s/pulls/%d/commits", repo, n)) ||
				strings.HasPrefix(c, fmt.Sprintf("GET /repos/%s/issues/%d/comments", repo, n))
		})
	}
	if !read(calls, "acme/repo-003", pushed) || !read(calls, "acme/repo-007", commented) {
		t.Errorf("a pull request that changed was not read again: %v", calls)
	}
	for repo, ns := range pulls {
		for _, n := range ns {
			if read(calls, repo, n) && !(repo == "acme/repo-003" && n == pushed) && !(repo == "acme/repo-007" && n == commented) {
				t.Errorf("%s#%d did not change and was read again", repo, n)
			}
		}
		if repo != "acme/repo-003" && repo != "acme/repo-007" && result(repo) != before[repo] {
			t.Errorf("%s: the repeat decided otherwise:\n%s\nwant\n%s", repo, result(repo), before[repo])
		}
	}
	if len(stuck) == 0 {
		t.Fatal("no stuck pull request")
	}

	// Forged and corrupt marks: every mark of one state moved on an hour,
	// every head of another's replaced, a third state not JSON. Each of
	// these repositories is read whole again.
	edit := func(repo string, change func(st *org.State)) {
		path := filepath.Join(dir, "state", strings.ReplaceAll(repo, "/", "_")+"-0-of-1.json")
		st, problem, err := org.ReadState(path, repo, "")
		if err != nil || st == nil || problem != "" {
			t.Fatalf("state of %s: %v %s", repo, err, problem)
		}
		change(st)
		if err := org.WriteState(path, st); err != nil {
			t.Fatal(err)
		}
	}
	edit("acme/repo-001", func(st *org.State) {
		for n, m := range st.Marks {
			m.Updated = m.Updated.Add(time.Hour)
			st.Marks[n] = m
		}
	})
	edit("acme/repo-002", func(st *org.State) {
		for n, m := range st.Marks {
			m.Head = strings.Repeat("ab", 20)
			st.Marks[n] = m
		}
	})
	if err := os.WriteFile(filepath.Join(dir, "state", "acme_repo-004-0-of-1.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, calls = run("acme/repo-001", "acme/repo-002", "acme/repo-004")
	for _, repo := range []string{"acme/repo-001", "acme/repo-002", "acme/repo-004"} {
		for _, n := range pulls[repo] {
			if !read(calls, repo, n) {
				t.Errorf("%s#%d: its mark was forged or corrupt and it was not read again", repo, n)
			}
		}
	}
}
