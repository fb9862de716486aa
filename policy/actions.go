package policy

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Alert is whom on_open = "alert" notifies.
type Alert struct {
	// Mentions are the GitHub people ("alice") and teams ("octo-org/loop-
	// owners") @-mentioned in the sticky comment; a leading "@" is allowed.
	Mentions []string `toml:"mentions"`
	// WebhookURL gets a JSON POST of the decision when the breaker opens:
	// an http(s) URL, or "$NAME" for the URL in the environment variable
	// NAME (keep a secret URL out of the repository).
	WebhookURL string `toml:"webhook_url"`
}

// maxMentions bounds alert.mentions.
const maxMentions = 20

// maxAdvice bounds advice, in bytes.
const maxAdvice = 1000

var (
	loginRE   = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9])*$`)
	teamRE    = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)
	envNameRE = lazyre.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// MentionName returns a mention without its leading "@".
func MentionName(m string) string { return strings.TrimPrefix(m, "@") }

// validMention reports whether m names a GitHub account or an
// organisation's team, so that it cannot carry markdown or another
// mention.
func validMention(m string) bool {
	org, team, isTeam := strings.Cut(MentionName(m), "/")
	if len(org) > 39 || !loginRE().MatchString(org) {
		return false
	}
	return !isTeam || len(team) <= 100 && teamRE().MatchString(team)
}

// WebhookEnv returns the name of the environment variable webhook_url
// refers to ("$NAME"), or "" when it is a URL or empty.
func (a Alert) WebhookEnv() string {
	if strings.HasPrefix(a.WebhookURL, "$") {
		return a.WebhookURL[1:]
	}
	return ""
}

// CheckWebhookURL checks a webhook URL: absolute, http or https, with a
// host. The error never repeats the URL, which may hold a secret.
func CheckWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("no host")
	}
	return nil
}

// validateActions checks on_open, advice, phase_order and the alert
// table.
func (p *Policy) validateActions(v *validator) {
	if p.OnOpen == OnOpenEscalate && len(p.Escalation.ModelProgression) < 2 {
		v.fail("on_open", `on_open = "escalate" needs at least two models in escalation.model_progression (the first is the one the loop starts with)`)
	}
	if len(p.Advice) > maxAdvice {
		v.fail("advice", fmt.Sprintf("advice is %d bytes long: want at most %d", len(p.Advice), maxAdvice))
	}
	seen := map[string]bool{}
	for _, ph := range p.PhaseOrder {
		switch {
		case seen[ph]:
			v.fail("phase_order", fmt.Sprintf("phase_order names %q twice", ph))
		case !p.HasPhase(ph):
			v.fail("phase_order", fmt.Sprintf("phase_order names %q, which is not a phase of the policy (phases: %s)", ph, orNone(p.PhaseNames())))
		}
		seen[ph] = true
	}
	if n := len(p.Alert.Mentions); n > maxMentions {
		v.fail("alert.mentions", fmt.Sprintf("alert.mentions names %d people or teams: want at most %d", n, maxMentions))
	}
	for _, m := range p.Alert.Mentions {
		if !validMention(m) {
			v.fail("alert.mentions", fmt.Sprintf("alert.mentions: %q is not a GitHub login (alice) or team (octo-org/reviewers)", m))
		}
	}
	switch w := p.Alert.WebhookURL; {
	case w == "":
	case strings.HasPrefix(w, "$"):
		if !envNameRE().MatchString(w[1:]) {
			v.fail("alert.webhook_url", fmt.Sprintf("alert.webhook_url = %q: want $NAME, an environment variable's name", w))
		}
	default:
		if err := CheckWebhookURL(w); err != nil {
			v.fail("alert.webhook_url", fmt.Sprintf("alert.webhook_url: %v (give $NAME to read a secret URL from the environment)", err))
		}
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// WithOnOpen returns a copy of p whose on_open is a everywhere: its phases
// and profiles no longer override it (a workflow input that names the
// action wins over the policy).
func (p *Policy) WithOnOpen(a OnOpen) (*Policy, error) {
	q := p.Clone()
	q.OnOpen = a
	for _, m := range []map[string]Override{q.Phases, q.Profiles} {
		for _, ov := range m {
			delete(ov, "on_open")
		}
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return q, nil
}

// NextPhase returns the phase after current in phase_order; ok is false
// when current is not in it or is the last.
func (p *Policy) NextPhase(current string) (next string, ok bool) {
	if i := p.PhaseIndex(current); i >= 0 && i+1 < len(p.PhaseOrder) {
		return p.PhaseOrder[i+1], true
	}
	return "", false
}

// PhaseIndex returns the place of a phase in phase_order, or -1.
func (p *Policy) PhaseIndex(phase string) int { return slices.Index(p.PhaseOrder, phase) }
