// Package notifytest is a webhook for the tests of the alert: a local
// httptest server that answers with the statuses it is given, in turn, and
// keeps what it was sent.
package notifytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// Secret is the secret in SecretURL's path and query: it must never be
// logged or said in an error.
const Secret = "s3cr3t"

// Receiver is a local webhook.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	bodies   []string
	types    []string
}

// New starts a receiver, closed when the test ends, that answers its
// requests with statuses in turn, the last one from then on (200 when
// none is given).
func New(t testing.TB, statuses ...int) *Receiver {
	t.Helper()
	if len(statuses) == 0 {
		statuses = []int{http.StatusOK}
	}
	r := &Receiver{statuses: statuses}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, string(body))
		r.types = append(r.types, req.Header.Get("Content-Type"))
		st := r.statuses[min(len(r.bodies), len(r.statuses))-1]
		r.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(r.Close)
	return r
}

// SecretURL is the receiver's URL with Secret in its path and query, as
// chat webhooks have theirs.
func (r *Receiver) SecretURL() string {
	return r.URL + "/services/T0/B0/" + Secret + "?token=" + Secret
}

// Host is the receiver's host and port: what may be logged.
func (r *Receiver) Host() string {
	u, _ := url.Parse(r.URL)
	return u.Host
}

// Bodies are the bodies received, oldest first.
func (r *Receiver) Bodies() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies...)
}

// ContentTypes are the requests' Content-Type headers, oldest first.
func (r *Receiver) ContentTypes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.types...)
}
