package control

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/loop"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestIsBotAndMayControl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		login, typ string
		bot, may   bool
	}{
		{"github-actions[bot]", "Bot", true, false},
		{"Copilot", "Bot", true, false},
		{"devin-ai-integration[BOT]", "", true, false},
		{"renovate[bot]", "User", true, false},
		{"alice", "User", false, true},
		{"alice", "", false, true},
		{"", "User", false, false},
	}
	for _, tt := range tests {
		if got := isBot(tt.login, tt.typ); got != tt.bot {
			t.Errorf("isBot(%q, %q) = %v, want %v", tt.login, tt.typ, got, tt.bot)
		}
		if got := MayControl(tt.login, tt.typ); got != tt.may {
			t.Errorf("MayControl(%q, %q) = %v, want %v", tt.login, tt.typ, got, tt.may)
		}
	}
	for perm, want := range map[string]bool{"admin": true, "maintain": true, "write": true, "triage": false, "read": false, "none": false, "": false, "WRITE": false} {
		if got := WriteAccess(perm); got != want {
			t.Errorf("WriteAccess(%q) = %v, want %v", perm, got, want)
		}
	}
}

func TestSticky(t *testing.T) {
	t.Parallel()
	const marker = "<!-- loopbreaker -->"
	c := func(id int64, login, typ, body string, updated time.Duration) Comment {
		return Comment{ID: id, Login: login, UserType: typ, Body: body, CreatedAt: t0, UpdatedAt: t0.Add(updated)}
	}
	tests := []struct {
		name     string
		comments []Comment
		author   string
		want     int64 // 0: none
	}{
		{"none", []Comment{c(1, "github-actions[bot]", "Bot", "no marker", 0)}, "", 0},
		{"the most recently updated bot comment", []Comment{
			c(1, "github-actions[bot]", "Bot", marker+" a", 2*time.Hour),
			c(2, "github-actions[bot]", "Bot", marker+" b", time.Hour),
		}, "", 1},
		{"a person's marker is not the sticky", []Comment{
			c(1, "github-actions[bot]", "Bot", marker, 0),
			c(2, "mallory", "User", marker, time.Hour),
		}, "", 1},
		{"the author's bot is not the sticky", []Comment{
			c(1, "github-actions[bot]", "Bot", marker, 0),
			c(2, "Copilot", "Bot", marker, time.Hour),
		}, "copilot", 1},
		{"only the author's bot: none", []Comment{
			c(2, "agent[bot]", "Bot", marker, time.Hour),
		}, "agent[bot]", 0},
		{"author unknown: any bot", []Comment{
			c(2, "agent[bot]", "Bot", marker, time.Hour),
		}, "", 2},
	}
	for _, tt := range tests {
		got := Sticky(tt.comments, marker, tt.author)
		var id int64
		if got != nil {
			id = got.ID
		}
		if id != tt.want {
			t.Errorf("%s: got comment %d, want %d", tt.name, id, tt.want)
		}
	}
}

func TestFromCommand(t *testing.T) {
	t.Parallel()
	at := t0.In(time.FixedZone("x", 3600))
	tests := []struct {
		verb, text string
		want       loop.Control
		ok         bool
	}{
		{"reset", "", loop.Control{At: t0, Kind: loop.ControlReset, Reason: "reset by alice", By: "alice"}, true},
		{"resume", "", loop.Control{At: t0, Kind: loop.ControlReset, Reason: "resumed by alice", By: "alice"}, true},
		{"skip-phase", "", loop.Control{At: t0, Kind: loop.ControlSkipPhase, Reason: "phase skipped by alice", By: "alice"}, true},
		{"guide", "try the parser", loop.Control{At: t0, Kind: loop.ControlGuide, Reason: "guidance from alice: try the parser", By: "alice", Text: "try the parser"}, true},
		{"abort", "", loop.Control{At: t0, Kind: loop.ControlForceOpen, Reason: "aborted by alice", By: "alice"}, true},
		{"explode", "", loop.Control{}, false},
	}
	for _, tt := range tests {
		got, ok := fromCommand(tt.verb, tt.text, "alice", at)
		if ok != tt.ok {
			t.Errorf("%s: ok %v, want %v", tt.verb, ok, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.verb, diff)
		}
	}
}

