package github

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

const marker = "<!-- loopbreaker:sticky -->"

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestCommentsPaginate(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.SetPageSize(30)
	for i := range 250 {
		h.srv.AddComment(owner, repo, 1, "alice", "User", fmt.Sprintf("comment %d", i), t0.Add(time.Duration(i)*time.Minute))
	}
	ctx := context.Background()
	all, err := h.c.Comments(ctx, 1)
	if err != nil {
		t.Fatalf("Comments: %v", err)
	}
	if len(all) != 250 || all[0].Body != "comment 0" || all[249].Body != "comment 249" {
		t.Fatalf("got %d comments from %q to %q, want 250 from comment 0 to comment 249", len(all), all[0].Body, all[len(all)-1].Body)
	}
	want := Comment{ID: all[7].ID, Login: "alice", UserType: "User", Body: "comment 7", CreatedAt: t0.Add(7 * time.Minute), UpdatedAt: t0.Add(7 * time.Minute)}
	if diff := cmp.Diff(want, all[7]); diff != "" {
		t.Errorf("comment 7 (-want +got):\n%s", diff)
	}
	if got, want := h.c.Calls(), 3; got != want {
		t.Errorf("got %d calls for 250 comments, want %d", got, want)
	}
}

func TestFindComment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		seed     func(s *fakegithub.Server)
		edit     func(*Options)
		author   string // the pull request's author
		wantBody string // "" = none found
	}{
		{
			name: "none",
			seed: func(s *fakegithub.Server) {
				s.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", "no marker here", t0)
			},
		},
		{
			name: "newest bot comment wins",
			seed: func(s *fakegithub.Server) {
				s.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+" old", t0)
				s.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+" new", t0.Add(time.Hour))
			},
			wantBody: marker + " new",
		},
		{
			name: "a user's forged marker is ignored",
			seed: func(s *fakegithub.Server) {
				s.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+" real", t0)
				s.AddComment(owner, repo, 1, "mallory", "User", marker+" forged", t0.Add(time.Hour))
			},
			wantBody: marker + " real",
		},
		{
			name: "the token's own user counts",
			seed: func(s *fakegithub.Server) {
				s.AddToken("pat", "alice", "User")
				s.AddComment(owner, repo, 1, "alice", "User", marker+" mine", t0)
				s.AddComment(owner, repo, 1, "bob", "User", marker+" his", t0.Add(time.Hour))
			},
			edit:     func(o *Options) { o.Token = "pat" },
			wantBody: marker + " mine",
		},

		{
			name: "the pull request's author, a bot, is never the sticky's",
			seed: func(s *fakegithub.Server) {
				s.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+" ours", t0)
				s.AddComment(owner, repo, 1, "Copilot", "Bot", marker+" planted", t0.Add(time.Hour))
			},
			author:   "copilot",
			wantBody: marker + " ours",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := setup(t)
			tt.seed(h.srv)
			c := h.c
			if tt.edit != nil {
				c = h.again(t, tt.edit)
			}
			got, err := c.FindComment(context.Background(), 1, Sticky{Marker: marker, Author: tt.author})
			if err != nil {
				t.Fatalf("FindComment: %v", err)
			}
			gotBody := ""
			if got != nil {
				gotBody = got.Body
			}
			if gotBody != tt.wantBody {
				t.Errorf("got %q, want %q", gotBody, tt.wantBody)
			}
		})
	}
}

// TestFindCommentWorkflowTokenHasNoUser: GET /user refused (as for the
// workflow token) means only bots count, not an error.
func TestFindCommentUserLookupRefused(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.AddComment(owner, repo, 1, "alice", "User", marker, t0)
	h.srv.Inject("GET", "/user", fakegithub.Fault{Status: 404})
	got, err := h.c.FindComment(context.Background(), 1, Sticky{Marker: marker})
	if err != nil || got != nil {
		t.Errorf("got %v, %v, want nil, nil", got, err)
	}
}

