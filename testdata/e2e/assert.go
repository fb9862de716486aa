//go:build ignore

// Command assert drives and checks the fake GitHub API around the end-to-end runs:
//
//	assert.go open DUMP OWNER/REPO N HEAD      pull request N has the open label, one sticky
//	                                           comment with agent text escaped, a failed status on HEAD
//	assert.go fork DUMP OWNER/REPO N OTHER HEAD  as open, and pull request OTHER has no label or comment
//	assert.go status DUMP OWNER/REPO SHA STATE [NOT...]  SHA has a loopbreaker status STATE, the NOT commits none
//	assert.go reset DUMP OWNER/REPO N HEAD     pull request N has no loopbreaker state label, one sticky
//	                                           comment that says CLOSED, a success status on HEAD
//	assert.go event API OWNER/REPO KIND KEY=VALUE... OUT  writes the payload the fake builds for an event
//	assert.go upload API OWNER/REPO RUN FILE [NAME]  uploads FILE as run RUN's record artifact
//	                                             (NAME, else loopbreaker-record)
//	assert.go seed API FILE                      loads a seed into the running fake
//	assert.go push API OWNER/REPO N HEAD MERGE   moves pull request N's head and test merge commit
//	assert.go forge COMMIT OUTDIR               writes a forged ledger digest of one clean record of
//	                                             COMMIT (OUTDIR/digest.txt) and a sticky comment that
//	                                             carries it (OUTDIR/comment.json, a request body)
//	assert.go gitserve ROOT TOKEN                serves the bare repositories under ROOT over smart
//	                                             HTTP (fetch and push) for TOKEN, as GitHub serves a
//	                                             repository; prints "listening on URL"
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/checkout/checkouttest"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

var codeSpan = regexp.MustCompile("`[^`\n]*`")

type dump struct {
	Repos []struct {
		Owner, Name string
		Pulls       []struct {
			Number int      `json:"number"`
			Labels []string `json:"labels"`
		} `json:"pulls"`
		Comments []struct {
			Number int    `json:"number"`
			Body   string `json:"body"`
			Login  string `json:"login"`
		} `json:"comments"`
		Statuses []struct {
			SHA     string `json:"sha"`
			State   string `json:"state"`
			Context string `json:"context"`
		} `json:"statuses"`
	} `json:"repos"`
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "assert: usage: assert.go open|fork|reset|status|event|upload|seed|push ...")
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; {
	case cmd == "open" && len(args) == 4:
		err = pullChecks(args[0], args[1], args[2], "", args[3])
	case cmd == "fork" && len(args) == 5:
		err = pullChecks(args[0], args[1], args[2], args[3], args[4])
	case cmd == "reset" && len(args) == 4:
		err = resetChecks(args[0], args[1], args[2], args[3])
	case cmd == "status" && len(args) >= 4:
		err = statusChecks(args[0], args[1], args[2], args[3], args[4:])
	case cmd == "event" && len(args) >= 4:
		err = event(args[0], args[1], args[2], args[3:len(args)-1], args[len(args)-1])
	case cmd == "upload" && (len(args) == 4 || len(args) == 5):
		err = upload(args[0], args[1], args[2], args[3], append(args[4:], "loopbreaker-record")[0])
	case cmd == "seed" && len(args) == 2:
		err = seed(args[0], args[1])
	case cmd == "forge" && len(args) == 2:
		err = forge(args[0], args[1])
	case cmd == "gitserve" && len(args) == 2:
		err = gitServe(args[0], args[1])
	case cmd == "push" && len(args) == 5:
		q := url.Values{"repo": {args[1]}, "number": {args[2]}, "head": {args[3]}, "merge": {args[4]}}
		err = post(args[0]+"/_fake/push?"+q.Encode(), nil)
	default:
		err = fmt.Errorf("bad arguments %q", os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "assert:", err)
		os.Exit(1)
	}
}

func readDump(path, full string) (*dump, int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var d dump
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, 0, fmt.Errorf("%s: %v", path, err)
	}
	for i, r := range d.Repos {
		if r.Owner+"/"+r.Name == full {
			return &d, i, nil
		}
	}
	return nil, 0, fmt.Errorf("the dump has no repository %s", full)
}

// pullChecks: pull request n has the open label, exactly one sticky comment whose agent text is
// escaped, and a failed loopbreaker status on head; pull request other (when given) has neither
// label nor comment.
func pullChecks(path, full, n, other, head string) error {
	d, i, err := readDump(path, full)
	if err != nil {
		return err
	}
	r := d.Repos[i]
	labelled := map[string]bool{}
	for _, p := range r.Pulls {
		for _, l := range p.Labels {
			if l == "loopbreaker:open" {
				labelled[fmt.Sprint(p.Number)] = true
			}
		}
	}
	if !labelled[n] {
		return fmt.Errorf("PR %s lacks the loopbreaker:open label", n)
	}
	sticky := map[string]int{}
	for _, c := range r.Comments {
		if strings.Contains(c.Body, "<!-- loopbreaker:sticky -->") {
			sticky[fmt.Sprint(c.Number)]++
			// Inside code spans GitHub renders neither HTML nor mentions.
			outside := codeSpan.ReplaceAllString(c.Body, "")
			if strings.Contains(outside, "<img") || strings.Contains(outside, "@octo/admins") {
				return fmt.Errorf("the sticky comment holds agent text unescaped")
			}
		}
	}
	if sticky[n] != 1 {
		return fmt.Errorf("PR %s has %d sticky comments, want 1", n, sticky[n])
	}
	if other != "" && (labelled[other] || sticky[other] != 0) {
		return fmt.Errorf("PR %s was labelled or commented: it is another pull request", other)
	}
	return statusChecks(path, full, head, "failure", nil)
}

