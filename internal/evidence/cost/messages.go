package cost

// The usage of each assistant message: the lines of a Claude Code
// transcript (~/.claude/projects/…/SESSION.jsonl), and the assistant
// events of a stream-json run that ended before its result. A response
// written as several lines (text, then each tool call) repeats one message
// id and one usage: it is counted once, with the largest output count
// (Anthropic's cost-tracking documentation). Dollars come only from a
// line's own costUSD (older transcripts carry one); without it the tokens
// are all there is.

// messageSum adds up assistant messages by id.
type messageSum struct {
	count int
	byID  map[string]messageCost
	// anon are the messages without an id, each counted.
	anon messageCost
	full bool // maxMessages ids are remembered; later ones were not counted
}

// messageCost is one message's (or the id-less ones') figures.
type messageCost struct {
	tokens  int64
	output  float64 // the output count, to keep the fullest of a repeated id
	usd     float64
	priced  int // messages that carry costUSD
	counted int // messages counted
}

// message applies an assistant message's usage.
func (m *meter) message(ev *event, where string) {
	u := ev.Message.Usage
	if u == nil {
		return
	}
	n, given, bad := claudeTokens(u)
	if bad {
		m.note("the message on %s has a usage that is not a set of token counts: it was not counted", where)
	}
	if !given {
		return
	}
	mc := messageCost{tokens: n, output: u.Output.v, counted: 1}
	if f := ev.CostUSD; f != nil && f.bad {
		m.note("the message on %s has a costUSD that is not a non-negative number: its dollars are unknown", where)
	} else if f != nil && f.set {
		mc.usd, mc.priced = f.v, 1
	}
	s := &m.messages
	id := ev.Message.ID
	if id == "" {
		s.count++
		s.anon = messageCost{tokens: s.anon.tokens + mc.tokens, usd: s.anon.usd + mc.usd,
			priced: s.anon.priced + mc.priced, counted: s.anon.counted + 1}
		return
	}
	if s.byID == nil {
		s.byID = map[string]messageCost{}
	}
	old, seen := s.byID[id]
	switch {
	case !seen && len(s.byID) >= maxMessages:
		if !s.full {
			s.full = true
			m.note("more than %d messages: the later ones were not counted", maxMessages)
		}
	case !seen:
		s.count++
		s.byID[id] = mc
	case mc.output >= old.output:
		s.byID[id] = mc
	}
}

// sum is the messages' dollars (when any carried costUSD) and tokens.
func (s *messageSum) sum() (usd float64, usdKnown bool, tokens int64, tokensKnown bool) {
	all := s.anon
	for _, mc := range s.byID {
		all.tokens += mc.tokens
		all.usd += mc.usd
		all.priced += mc.priced
		all.counted += mc.counted
	}
	return all.usd, all.priced > 0, all.tokens, all.counted > 0
}

// pricedShare notes messages without costUSD beside priced ones: the
// dollars cover only the priced ones.
func (m *meter) pricedShare() {
	s := &m.messages
	priced, counted := s.anon.priced, s.anon.counted
	for _, mc := range s.byID {
		priced += mc.priced
		counted += mc.counted
	}
	if priced > 0 && priced < counted {
		m.note("%d of %d messages carry no costUSD: the dollars cover the other %d", counted-priced, counted, priced)
	}
}
