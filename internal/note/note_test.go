package note

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var snake = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

func TestCodesAreStableNames(t *testing.T) {
	t.Parallel()
	seen := map[Code]bool{}
	for _, c := range Codes() {
		if !snake.MatchString(string(c)) || seen[c] || !c.Known() {
			t.Errorf("code %q is not snake_case, is listed twice or is not known", c)
		}
		seen[c] = true
	}
	if Code("shallow").Known() {
		t.Errorf("an unlisted code is known")
	}
}

// TestDocsListEveryCode: the command line's reference (docs/cli.md) names
// every code, so that a script's author can rely on them.
func TestDocsListEveryCode(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Codes() {
		if !strings.Contains(string(doc), "`"+string(c)+"`") {
			t.Errorf("docs/cli.md does not list the note code %s", c)
		}
	}
}

func TestHelpers(t *testing.T) {
	t.Parallel()
	ns := append(Of(AgentLog, []string{"a", "b"}), New(NoBase, "HEAD is on %s", "main"))
	if got := strings.Join(Texts(ns), "|"); got != "a|b|HEAD is on main" {
		t.Errorf("got texts %q", got)
	}
	if n, ok := Find(ns, NoBase); !ok || n.Text != "HEAD is on main" {
		t.Errorf("got %+v %v, want the no_base note", n, ok)
	}
	if _, ok := Find(ns, ShallowClone); ok || Of(AgentLog, nil) != nil || Texts(nil) != nil {
		t.Errorf("found a note that is not there, or made notes of nothing")
	}
}
