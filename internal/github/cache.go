package github

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
)

// maxCachedBody bounds one answer kept for a conditional request; a larger
// one is read unconditionally every time.
const maxCachedBody = 4 << 20

// Answer is a GET answer kept for a conditional request: the ETag GitHub
// sent, the Link header (pagination) and the body. It is what a 304 Not
// Modified stands for.
type Answer struct {
	ETag string `json:"etag"`
	Link string `json:"link,omitempty"`
	Body string `json:"body"`
}

// Cache keeps GET answers by request so that the next run can ask with
// If-None-Match and reuse them on a 304, which is not charged. Used holds
// only the answers this run asked for, so a saved cache does not grow.
type Cache struct {
	mu      sync.Mutex
	answers map[string]Answer
	used    map[string]bool
}

// NewCache returns a cache holding a previous run's answers (nil: empty).
func NewCache(previous map[string]Answer) *Cache {
	c := &Cache{answers: map[string]Answer{}, used: map[string]bool{}}
	for k, a := range previous {
		if a.ETag != "" && len(a.Body) <= maxCachedBody {
			c.answers[k] = a
		}
	}
	return c
}

// Used returns the answers of the requests made since NewCache, by
// request.
func (c *Cache) Used() map[string]Answer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]Answer, len(c.used))
	for k := range c.used {
		if a, ok := c.answers[k]; ok {
			out[k] = a
		}
	}
	return out
}

func (c *Cache) get(key string) (Answer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.used[key] = true
	a, ok := c.answers[key]
	return a, ok
}

func (c *Cache) put(key string, a Answer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answers[key] = a
}

func (c *Cache) drop(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.answers, key)
}

// cacheKey names a request in the cache: its method, path below the API
// base and query (go-github encodes the query in a stable order).
func (c *Client) cacheKey(req *http.Request) string {
	k := c.callName(req, true)
	if req.URL.RawQuery != "" {
		k += "?" + req.URL.RawQuery
	}
	return k
}

// storedKey marks a context whose reads of one pull request are answered
// from the cache's held answers without a request (WithStored).
type storedKey struct{}

// WithStored returns ctx whose GETs about pull request number (commits,
// files, comments, events) take the Cache's answer without a request: for a
// pull request the caller knows is unchanged since then.
func WithStored(ctx context.Context, number int) context.Context {
	return context.WithValue(ctx, storedKey{}, number)
}

// stored reports whether the GET call (its name) may be answered from a
// held answer: it is about the pull request ctx names.
func (c *Client) stored(ctx context.Context, call string) bool {
	n, ok := ctx.Value(storedKey{}).(int)
	if !ok || n <= 0 {
		return false
	}
	_, p, _ := strings.Cut(call, " ")
	for _, of := range []string{"/pulls/%d/", "/issues/%d/"} {
		if strings.HasPrefix(p, c.path(of, n)) {
			return true
		}
	}
	return false
}

// answer is a held answer as a response to req, with status 200.
func (a *Answer) answer(req *http.Request, status string) *http.Response {
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	if a.Link != "" {
		h.Set("Link", a.Link)
	}
	return &http.Response{StatusCode: http.StatusOK, Status: status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(strings.NewReader(a.Body)), ContentLength: int64(len(a.Body)), Request: req}
}

// conditional returns the cache key of a GET ("" when the request is not
// cached) and the answer held for it, whose ETag each attempt sends as
// If-None-Match.
func (t *transport) conditional(req *http.Request) (string, *Answer) {
	cache := t.c.opts.Cache
	if cache == nil || !t.api || req.Method != http.MethodGet {
		return "", nil
	}
	key := t.c.cacheKey(req)
	if a, ok := cache.get(key); ok {
		return key, &a
	}
	return key, nil
}

// reuse turns an accepted answer into what the caller reads: a 304 becomes
// the stored answer with status 200, and a 200 with an ETag is stored.
func (t *transport) reuse(key string, held *Answer, resp *http.Response) (*http.Response, error) {
	if key == "" {
		return resp, nil
	}
	cache := t.c.opts.Cache
	switch {
	case resp.StatusCode == http.StatusNotModified && held != nil:
		discard(resp)
		t.c.notModified.Add(1)
		out := held.answer(resp.Request, "200 OK (not modified)")
		for k, v := range resp.Header {
			if k != "Link" && k != "Content-Length" {
				out.Header[k] = v
			}
		}
		return out, nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxCachedBody+1))
		if err != nil {
			_ = resp.Body.Close()
			return nil, err
		}
		if len(body) > maxCachedBody {
			// Too large to keep: hand it on whole, unkept.
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
			cache.drop(key)
			return resp, nil
		}
		_ = resp.Body.Close()
		cache.put(key, Answer{ETag: resp.Header.Get("ETag"), Link: resp.Header.Get("Link"), Body: string(body)})
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	cache.drop(key)
	return resp, nil
}
