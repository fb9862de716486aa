package github

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

const (
	owner = "acme"
	repo  = "widget"
	head  = "0123456789abcdef0123456789abcdef01234567"
)

// sleeps records the waits a Client asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// harness is a fake GitHub with a Client on it.
type harness struct {
	srv *fakegithub.Server
	c   *Client
	sl  *sleeps
}

// setup starts a fake holding pull request #1 of acme/widget and a Client
// on it; edit changes the options before New.
func setup(t *testing.T, edit ...func(*Options)) *harness {
	t.Helper()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	srv.AddPull(owner, repo, fakegithub.Pull{Number: 1, Title: "loop", HeadSHA: head, HeadRef: "agent", BaseRef: "main"})
	c, sl := newClient(t, srv.URL, edit...)
	return &harness{srv: srv, c: c, sl: sl}
}

// newClient returns a Client on base whose waits are recorded.
func newClient(t *testing.T, base string, edit ...func(*Options)) (*Client, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	o := Options{Token: fakegithub.DefaultToken, BaseURL: base, Owner: owner, Repo: repo, Sleep: sl.sleep}
	for _, e := range edit {
		e(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, sl
}

// again returns a fresh Client on the same fake, as the next run would
// make.
func (h *harness) again(t *testing.T, edit ...func(*Options)) *Client {
	t.Helper()
	c, _ := newClient(t, h.srv.URL, edit...)
	return c
}

func dryRun(o *Options) { o.DryRun = true }