func stickies(s *fakegithub.Server) []fakegithub.Comment {
	var out []fakegithub.Comment
	for _, cm := range s.Comments(owner, repo, 1) {
		if strings.Contains(cm.Body, marker) {
			out = append(out, cm)
		}
	}
	return out
}

// TestUpsertCommentStickyAcrossRuns: five runs, each with a fresh client,
// some knowing the id from the previous record and some not; the fake ends
// with exactly one sticky comment holding the last body.
func TestUpsertCommentStickyAcrossRuns(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.AddComment(owner, repo, 1, "alice", "User", "please keep going", t0)
	var id int64
	for run := 1; run <= 5; run++ {
		c := h.again(t)
		known := id
		if run%2 == 0 {
			known = 0 // the previous record was lost
		}
		body := fmt.Sprintf("%s\nrun %d: CLOSED", marker, run)
		got, err := c.UpsertComment(context.Background(), 1, known, Sticky{Marker: marker}, body)
		if err != nil {
			t.Fatalf("run %d: UpsertComment: %v", run, err)
		}
		if id != 0 && got != id {
			t.Errorf("run %d: got id %d, want the same comment %d", run, got, id)
		}
		id = got
		wantCalls := 2 // list comments, then PATCH or POST
		if known != 0 {
			wantCalls = 1
		}
		if c.Calls() != wantCalls {
			t.Errorf("run %d: got %d calls, want %d", run, c.Calls(), wantCalls)
		}
	}
	got := stickies(h.srv)
	if len(got) != 1 {
		t.Fatalf("got %d sticky comments, want 1", len(got))
	}
	if want := marker + "\nrun 5: CLOSED"; got[0].Body != want || got[0].ID != id {
		t.Errorf("got comment %d %q, want %d %q", got[0].ID, got[0].Body, id, want)
	}
	if n := len(h.srv.Comments(owner, repo, 1)); n != 2 {
		t.Errorf("got %d comments in all, want 2", n)
	}
}

func TestUpsertCommentKnownIDGone(t *testing.T) {
	t.Parallel()
	h := setup(t)
	id := h.srv.AddComment(owner, repo, 1, "github-actions[bot]", "Bot", marker+" v1", t0)
	got, err := h.c.UpsertComment(context.Background(), 1, id+1000, Sticky{Marker: marker}, "v2")
	if err != nil {
		t.Fatalf("UpsertComment: %v", err)
	}
	if got != id {
		t.Errorf("got id %d, want %d (found by marker)", got, id)
	}
	if s := stickies(h.srv); len(s) != 1 || s[0].Body != marker+"\nv2" {
		t.Errorf("got %+v, want one comment %q", s, marker+"\nv2")
	}
	if got, want := h.c.Calls(), 3; got != want {
		t.Errorf("got %d calls, want %d (PATCH 404, list, PATCH)", got, want)
	}
}

func TestUpsertCommentRefusesTooLong(t *testing.T) {
	t.Parallel()
	h := setup(t)
	body := strings.Repeat("é", MaxCommentLength-len(marker)) + "\n" + marker
	if _, err := h.c.UpsertComment(context.Background(), 1, 0, Sticky{Marker: marker}, body); err == nil || !strings.Contains(err.Error(), "#1") {
		t.Fatalf("a body of %d characters: got %v, want a refusal naming the pull request", utf8.RuneCountInString(body), err)
	}
	if n := h.c.Calls(); n != 0 {
		t.Errorf("the refused comment made %d calls, want 0", n)
	}
	if s := stickies(h.srv); len(s) != 0 {
		t.Errorf("got %d sticky comments, want none", len(s))
	}
}

