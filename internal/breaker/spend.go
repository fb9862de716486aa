package breaker

import (
	"fmt"
	"math"
	"strconv"
)

// Cost is what an iteration cost, as its agent reported it: dollars,
// tokens, or both; a nil field was not reported.
type Cost struct {
	USD    *float64 `json:"usd,omitempty"`
	Tokens *int64   `json:"tokens,omitempty"`
}

// Bounds on one iteration's cost.
const (
	MaxUSD    = 1_000_000
	MaxTokens = 1_000_000_000_000
)

// Spend is what the iterations since the last reset reported spending,
// and the part of it since the last progress (which progress clears).
// Dollars are kept in micro-dollars, so that sums are exact.
type Spend struct {
	Micros              int64 `json:"usd_micros"`
	MicrosSinceProgress int64 `json:"usd_micros_since_progress"`
	USDKnown            bool  `json:"usd_known,omitempty"`
	Tokens              int64 `json:"tokens"`
	TokensSinceProgress int64 `json:"tokens_since_progress"`
	TokensKnown         bool  `json:"tokens_known,omitempty"`
}

// check rejects a cost no agent reports.
func (c *Cost) check() error {
	if c == nil {
		return nil
	}
	if v := c.USD; v != nil && !(*v >= 0 && *v <= MaxUSD) {
		return fmt.Errorf("cost of %v dollars is out of range: want 0 to %d", *v, MaxUSD)
	}
	if n := c.Tokens; n != nil && (*n < 0 || *n > MaxTokens) {
		return fmt.Errorf("cost of %d tokens is out of range: want 0 to %d", *n, int64(MaxTokens))
	}
	return nil
}

// addSpend counts an iteration's cost since the reset and, unless it made
// progress, since the last progress.
func (s *Snapshot) addSpend(c *Cost, progress bool) {
	if s.Spend != nil && progress {
		s.Spend.MicrosSinceProgress, s.Spend.TokensSinceProgress = 0, 0
	}
	if c == nil || (c.USD == nil && c.Tokens == nil) {
		return
	}
	if s.Spend == nil {
		s.Spend = &Spend{}
	}
	sp := s.Spend
	if c.USD != nil {
		m := int64(math.Round(*c.USD * 1e6))
		sp.Micros, sp.USDKnown = saturated(sp.Micros, m), true
		if !progress {
			sp.MicrosSinceProgress = saturated(sp.MicrosSinceProgress, m)
		}
	}
	if c.Tokens != nil {
		sp.Tokens, sp.TokensKnown = saturated(sp.Tokens, *c.Tokens), true
		if !progress {
			sp.TokensSinceProgress = saturated(sp.TokensSinceProgress, *c.Tokens)
		}
	}
}

// saturated is a+b for non-negative a and b, at most math.MaxInt64.
func saturated(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// cloneCost copies a cost, so that the breaker keeps none of the
// caller's memory.
func cloneCost(c *Cost) *Cost {
	if c == nil {
		return nil
	}
	return &Cost{USD: clonePtr(c.USD), Tokens: clonePtr(c.Tokens)}
}

// spent puts the sums in the decision.
func (d *Decision) spent(sp *Spend) {
	if sp == nil {
		return
	}
	if sp.USDKnown {
		a, b := float64(sp.Micros)/1e6, float64(sp.MicrosSinceProgress)/1e6
		d.SpentUSD, d.SpentSinceProgressUSD = &a, &b
	}
	if sp.TokensKnown {
		a, b := sp.Tokens, sp.TokensSinceProgress
		d.SpentTokens, d.SpentSinceProgressTokens = &a, &b
	}
}

// checkSpend watches from spend_warning_percent of a limit without
// progress and warns from it for a cap since the reset; both trip at it.
func checkSpend(c *ruleCheck) {
	sp, s := c.r.Spend, c.s.Spend
	if s == nil {
		return
	}
	share := sp.SpendWarningPercent / 100
	fire := func(known bool, spent, limit float64, soft firingKind, trip, warn string, show func(float64) string) {
		switch {
		case !known || limit <= 0:
		case spent >= limit:
			c.fire(kindTrip, trip, show(spent), show(limit))
		case share > 0 && spent >= share*limit:
			c.fire(soft, warn, show(spent), show(limit))
		}
	}
	usd := func(v float64) string { return Dollars(v) }
	tokens := func(v float64) string { return Tokens(int64(v)) }
	fire(s.USDKnown, float64(s.MicrosSinceProgress)/1e6, sp.MaxUSDWithoutProgress, kindWatch,
		"%s spent since the last progress (max_usd_without_progress %s)", "%s spent since the last progress, near max_usd_without_progress %s", usd)
	fire(s.TokensKnown, float64(s.TokensSinceProgress), float64(sp.MaxTokensWithoutProgress), kindWatch,
		"%s tokens spent since the last progress (max_tokens_without_progress %s)", "%s tokens spent since the last progress, near max_tokens_without_progress %s", tokens)
	fire(s.USDKnown, float64(s.Micros)/1e6, sp.MaxUSD, kindWarn,
		"%s spent since the last reset (max_usd %s)", "spend: %s of at most %s since the last reset", usd)
	fire(s.TokensKnown, float64(s.Tokens), float64(sp.MaxTokens), kindWarn,
		"%s tokens spent since the last reset (max_tokens %s)", "spend: %s of at most %s tokens since the last reset", tokens)
}

// Dollars formats an amount of money as reports show it: "$4.10".
func Dollars(v float64) string { return fmt.Sprintf("$%.2f", v) }

// Tokens formats a token count with thousands separators: "1,250,000".
func Tokens(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
