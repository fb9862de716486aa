package agentlog

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/textcut"
)

// event is one Claude CLI JSON object: a stream-json line, an element of
// the verbose json array, or the json output's single result object.
type event struct {
	Type              string     `json:"type"`
	Subtype           string     `json:"subtype"`
	IsError           bool       `json:"is_error"`
	Result            content    `json:"result"`
	Message           *message   `json:"message"`
	PermissionDenials denialList `json:"permission_denials"`
}

// denialList counts the entries of a permission_denials array.
type denialList struct {
	seen bool // the value was an array
	n    int
}

// UnmarshalJSON counts an array's entries; any other value is ignored.
func (d *denialList) UnmarshalJSON(b []byte) error {
	var entries []json.RawMessage
	if b[0] == '[' && json.Unmarshal(b, &entries) == nil {
		d.seen, d.n = true, len(entries)
	}
	return nil
}

// message is an assistant or user message.
type message struct {
	Content content `json:"content"`
}

// content is a message's or a tool result's content: a string or blocks.
type content struct {
	Text   *string
	Blocks []contentBlock
}

// UnmarshalJSON reads a string or an array of blocks; anything else, or
// blocks of the wrong shape, leave c (partly) empty rather than failing the
// whole event.
func (c *content) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		var s string
		if json.Unmarshal(b, &s) == nil {
			c.Text = &s
		}
	case '[':
		_ = json.Unmarshal(b, &c.Blocks)
	}
	return nil
}

// contentBlock is one element of a content array.
type contentBlock struct {
	Type    string  `json:"type"`
	Text    string  `json:"text"`
	Name    string  `json:"name"`
	Content content `json:"content"`
}

// knownTypes are the event types the Claude CLI writes.
var knownTypes = map[string]bool{
	"system": true, "assistant": true, "user": true, "result": true,
	"stream_event": true, "control_request": true, "control_response": true,
}

// jsonValue reads b as agent JSON: an event object or an array of them. It
// reports false, having changed nothing, when b is not JSON or holds no
// event, so that the caller reads it as text.
func (a *analyzer) jsonValue(b []byte) bool {
	switch b[0] {
	case '{':
		var ev event
		if !decode(b, &ev) || !ev.known() {
			return false
		}
		a.event(&ev)
		return true
	case '[':
		var evs []event
		if !decode(b, &evs) {
			return false
		}
		known := 0
		for i := range evs {
			if evs[i].known() {
				a.event(&evs[i])
				known++
			}
		}
		return known > 0
	}
	return false
}

// decode unmarshals b into v. A value of the wrong type somewhere inside
// (a number where text was expected) only leaves that field empty; invalid
// JSON fails.
func decode(b []byte, v any) bool {
	err := json.Unmarshal(b, v)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}

// known reports whether ev looks like Claude CLI output.
func (ev *event) known() bool {
	if ev.Type == "" {
		return ev.Result.Text != nil || ev.PermissionDenials.seen
	}
	return knownTypes[ev.Type]
}

// event applies one Claude CLI event.
func (a *analyzer) event(ev *event) {
	switch ev.Type {
	case "assistant":
		if ev.Message != nil {
			a.content(&ev.Message.Content, srcAgent)
		}
	case "user":
		if ev.Message != nil {
			a.content(&ev.Message.Content, srcTool)
		}
	case "result", "":
		a.result(ev)
	}
}

// result applies the final result object: its denials and, unless the
// assistant's messages were already read, its text.
func (a *analyzer) result(ev *event) {
	if ev.PermissionDenials.seen {
		a.jsonDenials += ev.PermissionDenials.n
		a.sawDenialList = true
	}
	if ev.IsError && strings.HasPrefix(ev.Subtype, "error") {
		a.note("agent run on line %d ended with %q", a.lines, textcut.Bytes(ev.Subtype, maxNoteValue, ""))
	}
	if !a.sawAgentText && ev.Result.Text != nil {
		a.unit(*ev.Result.Text, srcAgent)
	}
}

// content applies a message's content. In an assistant message (srcAgent)
// text is the agent's words and an AskUserQuestion call is a question; in a
// user message (srcTool) text is the prompt, which is skipped, and tool
// results are tool output.
func (a *analyzer) content(c *content, src source) {
	if c.Text != nil && src == srcAgent {
		a.sawAgentText = true
		a.unit(*c.Text, srcAgent)
	}
	for i := range c.Blocks {
		b := &c.Blocks[i]
		switch {
		case b.Type == "text" && src == srcAgent:
			a.sawAgentText = true
			a.unit(b.Text, srcAgent)
		case b.Type == "tool_use" && b.Name == "AskUserQuestion":
			a.questions = true
		case b.Type == "tool_result":
			a.toolResult(&b.Content)
		}
	}
}

// toolResult reads a tool result's content, a string or text blocks.
func (a *analyzer) toolResult(c *content) {
	if c.Text != nil {
		a.unit(*c.Text, srcTool)
	}
	for i := range c.Blocks {
		if c.Blocks[i].Type == "text" {
			a.unit(c.Blocks[i].Text, srcTool)
		}
	}
}
