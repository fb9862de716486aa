package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v60/github"
)

// MaxFileBytes bounds the files FileAt reads.
const MaxFileBytes = 1 << 20

// FileAt returns the file at path on ref ("" for the default branch); the
// policy is read so from the base branch. A missing file wraps ErrNotFound.
func (c *Client) FileAt(ctx context.Context, ref, path string) ([]byte, error) {
	if err := validRepoPath(path); err != nil {
		return nil, fmt.Errorf("file at %s: %w", ref, err)
	}
	call := "GET " + c.path("/contents/%s", path)
	fc, dir, _, err := c.gh.Repositories.GetContents(ctx, c.owner, c.repo, path, &gh.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, c.fail(call, err)
	}
	switch {
	case fc == nil && dir != nil:
		return nil, fmt.Errorf("%s (ref %q): is a directory, not a file", call, ref)
	case fc == nil:
		return nil, fmt.Errorf("%s (ref %q): no content in the answer", call, ref)
	case fc.GetType() != "" && fc.GetType() != "file":
		return nil, fmt.Errorf("%s (ref %q): is a %s, not a file", call, ref, bounded(fc.GetType(), 20))
	case fc.GetSize() > MaxFileBytes:
		return nil, fmt.Errorf("%s (ref %q): %d bytes, larger than the %d allowed", call, ref, fc.GetSize(), MaxFileBytes)
	case fc.GetEncoding() == "none":
		return nil, fmt.Errorf("%s (ref %q): GitHub sent no content (file too large)", call, ref)
	}
	text, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("%s (ref %q): %w", call, ref, err)
	}
	if len(text) > MaxFileBytes {
		return nil, fmt.Errorf("%s (ref %q): %d bytes, larger than the %d allowed", call, ref, len(text), MaxFileBytes)
	}
	return []byte(text), nil
}

// validRepoPath accepts a relative slash-separated path inside the
// repository.
func validRepoPath(p string) error {
	if p == "" {
		return fmt.Errorf("path is empty")
	}
	if len(p) > 4096 || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00?#") {
		return fmt.Errorf("path %q is not a relative repository path", bounded(p, 100))
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("path %q is not a clean relative repository path", bounded(p, 100))
		}
	}
	return nil
}
