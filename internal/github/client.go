package github

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

const (
	// DefaultBaseURL is the API of github.com.
	DefaultBaseURL = "https://api.github.com"
	// DefaultMaxRetries is how often a transient failure is retried.
	DefaultMaxRetries = 3
	// DefaultMaxWait is the longest single wait for Retry-After or backoff.
	DefaultMaxWait = 60 * time.Second
	// DefaultHeaderTimeout and DefaultTimeout bound an attempt and a call when
	// Options.HTTPClient is nil: a silent server must not hold the run.
	DefaultHeaderTimeout = 30 * time.Second
	DefaultTimeout       = 10 * time.Minute
	perPage              = 100
	// maxListPages bounds every list (10,000 items); past it the list
	// stops with ErrTruncated.
	maxListPages = 100
	maxPlanned   = 1000
)

// Options configure a Client. Owner and Repo are required (Owner alone for
// NewOrg); everything else has a working default.
type Options struct {
	// Token authenticates API requests; it is never sent to the storage
	// host an artifact download is redirected to.
	Token string
	// BaseURL is the API base, such as $GITHUB_API_URL (DefaultBaseURL when
	// empty; a GitHub Enterprise Server URL ends in /api/v3).
	BaseURL     string
	Owner, Repo string
	// DryRun skips every write and describes it in Planned instead.
	DryRun bool
	// MaxRetries is how often a transient failure (500, 502, 503, 504,
	// network error) or a short rate-limit wait is retried: zero means
	// DefaultMaxRetries, negative means never.
	MaxRetries int
	// MaxWait is the longest single wait (DefaultMaxWait when zero): a
	// longer required wait is an error, never an hour-long sleep.
	MaxWait time.Duration
	// Sleep waits between attempts (default SleepTimer); Now is the clock
	// of rate-limit resets and check-run completion (default time.Now).
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// HTTPClient supplies the transport and timeout (default: see
	// DefaultTimeout).
	HTTPClient *http.Client
	// Cache, when set, makes every GET conditional: an answer it holds is
	// asked for with If-None-Match and reused on 304 Not Modified.
	Cache *Cache
}

// Client is the GitHub adapter. It is safe for concurrent use.
type Client struct {
	opts       Options
	maxRetries int
	gh         *gh.Client
	// noRedirect stops at a redirect (the artifact download link); storage
	// fetches artifact blobs, without the token and uncounted.
	noRedirect, storage *http.Client
	basePath, apiHost   string
	owner, repo         string

	calls, notModified atomic.Int64

	mu               sync.Mutex
	planned          []string
	plannedLost      int
	remaining, limit int
	rateKnown        bool
	blocked          map[string]blockade // by rate-limit resource; "*" for every one
	self             string
	selfKnown        bool
}

var namePart = lazyre.New(`^[A-Za-z0-9_.-]{1,100}$`)

// New returns a Client for the repository Owner/Repo. It makes no request.
func New(o Options) (*Client, error) {
	if !ValidRepo(o.Owner, o.Repo) {
		return nil, fmt.Errorf("github client: %q/%q is not a repository name", o.Owner, o.Repo)
	}
	return build(o)
}

// NewOrg returns a Client for the organisation (or user) Owner, which
// serves only SearchPulls; Repo must be empty. It makes no request.
func NewOrg(o Options) (*Client, error) {
	if o.Repo != "" || !namePart().MatchString(o.Owner) {
		return nil, fmt.Errorf("github client: %q is not an organisation's name (and a repository %q is not wanted)", o.Owner, o.Repo)
	}
	return build(o)
}

