package action

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/regularfile"
)

// MaxEventBytes bounds the event payload read.
const MaxEventBytes = 25 << 20

// Event is the part of the workflow event payload the action uses.
type Event struct {
	Name   string // GITHUB_EVENT_NAME
	Number int    // pull request (or issue) number; 0 when none
	// HeadSHA and HeadRef are the PR head (or the pushed commit and branch;
	// for workflow_run the triggering run's). HeadRepo is the head
	// repository's "owner/name" and HeadOwner its owner, when the payload
	// says (a fork's, for a fork's pull request).
	HeadSHA, HeadRef    string
	HeadRepo, HeadOwner string
	// BaseSHA and BaseRef are the PR base.
	BaseSHA, BaseRef string
	Labels           []string
	Fork             bool
	DefaultBranch    string
	CreatedAt        time.Time
	// Author is the pull request's author ("" when the payload does not
	// say, as a workflow_run payload does not).
	Author string
	// GroupSHA is a merge_group run's commit: the merge queue's, where the
	// required check reports.
	GroupSHA string
	// Comment is set for issue_comment events.
	Comment *EventComment
	// Label is set for labeled/unlabeled events.
	Action, Label   string
	Sender, SenderT string
}

// EventComment is the comment of an issue_comment event.
type EventComment struct {
	ID       int64
	Body     string
	Login    string
	UserType string
	At       time.Time
}

// payload is the part of an event payload the action reads, in
// go-github's types.
type payload struct {
	Action      string           `json:"action"`
	PullRequest *gh.PullRequest  `json:"pull_request"`
	Issue       *gh.Issue        `json:"issue"`
	Comment     *gh.IssueComment `json:"comment"`
	Label       *gh.Label        `json:"label"`
	Sender      *gh.User         `json:"sender"`
	After       string           `json:"after"`
	Ref         string           `json:"ref"`
	Repository  *gh.Repository   `json:"repository"`
	MergeGroup  *gh.MergeGroup   `json:"merge_group"`
	WorkflowRun *gh.WorkflowRun  `json:"workflow_run"`
}

// ReadEvent reads the payload at path for the named event. A missing path
// gives an empty event (a local run); an unreadable or malformed payload is
// an error naming the file.
func ReadEvent(name, path string) (*Event, error) {
	ev := &Event{Name: name}
	if path == "" {
		return ev, nil
	}
	data, err := regularfile.Read(path, MaxEventBytes, "event payload")
	if err != nil {
		return nil, err
	}
	return decodeEvent(name, data, path)
}

// decodeEvent decodes the payload data of the named event; path names it
// in errors.
func decodeEvent(name string, data []byte, path string) (*Event, error) {
	ev := &Event{Name: name}
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("event payload %s: not a %s event: %v", path, orDefault(name, "workflow"), err)
	}
	ev.Action = p.Action
	ev.DefaultBranch = p.Repository.GetDefaultBranch()
	ev.Sender, ev.SenderT = p.Sender.GetLogin(), p.Sender.GetType()
	ev.Label = p.Label.GetName()
	switch {
	case p.PullRequest != nil:
		pr := p.PullRequest
		ev.Number = pr.GetNumber()
		ev.HeadSHA, ev.HeadRef = pr.GetHead().GetSHA(), pr.GetHead().GetRef()
		ev.BaseSHA, ev.BaseRef = pr.GetBase().GetSHA(), pr.GetBase().GetRef()
		ev.CreatedAt = pr.GetCreatedAt().Time
		ev.Author = pr.GetUser().GetLogin()
		head, base := pr.GetHead().GetRepo(), pr.GetBase().GetRepo()
		ev.HeadRepo = head.GetFullName()
		if head != nil && base != nil {
			ev.Fork = head.GetFork() || head.GetFullName() != base.GetFullName()
		}
		ev.Labels = labelNames(pr.Labels)
	case p.Issue != nil && p.Issue.IsPullRequest():
		ev.Number = p.Issue.GetNumber()
		ev.CreatedAt = p.Issue.GetCreatedAt().Time
		ev.Author = p.Issue.GetUser().GetLogin()
		ev.Labels = labelNames(p.Issue.Labels)
	case p.WorkflowRun != nil:
		ev.HeadSHA, ev.HeadRef = p.WorkflowRun.GetHeadSHA(), p.WorkflowRun.GetHeadBranch()
		hr := p.WorkflowRun.HeadRepository
		ev.HeadRepo, ev.HeadOwner = hr.GetFullName(), hr.GetOwner().GetLogin()
		// A fork's run lists no pull request: the API finds it by the
		// head (pull.go).
		if len(p.WorkflowRun.PullRequests) > 0 {
			ev.Number = p.WorkflowRun.PullRequests[0].GetNumber()
		}
	case p.MergeGroup != nil:
		// The queue's branch names the pull request it tests:
		// refs/heads/gh-readonly-queue/<base>/pr-<number>-<head sha>; the
		// API gives the rest (pull.go).
		ev.GroupSHA = p.MergeGroup.GetHeadSHA()
		if m := queueRef().FindStringSubmatch(p.MergeGroup.GetHeadRef()); m != nil {
			ev.Number, _ = strconv.Atoi(m[1])
		}
	case p.After != "":
		ev.HeadSHA = p.After
		if b, ok := strings.CutPrefix(p.Ref, "refs/heads/"); ok && b != "" {
			ev.HeadRef = b
		}
	}
	if c := p.Comment; c != nil && p.Issue != nil {
		ev.Comment = &EventComment{ID: c.GetID(), Body: c.GetBody(), Login: c.GetUser().GetLogin(), UserType: c.GetUser().GetType(), At: c.GetCreatedAt().Time}
	}
	return ev, nil
}

// queueRef is a merge queue branch, with the number of the pull request
// it tests (the last one, when several are grouped).
var queueRef = lazyre.New(`^refs/heads/gh-readonly-queue/.+/pr-([0-9]{1,9})-[0-9a-f]{40}$`)

// Control reports whether the run is no iteration of the loop: a comment,
// a label added or removed, or the merge queue asking for the check.
func (e *Event) Control() bool {
	switch e.Name {
	case "issue_comment", "merge_group":
		return true
	case "pull_request", "pull_request_target":
		return e.Action == "labeled" || e.Action == "unlabeled"
	}
	return false
}

// HasLabel reports whether the event's PR carries the label.
func (e *Event) HasLabel(name string) bool { return slices.Contains(e.Labels, name) }

// Pusher is the account that pushed the commits the run is about: the
// sender of a push or of a pull request's new commits; "" otherwise.
func (e *Event) Pusher() string {
	switch {
	case e.Name == "push":
		return e.Sender
	case (e.Name == "pull_request" || e.Name == "pull_request_target") && (e.Action == "synchronize" || e.Action == "opened" || e.Action == "reopened"):
		return e.Sender
	}
	return ""
}

func labelNames(ls []*gh.Label) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	return out
}
