// Package control decides which pull-request comments and label events may
// steer the breaker, for the check run and the audit alike: the sticky
// comment is loopbreaker's only when a bot other than the pull request's
// author wrote it; commands and label controls count only from people with
// write access (Trusted, which the caller answers and budgets).
package control

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/loop"
)

// Comment is a pull request's comment as GitHub reports it. ViaApp is the
// slug of the GitHub App that wrote it for its author, "" when none did.
type Comment struct {
	ID                   int64
	Login, UserType      string
	Body                 string
	CreatedAt, UpdatedAt time.Time
	ViaApp               string
}

// LabelEvent is a labeled or unlabeled event of pull request Number, by
// Actor (ActorType "User", "Bot", ...), performed by the App ViaApp ("" for
// none).
type LabelEvent struct {
	Number           int
	Event, Label     string
	Actor, ActorType string
	At               time.Time
	ViaApp           string
}

// Trusted says whether an account may control the breaker (the caller
// looks up its permission); an error stops what asked.
type Trusted func(login, userType string) (bool, error)

// Trust keeps one run's answers to the trust rule, by lower-cased login.
type Trust map[string]bool

// Rule is the one trust rule for people: a person (MayControl) whose
// permission, looked up once per login, is write access (WriteAccess).
// permission may refuse first (perm ""); with ok false its answer is not
// kept, so that a look-up that failed is tried again.
func (t Trust) Rule(permission func(login string) (perm string, ok bool, err error)) Trusted {
	return func(login, userType string) (bool, error) {
		if !MayControl(login, userType) {
			return false, nil
		}
		key := strings.ToLower(login)
		if v, ok := t[key]; ok {
			return v, nil
		}
		perm, ok, err := permission(login)
		if err != nil || !ok {
			return false, err
		}
		t[key] = WriteAccess(perm)
		return t[key], nil
	}
}

// Refold folds the breaker again with one more control and returns the
// transitions of its newest decision.
type Refold func(loop.Control) ([]breaker.Event, error)