func build(o Options) (*Client, error) {
	base, err := url.Parse(cmp.Or(o.BaseURL, DefaultBaseURL))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("github client: API base URL %q is not an http(s) URL", o.BaseURL)
	}
	base.RawQuery, base.Fragment = "", ""
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.Sleep == nil {
		o.Sleep = SleepTimer
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	c := &Client{opts: o, basePath: strings.TrimSuffix(base.Path, "/"), apiHost: base.Host, owner: o.Owner, repo: o.Repo,
		maxRetries: cmp.Or(o.MaxRetries, DefaultMaxRetries)}
	var rt http.RoundTripper = http.DefaultTransport
	var timeout time.Duration
	if o.HTTPClient != nil {
		if o.HTTPClient.Transport != nil {
			rt = o.HTTPClient.Transport
		}
		timeout = o.HTTPClient.Timeout
	} else if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		tr := dt.Clone()
		tr.ResponseHeaderTimeout = DefaultHeaderTimeout
		rt, timeout = tr, DefaultTimeout
	}
	api := &transport{c: c, base: rt, api: true}
	stop := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// The token is added per request: follow only redirects that stay on
	// the API host.
	apiClient := &http.Client{Transport: api, Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 || req.URL.Host != c.apiHost || req.URL.Scheme != base.Scheme {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	c.noRedirect = &http.Client{Transport: api, Timeout: timeout, CheckRedirect: stop}
	c.storage = &http.Client{Transport: &transport{c: c, base: rt}, Timeout: timeout}
	c.gh = gh.NewClient(apiClient)
	c.gh.BaseURL = base
	c.gh.UserAgent = "loopbreaker"
	return c, nil
}

// Calls returns how many API requests the client has made, each retry
// counted; requests refused locally (a rate limit known to be spent) and
// artifact downloads from storage are not API requests.
func (c *Client) Calls() int { return int(c.calls.Load()) }

// Charged returns how many calls counted against GitHub's primary rate
// limit: every call but the conditional ones answered 304 Not Modified.
func (c *Client) Charged() int { return int(c.calls.Load() - c.notModified.Load()) }

// Planned returns, in dry-run mode, the writes the client skipped, in
// order, human readable.
func (c *Client) Planned() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := append([]string(nil), c.planned...)
	if c.plannedLost > 0 {
		out = append(out, fmt.Sprintf("... and %d more writes not listed", c.plannedLost))
	}
	return out
}

// RateRemaining returns the X-RateLimit-Remaining and X-RateLimit-Limit of
// the last API answer that carried them; known is false before any.
func (c *Client) RateRemaining() (remaining, limit int, known bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.remaining, c.limit, c.rateKnown
}

func (c *Client) now() time.Time { return c.opts.Now() }

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.opts.Sleep(ctx, d)
}

// backoff is the wait before retry number attempt: 1 s, 2 s, 4 s, ...
// capped by MaxWait.
func (c *Client) backoff(attempt int) time.Duration {
	d := backoffBase
	for i := 1; i < attempt && d < c.opts.MaxWait; i++ {
		d *= 2
	}
	return min(d, c.opts.MaxWait)
}

// recordRate keeps the primary rate limit an answer to call reports, and
// holds the calls of its resource until the reset when none is left.
func (c *Client) recordRate(call string, h http.Header) {
	rem, err1 := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	lim, err2 := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	if err1 != nil || err2 != nil {
		return
	}
	res := resourceOf(call)
	if reset, ok := parseUnix(h.Get("X-RateLimit-Reset")); ok && rem == 0 {
		c.block(res, reset, fmt.Sprintf("the %s rate limit of %d calls is spent", res, lim))
	}
	if res == "core" {
		c.mu.Lock()
		c.remaining, c.limit, c.rateKnown = rem, lim, true
		c.mu.Unlock()
	}
}

// blockade is a rate limit that refuses calls until a time.
type blockade struct {
	until time.Time
	why   string
}

// block holds the calls of a rate-limit resource ("*": every call) until
// t: GitHub said so.
func (c *Client) block(resource string, t time.Time, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.blocked == nil {
		c.blocked = map[string]blockade{}
	}
	if t.After(c.blocked[resource].until) {
		c.blocked[resource] = blockade{t, why}
	}
}

// awaitLimit lets a call through its rate limit: at once, or after waiting
// up to MaxWait for a per-minute (search) limit's reset; the hourly primary
// limit is not waited for.
func (c *Client) awaitLimit(ctx context.Context, call string) error {
	c.mu.Lock()
	b := c.blocked["*"]
	if r := c.blocked[resourceOf(call)]; r.until.After(b.until) {
		b = r
	}
	c.mu.Unlock()
	wait := b.until.Sub(c.now())
	if wait <= 0 {
		return nil
	}
	wait = untilReset(wait)
	if wait <= c.opts.MaxWait && resourceOf(call) != "core" {
		if err := c.sleep(ctx, wait); err != nil {
			return &APIError{Call: call, Message: fmt.Sprintf("waiting %s for the rate limit to reset: %v", wait, err), RateLimited: true, RetryAfter: wait, Err: err}
		}
		return nil
	}
	return &APIError{
		Call:        call,
		Message:     fmt.Sprintf("not sent: rate limited until %s, in %s, longer than the %s a call may wait (%s)", b.until.UTC().Format(time.RFC3339), wait.Round(time.Second), c.opts.MaxWait, b.why),
		RateLimited: true,
		RetryAfter:  wait,
	}
}

// untilReset rounds a wait for a reset (a whole second) up, so that the
// reset's second has begun when it ends.
func untilReset(d time.Duration) time.Duration {
	return max(0, d+time.Second-1).Truncate(time.Second)
}

