package audit

import (
	"context"
	"errors"
	"fmt"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/loopbreaker/loopbreaker/internal/github"
)

// RefPrefix is where fetched pull request heads are kept in the clone:
// refs/loopbreaker/pull/N.
const RefPrefix = "refs/loopbreaker/pull/"

// fetchBatch is how many pull request refs one fetch asks for.
const fetchBatch = 50

var fullHash = lazyre.New(`^[0-9a-f]{40}$`)

// Clone is a local clone of the audited repository. Pull request heads
// (refs/pull/N/head, which GitHub keeps for forks too) are fetched into it
// with go-git, never the git binary, and each one is read through a view:
// a temporary git directory whose HEAD is the pull request's head and whose
// objects and refs are the clone's (git's linked-worktree layout), so the
// clone's own HEAD and work tree are never touched. A Clone is not safe for
// concurrent use.
type Clone struct {
	dir    string // as given
	common string // the git directory holding objects and refs
	repo   *git.Repository
	url    string
	auth   transport.AuthMethod
	view   string // the view's directory, made on first use

	heads  map[int]string // pull request -> fetched head
	failed map[int]string // pull request -> why it could not be fetched
	broken string         // set when fetching cannot work at all
}

// OpenClone opens the clone that contains dir. fetchURL is where pull
// request refs are fetched from ("" uses the clone's origin remote); token,
// when set, is sent as HTTP basic auth ("x-access-token") to an http(s)
// URL and never to anything else.
func OpenClone(dir, fetchURL, token string) (*Clone, error) {
	gitdir, common, err := gitDirs(dir)
	if err != nil {
		return nil, err
	}
	repo, err := git.PlainOpenWithOptions(gitdir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open clone %s: %w", dir, err)
	}
	if fetchURL == "" {
		if r, err := repo.Remote("origin"); err == nil && len(r.Config().URLs) > 0 {
			fetchURL = r.Config().URLs[0]
		}
	}
	c := &Clone{dir: dir, common: common, repo: repo, url: fetchURL, heads: map[int]string{}, failed: map[int]string{}}
	if fetchURL == "" {
		c.broken = "the clone has no origin remote and no fetch URL was given"
	}
	if u, err := url.Parse(fetchURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && token != "" {
		c.auth = &githttp.BasicAuth{Username: "x-access-token", Password: token}
	}
	return c, nil
}

// Close removes the view directory; the fetched refs stay in the clone.
func (c *Clone) Close() error {
	if c == nil || c.view == "" {
		return nil
	}
	err := os.RemoveAll(c.view)
	c.view = ""
	return err
}

// gitDirs finds the git directory of the repository containing dir and the
// common directory holding its objects and refs (they differ in a linked
// worktree).
func gitDirs(dir string) (gitdir, common string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", fmt.Errorf("clone %s: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("clone %s: not a directory", dir)
	}
	if isGitDir(abs) {
		gitdir = abs
	}
	for d := abs; gitdir == ""; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				gitdir = p
				break
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return "", "", fmt.Errorf("clone %s: %w", p, err)
			}
			line, _, _ := strings.Cut(string(data), "\n")
			g, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
			if !ok {
				return "", "", fmt.Errorf("clone %s: %s is not a gitdir file", dir, p)
			}
			g = strings.TrimSpace(g)
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			gitdir = g
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("clone %s: not a git repository", dir)
		}
		d = parent
	}
	common = gitdir
	if data, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		cd := strings.TrimSpace(string(data))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitdir, cd)
		}
		common = filepath.Clean(cd)
	}
	return gitdir, common, nil
}