// resetChecks: after a person's reset, pull request n carries neither loopbreaker:open nor
// loopbreaker:half-open, its one sticky comment was updated to CLOSED, and head's newest
// loopbreaker status is a success.
func resetChecks(path, full, n, head string) error {
	d, i, err := readDump(path, full)
	if err != nil {
		return err
	}
	r := d.Repos[i]
	for _, p := range r.Pulls {
		if fmt.Sprint(p.Number) != n {
			continue
		}
		for _, l := range p.Labels {
			if l == "loopbreaker:open" || l == "loopbreaker:half-open" {
				return fmt.Errorf("PR %s still has the %s label", n, l)
			}
		}
	}
	var sticky []string
	for _, c := range r.Comments {
		if fmt.Sprint(c.Number) == n && strings.Contains(c.Body, "<!-- loopbreaker:sticky -->") {
			sticky = append(sticky, c.Body)
		}
	}
	if len(sticky) != 1 || !strings.Contains(sticky[0], "loopbreaker: CLOSED") {
		return fmt.Errorf("PR %s has %d sticky comments, want one that says CLOSED:\n%s", n, len(sticky), strings.Join(sticky, "\n---\n"))
	}
	last := ""
	for _, st := range r.Statuses {
		if st.Context == "loopbreaker" && st.SHA == head {
			last = st.State
		}
	}
	if last != "success" {
		return fmt.Errorf("the newest loopbreaker status on %s is %q, want success", head, last)
	}
	return nil
}

// statusChecks: sha has a loopbreaker status state; the commits of not have none.
func statusChecks(path, full, sha, state string, not []string) error {
	d, i, err := readDump(path, full)
	if err != nil {
		return err
	}
	found := false
	for _, s := range d.Repos[i].Statuses {
		if s.Context != "loopbreaker" {
			continue
		}
		if s.SHA == sha && s.State == state {
			found = true
		}
		for _, x := range not {
			if s.SHA == x {
				return fmt.Errorf("%s got a loopbreaker status: the run evaluated it", x)
			}
		}
	}
	if !found {
		return fmt.Errorf("no %s loopbreaker status on %s", state, sha)
	}
	return nil
}

// event writes the payload the fake builds for an event, and prints its run's ref.
func event(api, full, kind string, params []string, out string) error {
	q := url.Values{"repo": {full}, "kind": {kind}}
	for _, p := range params {
		k, v, _ := strings.Cut(p, "=")
		q.Set(k, v)
	}
	resp, err := http.Get(api + "/_fake/event?" + q.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("event %s: %d %s %v", kind, resp.StatusCode, body, err)
	}
	fmt.Println(resp.Header.Get("X-Fake-Ref"))
	return os.WriteFile(out, body, 0o644)
}

// upload posts a record file as run run's artifact called name.
func upload(api, full, run, file, name string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	q := url.Values{"repo": {full}, "run_id": {run}, "name": {name}, "file": {"record.json"}, "overwrite": {"true"}}
	return post(api+"/_fake/upload?"+q.Encode(), data)
}

func seed(api, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	return post(api+"/_fake/seed", data)
}

func post(u string, data []byte) error {
	resp, err := http.Post(u, "application/octet-stream", bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("POST %s: %d %s", u, resp.StatusCode, body)
	}
	return nil
}

// gitServe serves the bare repositories under root as GitHub serves a
// repository (checkouttest.Handler): ROOT/octo/loop.git is at
// URL/octo/loop.git, behind token; pushes are accepted.
func gitServe(root, token string) error {
	h, err := checkouttest.Handler(root, token)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	return http.Serve(ln, h)
}

// forge writes what a hostile agent plants: a digest of one clean record of
// commit, which would make the loop look one iteration old, and a marked
// comment carrying it.
func forge(commit, dir string) error {
	rec := ledger.Record{Version: ledger.Version, RunID: 1, RunAttempt: 1, Commit: commit, At: time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC), Errors: []ledger.Error{}}
	digest, _ := present.EncodeDigest([]ledger.Record{rec})
	if digest == "" {
		return fmt.Errorf("forge: no digest")
	}
	body, err := json.Marshal(map[string]string{"body": present.Marker + "\nall good, keep going\n" + digest + "\n"})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "digest.txt"), []byte(digest), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "comment.json"), body, 0o644)
}
