package fakegithub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	docsBase       = "https://docs.github.com/rest"
	docsRateLimit  = "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"
	docsSecondary  = "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	msgSecondary   = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000."
	enterprisePath = "/api/v3"
)

// obj is a JSON object under construction.
type obj = map[string]any

// call is one API request being answered; handlers run with s.mu held.
type call struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	user *token // nil when anonymous
	base string // scheme://host without trailing slash
	// prefix is "/api/v3" when the client used the enterprise-style path.
	prefix string
	// doc is the documentation page of the endpoint, sent in its errors.
	doc string
	// bucket is the rate limit the call is charged to.
	bucket *bucket
}

// bucket is one rate limit. The search API has its own, separate from the
// rest of the REST API's (core): 30 requests a minute for an
// authenticated caller, renewed every minute, its answers naming the
// resource "search"
// (https://docs.github.com/en/rest/search/search#rate-limit,
// https://docs.github.com/en/rest/rate-limit/rate-limit).
type bucket struct {
	name             string
	limit, remaining int
	reset            time.Time
	window           time.Duration
}

// bucketLocked is the rate limit a request to path is charged to.
func (s *Server) bucketLocked(path string) *bucket {
	if strings.HasPrefix(path, "/search/") {
		return &s.search
	}
	return &s.core
}

type callKey struct{}

// serve is the outer handler: it strips the enterprise prefix, answers
// /_fake and /_blobs, and for API paths counts the call, applies faults,
// authenticates, charges the rate limit and dispatches.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	c := &call{s: s, w: w, r: r, base: s.baseURL(r)}
	if p, ok := strings.CutPrefix(r.URL.Path, enterprisePath); ok && (p == "" || strings.HasPrefix(p, "/")) {
		c.prefix = enterprisePath
		r2 := r.Clone(r.Context())
		r2.URL.Path = p
		r2.URL.RawPath = ""
		c.r = r2
		r = r2
	}
	if r.ContentLength > maxBodyBytes {
		c.errorf(http.StatusRequestEntityTooLarge, "request body is too large")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	path := r.URL.Path
	switch {
	case strings.HasPrefix(path, "/_fake/"):
		s.serveFake(c)
		return
	case strings.HasPrefix(path, "/_blobs/"):
		if s.applyFault(c) {
			return
		}
		s.serveBlob(c)
		return
	}

	s.mu.Lock()
	s.recordCallLocked(r)
	s.mu.Unlock()
	if s.applyFault(c) {
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.authLocked(c) {
		return
	}
	if !s.chargeLocked(c) {
		return
	}
	s.mux.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callKey{}, c)))
}

