package audit

import (
	"cmp"
	"sort"

	"github.com/loopbreaker/loopbreaker/internal/breaker"
	"github.com/loopbreaker/loopbreaker/internal/present"
)

// sortByProgress puts first the stuck pulls that wasted the most dollars,
// then tokens, then the never progressed, then the oldest last progress.
func sortByProgress(ps []present.PullResult) {
	sort.SliceStable(ps, func(i, j int) bool {
		ri, ai := waste(&ps[i])
		rj, aj := waste(&ps[j])
		if c := cmp.Or(cmp.Compare(rj, ri), cmp.Compare(aj, ai)); c != 0 {
			return c < 0
		}
		a, b := ps[i].LastProgress, ps[j].LastProgress
		switch {
		case a == nil && b != nil:
			return true
		case a != nil && b == nil:
			return false
		case a != nil && b != nil && !a.Equal(*b):
			return a.Before(*b)
		}
		return ps[i].Number < ps[j].Number
	})
}

// waste ranks a pull request by the money its loop wasted: 2 and the
// dollars spent since the last progress, 1 and the tokens when only
// tokens are known, 0 for a CLOSED one or one that wasted nothing known.
func waste(p *present.PullResult) (rank int, amount float64) {
	if p.State == breaker.Closed {
		return 0, 0
	}
	return present.WasteRank(p.WastedUSD, p.WastedTokens)
}
