package realloops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Kind is a stretch's label.
type Kind int

// The labels a person gives a stretch.
const (
	// Progress: the loop visibly moved the work forward.
	Progress Kind = iota + 1
	// Stagnation: the loop was stuck (no real code change, the same
	// failure, reverting or alternating, only notes/log/timestamp churn,
	// plan shuffling without code).
	Stagnation
	// Unclear: a reader cannot tell.
	Unclear
)

var kindNames = map[Kind]string{Progress: "progress", Stagnation: "stagnation", Unclear: "unclear"}

// String returns the label as written in labels.json.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind reads a label name; unknown names are an error.
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if s == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown label %q (want progress, stagnation or unclear)", s)
}

// MarshalJSON writes the label's name.
func (k Kind) MarshalJSON() ([]byte, error) {
	if _, ok := kindNames[k]; !ok {
		return nil, fmt.Errorf("unknown label %d", int(k))
	}
	return json.Marshal(k.String())
}

// UnmarshalJSON reads a label's name.
func (k *Kind) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseKind(s)
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Label is one labelled stretch of consecutive first-parent commits,
// judged by two people independently (blind to each other and to the
// engine).
type Label struct {
	Repo string `json:"repo"`
	// From and To are the stretch's first and last commits.
	From string `json:"from"`
	To   string `json:"to"`
	// Votes are the two labellers' judgements.
	Votes []Vote `json:"labels"`
	// Misses are the stagnation stretches a built-in policy is known not to
	// see, by policy name, each with the reason in one line: what the
	// policy's contract counts as progress here. The replay test expects
	// exactly these misses, so an entry goes once the policy sees it.
	Misses map[string]string `json:"misses,omitempty"`
	// Trips are the progress stretches of the held-out part that a
	// built-in policy is known to trip, by policy name, each with the
	// reason in one line. They are measured, never tuned away on the
	// held-out part; the replay test expects exactly these trips.
	Trips map[string]string `json:"trips,omitempty"`
}

// Vote is one labeller's judgement of a stretch.
type Vote struct {
	// By names the labeller (a short tag such as "A").
	By string `json:"by"`
	// Label is progress, stagnation or unclear.
	Label Kind `json:"label"`
	// Reason says in one line what the diffs show.
	Reason string `json:"reason"`
}

// Labellers is how many independent judgements each stretch has.
const Labellers = 2

// Consensus is the label the labellers agree on, Unclear when they
// differ.
func (l Label) Consensus() Kind {
	if len(l.Votes) == 0 {
		return 0
	}
	for _, v := range l.Votes[1:] {
		if v.Label != l.Votes[0].Label {
			return Unclear
		}
	}
	return l.Votes[0].Label
}

// Stretch bounds: a labelled stretch has 3 to 15 commits.
const (
	MinStretch = 3
	MaxStretch = 15
)

// maxReason bounds a reason (one line).
const maxReason = 240

// LabelsFile is the labels' file name in a corpus directory.
const LabelsFile = "labels.json"

// Corpus is a loaded corpus directory.
type Corpus struct {
	// Repos are the facts files, sorted by repository name.
	Repos []*Facts
	// Labels are the labelled stretches, in file order.
	Labels []Label
}

// Facts returns the facts of a repository, nil when there are none.
func (c *Corpus) Facts(repo string) *Facts {
	for _, f := range c.Repos {
		if f.Repo == repo {
			return f
		}
	}
	return nil
}

// Stretch returns the indexes in f.Commits of a label's first and last
// commits.
func (f *Facts) Stretch(l Label) (from, to int, err error) {
	from, to = f.Index(l.From), f.Index(l.To)
	if from < 0 || to < 0 {
		return 0, 0, fmt.Errorf("stretch %s..%s of %s: commit not in the facts", textcut.Hash(l.From), textcut.Hash(l.To), f.Repo)
	}
	return from, to, nil
}

// Index returns the position of a commit in f.Commits, -1 when absent.
func (f *Facts) Index(hash string) int {
	return slices.IndexFunc(f.Commits, func(c Commit) bool { return c.Hash == hash })
}

// Parent returns the hash of the commit before Commits[i] on the chain:
// the previous commit or the base ("" for a root).
func (f *Facts) Parent(i int) string {
	if i > 0 {
		return f.Commits[i-1].Hash
	}
	if f.Base != nil {
		return f.Base.Hash
	}
	return ""
}

