package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandoverLinksLeaveNoWayOut: the agent commits its log, its test
// report or its bundle as symbolic links to a file of the judge's machine outside the
// workspace (a runner's credentials, another step's files). The judge
// reads neither: the run fails naming the link, and nothing of the file
// reaches the summary, the outputs or the comment.
func TestHandoverLinksLeaveNoWayOut(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "credentials")
	secret := "error: token ghs_judgeSecret0123456789"
	if err := os.WriteFile(outside, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, input, path string }{
		{"log", "INPUT_AGENT-LOG", "handover/agent.log"},
		{"report", "INPUT_REPORTS", "handover/report.xml"},
		{"bundle", "INPUT_BUNDLE", "handover/agent.bundle"},
		{"log through a linked folder", "INPUT_AGENT-LOG", "linked/agent.log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loop := stagnant(t)
			link := filepath.Join(loop.dir, c.path)
			if strings.HasPrefix(c.path, "linked/") {
				if err := os.Symlink(filepath.Dir(outside), filepath.Join(loop.dir, "linked")); err != nil {
					t.Fatal(err)
				}
				link = filepath.Join(filepath.Dir(outside), "agent.log")
				if err := os.WriteFile(link, []byte(secret+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				os.MkdirAll(filepath.Dir(link), 0o755)
				if err := os.Symlink(outside, link); err != nil {
					t.Fatal(err)
				}
			}
			h := newHarness(t, loop)
			h.env[c.input] = c.path
			code := h.run()
			if code != exitError || !strings.Contains(h.log.String(), "symbolic link") {
				t.Errorf("got exit %d, want %d naming the link\n%s", code, exitError, h.log.String())
			}
			out, _ := os.ReadFile(h.out)
			everything := h.log.String() + h.summaryText() + string(out)
			for _, cm := range h.comments(7) {
				everything += cm.Body
			}
			if strings.Contains(everything, "judgeSecret") {
				t.Errorf("the file outside the workspace reached what the run wrote:\n%s", everything)
			}
		})
	}
}