// TestLabelResets: a breaker opens at 2h; alice's removal before that is
// no reset; mallory (no write access) removes the label at 3h, alice at
// 4h (a reset: the fold closes it, and it opens again at 6h); bob's
// removal at 5h finds it CLOSED; alice's removal at 7h resets it again.
func TestLabelResets(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	rm := func(actor string, h int) LabelEvent {
		return LabelEvent{Event: "unlabeled", Label: "loopbreaker:open", Actor: actor, ActorType: "User", At: at(h)}
	}
	events := []LabelEvent{
		rm("alice", 1),
		{Event: "labeled", Label: "loopbreaker:open", Actor: "github-actions[bot]", ActorType: "Bot", At: at(2)},
		rm("mallory", 3), rm("alice", 4), rm("bob", 5),
		{Event: "unlabeled", Label: "other", Actor: "alice", ActorType: "User", At: at(6).Add(time.Minute)},
		{Event: "unlabeled", Label: "LoopBreaker:Open", Actor: "alice", ActorType: "User", At: at(7)}, // labels compare without case
	}
	opened := []breaker.Event{{At: at(2), From: breaker.Closed, To: breaker.Open}}
	// The fold after each reset: closed at it, OPEN again at 6h.
	folds := [][]breaker.Event{
		{opened[0], {At: at(4), From: breaker.Open, To: breaker.Closed, Trigger: "reset"}, {At: at(6), From: breaker.Closed, To: breaker.Open}},
		{opened[0], {At: at(4), From: breaker.Open, To: breaker.Closed, Trigger: "reset"}, {At: at(6), From: breaker.Closed, To: breaker.Open},
			{At: at(7), From: breaker.Open, To: breaker.Closed, Trigger: "reset"}},
	}
	var given []loop.Control
	var asked []string
	trusted := func(login, userType string) (bool, error) {
		asked = append(asked, login)
		return writers("alice", "bob")(login, userType)
	}
	refold := func(c loop.Control) ([]breaker.Event, error) {
		given = append(given, c)
		return folds[len(given)-1], nil
	}
	applied, refused, err := LabelResets(events, "loopbreaker:open", opened, trusted, refold)
	if err != nil {
		t.Fatal(err)
	}
	times := func(es []LabelEvent) []time.Time {
		var out []time.Time
		for _, e := range es {
			out = append(out, e.At)
		}
		return out
	}
	if diff := cmp.Diff([]time.Time{at(4), at(7)}, times(applied)); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	if len(refused) != 1 || refused[0].Actor != "mallory" {
		t.Errorf("got refused %+v, want mallory's removal", refused)
	}
	want := []loop.Control{
		{At: at(4), Kind: loop.ControlReset, Reason: "the loopbreaker:open label was removed by alice"},
		{At: at(7), Kind: loop.ControlReset, Reason: "the loopbreaker:open label was removed by alice"},
	}
	if diff := cmp.Diff(want, given); diff != "" {
		t.Errorf("controls folded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"mallory", "alice", "alice"}, asked); diff != "" {
		t.Errorf("actors looked up (-want +got): only removals while OPEN need it\n%s", diff)
	}

	broken := errors.New("permission lookup failed")
	_, _, err = LabelResets(events, "loopbreaker:open", opened, func(string, string) (bool, error) { return false, broken }, refold)
	if !errors.Is(err, broken) {
		t.Errorf("a failed lookup: got %v, want it returned", err)
	}
}

func TestOpenAtAndResetsSince(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	history := []breaker.Event{
		{At: at(1), From: breaker.Closed, To: breaker.HalfOpen},
		{At: at(2), From: breaker.HalfOpen, To: breaker.Open},
		{At: at(4), From: breaker.Open, To: breaker.Closed, Trigger: "reset"},
		{At: at(6), From: breaker.Closed, To: breaker.Open},
	}
	tests := []struct {
		at   time.Time
		want bool
	}{
		{at(0), false},
		{at(2), false}, // before the iteration that opens it, at the same time
		{at(2).Add(time.Minute), true},
		{at(4), true},
		{at(5), false},
		{at(7), true},
	}
	for _, tt := range tests {
		if got := openAt(history, tt.at); got != tt.want {
			t.Errorf("openAt(%s) = %v, want %v", tt.at.Format(time.RFC3339), got, tt.want)
		}
	}
	if openAt(nil, at(1)) {
		t.Error("OpenAt with no transition: got OPEN")
	}
	full := make([]breaker.Event, breaker.MaxHistory)
	for i := range full {
		full[i] = breaker.Event{At: at(10 + i), From: breaker.Open, To: breaker.Closed}
	}
	if !openAt(full, at(9)) || openAt(full, at(11).Add(time.Minute)) {
		t.Error("a cut history: want OPEN before its oldest transition, what it says after")
	}

	// ResetsSince: a removal can reset the breaker from its first opening
	// on; from any time in a cut history (OPEN before its oldest
	// transition); never in a breaker that was never OPEN.
	if since, ok := ResetsSince(history); !ok || !since.Equal(at(2)) {
		t.Errorf("ResetsSince: got %s %v, want the first opening, %s", since, ok, at(2))
	}
	if since, ok := ResetsSince(full); !ok || !since.IsZero() {
		t.Errorf("ResetsSince of a cut history: got %s %v, want the zero time", since, ok)
	}
	for _, h := range [][]breaker.Event{nil, history[:1]} {
		if since, ok := ResetsSince(h); ok {
			t.Errorf("ResetsSince of a breaker never OPEN (%d transitions): got %s", len(h), since)
		}
	}
}

// writers trusts the logins listed.
func writers(logins ...string) Trusted {
	return func(login, _ string) (bool, error) {
		for _, l := range logins {
			if l == login {
				return true, nil
			}
		}
		return false, nil
	}
}

func TestCommandsCountOnlyFromTrustedPeople(t *testing.T) {
	t.Parallel()
	comments := []Comment{
		{Login: "alice", Body: "/loopbreaker reset", CreatedAt: t0},
		{Login: "mallory", Body: "/loopbreaker reset", CreatedAt: t0.Add(time.Minute)},
		{Login: "github-actions[bot]", UserType: "Bot", Body: "<!-- m -->\n/loopbreaker reset", CreatedAt: t0},
		{Login: "alice", Body: "just a comment", CreatedAt: t0},
		{Login: "alice", Body: "/loopbreaker abort", CreatedAt: t0.Add(2 * time.Minute)},
	}
	controls, notes, err := Commands(comments, "<!-- m -->", writers("alice", "github-actions[bot]"))
	if err != nil {
		t.Fatal(err)
	}
	want := []loop.Control{{At: t0, Kind: loop.ControlReset, Reason: "reset by alice", By: "alice"}, {At: t0.Add(2 * time.Minute), Kind: loop.ControlForceOpen, Reason: "aborted by alice", By: "alice"}}
	if diff := cmp.Diff(want, controls); diff != "" {
		t.Errorf("controls (-want +got):\n%s", diff)
	}
	if len(notes) != 1 || notes[0] != "ignored /loopbreaker reset from mallory: only people with write access can control the breaker" {
		t.Errorf("got notes %q", notes)
	}
}

func TestLabelledBy(t *testing.T) {
	t.Parallel()
	events := []LabelEvent{
		{Event: "labeled", Label: "loopbreaker:disabled", Actor: "alice", At: t0},
		{Event: "unlabeled", Label: "loopbreaker:disabled", Actor: "alice", At: t0.Add(time.Minute)},
		{Event: "labeled", Label: "LOOPBREAKER:DISABLED", Actor: "agent", At: t0.Add(2 * time.Minute)},
	}
	if _, ok, note, _ := LabelledBy(events, "loopbreaker:disabled", writers("alice")); ok || note != "the loopbreaker:disabled label was added by agent, who cannot control the breaker: it is ignored" {
		t.Errorf("the newest addition is the agent's: got ok %v, note %q", ok, note)
	}
	if e, ok, _, _ := LabelledBy(events[:1], "loopbreaker:disabled", writers("alice")); !ok || e.Actor != "alice" {
		t.Errorf("alice's addition: got %+v, %v", e, ok)
	}
	if _, ok, note, _ := LabelledBy(nil, "loopbreaker:disabled", writers("alice")); ok || note == "" {
		t.Errorf("no event: got ok %v, note %q", ok, note)
	}
}

func TestTrustRuleAsksOncePerLogin(t *testing.T) {
	asked := map[string]int{}
	perms := map[string]string{"Alice": "write", "reader": "read"}
	trusted := Trust{}.Rule(func(login string) (string, bool, error) {
		asked[login]++
		perm, known := perms[login]
		return perm, known, nil // "flaky" has no answer: asked again
	})
	for range 2 {
		for login, want := range map[string]bool{"Alice": true, "reader": false, "flaky": false, "ci[bot]": false, "": false} {
			if got, err := trusted(login, "User"); got != want || err != nil {
				t.Errorf("trusted(%q) = %v, %v; want %v", login, got, err, want)
			}
		}
	}
	if asked["Alice"] != 1 || asked["reader"] != 1 || asked["flaky"] != 2 || asked["ci[bot]"]+asked[""] != 0 {
		t.Errorf("look-ups: %v; want one a login with an answer, none for a bot or no login", asked)
	}
	if _, err := (Trust{}).Rule(func(string) (string, bool, error) { return "", false, errors.New("budget spent") })("bob", "User"); err == nil {
		t.Error("a look-up's error is not returned")
	}
}
