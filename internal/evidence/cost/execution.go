package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// claude-code-action's execution file (its execution_file output) is one
// JSON array of the run's messages, pretty-printed: the system message,
// the assistant and user messages and the result, as stream-json writes
// them one a line.

// isArray reports whether a log that starts with head is a JSON array of
// objects (a text log may start with "[12:00] …").
func isArray(head []byte) bool {
	const space = " \t\r\n"
	head = bytes.TrimLeft(head, space)
	if len(head) == 0 || head[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(head[1:], space)
	return len(rest) > 0 && (rest[0] == '{' || rest[0] == ']')
}

// document reads the elements of the JSON array r.
func (m *meter) document(r io.Reader) {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil {
		return
	}
	for n := 1; dec.More(); n++ {
		var ev event
		err := dec.Decode(&ev)
		var typeErr *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typeErr):
			continue // a value that is not an event object
		case err != nil:
			m.note("the JSON document breaks off at value %d: the rest was not read for a cost", n)
			return
		}
		m.event(&ev, fmt.Sprintf("value %d", n))
	}
}