// resourceOf is the rate-limit resource a call ("GET /search/issues") is
// counted against, as GitHub names it in X-RateLimit-Resource.
func resourceOf(call string) string {
	_, p, _ := strings.Cut(call, " ")
	switch {
	case strings.HasPrefix(p, "/search/code"):
		return "code_search"
	case strings.HasPrefix(p, "/search/"):
		return "search"
	}
	return "core"
}

// callName names a request as "METHOD /path" (relative to the API base),
// or "METHOD host/path" for storage; never the query, which may hold a
// signature.
func (c *Client) callName(req *http.Request, api bool) string {
	if !api {
		return req.Method + " " + req.URL.Host + req.URL.EscapedPath()
	}
	p := req.URL.EscapedPath()
	if req.URL.Host == c.apiHost {
		p = strings.TrimPrefix(p, c.basePath)
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return req.Method + " " + p
}

// plan records a skipped write in dry-run mode.
func (c *Client) plan(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.planned) >= maxPlanned {
		c.plannedLost++
		return
	}
	c.planned = append(c.planned, fmt.Sprintf(format, args...))
}

// path builds "/repos/{owner}/{repo}" + the formatted suffix, for call names.
func (c *Client) path(format string, args ...any) string {
	return "/repos/" + c.owner + "/" + c.repo + fmt.Sprintf(format, args...)
}

// fail turns whatever go-github or the transport returned into an
// *APIError naming call.
func (c *Client) fail(call string, err error) error {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		cp := *ae
		cp.Call = call
		return &cp
	}
	// A 403 that names the secondary limit only in its documentation URL
	// reaches go-github, which calls it an abuse limit.
	var are *gh.AbuseRateLimitError
	if errors.As(err, &are) {
		e := &APIError{Call: call, Status: http.StatusForbidden, Message: are.Message, RateLimited: true}
		if are.RetryAfter != nil {
			e.RetryAfter = *are.RetryAfter
		}
		return e
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		e := &APIError{Call: call, Message: er.Message, Attempts: 1}
		if er.Response != nil {
			e.Status = er.Response.StatusCode
		}
		var details []string
		for _, d := range er.Errors {
			s := strings.Trim(d.Resource+" "+d.Field+" "+d.Code, " ")
			if d.Message != "" {
				s = strings.TrimSpace(s + " " + d.Message)
			}
			if s != "" {
				details = append(details, s)
			}
		}
		if len(details) > 0 {
			e.Message = bounded(e.Message+" ("+strings.Join(details, "; ")+")", 1000)
		}
		return e
	}
	return &APIError{Call: call, Message: err.Error(), Err: err}
}

// listAll follows go-github's NextPage with per_page=100, at most
// maxListPages pages; a longer list returns the items read so far and an
// error wrapping ErrTruncated.
func listAll[T any](ctx context.Context, c *Client, call string, fetch func(gh.ListOptions) ([]T, *gh.Response, error)) ([]T, error) {
	var out []T
	_, more, err := eachPage(maxListPages, fetch, func(items []T) bool {
		out = append(out, items...)
		return true
	})
	if err != nil {
		return nil, c.fail(call, err)
	}
	if more {
		return out, fmt.Errorf("%s: %w: stopped after %d pages (%d items)", call, ErrTruncated, maxListPages, len(out))
	}
	return out, nil
}

// eachPage reads a list a page of 100 at a time, following go-github's
// NextPage, and hands each page to keep until keep returns false, the
// last page was read or maxPages were; more says a next page was left.
func eachPage[T any](maxPages int, fetch func(gh.ListOptions) ([]T, *gh.Response, error), keep func([]T) bool) (pages int, more bool, err error) {
	page := 1
	for {
		items, resp, err := fetch(gh.ListOptions{Page: page, PerPage: perPage})
		if err != nil {
			return pages, false, err
		}
		pages++
		next := nextPage(resp, page)
		if !keep(items) || next == 0 {
			return pages, false, nil
		}
		if pages >= maxPages {
			return pages, true, nil
		}
		page = next
	}
}

// nextPage is the page after page that go-github read from the Link
// header, 0 on the last.
func nextPage(resp *gh.Response, page int) int {
	if resp != nil && resp.NextPage > page {
		return resp.NextPage
	}
	return 0
}

// bounded cuts s to at most n characters, ending in "…" when cut.
func bounded(s string, n int) string { return textcut.Runes(s, n, textcut.Ellipsis) }

func validNumber(number int) error {
	if number <= 0 {
		return fmt.Errorf("issue or pull request number %d is not positive", number)
	}
	return nil
}

// loginPattern is a GitHub login, bots included ("name[bot]").
var loginPattern = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$`)