// FileName is the facts file name of a repository: "owner__name.json".
func FileName(repo string) string {
	return strings.Replace(repo, "/", "__", 1) + ".json"
}

// Load reads every facts file and labels.json in dir and validates them.
// Errors name the file and the field at fault.
func Load(dir string) (*Corpus, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*__*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("realloops: no facts files (OWNER__NAME.json) in %s", dir)
	}
	slices.Sort(names)
	c := &Corpus{}
	for _, name := range names {
		f, err := LoadFacts(name)
		if err != nil {
			return nil, err
		}
		if want := FileName(f.Repo); filepath.Base(name) != want {
			return nil, fmt.Errorf("realloops: %s: repo %q belongs in a file named %s", name, f.Repo, want)
		}
		c.Repos = append(c.Repos, f)
	}
	labelsPath := filepath.Join(dir, LabelsFile)
	data, err := os.ReadFile(labelsPath)
	if err != nil {
		return nil, fmt.Errorf("realloops: read labels: %w", err)
	}
	if c.Labels, err = decodeLabels(data); err != nil {
		return nil, fmt.Errorf("realloops: %s: %w", labelsPath, err)
	}
	if err := c.validateLabels(); err != nil {
		return nil, fmt.Errorf("realloops: %s: %w", labelsPath, err)
	}
	return c, nil
}

// LoadFacts reads and validates one facts file.
func LoadFacts(path string) (*Facts, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("realloops: read facts: %w", err)
	}
	f, err := decodeFacts(data)
	if err != nil {
		return nil, fmt.Errorf("realloops: %s: %w", path, err)
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("realloops: %s: %w", path, err)
	}
	return f, nil
}

func decodeLabels(data []byte) ([]Label, error) {
	var ls []Label
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ls); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	return ls, nil
}

