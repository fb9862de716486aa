package breaker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/policy"
)

// journalLoop is a loop that writes code beside its board for three
// iterations, then only the board twice, then code again beside it.
func journalLoop() []breaker.Iteration {
	var its []breaker.Iteration
	for i := range 9 {
		board := breaker.TextFile{Path: "BOARD.md", Lines: 2, Doc: true, Counted: true}
		c := &breaker.Change{MeaningfulFiles: 1, MeaningfulLines: 2, DocFiles: 1, CodeFiles: 1,
			Text: []breaker.TextFile{board}, TestFiles: []breaker.FileLines{}, Tree: fmt.Sprintf("tree%d", i)}
		if i < 3 || i >= 5 {
			c.MeaningfulFiles, c.MeaningfulLines, c.CodeFiles = 2, 12, 2
		}
		its = append(its, breaker.Iteration{At: t0.Add(time.Duration(i) * 10 * time.Minute), Change: c})
	}
	return its
}

// TestJournalLearned: the board changed with prose in every iteration is
// the journal from the third on; the iterations that change only it are no
// progress, and code beside it is.
func TestJournalLearned(t *testing.T) {
	t.Parallel()
	b := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Breaker.WatchIterations = 0 }), breaker.Options{})
	var got string
	for _, it := range journalLoop() {
		if observe(t, b, it).Progress {
			got += "y"
		} else {
			got += "n"
		}
	}
	if want := "yyynnyyyy"; got != want {
		t.Errorf("got progress %s, want %s", got, want)
	}
	off := newBreaker(t, pol(t, "default", func(p *policy.Policy) { p.Progress.Journal = false; p.Breaker.WatchIterations = 0 }), breaker.Options{})
	for i, it := range journalLoop() {
		if !observe(t, off, it).Progress {
			t.Errorf("journal off: iteration %d is no progress, want progress", i+1)
		}
	}
}

// TestJournalCausal: the decision at each iteration is the one a fold of
// the iterations up to it gives: later commits never teach earlier ones.
func TestJournalCausal(t *testing.T) {
	t.Parallel()
	p := pol(t, "default")
	its := journalLoop()
	full := newBreaker(t, p, breaker.Options{})
	var whole []breaker.Decision
	for _, it := range its {
		whole = append(whole, observe(t, full, it))
	}
	for k := range its {
		b := newBreaker(t, p, breaker.Options{})
		var d breaker.Decision
		for _, it := range its[:k+1] {
			d = observe(t, b, it)
		}
		if diff := cmp.Diff(whole[k], d); diff != "" {
			t.Errorf("iteration %d decided otherwise with later iterations folded (-whole +prefix):\n%s", k+1, diff)
		}
	}
}
