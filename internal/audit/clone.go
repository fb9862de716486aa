package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5"

	"github.com/loopbreaker/loopbreaker/internal/checkout"
	"github.com/loopbreaker/loopbreaker/internal/github"
)

// RefPrefix is where fetched pull request heads are kept in the clone:
// refs/loopbreaker/pull/N.
const RefPrefix = "refs/loopbreaker/pull/"

// fetchBatch is how many pull request refs one fetch asks for.
const fetchBatch = 50

// Clone is a local clone of the audited repository: pull request heads are
// fetched with go-git and read through views, the work tree untouched. Not
// safe for concurrent use.
type Clone struct {
	dir   string // as given: the workspace
	clone *checkout.Clone
	url   string
	token string

	heads  map[int]string // pull request -> fetched head
	failed map[int]string // pull request -> why it could not be fetched
	broken string         // set when fetching cannot work at all
}

// OpenClone opens the clone that contains dir; pull request refs come from
// fetchURL ("": origin), with token sent to an http(s) URL only.
func OpenClone(dir, fetchURL, token string) (*Clone, error) {
	cl, err := checkout.Open(dir)
	if err != nil {
		return nil, err
	}
	fetchURL = cmp.Or(fetchURL, cl.Origin())
	c := &Clone{dir: dir, clone: cl, url: fetchURL, token: token, heads: map[int]string{}, failed: map[int]string{}}
	if fetchURL == "" {
		c.broken = "the clone has no origin remote and no fetch URL was given"
	}
	return c, nil
}

// Close removes the view directory; the fetched refs stay in the clone.
func (c *Clone) Close() error {
	if c == nil {
		return nil
	}
	return c.clone.Close()
}

// fetch makes the heads of pulls available, in batches, then one by one
// when a batch fails; the notes name those read from the API instead.
func (c *Clone) fetch(ctx context.Context, pulls []*github.Pull) []string {
	var notes []string
	var need []*github.Pull
	for _, p := range pulls {
		if _, done := c.heads[p.Number]; done {
			continue
		}
		if _, done := c.failed[p.Number]; done {
			continue
		}
		if c.clone.Has(p.HeadSHA) {
			if err := c.clone.SetRef(fmt.Sprintf("%s%d", RefPrefix, p.Number), p.HeadSHA); err != nil {
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
			err := c.fetchRefs(ctx, []*github.Pull{p})
			switch {
			case err == nil:
				c.collect([]*github.Pull{p}, &notes)
			case errors.Is(err, git.NoMatchingRefSpecError{}):
				c.failed[p.Number] = fmt.Sprintf("refs/pull/%d/head is not on the remote", p.Number)
			default:
				c.broken = "fetching from the remote failed: " + err.Error()
				c.failed[p.Number] = c.broken
				notes = append(notes, "git: "+c.broken+"; the remaining pull requests are read from the API")
			}
		}
	}
	return notes
}

func (c *Clone) fetchRefs(ctx context.Context, pulls []*github.Pull) error {
	specs := make([]string, 0, len(pulls))
	for _, p := range pulls {
		specs = append(specs, fmt.Sprintf("+refs/pull/%d/head:%s%d", p.Number, RefPrefix, p.Number))
	}
	err := c.clone.Fetch(ctx, c.url, c.token, specs, 0)
	if oerr := checkout.Own(c.dir, c.clone.GitDir()); oerr != nil && err == nil {
		err = oerr
	}
	return err
}

// collect records the fetched heads of pulls.
func (c *Clone) collect(pulls []*github.Pull, notes *[]string) {
	for _, p := range pulls {
		h, err := c.clone.Ref(fmt.Sprintf("%s%d", RefPrefix, p.Number))
		if err != nil {
			c.failed[p.Number] = "the fetched ref is missing: " + err.Error()
			continue
		}
		if p.HeadSHA != "" && h != p.HeadSHA {
			*notes = append(*notes, fmt.Sprintf("#%d: the head moved from %.12s to %.12s between listing and fetching; the fetched head is evaluated", p.Number, p.HeadSHA, h))
		}
		c.heads[p.Number] = h
	}
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

// viewAt returns a view whose HEAD is hash, which gitlog.Open reads like
// any repository.
func (c *Clone) viewAt(hash string) (string, error) { return c.clone.View(hash) }