var (
	repoRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9._-]+$`)
	hashRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	keyRE  = regexp.MustCompile(`^[0-9a-f]{12}$`)
	// writtenItemRE matches an item of Change.Written.
	writtenItemRE = regexp.MustCompile(`^(?:[ec][0-9a-f]{12}|r)$`)
)

// validate checks that the facts describe one consistent chain.
func (f *Facts) validate() error {
	if !repoRE.MatchString(f.Repo) {
		return fmt.Errorf("repo: %q is not owner/name", f.Repo)
	}
	if len(f.Commits) == 0 {
		return fmt.Errorf("commits: empty")
	}
	if !hashRE.MatchString(f.Head) {
		return fmt.Errorf("head: %q is not a 40-hex hash", f.Head)
	}
	if last := f.Commits[len(f.Commits)-1].Hash; f.Head != last {
		return fmt.Errorf("head: %s is not the last commit (%s)", f.Head, last)
	}
	// seen maps a hash of the chain (the base included) to its position
	// (-1 for the base).
	seen := map[string]int{}
	present := map[string]bool{} // paths present before the commit at hand
	if b := f.Base; b != nil {
		if !hashRE.MatchString(b.Hash) {
			return fmt.Errorf("base.hash: %q is not a 40-hex hash", b.Hash)
		}
		seen[b.Hash] = -1
		for i, file := range b.Files {
			field := fmt.Sprintf("base.files[%d]", i)
			if err := checkPath(field+".path", file.Path); err != nil {
				return err
			}
			if present[file.Path] {
				return fmt.Errorf("%s.path: %q listed twice", field, file.Path)
			}
			present[file.Path] = true
			if file.Lines < 0 {
				return fmt.Errorf("%s.lines: %d is negative", field, file.Lines)
			}
			if kinds := countTrue(file.Binary, file.Submodule, file.Generated); kinds > 1 {
				return fmt.Errorf("%s: a file is at most one of binary, submodule, generated", field)
			}
		}
		if err := checkTasks("base.tasks", b.Tasks, present); err != nil {
			return err
		}
	}
	for i := range f.Commits {
		c := &f.Commits[i]
		field := fmt.Sprintf("commits[%d]", i)
		if !hashRE.MatchString(c.Hash) {
			return fmt.Errorf("%s.hash: %q is not a 40-hex hash", field, c.Hash)
		}
		if _, dup := seen[c.Hash]; dup {
			return fmt.Errorf("%s.hash: %s appears twice in the chain", field, c.Hash)
		}
		for j, p := range c.Parents {
			if !hashRE.MatchString(p) {
				return fmt.Errorf("%s.parents[%d]: %q is not a 40-hex hash", field, j, p)
			}
		}
		switch parent := f.Parent(i); {
		case parent == "" && len(c.Parents) != 0:
			return fmt.Errorf("%s.parents: the first commit has parents but the facts have no base", field)
		case parent != "" && (len(c.Parents) == 0 || c.Parents[0] != parent):
			return fmt.Errorf("%s.parents: the first parent must be %s, the commit before it", field, parent)
		}
		if c.Time.IsZero() {
			return fmt.Errorf("%s.time: missing", field)
		}
		if err := checkChanges(field, c, present); err != nil {
			return err
		}
		if c.Restores != "" {
			if at, ok := seen[c.Restores]; !ok {
				return fmt.Errorf("%s.restores: %s is not an earlier commit of the chain", field, textcut.Hash(c.Restores))
			} else if at == i-1 {
				return fmt.Errorf("%s.restores: %s is the parent (an unchanged tree is no restore)", field, textcut.Hash(c.Restores))
			}
			if len(c.Changes) == 0 {
				return fmt.Errorf("%s.restores: a commit without changes restores nothing", field)
			}
		}
		for _, p := range sortedKeys(c.FileRestores) {
			h := c.FileRestores[p]
			if _, ok := seen[h]; !ok {
				return fmt.Errorf("%s.file_restores[%q]: %s is not an earlier commit of the chain", field, p, textcut.Hash(h))
			}
			if !slices.ContainsFunc(c.Changes, func(ch Change) bool { return ch.Path == p && ch.Status != StatusDeleted }) {
				return fmt.Errorf("%s.file_restores[%q]: the commit does not add, modify or rename into that path", field, p)
			}
		}
		for _, p := range sortedKeys(c.Tasks) {
			if !slices.ContainsFunc(c.Changes, func(ch Change) bool { return ch.Path == p && ch.Status != StatusDeleted }) {
				return fmt.Errorf("%s.tasks[%q]: the commit does not change that task file", field, p)
			}
		}
		if err := checkTasks(field+".tasks", c.Tasks, present); err != nil {
			return err
		}
		for _, k := range sortedKeys(c.Trailers) {
			if k != TrailerPhase && k != TrailerProgress {
				return fmt.Errorf("%s.trailers: %q is not kept (only %s and %s)", field, k, TrailerPhase, TrailerProgress)
			}
			if len(c.Trailers[k]) == 0 {
				return fmt.Errorf("%s.trailers[%q]: no values", field, k)
			}
		}
		if c.Reverts != "" && !hashRE.MatchString(c.Reverts) {
			return fmt.Errorf("%s.reverts: %q is not a 40-hex hash", field, c.Reverts)
		}
		if c.Reverts != "" && !c.Revert {
			return fmt.Errorf("%s.reverts: set without revert", field)
		}
		if c.Blocker != "" && (!c.Admitted || !blockerRE.MatchString(c.Blocker)) {
			return fmt.Errorf("%s.blocker: %q is not the 12-hex hash of an admitted blocker", field, c.Blocker)
		}
		if c.Claim != "" && !blockerRE.MatchString(c.Claim) {
			return fmt.Errorf("%s.claim: %q is not a 12-hex key", field, c.Claim)
		}
		seen[c.Hash] = i
	}
	return nil
}

// checkChanges validates a commit's changes and updates the set of present
// paths.
func checkChanges(field string, c *Commit, present map[string]bool) error {
	news := map[string]bool{}
	olds := map[string]bool{} // paths that leave: deleted or renamed away
	for _, ch := range c.Changes {
		switch ch.Status {
		case StatusDeleted:
			olds[ch.Path] = true
		case StatusRenamed:
			olds[ch.From] = true
		}
	}
	leaving := map[string]bool{}
	for j, ch := range c.Changes {
		cf := fmt.Sprintf("%s.changes[%d]", field, j)
		if err := checkPath(cf+".path", ch.Path); err != nil {
			return err
		}
		if j > 0 && c.Changes[j-1].Path > ch.Path {
			return fmt.Errorf("%s.path: %q is out of order (changes are sorted by path)", cf, ch.Path)
		}
		if ch.Added < 0 || ch.Deleted < 0 {
			return fmt.Errorf("%s: negative line counts (added %d, deleted %d)", cf, ch.Added, ch.Deleted)
		}
		if (ch.Binary || ch.Submodule) && (ch.Added != 0 || ch.Deleted != 0) {
			return fmt.Errorf("%s: a binary or submodule change has no line counts", cf)
		}
		if ch.Lines != nil && (*ch.Lines < 0 || ch.Status == StatusDeleted) {
			return fmt.Errorf("%s.lines: only a text new side has a line count (>= 0)", cf)
		}
		if ch.WhitespaceOnly && ch.DigitsOnly {
			return fmt.Errorf("%s: a change is not both whitespace-only and digits-only", cf)
		}
		if ch.Churn && (ch.WhitespaceOnly || ch.Status != StatusModified) {
			return fmt.Errorf("%s: only a modification that is not whitespace-only is churn (status %s)", cf, ch.Status)
		}
		if ch.Code && (ch.Binary || ch.Submodule || ch.Status == StatusDeleted) {
			return fmt.Errorf("%s: only a text new side reads as code", cf)
		}
		if (ch.WhitespaceOnly || ch.DigitsOnly) && ch.Status != StatusModified {
			return fmt.Errorf("%s: only a modification is whitespace-only or digits-only (status %s)", cf, ch.Status)
		}
		if ch.From != "" && ch.Status != StatusRenamed {
			return fmt.Errorf("%s.from: only a rename has an old path (status %s)", cf, ch.Status)
		}
		for k, item := range ch.Written {
			if !writtenItemRE.MatchString(item) {
				return fmt.Errorf("%s.written[%d]: %q is not an item (e or c and a 12-hex key, or r)", cf, k, item)
			}
		}
		if len(ch.Written) > 0 && (ch.Added == 0 || ch.Binary || ch.Submodule) {
			return fmt.Errorf("%s.written: only a change that adds text lines writes items", cf)
		}
		switch ch.Status {
		case StatusAdded:
			if present[ch.Path] && !olds[ch.Path] {
				return fmt.Errorf("%s: %q is added but already present", cf, ch.Path)
			}
		case StatusModified:
			if !present[ch.Path] {
				return fmt.Errorf("%s: %q is modified but not present before", cf, ch.Path)
			}
		case StatusDeleted:
			if !present[ch.Path] {
				return fmt.Errorf("%s: %q is deleted but not present before", cf, ch.Path)
			}
			if leaving[ch.Path] {
				return fmt.Errorf("%s: %q leaves twice", cf, ch.Path)
			}
			leaving[ch.Path] = true
		case StatusRenamed:
			if err := checkPath(cf+".from", ch.From); err != nil {
				return err
			}
			if !present[ch.From] {
				return fmt.Errorf("%s.from: %q is renamed but not present before", cf, ch.From)
			}
			if leaving[ch.From] {
				return fmt.Errorf("%s.from: %q leaves twice", cf, ch.From)
			}
			leaving[ch.From] = true
		default:
			return fmt.Errorf("%s.status: %q is not A, M, D or R", cf, ch.Status)
		}
		if ch.Status != StatusDeleted {
			if news[ch.Path] {
				return fmt.Errorf("%s.path: %q changes twice", cf, ch.Path)
			}
			news[ch.Path] = true
		}
	}
	for p := range olds {
		delete(present, p)
	}
	for p := range news {
		present[p] = true
	}
	return nil
}

func checkTasks(field string, m map[string][]Task, present map[string]bool) error {
	for _, p := range sortedKeys(m) {
		if !IsTaskFile(p) {
			return fmt.Errorf("%s[%q]: not a task file (%s)", field, p, strings.Join(TaskFilePatterns(), ", "))
		}
		for i, t := range m[p] {
			if !keyRE.MatchString(t.Key) {
				return fmt.Errorf("%s[%q][%d].key: %q is not 12 hex digits", field, p, i, t.Key)
			}
		}
	}
	return nil
}

func checkPath(field, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("%s: empty", field)
	case strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") || strings.Contains(p, "//"):
		return fmt.Errorf("%s: %q is not a relative file path", field, p)
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("%s: %q contains a NUL byte", field, p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." || seg == ".git" {
			return fmt.Errorf("%s: %q has a %q segment", field, p, seg)
		}
	}
	return nil
}

// validateLabels checks each label against its repository's facts.
func (c *Corpus) validateLabels() error {
	type span struct{ repo, from, to string }
	seen := map[span]bool{}
	for i, l := range c.Labels {
		field := fmt.Sprintf("[%d]", i)
		f := c.Facts(l.Repo)
		if f == nil {
			return fmt.Errorf("%s.repo: no facts file %s for %q", field, FileName(l.Repo), l.Repo)
		}
		if err := checkVotes(field+".labels", l.Votes); err != nil {
			return err
		}
		from := f.Index(l.From)
		if from < 0 {
			return fmt.Errorf("%s.from: %q is not a commit of %s's facts", field, l.From, l.Repo)
		}
		to := f.Index(l.To)
		if to < 0 {
			return fmt.Errorf("%s.to: %q is not a commit of %s's facts", field, l.To, l.Repo)
		}
		if n := to - from + 1; n < MinStretch || n > MaxStretch {
			return fmt.Errorf("%s: the stretch %s..%s has %d commits (want %d to %d)", field, textcut.Hash(l.From), textcut.Hash(l.To), n, MinStretch, MaxStretch)
		}
		if f.Parent(from) == "" {
			return fmt.Errorf("%s.from: %s is a root commit; a stretch needs a parent to replay from", field, textcut.Hash(l.From))
		}
		if err := checkByPolicy(field+".misses", l.Misses, l.Consensus(), Stagnation, "only a stagnation stretch can be missed"); err != nil {
			return err
		}
		if err := checkByPolicy(field+".trips", l.Trips, l.Consensus(), Progress, "only a progress stretch can be tripped by mistake"); err != nil {
			return err
		}
		k := span{l.Repo, l.From, l.To}
		if seen[k] {
			return fmt.Errorf("%s: the stretch %s..%s of %s is labelled twice", field, textcut.Hash(l.From), textcut.Hash(l.To), l.Repo)
		}
		seen[k] = true
	}
	return nil
}

var byRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,15}$`)