// isBot reports a bot: its type says so, or its login has the "[bot]"
// suffix GitHub gives apps.
func isBot(login, userType string) bool {
	return strings.EqualFold(userType, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// MayControl reports whether an account could steer the breaker if it has
// write access: a person, not a bot, with a login.
func MayControl(login, userType string) bool {
	return login != "" && !isBot(login, userType)
}

// KnownAgents are the logins of hosted coding agents that act as a user
// account (some open pull requests or comment through a person's account
// or a machine user): never trusted to control a breaker.
var KnownAgents = []string{"copilot", "copilot-swe-agent", "devin-ai-integration", "claude", "codex",
	"chatgpt-codex-connector", "cursor", "cursoragent", "google-labs-jules", "openhands-agent", "sweep-ai", "sweepai"}

// OwnIdentity says why login is one of a loop's own identities, which
// never control its breaker: the pull request's author, the account that
// pushed its commits, a known coding agent or one the user named (agents,
// "@" optional); "" when it is none. GitHub logins compare without regard
// to case.
func OwnIdentity(login, author, pusher string, agents []string) string {
	is := func(a string) bool { return strings.EqualFold(login, strings.TrimPrefix(a, "@")) }
	switch {
	case author != "" && is(author):
		return "the pull request's author"
	case pusher != "" && is(pusher):
		return "the account that pushed the loop's commits"
	case slices.ContainsFunc(KnownAgents, is):
		return "a known coding agent"
	case slices.ContainsFunc(agents, is):
		return "named by the agent-logins input"
	}
	return ""
}

// WriteAccess reports whether a repository permission ("admin", "maintain",
// "write", "triage", "read", "none") lets its holder control the breaker.
func WriteAccess(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

// Sticky returns the most recently updated comment carrying marker written
// by a bot other than author; nil when there is none.
func Sticky(comments []Comment, marker, author string) *Comment {
	var sticky *Comment
	for i := range comments {
		c := &comments[i]
		if IsSticky(*c, marker, author) && (sticky == nil || c.UpdatedAt.After(sticky.UpdatedAt)) {
			sticky = c
		}
	}
	return sticky
}

// IsSticky reports whether c could be loopbreaker's sticky comment: it
// carries marker and a bot other than author wrote it.
func IsSticky(c Comment, marker, author string) bool {
	return strings.Contains(c.Body, marker) && isBot(c.Login, c.UserType) && (author == "" || !strings.EqualFold(c.Login, author))
}

// fromCommand turns a trusted person's /loopbreaker command into a control
// at the comment's time; ok is false for a verb that is not a command.
func fromCommand(verb, text, login string, at time.Time) (c loop.Control, ok bool) {
	c = loop.Control{At: at.UTC(), Kind: loop.ControlReset, By: login}
	switch verb {
	case "reset":
		c.Reason = "reset by " + login
	case "resume":
		c.Reason = "resumed by " + login
	case "skip-phase":
		c.Kind, c.Reason = loop.ControlSkipPhase, "phase skipped by "+login
	case "guide":
		c.Kind, c.Reason, c.Text = loop.ControlGuide, "guidance from "+login+": "+text, text
	case "abort":
		c.Kind, c.Reason = loop.ControlForceOpen, "aborted by "+login
	default:
		return loop.Control{}, false
	}
	return c, true
}

// openAt reports whether the breaker was OPEN when a control made at t
// applies; before a cut history's oldest event it is taken as OPEN.
func openAt(history []breaker.Event, t time.Time) bool {
	if len(history) >= breaker.MaxHistory && t.Before(history[0].At) {
		return true
	}
	state := breaker.Closed
	for _, e := range history {
		if !e.At.Before(t) {
			break
		}
		state = e.To
	}
	return state == breaker.Open
}

// ResetsSince is the earliest time a removal of the open label can reset
// the breaker: its first opening (zero when the history was cut); ok is
// false when it never opened.
func ResetsSince(history []breaker.Event) (since time.Time, ok bool) {
	if len(history) >= breaker.MaxHistory {
		return time.Time{}, true
	}
	for _, e := range history {
		if e.To == breaker.Open {
			return e.At, true
		}
	}
	return time.Time{}, false
}

// LabelResets hands to refold each removal of label (oldest first) made
// while the breaker, folded with the resets before it, was OPEN, by someone
// trusted; it returns those applied and those refused.
func LabelResets(events []LabelEvent, label string, history []breaker.Event, trusted Trusted, refold Refold) (applied, refused []LabelEvent, err error) {
	for _, e := range events {
		if e.Event != "unlabeled" || !strings.EqualFold(e.Label, label) || !openAt(history, e.At) {
			continue
		}
		ok, err := trustedEvent(e, trusted)
		if err != nil {
			return applied, refused, err
		}
		if !ok {
			refused = append(refused, e)
			continue
		}
		reset := loop.Control{At: e.At.UTC(), Kind: loop.ControlReset, Reason: "the " + label + " label was removed by " + e.Actor}
		if history, err = refold(reset); err != nil {
			return applied, refused, err
		}
		applied = append(applied, e)
	}
	return applied, refused, nil
}

// Commands turns the trusted /loopbreaker commands among comments into
// controls. Never a command: a marked comment, an edited one (who edited it
// is unknown), or one an App wrote for its author.
func Commands(comments []Comment, marker string, trusted Trusted) (controls []loop.Control, notes []string, err error) {
	for _, c := range comments {
		if strings.Contains(c.Body, marker) {
			continue
		}
		verb, text, ok := ParseCommand(c.Body)
		if !ok {
			continue
		}
		if c.UpdatedAt.After(c.CreatedAt) && !c.CreatedAt.IsZero() {
			notes = append(notes, fmt.Sprintf("ignored /loopbreaker %s from %s: the comment was edited, and GitHub does not say by whom; post the command anew", verb, c.Login))
			continue
		}
		if c.ViaApp != "" {
			notes = append(notes, fmt.Sprintf("ignored /loopbreaker %s from %s: the App %s wrote it", verb, c.Login, c.ViaApp))
			continue
		}
		ok, err := trusted(c.Login, c.UserType)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			notes = append(notes, fmt.Sprintf("ignored /loopbreaker %s from %s: only people with write access can control the breaker", verb, c.Login))
			continue
		}
		if ctl, ok := fromCommand(verb, text, c.Login, c.CreatedAt); ok {
			controls = append(controls, ctl)
		}
	}
	return controls, notes, nil
}

// LabelledBy returns the newest event that put label on a pull request when
// its actor may control the breaker; otherwise ok is false and note says why.
func LabelledBy(events []LabelEvent, label string, trusted Trusted) (e LabelEvent, ok bool, note string, err error) {
	for i := len(events) - 1; i >= 0 && !ok; i-- {
		e = events[i]
		ok = e.Event == "labeled" && strings.EqualFold(e.Label, label)
	}
	if !ok {
		return LabelEvent{}, false, fmt.Sprintf("the %s label was ignored: no event says who added it", label), nil
	}
	ok, err = trustedEvent(e, trusted)
	if err != nil || ok {
		return e, ok, "", err
	}
	return e, false, fmt.Sprintf("the %s label was added by %s, who cannot control the breaker: it is ignored", label, e.Actor), nil
}

// trustedEvent asks trusted about a label event's actor; an event an App
// performed for its actor is never a person's control.
func trustedEvent(e LabelEvent, trusted Trusted) (bool, error) {
	if e.ViaApp != "" {
		return false, nil
	}
	return trusted(e.Actor, e.ActorType)
}
