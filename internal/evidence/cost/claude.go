package cost

// Claude Code's result: the one object of `claude -p --output-format
// json`, and the event that ends `--output-format stream-json`. Its
// total_cost_usd is the run's dollars and its usage the run's cumulative
// tokens (Anthropic's cost-tracking documentation: the result message
// carries the total over every step). A log of several runs has one result
// each; they are added up.

// claudeSum adds up result events.
type claudeSum struct {
	results     int
	usd         float64
	usdKnown    bool
	tokens      int64
	tokensKnown bool
}

// result applies a result event.
func (m *meter) result(ev *event, where string) {
	c := &m.claude
	c.results++
	switch f := ev.TotalCostUSD; {
	case f == nil || (!f.set && !f.bad):
		m.note("the result on %s has no total_cost_usd: its dollars are unknown", where)
	case f.bad:
		m.note("the result on %s has a total_cost_usd that is not a non-negative number: its dollars are unknown", where)
	default:
		c.usd += f.v
		c.usdKnown = true
	}
	if ev.Usage == nil {
		return
	}
	switch n, given, bad := claudeTokens(ev.Usage); {
	case bad:
		m.note("the result on %s has a usage that is not a set of token counts: its tokens are unknown", where)
	case given:
		c.tokens += n
		c.tokensKnown = true
	}
}

// claudeTokens is every token of a Claude usage: input, cache writes,
// cache reads and output (Claude's input_tokens leaves the cached ones
// out).
func claudeTokens(u *usage) (sum int64, given, bad bool) {
	return u.tokens(&u.Input, &u.CacheCreation, &u.CacheRead, &u.Output)
}