// checkVotes validates a stretch's judgements: one from each of Labellers
// different labellers, each with a known label and a one-line reason.
func checkVotes(field string, votes []Vote) error {
	if len(votes) != Labellers {
		return fmt.Errorf("%s: %d judgements, want %d (one per labeller)", field, len(votes), Labellers)
	}
	for i, v := range votes {
		vf := fmt.Sprintf("%s[%d]", field, i)
		if !byRE.MatchString(v.By) {
			return fmt.Errorf("%s.by: %q is not a labeller's tag (letters, digits, _ or -, at most 16)", vf, v.By)
		}
		if slices.ContainsFunc(votes[:i], func(w Vote) bool { return w.By == v.By }) {
			return fmt.Errorf("%s.by: %q judges the stretch twice", vf, v.By)
		}
		if v.Label == 0 {
			return fmt.Errorf("%s.label: missing", vf)
		}
		if err := checkLine(vf+".reason", v.Reason); err != nil {
			return err
		}
	}
	return nil
}

// checkLine validates a reason: one non-empty line of at most maxReason
// bytes.
func checkLine(field, s string) error {
	if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\n\r") || len(s) > maxReason {
		return fmt.Errorf("%s: want one non-empty line of at most %d bytes", field, maxReason)
	}
	return nil
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkByPolicy validates a label's entries by policy (misses, trips): the
// stretch's consensus must be want, each key a built-in policy, each
// reason one line.
func checkByPolicy(field string, m map[string]string, k, want Kind, only string) error {
	for _, p := range sortedKeys(m) {
		if k != want {
			return fmt.Errorf("%s: %s (the labellers' consensus is %s)", field, only, k)
		}
		if !slices.Contains(policy.Names(), p) {
			return fmt.Errorf("%s: %q is not a built-in policy (%s)", field, p, strings.Join(policy.Names(), ", "))
		}
		if err := checkLine(fmt.Sprintf("%s[%q]", field, p), m[p]); err != nil {
			return err
		}
	}
	return nil
}
