package github

import (
	"net/http"
	"testing"
)

// TestDefaultTimeouts: without an HTTP client of the caller's, a server
// that never answers cannot hold a run: each attempt waits at most
// DefaultHeaderTimeout for headers and a call at most DefaultTimeout.
func TestDefaultTimeouts(t *testing.T) {
	t.Parallel()
	c, err := New(Options{Owner: "octo", Repo: "loop"})
	if err != nil {
		t.Fatal(err)
	}
	for name, hc := range map[string]*http.Client{"api": c.noRedirect, "storage": c.storage} {
		if hc.Timeout != DefaultTimeout {
			t.Errorf("%s client: got timeout %s, want %s", name, hc.Timeout, DefaultTimeout)
		}
		tr, ok := hc.Transport.(*transport)
		if !ok {
			t.Fatalf("%s client: transport is %T", name, hc.Transport)
		}
		base, ok := tr.base.(*http.Transport)
		if !ok || base.ResponseHeaderTimeout != DefaultHeaderTimeout {
			t.Errorf("%s client: got base transport %T, want one with a %s header timeout", name, tr.base, DefaultHeaderTimeout)
		}
	}
	own := &http.Client{}
	c, err = New(Options{Owner: "octo", Repo: "loop", HTTPClient: own})
	if err != nil {
		t.Fatal(err)
	}
	if c.noRedirect.Timeout != 0 || c.noRedirect.Transport.(*transport).base != http.DefaultTransport {
		t.Errorf("a caller's client without a timeout got one")
	}
}