func (s *Server) baseURL(r *http.Request) string {
	if s.URL != "" {
		return strings.TrimSuffix(s.URL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) recordCallLocked(r *http.Request) {
	s.calls++
	entry := r.Method + " " + r.URL.Path
	if r.URL.RawQuery != "" {
		entry += "?" + r.URL.RawQuery
	}
	if len(s.callLog) >= maxCallLog {
		s.callLog = append(s.callLog[:0], s.callLog[len(s.callLog)/2:]...)
	}
	s.callLog = append(s.callLog, entry)
	route := r.Method + " " + r.URL.Path
	if _, ok := s.byRoute[route]; !ok && len(s.byRoute) >= maxRoutes {
		route = "other"
	}
	s.byRoute[route]++
}

// applyFault answers the request from a matching fault and reports
// whether it did; a Delay-only fault waits and lets the request through.
func (s *Server) applyFault(c *call) bool {
	f, ok := s.matchFault(c.r.Method, c.r.URL.Path)
	if !ok {
		return false
	}
	if !s.wait(c.r.Context(), f.Delay) {
		// The client gave up or the server is closing: answer nothing useful.
		c.w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}
	if f.Status == 0 && f.Body == nil {
		return false
	}
	s.mu.Lock()
	b := *s.bucketLocked(c.r.URL.Path)
	now := s.now()
	s.mu.Unlock()
	limit, remaining, reset := b.limit, b.remaining, b.reset
	h := c.w.Header()
	st := f.Status
	if st == 0 && f.Secondary {
		st = http.StatusForbidden
	}
	if st == 0 {
		st = http.StatusOK
	}
	var body []byte
	switch {
	case st == http.StatusForbidden && !f.Secondary:
		remaining = 0
		reset = now.Add(time.Duration(f.RetryAfter) * time.Second)
		body = errorBody("API rate limit exceeded for installation ID 1.", docsRateLimit, st)
	case st == http.StatusForbidden || st == http.StatusTooManyRequests:
		h.Set("Retry-After", strconv.Itoa(f.RetryAfter))
		body = errorBody(msgSecondary, docsSecondary, st)
	case st >= 300:
		body = errorBody(http.StatusText(st), docsBase, st)
	}
	blob := strings.HasPrefix(c.r.URL.Path, "/_blobs/")
	if !blob {
		setRateHeaders(h, b.name, limit, remaining, reset)
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	if f.Body != nil {
		body = f.Body
		if blob {
			h.Set("Content-Type", "application/zip")
		}
	}
	c.w.WriteHeader(st)
	_, _ = c.w.Write(body)
	return true
}

func setRateHeaders(h http.Header, resource string, limit, remaining int, reset time.Time) {
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(max(0, limit-remaining)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", resource)
}

// authLocked resolves the token and refuses what GitHub refuses.
func (s *Server) authLocked(c *call) bool {
	auth := c.r.Header.Get("Authorization")
	write := c.r.Method != http.MethodGet && c.r.Method != http.MethodHead
	if auth != "" {
		scheme, tok, _ := strings.Cut(auth, " ")
		tok = strings.TrimSpace(tok)
		t, ok := s.tokens[tok]
		if !ok || (!strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token")) {
			s.rateHeadersLocked(c)
			c.errorf(http.StatusUnauthorized, "Bad credentials")
			return false
		}
		c.user = t
	}
	if write && c.user == nil {
		s.rateHeadersLocked(c)
		c.errorf(http.StatusUnauthorized, "Requires authentication")
		return false
	}
	return true
}

func (s *Server) rateHeadersLocked(c *call) {
	// Every answer is dated by the fake's clock, as GitHub dates its own.
	c.w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat))
	b := c.bucket
	if b == nil {
		b = s.bucketLocked(c.r.URL.Path)
	}
	setRateHeaders(c.w.Header(), b.name, b.limit, b.remaining, b.reset)
}

// chargeLocked uses one call of the request's rate limit and answers 403
// when none is left.
func (s *Server) chargeLocked(c *call) bool {
	now := s.now()
	b := s.bucketLocked(c.r.URL.Path)
	c.bucket = b
	if !now.Before(b.reset) {
		b.remaining = b.limit
		b.reset = now.Add(b.window).Truncate(time.Second)
	}
	if b.remaining <= 0 {
		b.remaining = 0
		s.rateHeadersLocked(c)
		c.errorf(http.StatusForbidden, "API rate limit exceeded for user ID 1.")
		return false
	}
	b.remaining--
	s.charged++
	s.rateHeadersLocked(c)
	return true
}

// handle registers a route whose handler runs with s.mu held; doc is the
// endpoint's documentation page, which its errors name.
func (s *Server) handle(pattern, doc string, fn func(c *call)) {
	s.mux.HandleFunc(pattern, func(_ http.ResponseWriter, r *http.Request) {
		c, _ := r.Context().Value(callKey{}).(*call)
		if c == nil {
			return
		}
		c.r = r
		c.doc = doc
		fn(c)
	})
}

// errorBody is an error as today's API sends it: the message, the page of
// the endpoint and the status as a string.
func errorBody(msg, doc string, status int) []byte {
	b, _ := json.Marshal(obj{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)})
	return b
}

// errorf answers a GitHub-shaped error.
func (c *call) errorf(code int, format string, args ...any) {
	doc := c.doc
	if doc == "" {
		doc = docsBase
	}
	c.writeJSON(code, obj{"message": fmt.Sprintf(format, args...), "documentation_url": doc, "status": strconv.Itoa(code)})
}

func (c *call) notFound() { c.errorf(http.StatusNotFound, "Not Found") }

// invalid answers 422 Validation Failed with one error, like GitHub.
func (c *call) invalid(resource, field, code, msg string) {
	e := obj{"resource": resource, "field": field, "code": code}
	if msg != "" {
		e["message"] = msg
	}
	doc := c.doc
	if doc == "" {
		doc = docsBase
	}
	c.writeJSON(http.StatusUnprocessableEntity, obj{
		"message":           "Validation Failed",
		"errors":            []any{e},
		"documentation_url": doc,
		"status":            "422",
	})
}

func (c *call) writeJSON(code int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		code = http.StatusInternalServerError
		buf.Reset()
		buf.Write(errorBody("encode answer: "+err.Error(), docsBase, code))
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if code == http.StatusOK && c.r.Method == http.MethodGet && c.conditional(buf.Bytes()) {
		return
	}
	c.w.WriteHeader(code)
	_, _ = c.w.Write(buf.Bytes())
}

// conditional answers a GET as GitHub does: a 200 carries an ETag (a hash
// of the answer: body, pagination links and the token, since an ETag
// obtained with another token is reported not to match, github/docs#34689),
// and a request whose If-None-Match holds that ETag gets 304 Not Modified
// without a body. "Making a conditional request does not count against
// your primary rate limit if a 304 response is returned and the request was
// made while correctly authorized with an Authorization header"
// (https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate):
// the call chargeLocked took back is given back, and not counted in
// Charged. It reports whether it answered 304.
func (c *call) conditional(body []byte) bool {
	h := sha256.New()
	h.Write(body)
	h.Write([]byte{0})
	h.Write([]byte(c.w.Header().Get("Link")))
	h.Write([]byte{0})
	h.Write([]byte(c.r.Header.Get("Authorization")))
	etag := `W/"` + hex.EncodeToString(h.Sum(nil)[:16]) + `"`
	c.w.Header().Set("ETag", etag)
	if !matchesETag(c.r.Header.Get("If-None-Match"), etag) {
		return false
	}
	if c.user != nil {
		c.bucket.remaining++
		c.s.charged--
		c.s.rateHeadersLocked(c)
	}
	c.w.Header().Del("Content-Type")
	c.w.WriteHeader(http.StatusNotModified)
	return true
}

// matchesETag reports whether an If-None-Match header names etag (weak
// comparison, as for GET).
func matchesETag(header, etag string) bool {
	weak := func(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "W/") }
	for _, v := range strings.Split(header, ",") {
		if v = strings.TrimSpace(v); v == "*" || (v != "" && weak(v) == weak(etag)) {
			return true
		}
	}
	return false
}

