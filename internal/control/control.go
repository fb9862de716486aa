// Package control decides which pull-request comments and label events may
// steer the breaker, for the check run (internal/action) and the audit
// (internal/audit) alike:
//
//   - the sticky comment (the one carrying the marker, with the ledger
//     digest) is loopbreaker's only when a bot wrote it, and never the bot
//     that opened the pull request: an agent running as a GitHub App is a
//     bot too, and must not plant a digest of its own;
//   - /loopbreaker commands, removals of the open label and additions of
//     the disabled and force-open labels count only from people (not bots)
//     with write access to the repository: one rule for every control.
//
// Looking up a person's access is the caller's (it costs an API call, which
// the audit budgets); WriteAccess judges the answer.
package control

import (
	"fmt"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/github"
	"github.com/loopbreaker/loopbreaker/internal/ledger"
	"github.com/loopbreaker/loopbreaker/internal/loop"
)

// IsBot reports whether an account is a bot: its type says so, or its
// login has the "[bot]" suffix GitHub gives apps.
func IsBot(login, userType string) bool {
	return strings.EqualFold(userType, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// MayControl reports whether an account could steer the breaker if it has
// write access: a person, not a bot, with a login.
func MayControl(login, userType string) bool {
	return login != "" && !IsBot(login, userType)
}

// KnownAgents are the logins of hosted coding agents that act as a user
// account (some open pull requests or comment through a person's account
// or a machine user): never trusted to control a breaker.
var KnownAgents = []string{"copilot", "copilot-swe-agent", "devin-ai-integration", "claude", "codex",
	"chatgpt-codex-connector", "cursor", "cursoragent", "google-labs-jules", "openhands-agent", "sweep-ai", "sweepai"}

// WriteAccess reports whether a repository permission ("admin", "maintain",
// "write", "triage", "read", "none") lets its holder control the breaker.
func WriteAccess(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

// Sticky returns loopbreaker's sticky comment among a pull request's
// comments: the most recently updated one carrying marker written by a bot
// other than author (the pull request's author; "" when unknown). It
// returns nil when there is none.
func Sticky(comments []github.Comment, marker, author string) *github.Comment {
	var sticky *github.Comment
	for i := range comments {
		c := &comments[i]
		if !strings.Contains(c.Body, marker) || !IsBot(c.Login, c.UserType) {
			continue
		}
		if author != "" && strings.EqualFold(c.Login, author) {
			continue
		}
		if sticky == nil || c.UpdatedAt.After(sticky.UpdatedAt) {
			sticky = c
		}
	}
	return sticky
}

// FromCommand turns a trusted person's /loopbreaker command (its verb and
// text, as the comment parser gives them) into a control at the comment's
// time: reset and resume reset the breaker, skip-phase moves the loop to
// the next phase, guide carries the text to the agent, abort holds the
// breaker open. ok is false for a verb that is not a command.
func FromCommand(verb, text, login string, at time.Time) (c loop.Control, ok bool) {
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

// LabelRemovals returns the removals of label (compared without case)
// among a pull request's label events, oldest first as the events are.
// Which of them reset the breaker is the caller's to decide (OpenAt, and
// whether the actor may control it).
func LabelRemovals(events []github.LabelEvent, label string) []github.LabelEvent {
	var out []github.LabelEvent
	for _, e := range events {
		if e.Event == "unlabeled" && strings.EqualFold(e.Label, label) {
			out = append(out, e)
		}
	}
	return out
}

// OpenAt reports whether a breaker whose transitions are history (oldest
// first, as a decision carries them) was OPEN when a control made at t
// applies: after its transitions before t (the fold applies a control
// before an iteration at the same time). A time before the oldest
// transition of a history cut to breaker.MaxHistory events is taken as
// OPEN: the transitions that would say otherwise are gone.
func OpenAt(history []breaker.Event, t time.Time) bool {
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
// a breaker whose transitions are history (oldest first): its first
// opening, or the zero time when the history was cut to
// breaker.MaxHistory events (OpenAt takes the time before it as OPEN).
// ok is false when the breaker was never OPEN: no removal is a reset, and
// the label events need not be read. Resets only ever apply while the
// breaker is OPEN, so a fold with them opens first where the fold without
// them does.
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

// Refold folds the breaker again with one more control and returns the
// transitions of its newest decision.
type Refold func(loop.Control) ([]breaker.Event, error)

// LabelResets applies every reset people made by taking label (the open
// label) off, the one rule of the check run and the audit: each removal
// among a pull request's label events (oldest first), made while the
// breaker — folded with the resets before it — was OPEN (OpenAt on
// history, then on what refold returns), by someone trusted says may
// control the breaker, is a reset (LabelReset) handed to refold. A removal
// while the breaker was not OPEN is no reset, and its actor is not looked
// up. It returns the removals applied and, for the caller's notes, those
// by someone who may not reset the breaker.
func LabelResets(events []github.LabelEvent, label string, history []breaker.Event, trusted Trusted, refold Refold) (applied, refused []github.LabelEvent, err error) {
	for _, e := range LabelRemovals(events, label) {
		if !OpenAt(history, e.At) {
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
		if history, err = refold(LabelReset(e, label)); err != nil {
			return applied, refused, err
		}
		applied = append(applied, e)
	}
	return applied, refused, nil
}

// LabelResetClaims are the resets by the open label that a ledger's
// newest record says its run applied (nil without a record). A claim
// never resets anything: it only says that the label events hold resets
// to apply (LabelResets), so that they are read even once the label is
// back.
func LabelResetClaims(l *ledger.Ledger) []ledger.LabelReset {
	if l == nil || len(l.Records) == 0 {
		return nil
	}
	return l.Records[len(l.Records)-1].LabelResets
}

// LabelAdded returns the newest addition of label (compared without case)
// among a pull request's label events, oldest first; ok is false when
// there is none. Whether its actor may control the breaker (the disabled
// and force-open labels count only from people with write access) is the
// caller's to check.
func LabelAdded(events []github.LabelEvent, label string) (e github.LabelEvent, ok bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if e := events[i]; e.Event == "labeled" && strings.EqualFold(e.Label, label) {
			return e, true
		}
	}
	return github.LabelEvent{}, false
}

// Trusted says whether an account may control the breaker (the caller
// looks up its permission); an error stops what asked.
type Trusted func(login, userType string) (bool, error)

// Commands turns the /loopbreaker commands among a pull request's
// comments into controls. A comment carrying marker (loopbreaker's own) is
// never a command; nor is an edited one (GitHub does not say who edited
// it: the agent's token may have turned a person's old comment into a
// command) or one an App wrote for its author (the App, perhaps the
// agent, chose the words); a command counts only when trusted says its
// author may control the breaker, and notes say which were ignored.
func Commands(comments []github.Comment, marker string, trusted Trusted) (controls []loop.Control, notes []string, err error) {
	for i := range comments {
		c := &comments[i]
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
		if ctl, ok := FromCommand(verb, text, c.Login, c.CreatedAt); ok {
			controls = append(controls, ctl)
		}
	}
	return controls, notes, nil
}

// LabelledBy returns the event that put label on a pull request, from its
// label events, when trusted says the person who added it may control the
// breaker (the disabled and force-open labels count only then). Otherwise
// ok is false and note says why the label is ignored.
func LabelledBy(events []github.LabelEvent, label string, trusted Trusted) (e github.LabelEvent, ok bool, note string, err error) {
	e, found := LabelAdded(events, label)
	if !found {
		return e, false, fmt.Sprintf("the %s label was ignored: no event says who added it", label), nil
	}
	ok, err = trustedEvent(e, trusted)
	if err != nil || ok {
		return e, ok, "", err
	}
	return e, false, fmt.Sprintf("the %s label was added by %s, who cannot control the breaker: it is ignored", label, e.Actor), nil
}

// trustedEvent asks trusted about a label event's actor; an event an App
// performed for its actor is never a person's control.
func trustedEvent(e github.LabelEvent, trusted Trusted) (bool, error) {
	if e.ViaApp != "" {
		return false, nil
	}
	return trusted(e.Actor, e.ActorType)
}

// LabelReset is the reset a trusted person's removal of the open label
// makes.
func LabelReset(e github.LabelEvent, label string) loop.Control {
	return loop.Control{At: e.At.UTC(), Kind: loop.ControlReset, Reason: "the " + label + " label was removed by " + e.Actor}
}
