package action

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/audit"
	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/present"
	"github.com/loopbreaker/loopbreaker/policy"
)

// auditDecision is the scheduled audit's decision on the pull request at
// the time of the loop's last run, reading the same GitHub and the
// workspace as its clone; it writes nothing.
func (l *prLife) auditDecision() breaker.Decision {
	l.t.Helper()
	h := l.h
	pol, err := policy.Load(filepath.Join(h.loop.dir, ".github", "loopbreaker.toml"))
	if err != nil {
		l.t.Fatal(err)
	}
	clone, err := audit.OpenClone(h.loop.dir, "", "")
	if err != nil {
		l.t.Fatal(err)
	}
	defer clone.Close()
	res, err := audit.Run(context.Background(), h.client(), audit.Options{Owner: "octo", Repo: "loop", Policy: pol,
		ProtectPaths: []string{".github/loopbreaker.toml"}, Budget: 100, Now: h.now, Clone: clone, Filters: audit.Filters{Authors: []string{"*"}}})
	if err != nil {
		l.t.Fatalf("audit: %v", err)
	}
	if len(res.Pulls) != 1 || res.Pulls[0].Decision == nil {
		l.t.Fatalf("audit: got pulls %+v, skipped %+v; want #7 decided", res.Pulls, res.Skipped)
	}
	if res.Pulls[0].Evidence != "git" {
		l.t.Errorf("audit: got evidence %q, want git (the workspace is the clone)", res.Pulls[0].Evidence)
	}
	return *res.Pulls[0].Decision
}

// TestCheckModeAndAuditDecideAlikeAfterLabelResets: after each run of a
// loop whose breaker a person reset twice by taking the open label off,
// which opened again each time with the label back, the audit at that
// run's time decides as the run did: both apply every reset by the same
// rule (control.LabelResets).
func TestCheckModeAndAuditDecideAlikeAfterLabelResets(t *testing.T) {
	t.Parallel()
	l := newPRLife(t)
	alike := func(step string, o map[string]string) {
		t.Helper()
		var checked breaker.Decision
		if err := json.Unmarshal([]byte(o["decision"]), &checked); err != nil {
			t.Fatalf("%s: the decision output is not JSON: %v", step, err)
		}
		if diff := cmp.Diff(checked, l.auditDecision()); diff != "" {
			t.Errorf("%s: check mode and the audit decide differently (-check +audit):\n%s", step, diff)
		}
	}
	l.unlabel("maintainer", "User")
	alike("after the first reset", l.iterate())
	alike("opened again", l.reopen())
	if !contains(l.h.labels(7), present.LabelOpen) {
		t.Fatalf("the open label is not back: %v", l.h.labels(7))
	}
	alike("OPEN again, the label back", l.iterate())
	l.unlabel("maintainer", "User")
	alike("after the second reset", l.iterate())
	alike("opened a third time", l.reopen())
	l.unlabel("reader", "User")
	alike("the label taken off by a reader", l.iterate())
	alike("the label back again", l.iterate())
}
