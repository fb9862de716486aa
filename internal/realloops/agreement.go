package realloops

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Agreement is how well the labellers of some stretches agree.
type Agreement struct {
	// Pair names the two labellers ("A/B"), or "all" for every stretch,
	// each one's first judgement against its second.
	Pair string
	// Stretches counts the stretches both judged; Agreed those they gave
	// the same label.
	Stretches, Agreed int
	// Kappa is Cohen's kappa: the agreement beyond what the two
	// labellers' own label frequencies give by chance,
	// (observed - expected) / (1 - expected). NaN when chance alone
	// explains every agreement (both gave every stretch one label).
	Kappa float64
	// Disagreements counts the stretches by the two labels given when
	// they differ, the labels in Kind order ("progress/stagnation").
	Disagreements map[string]int
}

// Agreements measures the labellers' agreement: one entry per pair of
// labellers, in the order the pairs first appear, then "all".
func Agreements(labels []Label) []Agreement {
	var pairs []string
	byPair := map[string][][2]Kind{}
	var all [][2]Kind
	for _, l := range labels {
		if len(l.Votes) != 2 {
			continue
		}
		p := l.Votes[0].By + "/" + l.Votes[1].By
		if _, ok := byPair[p]; !ok {
			pairs = append(pairs, p)
		}
		j := [2]Kind{l.Votes[0].Label, l.Votes[1].Label}
		byPair[p] = append(byPair[p], j)
		all = append(all, j)
	}
	var out []Agreement
	for _, p := range pairs {
		out = append(out, agreement(p, byPair[p]))
	}
	return append(out, agreement("all", all))
}

// agreement measures one list of paired judgements.
func agreement(pair string, js [][2]Kind) Agreement {
	a := Agreement{Pair: pair, Stretches: len(js), Disagreements: map[string]int{}}
	first, second := map[Kind]int{}, map[Kind]int{}
	for _, j := range js {
		first[j[0]]++
		second[j[1]]++
		if j[0] == j[1] {
			a.Agreed++
			continue
		}
		ks := []Kind{j[0], j[1]}
		slices.Sort(ks)
		a.Disagreements[ks[0].String()+"/"+ks[1].String()]++
	}
	n := float64(len(js))
	if n == 0 {
		a.Kappa = math.NaN()
		return a
	}
	expected := 0.0
	for _, k := range []Kind{Progress, Stagnation, Unclear} {
		expected += float64(first[k]) * float64(second[k]) / (n * n)
	}
	observed := float64(a.Agreed) / n
	if expected == 1 {
		a.Kappa = math.NaN()
	} else {
		a.Kappa = (observed - expected) / (1 - expected)
	}
	return a
}

// DisagreementText lists the disagreements, most frequent first, as
// "7 unclear/stagnation, 3 progress/unclear".
func (a Agreement) DisagreementText() string {
	keys := sortedKeys(a.Disagreements)
	slices.SortStableFunc(keys, func(x, y string) int { return a.Disagreements[y] - a.Disagreements[x] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", a.Disagreements[k], k)
	}
	return strings.Join(parts, ", ")
}
