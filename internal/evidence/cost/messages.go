package cost

import "cmp"

// The usage of each assistant message: the lines of a Claude Code
// transcript (~/.claude/projects/…/SESSION.jsonl), and the assistant
// events of a stream-json run that ended before its result. A response
// written as several lines (text, then each tool call) repeats one message
// id and one usage: it is counted once, with the largest output count
// (Anthropic's cost-tracking documentation). Dollars come only from a
// line's own costUSD (older transcripts carry one); without it the tokens
// are all there is.

// messageSum adds up assistant messages by id (a message without one is
// known by its line).
type messageSum struct {
	byID map[string]messageCost
	full bool // maxMessages ids are remembered; later ones were not counted
}

// messageCost is one message's figures.
type messageCost struct {
	tokens int64
	output float64 // the output count, to keep the fullest of a repeated id
	usd    float64
	priced bool // the message carries costUSD
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
	mc := messageCost{tokens: n, output: u.Output.v}
	if f := ev.CostUSD; f != nil && f.bad {
		m.note("the message on %s has a costUSD that is not a non-negative number: its dollars are unknown", where)
	} else if f != nil && f.set {
		mc.usd, mc.priced = f.v, true
	}
	s := &m.messages
	id := cmp.Or(ev.Message.ID, where)
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
	case !seen || mc.output >= old.output:
		s.byID[id] = mc
	}
}

// messageSum is the messages' dollars (when any carried costUSD; a note
// says when some did not) and tokens.
func (m *meter) messageSum() (usd float64, usdKnown bool, tokens int64, tokensKnown bool) {
	priced := 0
	for _, mc := range m.messages.byID {
		tokens += mc.tokens
		if mc.priced {
			usd += mc.usd
			priced++
		}
	}
	if n := len(m.messages.byID); priced > 0 && priced < n {
		m.note("%d of %d messages carry no costUSD: the dollars cover the other %d", n-priced, n, priced)
	}
	return usd, priced > 0, tokens, true
}
