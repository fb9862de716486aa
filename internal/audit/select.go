package audit

import (
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/github"
)

// Has reports whether pull request number belongs to the shard.
func (s Shard) Has(number int) bool {
	if s.Count <= 1 {
		return true
	}
	return ShardOf(number, s.Count) == s.Index
}

// String is "2 of 4" (one-based for people), "" for the whole repository.
func (s Shard) String() string {
	if s.Count <= 1 {
		return ""
	}
	return strconv.Itoa(s.Index+1) + " of " + strconv.Itoa(s.Count)
}

// ShardOf is the shard (0 to count-1) of pull request number: FNV-1a of
// its decimal digits modulo count, the same on every machine and in every
// run.
func ShardOf(number, count int) int {
	if count <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(strconv.Itoa(number)))
	return int(h.Sum32() % uint32(count))
}

// Match reports whether the filters select the pull request, and why not.
func (f *Filters) Match(p *github.Pull) (ok bool, reason string) {
	if !f.authorMatches(p.User) {
		return false, "author " + p.User + " is not an audited author"
	}
	for _, l := range f.OnlyLabels {
		if !hasLabel(p.Labels, l) {
			return false, "lacks label " + l + " (only-labels)"
		}
	}
	if len(f.AnyOfLabels) > 0 {
		found := false
		for _, l := range f.AnyOfLabels {
			if hasLabel(p.Labels, l) {
				found = true
				break
			}
		}
		if !found {
			return false, "has none of the any-of-labels"
		}
	}
	for _, l := range f.ExemptLabels {
		if hasLabel(p.Labels, l) {
			return false, "exempt label " + l
		}
	}
	if f.ExemptDraft && p.Draft {
		return false, "draft (exempt-draft)"
	}
	if !f.StartDate.IsZero() && p.CreatedAt.Before(f.StartDate) {
		return false, "created before start-date"
	}
	return true, ""
}

func (f *Filters) authorMatches(login string) bool {
	authors := f.Authors
	if len(authors) == 0 {
		authors = DefaultAuthors
	}
	return slices.ContainsFunc(authors, func(a string) bool {
		return a == "*" || strings.EqualFold(a, login) || strings.EqualFold(a+"[bot]", login)
	})
}

func hasLabel(labels []string, name string) bool {
	return slices.ContainsFunc(labels, func(l string) bool { return strings.EqualFold(l, name) })
}