// decode reads a JSON request body; on failure it answers 400 like GitHub
// and returns false.
func (c *call) decode(v any) bool {
	data, err := io.ReadAll(c.r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			c.errorf(http.StatusRequestEntityTooLarge, "request body is too large")
			return false
		}
		c.errorf(http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := json.Unmarshal(data, v); err != nil {
		c.errorf(http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func (c *call) repo() *repo {
	rp := c.s.repoLocked(c.r.PathValue("o"), c.r.PathValue("r"), false)
	if rp == nil {
		c.notFound()
	}
	return rp
}

func (c *call) intParam(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.r.PathValue(name), 10, 64)
	if err != nil || n <= 0 {
		c.notFound()
		return 0, false
	}
	return n, true
}

// issue resolves {n} of the request to an existing issue or pull request.
func (c *call) issue(rp *repo) *issue {
	n, ok := c.intParam("n")
	if !ok {
		return nil
	}
	if n > 1<<31 {
		c.notFound()
		return nil
	}
	is := rp.issueLocked(int(n), false)
	if is == nil {
		c.notFound()
	}
	return is
}

// paginate picks the page a list of total items asks for, sets the Link
// header and returns the half-open index range.
func (c *call) paginate(total int) (int, int) {
	q := c.r.URL.Query()
	per := c.s.pageSize
	if v := q.Get("per_page"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			per = min(n, maxPerPage)
		}
	}
	page := 1
	if v := q.Get("page"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			page = n
		}
	}
	last := max(1, (total+per-1)/per)
	link := func(p int, rel string) string {
		q2 := c.r.URL.Query()
		q2.Set("page", strconv.Itoa(p))
		if q.Get("per_page") != "" {
			q2.Set("per_page", strconv.Itoa(per))
		}
		u := url.URL{Path: c.prefix + c.r.URL.Path, RawQuery: q2.Encode()}
		return fmt.Sprintf("<%s%s>; rel=%q", c.base, u.String(), rel)
	}
	var links []string
	if page > 1 {
		links = append(links, link(min(page-1, last), "prev"))
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		c.w.Header().Set("Link", strings.Join(links, ", "))
	}
	if page > last {
		return total, total
	}
	start := (page - 1) * per
	return start, min(total, start+per)
}

func (c *call) now() time.Time { return c.s.now().UTC().Truncate(time.Second) }

// login returns the authenticated user's login and type.
func (c *call) login() (string, string) {
	if c.user == nil {
		return "", ""
	}
	return c.user.login, c.user.userType
}
