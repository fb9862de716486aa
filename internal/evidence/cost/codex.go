package cost

// Codex's `codex exec --json` events. turn.completed carries the usage of
// the thread so far (input_tokens, of which cached_input_tokens were read
// from the cache, and output_tokens): the last one of a thread is its
// total, and a log of several threads (each begins with thread.started)
// adds up each thread's last. Codex reports no dollars. A thread resumed
// from an earlier iteration counts from its start.

// codexSum adds up threads.
type codexSum struct {
	done      int64 // the totals of the threads before the current one
	doneKnown bool
	last      int64 // the current thread's newest total
	lastKnown bool
}

// thread starts a new thread: the current one's total is final.
func (m *meter) thread() {
	c := &m.codex
	if c.lastKnown {
		c.done += c.last
		c.doneKnown = true
	}
	c.last, c.lastKnown = 0, false
}

// turn applies a turn.completed event.
func (m *meter) turn(ev *event, where string) {
	u := ev.Usage
	if u == nil {
		m.note("the turn.completed on %s has no usage: its tokens are unknown", where)
		return
	}
	n, given, bad := u.tokens(&u.Input, &u.Output)
	switch {
	case bad || u.CachedInput.bad:
		m.note("the turn.completed on %s has a usage that is not a set of token counts: its tokens are unknown", where)
	case given:
		m.codex.last, m.codex.lastKnown = n, true
	}
}

// sum is every thread's total.
func (c *codexSum) sum() (int64, bool) {
	return c.done + c.last, c.doneKnown || c.lastKnown
}