// isGitDir reports a bare repository or a .git directory at dir.
func isGitDir(dir string) bool {
	for _, n := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// hasCommit reports whether the clone holds commit h.
func (c *Clone) hasCommit(h string) bool {
	if !fullHash().MatchString(h) {
		return false
	}
	_, err := c.repo.CommitObject(plumbing.NewHash(h))
	return err == nil
}

// fetch makes the heads of pulls available: a head already in the clone
// only gets its ref; the others are fetched in batches, then one by one when
// a batch fails. It returns notes on what could not be fetched; those pull
// requests are read from the API instead.
func (c *Clone) fetch(ctx context.Context, pulls []*github.AuditPull) []string {
	var notes []string
	var need []*github.AuditPull
	for _, p := range pulls {
		if _, done := c.heads[p.Number]; done {
			continue
		}
		if _, done := c.failed[p.Number]; done {
			continue
		}
		if c.hasCommit(p.HeadSHA) {
			if err := c.setRef(p.Number, p.HeadSHA); err != nil {
				c.failed[p.Number] = err.Error()
				continue
			}
			c.heads[p.Number] = p.HeadSHA
			continue
		}
		need = append(need, p)
	}
	for start := 0; start < len(need); start += fetchBatch {
		batch := need[start:min(len(need), start+fetchBatch)]
		if c.broken != "" {
			for _, p := range batch {
				c.failed[p.Number] = c.broken
			}
			continue
		}
		err := c.fetchRefs(ctx, batch)
		if err == nil {
			c.collect(batch, &notes)
			continue
		}
		if ctx.Err() != nil {
			for _, p := range batch {
				c.failed[p.Number] = ctx.Err().Error()
			}
			continue
		}
		// One ref may be missing (the pull request was closed meanwhile):
		// fetch one by one, and give up on fetching when the remote itself
		// fails.
		for _, p := range batch {
			if c.broken != "" {
				c.failed[p.Number] = c.broken
				continue
			}
			err := c.fetchRefs(ctx, []*github.AuditPull{p})
			switch {
			case err == nil:
				c.collect([]*github.AuditPull{p}, &notes)
			case errors.Is(err, git.NoMatchingRefSpecError{}):
				c.failed[p.Number] = fmt.Sprintf("refs/pull/%d/head is not on the remote", p.Number)
			default:
				c.broken = "fetching from the remote failed: " + redact(err.Error())
				c.failed[p.Number] = c.broken
				notes = append(notes, "git: "+c.broken+"; the remaining pull requests are read from the API")
			}
		}
	}
	return notes
}

func (c *Clone) fetchRefs(ctx context.Context, pulls []*github.AuditPull) error {
	specs := make([]config.RefSpec, 0, len(pulls))
	for _, p := range pulls {
		specs = append(specs, config.RefSpec(fmt.Sprintf("+refs/pull/%d/head:%s%d", p.Number, RefPrefix, p.Number)))
	}
	remote := git.NewRemote(c.repo.Storer, &config.RemoteConfig{Name: "loopbreaker-audit", URLs: []string{c.url}})
	err := remote.FetchContext(ctx, &git.FetchOptions{RemoteName: "loopbreaker-audit", RefSpecs: specs, Auth: c.auth, Tags: git.NoTags, Force: true})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return err
}

// collect records the fetched heads of pulls.
func (c *Clone) collect(pulls []*github.AuditPull, notes *[]string) {
	for _, p := range pulls {
		ref, err := c.repo.Reference(plumbing.ReferenceName(fmt.Sprintf("%s%d", RefPrefix, p.Number)), false)
		if err != nil {
			c.failed[p.Number] = "the fetched ref is missing: " + err.Error()
			continue
		}
		h := ref.Hash().String()
		if p.HeadSHA != "" && h != p.HeadSHA {
			*notes = append(*notes, fmt.Sprintf("#%d: the head moved from %.12s to %.12s between listing and fetching; the fetched head is evaluated", p.Number, p.HeadSHA, h))
		}
		c.heads[p.Number] = h
	}
}

func (c *Clone) setRef(number int, hash string) error {
	name := plumbing.ReferenceName(fmt.Sprintf("%s%d", RefPrefix, number))
	return c.repo.Storer.SetReference(plumbing.NewHashReference(name, plumbing.NewHash(hash)))
}

// head returns the fetched head of a pull request, or why there is none.
func (c *Clone) head(number int) (string, error) {
	if h, ok := c.heads[number]; ok {
		return h, nil
	}
	if why, ok := c.failed[number]; ok {
		return "", errors.New(why)
	}
	return "", fmt.Errorf("refs/pull/%d/head was not fetched", number)
}

// viewAt points the view's HEAD at hash and returns its directory, which
// gitlog.Open reads like any repository.
func (c *Clone) viewAt(hash string) (string, error) {
	if !fullHash().MatchString(hash) {
		return "", fmt.Errorf("view: %q is not a commit hash", hash)
	}
	if c.view == "" {
		dir, err := os.MkdirTemp("", "loopbreaker-view-")
		if err != nil {
			return "", fmt.Errorf("view: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "commondir"), []byte(c.common+"\n"), 0o600); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("view: %w", err)
		}
		c.view = dir
	}
	if err := os.WriteFile(filepath.Join(c.view, "HEAD"), []byte(hash+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("view: %w", err)
	}
	return c.view, nil
}

// redact removes credentials a transport error might echo from a URL.
func redact(s string) string {
	return userinfo().ReplaceAllString(s, "://")
}

var userinfo = lazyre.New(`://[^/@\s]+@`)