func TestFitComment(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", MaxCommentLength+5)
	tests := []struct {
		name, body string
		want       string // "" when refused
	}{
		{name: "marker added", body: "hello", want: marker + "\nhello"},
		{name: "marker kept", body: "a " + marker + " b", want: "a " + marker + " b"},
		{name: "exact limit untouched", body: marker + strings.Repeat("y", MaxCommentLength-len(marker)), want: marker + strings.Repeat("y", MaxCommentLength-len(marker))},
		{name: "multibyte at the limit", body: marker + strings.Repeat("日", MaxCommentLength-len(marker)), want: marker + strings.Repeat("日", MaxCommentLength-len(marker))},
		{name: "the added marker passes the limit", body: strings.Repeat("y", MaxCommentLength-len(marker))},
		{name: "long, marker first", body: marker + long},
		{name: "long multibyte", body: strings.Repeat("日本", MaxCommentLength)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := fitComment(3, marker, tt.body)
			if tt.want == "" {
				if err == nil || !strings.Contains(err.Error(), "65536") {
					t.Errorf("got %d characters and %v, want a refusal naming the limit", utf8.RuneCountInString(got), err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %.40q… (%v), want %.40q…", got, err, tt.want)
			}
		})
	}
}

func TestPermission(t *testing.T) {
	t.Parallel()
	h := setup(t)
	for _, p := range []string{"admin", "maintain", "write", "triage", "read"} {
		h.srv.SetPermission(owner, repo, "user-"+p, p)
	}
	for _, login := range []string{"user-admin", "user-maintain", "user-write", "user-triage", "user-read", "stranger"} {
		want := strings.TrimPrefix(login, "user-")
		if login == "stranger" {
			want = "none"
		}
		got, err := h.c.Permission(context.Background(), login)
		if err != nil {
			t.Fatalf("Permission(%s): %v", login, err)
		}
		if got != want {
			t.Errorf("Permission(%s): got %q, want %q", login, got, want)
		}
	}
	if _, err := h.c.Permission(context.Background(), "../admin"); err == nil {
		t.Errorf("Permission(../admin): got no error, want one")
	}
}

// TestUpsertCommentCreateNotResentBlindly: a create answered 502 is not
// resent at once; the client searches first and, finding nothing (the fake
// stored nothing), creates once more.
func TestUpsertCommentCreateNotResentBlindly(t *testing.T) {
	t.Parallel()
	h := setup(t)
	h.srv.Inject("POST", "/repos/acme/widget/issues/1/comments", fakegithub.Fault{Status: 502, Times: 1})
	id, err := h.c.UpsertComment(context.Background(), 1, 0, Sticky{Marker: marker}, "v1")
	if err != nil {
		t.Fatalf("UpsertComment: %v", err)
	}
	if s := stickies(h.srv); len(s) != 1 || s[0].ID != id {
		t.Errorf("got %+v, want one comment with id %d", s, id)
	}
	// list, POST 502, list, POST
	if got := h.c.Calls(); got != 4 {
		t.Errorf("got %d calls, want 4", got)
	}
	if s := h.sl.got(); len(s) != 0 {
		t.Errorf("got waits %v, want none", s)
	}
}

// TestUpsertCommentCreatedDespite502: GitHub stored the comment but the
// answer was lost; the follow-up search finds and edits it.
func TestUpsertCommentCreatedDespite502(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New()
	t.Cleanup(srv.Close)
	srv.AddPull(owner, repo, fakegithub.Pull{Number: 1})
	first := true
	var mu sync.Mutex
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lose := first && r.Method == http.MethodPost
		if lose {
			first = false
		}
		mu.Unlock()
		if lose {
			srv.Handler().ServeHTTP(httptest.NewRecorder(), r)
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c, _ := newClient(t, front.URL)
	id, err := c.UpsertComment(context.Background(), 1, 0, Sticky{Marker: marker}, "v1")
	if err != nil {
		t.Fatalf("UpsertComment: %v", err)
	}
	s := stickies(srv)
	if len(s) != 1 || s[0].ID != id || s[0].Body != marker+"\nv1" {
		t.Errorf("got %+v, want exactly one comment %d", s, id)
	}
}
