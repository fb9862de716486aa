package action

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
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

type payload struct {
	Action      string `json:"action"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA  string `json:"sha"`
			Ref  string `json:"ref"`
			Repo *struct {
				Fork     bool   `json:"fork"`
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
		Base struct {
			SHA  string `json:"sha"`
			Ref  string `json:"ref"`
			Repo *struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"base"`
		Labels    []struct{ Name string } `json:"labels"`
		CreatedAt time.Time               `json:"created_at"`
		User      user                    `json:"user"`
	} `json:"pull_request"`
	Issue *struct {
		Number      int                     `json:"number"`
		Labels      []struct{ Name string } `json:"labels"`
		PullRequest *struct{}               `json:"pull_request"`
		CreatedAt   time.Time               `json:"created_at"`
		User        user                    `json:"user"`
	} `json:"issue"`
	Comment *struct {
		ID        int64     `json:"id"`
		Body      string    `json:"body"`
		User      user      `json:"user"`
		CreatedAt time.Time `json:"created_at"`
	} `json:"comment"`
	Label *struct {
		Name string `json:"name"`
	} `json:"label"`
	Sender     *user  `json:"sender"`
	After      string `json:"after"`
	Ref        string `json:"ref"`
	Repository *struct {
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	WorkflowRun *struct {
		HeadSHA        string `json:"head_sha"`
		HeadBranch     string `json:"head_branch"`
		HeadRepository *struct {
			FullName string `json:"full_name"`
			Owner    user   `json:"owner"`
		} `json:"head_repository"`
		PullRequests []struct {
			Number int `json:"number"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`
}

type user struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// ReadEvent reads the payload at path for the named event. A missing path
// gives an empty event (a local run); an unreadable or malformed payload is
// an error naming the file.
func ReadEvent(name, path string) (*Event, error) {
	ev := &Event{Name: name}
	if path == "" {
		return ev, nil
	}
	// O_NONBLOCK: a named pipe without a writer must not block the open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("event payload %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxEventBytes+1))
	if err != nil {
		return nil, fmt.Errorf("event payload %s: %w", path, err)
	}
	if len(data) > MaxEventBytes {
		return nil, fmt.Errorf("event payload %s: larger than %d bytes", path, MaxEventBytes)
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
	if p.Repository != nil {
		ev.DefaultBranch = p.Repository.DefaultBranch
	}
	if p.Sender != nil {
		ev.Sender, ev.SenderT = p.Sender.Login, p.Sender.Type
	}
	if p.Label != nil {
		ev.Label = p.Label.Name
	}
	switch {
	case p.PullRequest != nil:
		pr := p.PullRequest
		ev.Number = pr.Number
		ev.HeadSHA, ev.HeadRef = pr.Head.SHA, pr.Head.Ref
		ev.BaseSHA, ev.BaseRef = pr.Base.SHA, pr.Base.Ref
		ev.CreatedAt = pr.CreatedAt
		ev.Author = pr.User.Login
		if pr.Head.Repo != nil {
			ev.HeadRepo = pr.Head.Repo.FullName
		}
		if pr.Head.Repo != nil && pr.Base.Repo != nil {
			ev.Fork = pr.Head.Repo.Fork || pr.Head.Repo.FullName != pr.Base.Repo.FullName
		}
		for _, l := range pr.Labels {
			ev.Labels = append(ev.Labels, l.Name)
		}
	case p.Issue != nil && p.Issue.PullRequest != nil:
		ev.Number = p.Issue.Number
		ev.CreatedAt = p.Issue.CreatedAt
		ev.Author = p.Issue.User.Login
		for _, l := range p.Issue.Labels {
			ev.Labels = append(ev.Labels, l.Name)
		}
	case p.WorkflowRun != nil:
		ev.HeadSHA, ev.HeadRef = p.WorkflowRun.HeadSHA, p.WorkflowRun.HeadBranch
		if hr := p.WorkflowRun.HeadRepository; hr != nil {
			ev.HeadRepo, ev.HeadOwner = hr.FullName, hr.Owner.Login
		}
		// A fork's run lists no pull request: the API finds it by the
		// head (pull.go).
		if len(p.WorkflowRun.PullRequests) > 0 {
			ev.Number = p.WorkflowRun.PullRequests[0].Number
		}
	case p.MergeGroup != nil:
		// The queue's branch names the pull request it tests:
		// refs/heads/gh-readonly-queue/<base>/pr-<number>-<head sha>; the
		// API gives the rest (pull.go).
		ev.GroupSHA = p.MergeGroup.HeadSHA
		if m := queueRef().FindStringSubmatch(p.MergeGroup.HeadRef); m != nil {
			ev.Number, _ = strconv.Atoi(m[1])
		}
	case p.After != "":
		ev.HeadSHA = p.After
		const heads = "refs/heads/"
		if len(p.Ref) > len(heads) && p.Ref[:len(heads)] == heads {
			ev.HeadRef = p.Ref[len(heads):]
		}
	}
	if p.Comment != nil && p.Issue != nil {
		ev.Comment = &EventComment{ID: p.Comment.ID, Body: p.Comment.Body, Login: p.Comment.User.Login, UserType: p.Comment.User.Type, At: p.Comment.CreatedAt}
	}
	return ev, nil
}

// queueRef is a merge queue branch, with the number of the pull request
// it tests (the last one, when several are grouped).
var queueRef = lazyre.New(`^refs/heads/gh-readonly-queue/.+/pr-([0-9]{1,9})-[0-9a-f]{40}$`)

// Control reports whether the run is not an iteration of the loop: a
// person's control (a comment, or a label added to or removed from the pull
// request: pull_request labeled or unlabeled; the workflow token's own
// labels start no run), or the merge queue asking for the required check.
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
func (e *Event) HasLabel(name string) bool {
	for _, l := range e.Labels {
		if l == name {
			return true
		}
	}
	return false
}

// Pusher is the account that pushed the commits the run is about: the
// sender of a push, or of a pull request's opening or new commits; "" for
// other events, whose sender (a person dispatching a run, commenting or
// labelling) pushed nothing.
func (e *Event) Pusher() string {
	switch {
	case e.Name == "push":
		return e.Sender
	case (e.Name == "pull_request" || e.Name == "pull_request_target") && (e.Action == "synchronize" || e.Action == "opened" || e.Action == "reopened"):
		return e.Sender
	}
	return ""
}
